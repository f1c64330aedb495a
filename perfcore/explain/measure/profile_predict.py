"""The Profile page's predictions: each op's predicted time beside its measured one, the step's
totals, and the ops that miss by more than the kernel curves' own spread.

A results file of `python -m perfcore profile --predict` or bench/bundled_profile.py carries each
op's `predicted_s` and what it was derived from, the step's predicted time, the untraced step
wall (experiment `step wall`) and the `kernels` records the curves come from. They are read back
as a Versus (perfcore.measure.profile.predict.versus), so the page says what the CLI says (explain.
predict). Where the file holds no untraced wall, the step's device span under the profiler
stands in, said as such; where it holds no curves, no spread is known and no op is named.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfcore import format as fmt
from perfcore.explain.measure import predict as explain_predict
from perfcore.measure.clock.harness import Measurement
from perfcore.measure.profile.judge import joined
from perfcore.measure.profile.judge.records import (
    in_body,
    profile_records,
    step_records,
    unended,
    what,
)
from perfcore.measure.profile.predict import wall
from perfcore.measure.profile.predict.op import UNKNOWN_TRIPS
from perfcore.measure.profile.predict.program import Prediction
from perfcore.measure.profile.predict.versus import (
    OpVersus,
    Versus,
    tallied,
    with_prediction,
)
from perfcore.measure.results import Record, curves

NO_CURVES = "no kernel curves in these records: no spread to hold the ops to, none named"
NAMED = 8  # the slowest ops that missed, named in the line and on the chart


def predicted_records(
    records: tuple[Record, ...], predicted: Prediction, untraced: Measurement, kernels=()
) -> tuple[Record, ...]:
    """A profile's records with its prediction, each step's untraced wall and the `kernels`
    records the prediction came from: what a results file of a predicted profile holds."""
    ops = with_prediction(records, predicted)
    walls = tuple(wall.wall_record(s, untraced) for s in step_records(ops))
    return (*ops, *walls, *kernels)


def held(records: tuple[Record, ...]) -> tuple[Versus, str] | None:
    """The records' prediction against their measurement, and what the step's wall is; None
    when the records carry no predicted step."""
    steps = [s for s in step_records(records) if s.predicted_s is not None]
    if not steps:
        return None
    rows = []
    for r in profile_records(records):
        if unended(r) or in_body(r):  # not held, or a loop's control: its body's ops hold it
            continue
        if r.predicted_s is None or r.measurement.median <= 0:
            rows.append((what(r), None, r.measurement.median, None))
            continue
        op = OpVersus(
            name=what(r),
            category=r.category,
            kernel=r.kernel,
            source=r.source,
            predicted_s=r.predicted_s,
            measured_s=r.measurement.median,
            fastest_s=joined.fastest(r.measurement.samples),
            derived_from=r.predicted_from,
            alone_s=r.predicted_s,  # a record holds one predicted time: inside the step
        )
        once = UNKNOWN_TRIPS in r.predicted_from  # priced once a step: held at the counted runs
        rows.append((op.name, op, r.measurement.median, (r.occurrences or 1) if once else None))
    step = steps[0]
    untraced = wall.walls(records).get(step.label)
    m = (untraced or step).measurement
    whence = (
        f"untraced wall, fastest of {m.n} isolated synchronized calls, median "
        f"{fmt.seconds(m.median)}"
        if untraced
        else f"device span under the profiler, fastest of {m.n} steps, median "
        f"{fmt.seconds(m.median)} (no untraced wall in the file)"
    )
    open_ended = tuple(what(r) for r in profile_records(records) if unended(r))
    held = Versus(
        predicted_step_s=step.predicted_s,
        wall_s=m.min,
        traced_wall_s=None,
        wall_median_s=m.median,
        unended=open_ended,
        **tallied(rows),
    )
    return held, whence


def spread(records: tuple[Record, ...]) -> float | None:
    """The kernel curves' own median spread (IQR / median) in the records; None without curves."""
    found = curves.curves(records)
    return curves.median_spread(found) if found is not None else None


def totals_line(versus: Versus, whence: str, records: tuple[Record, ...]) -> str:
    """The step predicted (ops plus dispatch, and from what) against its measured wall."""
    step = next(s for s in step_records(records) if s.predicted_s is not None)
    matmuls = explain_predict.matmul_errors(versus)
    return (
        f"Step: predicted {fmt.seconds(versus.predicted_step_s)} (its ops plus dispatch, "
        f"{step.predicted_from}) against {fmt.seconds(versus.wall_s)} measured ({whence}): "
        f"error {versus.step_error:+.0%}; {matmuls}."
    )


def missed_line(versus: Versus, within: float | None) -> str:
    """Which ops miss by more than the curves' own spread, slowest first."""
    if within is None:
        return f"Per op: {NO_CURVES}."
    names = explain_predict.missed(versus, within)
    if not names:
        return f"Every predicted op is within the curves' own spread ({fmt.percent(within)})."
    more = len(names) - NAMED
    shown = ", ".join(names[:NAMED]) + (f" and {more} more" if more > 0 else "")
    return (
        f"{len(names)} of {len(versus.ops)} predicted ops miss by more than the curves' own "
        f"spread ({fmt.percent(within)}, median IQR / median of the kernel points): {shown}."
    )


@dataclass(frozen=True)
class Shown:
    """What the page shows of a prediction: its lines, the ops held (slowest measured first),
    the slowest ops that missed (at most NAMED), the curves' spread. Frozen and hashable: the
    chart is built once per input."""

    lines: tuple[str, ...]
    ops: tuple[OpVersus, ...]
    missed: tuple[str, ...]
    spread: float | None


def shown(records: tuple[Record, ...]) -> Shown | None:
    """The records' prediction as the page shows it; None when they carry none."""
    found = held(records)
    if found is None:
        return None
    versus, whence = found
    within = spread(records)
    lines = (
        totals_line(versus, whence, records),
        missed_line(versus, within),
        *explain_predict.unended_lines(versus),
        *explain_predict.unmatched_lines(versus),
        *explain_predict.counted_lines(versus),
    )
    names = explain_predict.missed(versus, within)[:NAMED] if within is not None else []
    ops = tuple(sorted(versus.ops, key=lambda o: -o.measured_s))
    return Shown(lines, ops, tuple(names), within)
