"""The kernels suite's points measured within its budget: round by round, then a second pass.

A burst of load on a shared machine slows every sample a point takes in its few
milliseconds, so the fastest call of one pass can still be slow; a second pass over the
points that vary most (the matmuls), minutes later, puts both passes' samples in one record
(its fastest call is then the faster pass's, its spread over both).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from perfcore.measure.experiments.env import Env
from perfcore.measure.experiments.roofline import UNSUPPORTED
from perfcore.measure.experiments.suites import DeviceMemoryError
from perfcore.measure.results import Record


def sweep(
    env: Env, sweeps: list[list], deadline: float, measure: Callable, refused: list[str]
) -> list[tuple]:
    """(point, record) of every sweep's points, round by round (each sweep's smallest first),
    so a budget that runs out cuts the largest sizes, not whole kinds; a sweep stops after a
    call longer than kernels_call_s or one that would not fit. A sweep whose kernel the
    backend refuses to compile in its dtype (a TPU has no float16 attention, say: the runtime's
    UNIMPLEMENTED or INVALID_ARGUMENT) is dropped, and `refused` names it with the runtime's
    code; any other failure propagates. Each point gets half its share of the time left (the
    other half pays for compiling)."""
    done, live = [], [list(s) for s in sweeps]
    while any(live) and time.perf_counter() < deadline:
        left = sum(len(s) for s in live)
        for points in [s for s in live if s]:
            if time.perf_counter() >= deadline:
                break
            share = (deadline - time.perf_counter()) / left / 2
            point = points.pop(0)
            try:
                record = measure(env, point, share)
            except DeviceMemoryError:
                points.clear()
                continue
            except env.jax.errors.JaxRuntimeError as error:
                if error.error_code_string not in UNSUPPORTED:
                    raise
                refused.append(f"{point.kind} in {point.dtype} ({error.error_code_string})")
                points.clear()
                continue
            done.append((point, record))
            if record.measurement.median > env.suite.kernels_call_s:
                points.clear()
    return done


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
        samples = (*first.measurement.samples, *measure(env, point, share).measurement.samples)
        both = dataclasses.replace(first.measurement, samples=samples)
        out[k] = dataclasses.replace(first, measurement=both).noted("samples of two passes")
    return out
