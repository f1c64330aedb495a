"""A prediction held against its program's profile: every op predicted beside measured, and
the predicted step beside the step's wall time.

Ops are matched by name (the HLO instruction the profile's events name), the prediction
being an op's time inside the step where the step was scheduled (sharing the cores with the
ops beside it, as the profile times it: Prediction.inside_s), else its time alone. Every curve
point a prediction rests on is a kernel's fastest call (noise on a shared machine only adds
time; the dispatch it adds, a few microseconds, is the median launch), so what it predicts is
the fastest: an op's error is (predicted - fastest) / fastest of its time per step over the
profiled steps, its error against its median step kept beside it; the step's error is of the
predicted step against the fastest of the step's untraced calls (isolated, synchronized), the
median wall and the traced wall kept beside it, and
the minor page faults a step took untraced (clock.faults) beside the fresh pages the prediction
priced. The profile's records get the prediction as `predicted_s`, `predicted_from` and `kernel`
(docs/results-format.md, version 4).
"""

from __future__ import annotations

import dataclasses
import statistics
from dataclasses import dataclass

from perfcore.measure.clock import faults, harness
from perfcore.measure.clock.lock import LOCK
from perfcore.measure.profile import hlo
from perfcore.measure.profile.judge.joined import Profile
from perfcore.measure.profile.judge.records import STEP
from perfcore.measure.profile.predict.op import OpPrediction
from perfcore.measure.profile.predict.program import Prediction, predict
from perfcore.measure.profile.run import arguments, profile
from perfcore.measure.results.record import Record
from perfcore.model.chip.kernels import Curves


@dataclass(frozen=True)
class OpVersus:
    """One op: predicted, fastest and median measured time per step (s), and the signed
    errors."""

    name: str
    category: str
    kernel: str
    source: str
    predicted_s: float  # inside the step where scheduled, else alone
    measured_s: float  # median over the profiled steps
    fastest_s: float  # fastest of the profiled steps
    derived_from: str
    alone_s: float  # predicted alone, on every core it asks for

    @property
    def error(self) -> float:
        """(predicted - fastest) / fastest, a signed fraction: what the curves' fastest
        calls predict, against the op's fastest step."""
        return (self.predicted_s - self.fastest_s) / self.fastest_s

    @property
    def median_step_error(self) -> float:
        """(predicted - median) / median, a signed fraction: against the op's median step."""
        return (self.predicted_s - self.measured_s) / self.measured_s


@dataclass(frozen=True)
class Versus:
    """Every matched op, the predicted step against the measured wall, and the ops missed."""

    ops: tuple[OpVersus, ...]
    predicted_step_s: float
    wall_s: float  # fastest untraced step wall, seconds
    traced_wall_s: float | None  # median step wall under the profiler, seconds
    unmatched: tuple[str, ...]  # profiled ops with no prediction
    wall_median_s: float | None = None  # median untraced step wall, seconds
    unended: tuple[str, ...] = ()  # ops whose end was not traced (joined.Op.open_end): not held
    unmatched_s: float = 0.0  # measured seconds per step of the ops with no prediction
    counted: tuple[str, ...] = ()  # ops of loops of unknown trip count, held at the profile's
    counted_s: float = 0.0  # what those ops add at the profile's counts over once a step
    faults: float | None = None  # minor page faults a step measured untraced; None: not counted
    fresh_bytes: float = 0.0  # the fresh pages' bytes a step the prediction priced

    @property
    def step_error(self) -> float:
        """(predicted step - fastest untraced wall) / that wall, a signed fraction."""
        return (self.predicted_step_s - self.wall_s) / self.wall_s

    def median_error(self, category: str = hlo.MATMUL, of_median: bool = False) -> float | None:
        """Median |error| of the ops of a category, against each op's fastest step (against
        its median step where `of_median`); None when it has none."""
        errors = [
            abs(o.median_step_error if of_median else o.error)
            for o in self.ops
            if o.category == category
        ]
        return statistics.median(errors) if errors else None


def at_counted_runs(op: OpVersus, runs: int) -> tuple[OpVersus, float]:
    """An op of a loop of unknown trip count (priced once a step) held at the `runs` a step
    the profile counted, said so; and the seconds that adds to its prediction."""
    if runs <= 1:
        return op, 0.0
    held = dataclasses.replace(
        op,
        predicted_s=op.predicted_s * runs,
        alone_s=op.alone_s * runs,
        derived_from=f"{op.derived_from}; held at the {runs} runs a step the profile counted",
    )
    return held, held.predicted_s - op.predicted_s


