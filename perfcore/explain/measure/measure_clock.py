"""The timing lessons' rows: dispatch vs compute, the paired timings, min vs mean and spread.

The timing lessons, read from records: an unblocked clock measures the enqueue, a
first call measures the compile, blocking every call measures the round trip, and the
run-to-run spread of a min says how large a difference must be to be a result. Each time
is its record's named statistic (min of isolated calls, mean of a back-to-back loop).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from perfcore import format as fmt
from perfcore.measure.clock import harness
from perfcore.measure.clock.harness import Measurement, is_a_result
from perfcore.measure.results import Record

ALIKE = 2.0  # elementwise ops within this factor of each other take "similar time"
# experiment -> (a, b, title, the numbers, what the lesson concludes when b exceeds a).
PAIRS = {
    "timer": (
        "naive timer",
        "synchronized",
        "naive vs synchronized timer",
        "The naive timer reads {a} per call, the synchronized one {b} ({r})",
        "without block_until_ready the clock stops at the enqueue, not the work",
    ),
    "barriers": (
        "accumulate, read once",
        "read every step",
        "implicit barriers",
        "Reading a value every step costs {b} per step, accumulating on the device {a} ({r})",
        "synchronize once per minibatch at most",
    ),
    "compile": (
        "steady step",
        "first call",
        "compile vs steady state",
        "The first call took {b} (an upper bound on the compile), a steady step {a}",
        "one compile costs {k} steady steps",
    ),
    "blocking": (
        "block at the end",
        "block every call",
        "block at the end vs every call",
        "Blocking on every call costs {b} per call, blocking once at the end {a} ({r})",
        "blocking stops the host running ahead, so say which one you measured",
    ),
}


def verdict(a: Measurement, b: Measurement, conclusion: str) -> str:
    """The lesson's conclusion when b exceeds a by more than either's spread; else why not."""
    noise = max(a.spread, b.spread)
    if b.statistic > a.statistic and is_a_result(a, b, noise):
        return f": {conclusion}."
    return f": within the spread of the two ({fmt.percent(noise)}), not a result yet here."


@dataclass(frozen=True)
class DispatchRow:
    """One size of dispatch vs compute: min of isolated calls, unblocked and blocked."""

    n: int
    dispatch_s: float
    compute_s: float


def dispatch(records: tuple[Record, ...]) -> list[DispatchRow]:
    """The dispatch experiment's sizes, smallest first: unblocked and blocked at each."""
    sized = [r for r in records if r.experiment == "dispatch" and r.size]
    got = {(int(r.size), r.measurement.synced): r.measurement.statistic for r in sized}
    both = sorted(n for n, synced in got if synced and (n, False) in got)
    return [DispatchRow(n, got[n, False], got[n, True]) for n in both]


def dispatch_table(rows: list[DispatchRow]) -> pd.DataFrame:
    """The clock's table: n, unblocked and blocked seconds (min of isolated calls), ratio."""
    df = pd.DataFrame(
        {
            "n": [r.n for r in rows],
            "dispatch, unblocked (min of isolated calls)": [r.dispatch_s for r in rows],
            "compute, blocked (min of isolated calls)": [r.compute_s for r in rows],
            "compute / dispatch": [r.compute_s / r.dispatch_s for r in rows],
        }
    )
    df.attrs["units"] = {
        "dispatch, unblocked (min of isolated calls)": "seconds",
        "compute, blocked (min of isolated calls)": "seconds",
        "compute / dispatch": "ratio",
    }
    return df


