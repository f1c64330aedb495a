"""Harness fidelity on the CPU: measure.clock.harness against a plain `timeit` of the same calls.

For a jitted matmul and a fixed elementwise workload, five interleaved runs each of the
harness and of timeit (blocking on the result), by both methods: isolated calls (min) and
a back-to-back loop (mean per call). They agree when their difference is within the larger
run-to-run spread of the two. Then the harness's matmul FLOP/s beside numpy's, same size.

    .venv/bin/python -m bench.harness
"""

from __future__ import annotations

import os
import statistics
import timeit

import jax
import jax.numpy as jnp
import numpy as np

from perfcore.measure.clock import harness as bench
from perfcore.measure.clock import stats
from perfcore.model.chip import ops

RUNS = 5
REPEATS = 20
LOOP_CALLS = 10
MATMUL_N = 1024
ELEMENTWISE_SIDE = 2048


def timeit_isolated(fn) -> float:
    """Min over REPEATS of one blocked call, by timeit; seconds."""
    return min(timeit.repeat(lambda: jax.block_until_ready(fn()), number=1, repeat=REPEATS))


def timeit_loop(fn) -> float:
    """Mean per call of LOOP_CALLS calls then one block, by timeit (mean of 5); seconds."""

    def loop() -> None:
        for _ in range(LOOP_CALLS):
            out = fn()
        jax.block_until_ready(out)

    return statistics.mean(timeit.repeat(loop, number=1, repeat=5)) / LOOP_CALLS


def harness(fn, method: str) -> float:
    """The harness's own statistic for fn by method (min, or mean per call); seconds."""
    sync = jax.block_until_ready
    if method == bench.ISOLATED:
        return bench.measure(fn, sync=sync, repeats=REPEATS, budget_s=10).statistic
    return bench.measure_loop(fn, sync=sync, calls=LOOP_CALLS, repeats=5, budget_s=10).statistic


def compare(name: str, fn, method: str) -> tuple[str, float]:
    """One table row comparing harness and timeit by method; and the harness's seconds."""
    reference = timeit_isolated if method == bench.ISOLATED else timeit_loop
    ours, theirs = [], []
    for _ in range(RUNS):  # interleaved, so drift hits both alike
        ours.append(harness(fn, method))
        theirs.append(reference(fn))
    a, b = statistics.median(ours), statistics.median(theirs)
    spread = max(stats.run_to_run_spread(ours), stats.run_to_run_spread(theirs))
    gap = bench.relative_difference(a, b)
    verdict = "agree" if gap <= spread else "DISAGREE"
    spreads = f"{stats.run_to_run_spread(ours):7.1%} {stats.run_to_run_spread(theirs):7.1%}"
    row = f"{name:<26} {method:<24} {a * 1e6:10.1f} {b * 1e6:10.1f} {gap:7.1%} {spreads}  {verdict}"
    return row, a


def workloads() -> dict:
    """name -> a zero-argument call of a jitted function."""
    key = jax.random.key(0)
    a = jax.random.normal(key, (MATMUL_N, MATMUL_N))
    b = jax.random.normal(jax.random.split(key)[0], (MATMUL_N, MATMUL_N))
    x = jax.random.normal(key, (ELEMENTWISE_SIDE, ELEMENTWISE_SIDE))
    matmul = jax.jit(jnp.matmul)
    chain = jax.jit(lambda x: jnp.tanh(x) * 2.0 + 1.0)
    return {
        f"matmul {MATMUL_N} float32": lambda: matmul(a, b),
        f"tanh*2+1 {ELEMENTWISE_SIDE}^2 float32": lambda: chain(x),
    }


def numpy_flops_per_s(n: int) -> float:
    """numpy's float32 n x n matmul FLOP/s, best of REPEATS."""
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((n, n), dtype=np.float32) for _ in range(2))
    a @ b
    seconds = min(timeit.repeat(lambda: a @ b, number=1, repeat=REPEATS))
    return ops.matmul(n, n, n, 4).flops / seconds


def main() -> None:
    """Print the comparison table and the FLOP/s line."""
    print(
        f"JAX {jax.__version__} on {jax.default_backend()} ({jax.devices()[0].device_kind}), "
        f"{os.cpu_count()} cores; {RUNS} interleaved runs per row"
    )
    print(
        f"{'workload':<26} {'method':<24} {'harness µs':>10} {'timeit µs':>10} "
        f"{'gap':>7} {'spread':>7} {'timeit':>7}  (gap vs larger run-to-run spread)"
    )
    seconds = {}
    for name, fn in workloads().items():
        for method in bench.METHODS:
            row, seconds[name, method] = compare(name, fn, method)
            print(row)
    name, cost = f"matmul {MATMUL_N} float32", ops.matmul(MATMUL_N, MATMUL_N, MATMUL_N, 4)
    ours = cost.flops / seconds[name, bench.ISOLATED]
    print(
        f"{name}: harness (isolated min) {ours / 1e9:.1f} GFLOP/s, "
        f"numpy (timeit min) {numpy_flops_per_s(MATMUL_N) / 1e9:.1f} GFLOP/s"
    )


if __name__ == "__main__":
    main()