def tallied(rows) -> dict:
    """Versus's op fields from each profiled op held: rows of (name, its OpVersus, or None
    where it has no prediction, its measured seconds a step, and the runs a step the profile
    counted where it was priced once a step, else None)."""
    ops, unmatched, unmatched_s, counted, counted_s = [], [], 0.0, [], 0.0
    for name, held, measured_s, runs in rows:
        if held is None:
            unmatched.append(name)
            unmatched_s += measured_s
            continue
        if runs is not None:
            held, added = at_counted_runs(held, runs)
            counted, counted_s = [*counted, held.name], counted_s + added
        ops.append(held)
    return {
        "ops": tuple(ops),
        "unmatched": tuple(unmatched),
        "unmatched_s": unmatched_s,
        "counted": tuple(counted),
        "counted_s": counted_s,
    }


def versus(
    prediction: Prediction,
    profile: Profile,
    wall: harness.Measurement,
    page_faults: float | None = None,
) -> Versus:
    """The prediction against the profile of the same program, its untraced step walls and
    the minor page faults a step took (clock.faults; None where not counted)."""
    predicted = {o.name: o for o in prediction.ops if o.predicted_s is not None}
    rows = []
    for op in profile.ops:
        p = predicted.get(op.name)
        if op.open_end or op.opcode in hlo.CONTROL:  # a loop's control: its body's ops hold it
            continue
        if p is None or op.median_s <= 0:
            rows.append((op.name, None, op.median_s, None))
            continue
        inside = prediction.inside_s(op.name)
        held = OpVersus(
            op.name,
            op.category,
            p.kernel,
            op.source,
            p.predicted_s if inside is None else inside,
            op.median_s,
            op.fastest_s,
            p.derived_from,
            p.predicted_s,
        )
        rows.append((op.name, held, op.median_s, None if p.trips_known else op.occurrences))
    traced = [c for c in profile.call_s]
    return Versus(
        predicted_step_s=prediction.step_s,
        wall_s=wall.min,
        traced_wall_s=statistics.median(traced) if traced else None,
        wall_median_s=wall.median,
        unended=tuple(op.name for op in profile.ops if op.open_end),
        faults=page_faults,
        fresh_bytes=prediction.fresh_bytes,
        **tallied(rows),
    )


def _predicted(record: Record, op: OpPrediction | None) -> Record:
    """An op's record with its prediction; unchanged when there is none."""
    if op is None or op.predicted_s is None:
        return record
    return dataclasses.replace(
        record, predicted_s=op.predicted_s, predicted_from=op.derived_from, kernel=op.kernel
    )


def with_prediction(records: tuple[Record, ...], prediction: Prediction) -> tuple[Record, ...]:
    """Profile records with each op's predicted time, and the step record with the step's."""
    by_name = {o.name: o for o in prediction.ops}
    out = []
    for r in records:
        if r.category == STEP:
            whence = prediction.step_from
            out.append(dataclasses.replace(r, predicted_s=prediction.step_s, predicted_from=whence))
        else:
            out.append(_predicted(r, by_name.get(r.label)))
    return tuple(out)


def _calls(fn, args: tuple):
    """(a call of fn(*args) jitted, what readies its arguments outside the clock: a donating
    program's fresh copies), and jax."""
    import jax

    jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
    fresh, current = arguments(jax, jitted, args), [args]

    def prepare() -> None:
        current[0] = fresh()

    return (lambda: jitted(*current[0])), prepare, jax


def step_wall(fn, *args, repeats: int = 30) -> harness.Measurement:
    """fn(*args) jitted, timed untraced as isolated synchronized calls (seconds per step)."""
    call, prepare, jax = _calls(fn, args)
    with LOCK:
        return harness.measure(call, sync=jax.block_until_ready, repeats=repeats, prepare=prepare)


def step_faults(fn, *args, calls: int = 5) -> float | None:
    """The minor page faults a synchronized call of fn(*args) jitted takes (clock.faults)."""
    call, prepare, jax = _calls(fn, args)
    with LOCK:
        return faults.per_call(call, jax.block_until_ready, calls, prepare)


def hold(fn, *args, curves: Curves | None, steps: int = 5) -> tuple[Prediction, Profile, Versus]:
    """fn(*args) predicted before it runs, then its step wall timed untraced and its page
    faults counted, then profiled. The wall first: reading a capture fills the heap, and a
    step whose arena malloc would map fresh (graph.fresh_bytes) can then reuse a chunk it freed
    (a decode step's 32 MiB arena faulted 8,257 times a step while profiled and not at all in
    the walls after)."""
    predicted = predict(fn, *args, curves=curves)
    wall = step_wall(fn, *args)
    taken = step_faults(fn, *args)
    joined = profile(fn, *args, steps=steps)
    return predicted, joined, versus(predicted, joined, wall, taken)
