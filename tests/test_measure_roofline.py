"""The measured roofline on this machine's CPU: cache and memory plateaus, per-dtype peaks.

References timed in the same test: a plain numpy copy for the memory floor, a plain jnp.dot
for the matmul peak. Both sides are the fastest of several calls (other work sharing the
machine only adds time), so they compare like with like.
"""

import functools
import time

import numpy as np
import pytest

from perfcore.measure import empirical, jax_bench

NUMPY_FLOOR_FACTOR = 2  # memory floor within 2x of numpy's copy (the bound)
DOT_FACTOR = 2  # matmul peak within 2x of a plain jnp.dot at the same size


SWEEPS = 3  # at most: a sweep on a busy 2-core machine can scramble the cache sizes' times


def _sweep() -> tuple:
    """(records, roofline) of one quick roofline sweep, its levels printed."""
    records = jax_bench.run_suite("quick", experiments=("roofline",))
    found = empirical.measured_roofline(records)
    for line in empirical.describe(found):
        print(line)
    return records, found


@pytest.fixture(scope="module")
def measured():
    """(records, roofline) of the first quick sweep that shows a cache level and memory.

    The quick suite times each size for 50 ms; on a shared 2-core machine other work can
    scramble the small sizes of one sweep (seen once in CI: memory alone was found), so a
    sweep is repeated up to SWEEPS times. A plateau finder that never finds two fails.
    """
    for _ in range(SWEEPS):
        records, found = _sweep()
        if len(found.levels) >= 2:
            break
    return records, found


@pytest.fixture(scope="module")
def records(measured):
    return measured[0]


@pytest.fixture(scope="module")
def roofline(measured):
    return measured[1]


def _blocked(fn, x):
    """fn(x), waited on."""
    return fn(x).block_until_ready()


def fastest(fn, repeats=15) -> float:
    """Fastest of `repeats` timed calls of fn, seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def test_at_least_a_cache_plateau_and_a_memory_plateau_are_found(roofline):
    assert len(roofline.levels) >= 2
    cache, memory = roofline.levels[0], roofline.levels[-1]
    assert cache.bytes_per_s > memory.bytes_per_s
    assert cache.plateau.hi_bytes < memory.plateau.lo_bytes
    assert memory.name == "memory"


def test_the_sweep_runs_from_inside_the_first_cache_to_far_beyond_the_last(records):
    sizes = [r.size for r in records if r.size_kind == "bytes"]
    assert min(sizes) <= 2**14 and max(sizes) >= 2**28  # this CPU: 32 KiB L1d, 32 MiB L3


def test_memory_floor_agrees_with_a_numpy_copy_of_the_same_size(roofline):
    size = int(roofline.levels[-1].plateau.hi_bytes)
    src = np.ones(size // 4, np.float32)
    dst = np.empty_like(src)
    numpy_bytes_per_s = 2 * size / fastest(lambda: np.copyto(dst, src))
    ratio = roofline.levels[-1].bytes_per_s / numpy_bytes_per_s
    print(f"memory floor / numpy copy of {size >> 20} MiB = {ratio:.2f}")
    assert 1 / NUMPY_FLOOR_FACTOR <= ratio <= NUMPY_FLOOR_FACTOR


def test_matmul_peak_agrees_with_a_plain_jnp_dot(measured):
    """The sweep's fp32 roof against jnp.dot timed here at the same size. On 2 busy cores one
    of the two can run at half speed (sweeps here gave 87-170 GFLOP/s), so a pair that
    disagrees is measured again, sweep and dot, up to SWEEPS times; a roof off by a constant
    factor (a wrong FLOP count) disagrees every time."""
    import jax
    import jax.numpy as jnp

    records, roofline = measured
    for attempt in range(SWEEPS):
        if attempt:
            records, roofline = _sweep()
        best = next(r for r in roofline.roofs if r.precision == "fp32")
        n = next(r.size for r in records if r.label == best.label)
        a = jnp.ones((int(n), int(n)), jnp.float32)
        square = jax.jit(lambda x: jnp.dot(x, x))
        square(a).block_until_ready()
        plain = 2 * n**3 / fastest(functools.partial(_blocked, square, a))
        ratio = best.flops_per_s / plain
        print(f"fp32 matmul peak / plain jnp.dot at n={int(n)} = {ratio:.2f}")
        if 1 / DOT_FACTOR <= ratio <= DOT_FACTOR:
            break
    assert 1 / DOT_FACTOR <= ratio <= DOT_FACTOR


def test_every_dtype_that_runs_here_has_a_flat_roof(roofline):
    assert {r.precision for r in roofline.roofs} == {"fp32", "bf16"}


def test_records_keep_raw_samples_method_and_level(records):
    streams = [r for r in records if r.size_kind == "bytes"]
    assert {r.label.split()[0] for r in streams} == {"scale", "triad"}
    assert all(r.measurement.n >= 3 and r.measurement.method for r in streams)
    assert {r.level for r in streams} >= {"memory"}
