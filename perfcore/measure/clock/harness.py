"""Backend-agnostic timing harness: warm up outside the clock, then sync, time, sync.

`fn()` enqueues work and returns its output; `sync(output)` waits for the device to
finish it. Samples are seconds per call, taken by one of two methods:
  "isolated calls, min"     one call per sample; min compares implementations.
  "back-to-back loop, mean" N calls then one sync per sample; mean is throughput.
`blocking=False` stops the clock before the sync: the naive timer, which sees dispatch only.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from perfcore.measure.clock import stats
from perfcore.measure.clock.schema import column

ISOLATED = "isolated calls, min"
LOOP = "back-to-back loop, mean"
IN_PROGRAM = "in-program loop, difference"
PROFILED = "device time, profiled"
METHODS = (ISOLATED, LOOP, IN_PROGRAM, PROFILED)
METHOD_DOC = (
    f"`{ISOLATED}` (one call per sample; compare implementations by the min), `{LOOP}` "
    f"(N calls then one sync; throughput is the mean), `{IN_PROGRAM}` (a kernel run k1 "
    "and k2 times in one program's loop, each sample a k2-iteration call less the fastest "
    f"k1-iteration call, over k2 - k1: its cost as a loop body's op, with no launch) or "
    f"`{PROFILED}` (one call per sample, its device time from a profiler trace: the sum of "
    "its program's op events, with no launch)"
)
SYNCED_DOC = (
    "`true` when the clock stopped after the device finished; `false` for the naive timer, "
    "which measures dispatch only"
)

# Relative IQR above which a Measurement is called noisy (torch.utils.benchmark's threshold).
NOISE_THRESHOLD = 0.1


@dataclass(frozen=True)
class Measurement:
    """Raw samples (seconds per call) and how they were taken; statistics are derived."""

    samples: tuple[float, ...] = column(
        "samples", "raw samples, seconds **per call**, at least one", name="samples_s"
    )
    calls_per_sample: int = column(
        "count1", "calls averaged into each sample; 1 for isolated calls", default=1
    )
    method: str = column("method", METHOD_DOC, default=ISOLATED)
    warmup: int = column(
        "count0", "untimed calls (compilation included) before the first sample", default=0
    )
    synced: bool = column("bool", SYNCED_DOC, default=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "samples", tuple(float(s) for s in self.samples))
        problems = measurement_problems(self)
        if problems:
            raise ValueError("invalid Measurement: " + "; ".join(problems))

    @property
    def n(self) -> int:
        """Number of samples."""
        return len(self.samples)

    @property
    def min(self) -> float:
        """Fastest sample, seconds per call."""
        return min(self.samples)

    @property
    def max(self) -> float:
        """Slowest sample, seconds per call."""
        return max(self.samples)

    @property
    def median(self) -> float:
        """Median sample, seconds per call."""
        return stats.median(self.samples)

    @property
    def mean(self) -> float:
        """Mean sample, seconds per call."""
        return sum(self.samples) / len(self.samples)

    @property
    def iqr(self) -> float:
        """Interquartile range of the samples, seconds per call."""
        return stats.iqr(self.samples)

    @property
    def spread(self) -> float:
        """IQR / median of the samples: the within-run spread, a fraction."""
        return stats.spread(self.samples)

    @property
    def statistic(self) -> float:
        """The statistic the method names: min for isolated or profiled calls, mean for a
        loop; seconds."""
        return self.min if self.method in (ISOLATED, PROFILED) else self.mean

    @property
    def noisy(self) -> bool:
        """True when the within-run spread exceeds NOISE_THRESHOLD."""
        return self.spread > NOISE_THRESHOLD


def measurement_problems(m: Measurement) -> list[str]:
    """Every reason m is not a valid Measurement; empty when valid."""
    problems = []
    if not m.samples:
        problems.append("samples: expected at least one sample")
    if not all(math.isfinite(s) and s >= 0 for s in m.samples):
        problems.append(f"samples: expected finite seconds >= 0, got {m.samples!r}")
    if m.method not in METHODS:
        problems.append(f"method: expected one of {METHODS}, got {m.method!r}")
    if not (isinstance(m.calls_per_sample, int) and m.calls_per_sample >= 1):
        problems.append(f"calls_per_sample: expected an integer >= 1, got {m.calls_per_sample!r}")
    if m.method == ISOLATED and m.calls_per_sample != 1:
        problems.append("calls_per_sample: isolated calls take exactly 1 call per sample")
    if not (isinstance(m.warmup, int) and m.warmup >= 0):
        problems.append(f"warmup: expected an integer >= 0, got {m.warmup!r}")
    return problems


def in_program(long: Measurement, short: Measurement, extra: int) -> Measurement:
    """Seconds per iteration of a kernel timed in a loop of k2 (long) and k1 (short)
    iterations of one program: each long sample less the fastest short call, over extra =
    k2 - k1 (never below 0). What the program's launch and its loop's entry cost cancels."""
    base = short.min
    samples = tuple(max(0.0, (t - base) / extra) for t in long.samples)
    return Measurement(samples=samples, method=IN_PROGRAM, warmup=long.warmup)


def _warm_up(
    fn: Callable[[], Any], sync: Callable[[Any], Any], warmup: int, prepare: Callable | None = None
) -> None:
    """Call fn `warmup` times (compiling it; prepare before each) and wait for the last
    output; untimed."""
    output = None
    for _ in range(warmup):
        if prepare is not None:
            prepare()
        output = fn()
    if warmup:
        sync(output)


def _time_sample(fn, sync, clock, calls: int, blocking: bool) -> float:
    """Seconds per call of `calls` back-to-back calls, clock stopped after sync if blocking."""
    start = clock()
    for _ in range(calls):
        output = fn()
    if blocking:
        sync(output)
    stop = clock()
    if not blocking:
        sync(output)  # drain outside the clock, so the next sample starts on an idle device
    return (stop - start) / calls


def _take_samples(take: Callable[[], float], clock, repeats: int, budget_s: float) -> list[float]:
    """Samples until `repeats` are taken or budget_s has passed (at least 3, or repeats)."""
    at_least = min(3, repeats)
    deadline = clock() + budget_s
    samples: list[float] = []
    while len(samples) < repeats and (len(samples) < at_least or clock() < deadline):
        samples.append(take())
    return samples


def measure(
    fn: Callable[[], Any],
    *,
    sync: Callable[[Any], Any],
    clock: Callable[[], float] = time.perf_counter,
    warmup: int = 3,
    repeats: int = 25,
    budget_s: float = 1.0,
    method: str = ISOLATED,
    calls_per_sample: int = 1,
    blocking: bool = True,
    prepare: Callable[[], Any] | None = None,
) -> Measurement:
    """Warm fn up outside the clock, then time it; samples in seconds per call. prepare, if
    given, runs before every call (warm-up included), outside the clock: e.g. fresh copies of
    the arguments a program donates (one call per sample only)."""
    if method not in METHODS or repeats < 1 or calls_per_sample < 1:
        raise ValueError(f"measure needs a method in {METHODS}, repeats >= 1, calls >= 1")
    if budget_s <= 0 or warmup < 0 or (method == ISOLATED and calls_per_sample != 1):
        raise ValueError("measure needs budget_s > 0, warmup >= 0, 1 call per isolated sample")
    if prepare is not None and calls_per_sample != 1:
        raise ValueError("measure's prepare runs before each call: 1 call per sample")
    _warm_up(fn, sync, warmup, prepare)

    def take() -> float:
        if prepare is not None:
            prepare()
        return _time_sample(fn, sync, clock, calls_per_sample, blocking)

    samples = _take_samples(take, clock, repeats, budget_s)
    return Measurement(
        samples=tuple(samples),
        calls_per_sample=calls_per_sample,
        method=method,
        warmup=warmup,
        synced=blocking,
    )


def interleaved(
    fns: Sequence[Callable[[], Any]],
    *,
    sync: Callable[[Any], Any],
    clock: Callable[[], float] = time.perf_counter,
    warmup: int = 3,
    repeats: int = 25,
    budget_s: float = 1.0,
) -> tuple[Measurement, ...]:
    """Isolated calls of several fns taken in turn, one sample of each per round; one
    Measurement per fn. A drift in the machine's speed then shifts every fn alike, so
    their medians compare (budget_s is the whole run's; at least 3 rounds, or repeats)."""
    if not fns or repeats < 1 or budget_s <= 0 or warmup < 0:
        raise ValueError("interleaved needs fns, repeats >= 1, budget_s > 0, warmup >= 0")
    for fn in fns:
        _warm_up(fn, sync, warmup)
    rounds: list[list[float]] = []

    def take() -> float:
        rounds.append([_time_sample(fn, sync, clock, 1, True) for fn in fns])
        return 0.0

    _take_samples(take, clock, repeats, budget_s)
    return tuple(
        Measurement(samples=tuple(r[i] for r in rounds), warmup=warmup) for i in range(len(fns))
    )


def measure_loop(
    fn: Callable[[], Any], *, sync: Callable[[Any], Any], calls: int = 10, **kw: Any
) -> Measurement:
    """Back-to-back loop: `calls` calls then one sync per sample; a Measurement (mean per call)."""
    return measure(fn, sync=sync, method=LOOP, calls_per_sample=calls, **kw)


def run_to_run_spread(runs: Sequence[Measurement]) -> float:
    """Run-to-run spread, (max - min) / min of each run's statistic: a fraction."""
    return stats.run_to_run_spread([m.statistic for m in runs])


def relative_difference(a: float, b: float) -> float:
    """|a - b| / min(a, b): how far apart two times are, a fraction."""
    return abs(a - b) / min(a, b)


def is_a_result(a: Measurement, b: Measurement, spread: float) -> bool:
    """True when a and b differ by more than `spread`; smaller is not a result yet."""
    return relative_difference(a.statistic, b.statistic) > spread
