"""A profiled program's step timed untraced: the wall a prediction is held against.

The profiler's own steps run traced (events recorded), so the step a user pays is timed apart
(perfcore.measure.profile.predict.versus.step_wall: isolated synchronized calls of the jitted
step) and kept as a record of experiment `step wall` beside the profile's records, labelled as
the step record it belongs to (docs/results-format.md).
"""

from __future__ import annotations

from perfcore.measure.clock.harness import Measurement
from perfcore.measure.results.record import Record

WALL = "step wall"  # the experiment of a profiled program's untraced step
HOW = "timed untraced: isolated synchronized calls of the jitted step"


def wall_record(step: Record, measurement: Measurement) -> Record:
    """The untraced step wall of a profiled program, labelled as its step record."""
    return Record(
        experiment=WALL,
        label=step.label,
        device=step.device,
        spec_name=step.spec_name,
        backend=step.backend,
        jax_version=step.jax_version,
        timestamp=step.timestamp,
        measurement=measurement,
        notes=(HOW,),
    )


def walls(records: tuple[Record, ...]) -> dict[str, Record]:
    """The untraced step walls in the records, by the label of the step they belong to."""
    return {r.label: r for r in records if r.experiment == WALL}