def dispatch_sentence(rows: list[DispatchRow]) -> str:
    """The timing lessons' reading of the table, with this run's numbers, if they bear it out."""
    if len(rows) < 2:
        return ""
    d, c = [r.dispatch_s for r in rows], [r.compute_s for r in rows]
    work, grew, flat = (rows[-1].n / rows[0].n) ** 3, c[-1] / c[0], max(d) / min(d)
    said = (
        f"The unblocked column sits between {fmt.seconds(min(d))} and {fmt.seconds(max(d))}; the "
        f"blocked one spans {fmt.seconds(c[0])} to {fmt.seconds(c[-1])}, a factor of "
        f"{fmt.ratio(grew)} for {fmt.ratio(work)} more arithmetic."
    )
    if grew > flat and c[-1] > max(d):
        return said + " An unblocked timing loop measures your Python, not your program."
    return said + " At these sizes the work is too small to pull the columns apart."


@dataclass(frozen=True)
class Pair:
    """Two timings of one experiment, each by its record's method, and their ratio b / a."""

    title: str
    a: str
    a_s: float
    a_method: str
    b: str
    b_s: float
    b_method: str
    sentence: str


def pairs(records: tuple[Record, ...]) -> list[Pair]:
    """The timing lessons' paired timings present in records, in PAIRS order."""
    found = {(r.experiment, r.label): r.measurement for r in records}
    out = []
    for experiment, (a, b, title, numbers, conclusion) in PAIRS.items():
        ma, mb = found.get((experiment, a)), found.get((experiment, b))
        if ma and mb:
            sa, sb = ma.statistic, mb.statistic
            said = numbers.format(a=fmt.seconds(sa), b=fmt.seconds(sb), r=fmt.ratio(sb / sa))
            words = said + verdict(ma, mb, conclusion.format(k=f"{sb / sa:.0f}"))
            out.append(Pair(title, a, sa, ma.method, b, sb, mb.method, words))
    return out


@dataclass(frozen=True)
class Spread:
    """Repeated runs of one isolated-call measurement, and the back-to-back mean beside them."""

    runs: tuple[tuple[str, tuple[float, ...]], ...]
    mins: tuple[float, ...]
    loop_mean: float | None
    run_to_run: float
    sentence: str


def spread(records: tuple[Record, ...]) -> Spread | None:
    """The spread experiment: each run's samples and min, the loop's mean, the spread."""
    mine = [r for r in records if r.experiment == "spread"]
    runs = [r for r in mine if r.measurement.method == harness.ISOLATED]
    if not runs:
        return None
    loop = next((r.measurement.mean for r in mine if r.measurement.method == harness.LOOP), None)
    mins = tuple(r.measurement.min for r in runs)
    fraction = harness.run_to_run_spread([r.measurement for r in runs])
    mean = f"; the mean of a back-to-back loop is {fmt.seconds(loop)}" if loop else ""
    sentence = (
        f"The min of isolated calls over {len(runs)} runs landed between "
        f"{fmt.seconds(min(mins))} and {fmt.seconds(max(mins))}{mean}. That is a run-to-run "
        f"spread of {fmt.percent(fraction)} with nothing changed: a difference smaller than "
        f"{fmt.percent(fraction)} is not a result yet."
    )
    samples = tuple((r.label, r.measurement.samples) for r in runs)
    return Spread(samples, mins, loop, fraction, sentence)


def elementwise_sentence(records: tuple[Record, ...]) -> str:
    """Whether add, mul, sin and sigmoid came out alike, and why (bandwidth-bound or not)."""
    ops_ = [r for r in records if r.experiment == "elementwise" and r.bytes]
    if len(ops_) < 2:
        return ""
    times = {r.label: r.measurement.median for r in ops_}
    fast, slow = min(times, key=times.get), max(times, key=times.get)
    apart = times[slow] / times[fast]
    head = (
        f"{', '.join(times)} on one array: {fmt.seconds(times[fast])} to "
        f"{fmt.seconds(times[slow])} per call (medians), {fmt.ratio(apart)} apart."
    )
    if apart < ALIKE:
        return head + " Alike: each moves the same bytes, and the arithmetic hides under them."
    return head + f" Not alike here: {slow}'s arithmetic costs more than its bytes on this device."
