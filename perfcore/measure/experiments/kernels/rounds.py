"""The kernels suite's points measured within its budget: round by round, then a second pass.

A burst of load on a shared machine slows every sample a point takes in its few
milliseconds, so the fastest call of one pass can still be slow; a second pass over the
points, minutes later (those that vary most first: the matmuls), puts both passes' samples
in one record (its fastest call is then the faster pass's, its spread over both).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from perfcore.measure.experiments.env import Env
from perfcore.measure.experiments.roofline import UNSUPPORTED
from perfcore.measure.experiments.suites import DeviceMemoryError
from perfcore.measure.results import Record


def spread(n: int) -> list[int]:
    """0..n-1 in the order a sweep measures them: both ends, then each gap's middle, breadth
    first (0, n-1, the middle, the quarters, ...), so a budget cut anywhere leaves points over
    the whole range rather than its small end alone."""
    if n <= 2:
        return list(range(n))
    order, gaps = [0, n - 1], [(0, n - 1)]
    while gaps:
        lo, hi = gaps.pop(0)
        if hi - lo > 1:
            mid = (lo + hi) // 2
            order.append(mid)
            gaps += [(lo, mid), (mid, hi)]
    return order


def sweep(
    env: Env, sweeps: list[list], deadline: float, measure: Callable, refused: list[str]
) -> list[tuple]:
    """(point, record) of every sweep's points, smallest first in the result, measured round by
    round in `spread` order (each sweep's ends, then the middles between), so a budget that
    runs out leaves every kind measured over its range, thinner, not cut to its small end. A
    call longer than kernels_call_s, or a point that would not fit, drops that point's larger
    ones. A sweep whose kernel the backend refuses to compile in its dtype (a TPU has no
    float16 attention, say: the runtime's UNIMPLEMENTED or INVALID_ARGUMENT) is dropped, and
    `refused` names it with the runtime's code; any other failure propagates. Each point gets
    half its share of the time left (the other half pays for compiling)."""
    done, live = [], [[(k, s[k]) for k in spread(len(s))] for s in sweeps]
    while any(live) and time.perf_counter() < deadline:
        left = sum(len(s) for s in live)
        for points in [s for s in live if s]:
            if time.perf_counter() >= deadline:
                break
            share = (deadline - time.perf_counter()) / left / 2
            index, point = points.pop(0)
            try:
                record = measure(env, point, share)
            except DeviceMemoryError:
                points[:] = [(k, p) for k, p in points if k < index]
                continue
            except env.jax.errors.JaxRuntimeError as error:
                if error.error_code_string not in UNSUPPORTED:
                    raise
                refused.append(f"{point.kind} in {point.dtype} ({error.error_code_string})")
                points.clear()
                continue
            done.append(((id(points), index), point, record))
            if record.measurement.median > env.suite.kernels_call_s:
                points[:] = [(k, p) for k, p in points if k < index]
    order = {id(s): n for n, s in enumerate(live)}
    done.sort(key=lambda d: (order[d[0][0]], d[0][1]))
    return [(point, record) for _, point, record in done]


def joined(first: Record, second: Record) -> Record:
    """first with second's samples beside its own: both passes' (its fastest call the faster
    pass's, its spread over both)."""
    samples = (*first.measurement.samples, *second.measurement.samples)
    both = dataclasses.replace(first.measurement, samples=samples)
    return dataclasses.replace(first, measurement=both).noted("samples of two passes")


def again(
    env: Env, done: list[tuple], deadline: float, measure: Callable, chosen: Callable
) -> list[Record]:
    """The records, the chosen points measured once more while the budget lasts (a point
    whose calls would not fit its share keeps its one pass), both passes' samples in one."""
    out = [r for _, r in done]
    todo = [k for k, (p, _) in enumerate(done) if chosen(p)]
    for n, k in enumerate(todo):
        share = (deadline - time.perf_counter()) / (len(todo) - n) / 2
        point, first = done[k]
        if share <= 3 * first.measurement.median:
            continue
        out[k] = joined(first, measure(env, point, share))
    return out
