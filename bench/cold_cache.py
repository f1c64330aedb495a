"""How much slower a kernel runs when its operands are not in the cache: hot against cold.

The kernel curves time each kernel back to back on the same buffers, so its operands sit in
the cache from the call before. Inside a program that moves more bytes a step than the cache
keeps (a decode step writing 8 KV caches of 16 MiB, bench/zoo_idioms.py's
decode_dynamic_update), an op finds its operands evicted by the ops between. This times four
streaming kernels of the kinds such a step runs, each at several sizes: hot (the fastest of
--calls back-to-back calls) and cold (the fastest of --calls calls, each right after a NumPy
pass over --evict MiB), and prints cold / hot. Run only on a quiet machine.

    .venv/bin/python -m bench.cold_cache [--evict 512] [--calls 15]
"""

from __future__ import annotations

import argparse
import functools

import jax
import jax.numpy as jnp
import numpy as np

from perfcore.measure.clock import harness

MIB = 2**20


def kernels(mib: int) -> dict:
    """Name -> (function, arguments) of about `mib` MiB of float32 operands each."""
    key = jax.random.key(0)
    n = mib * MIB // 4
    cache = jax.random.normal(key, (8, 8, n // (8 * 8 * 64), 64))  # batch, heads, positions, 64
    q = jax.random.normal(key, (8, 8, 1, 64))
    w = jax.random.normal(key, (n // 1024, 1024))
    x = jax.random.normal(key, (8, n // 1024))
    return {
        "q·Kᵀ over a KV cache": (lambda q, k: jnp.einsum("bhqd,bhkd->bhqk", q, k), (q, cache)),
        "8 rows x W (matvec)": (lambda x, w: x @ w, (x, w)),
        "copy": (lambda a: a + 0.0, (cache,)),
        "elementwise a·1.5 + b": (lambda a, b: a * 1.5 + b, (cache, cache)),
    }


def fastest(fn, calls: int, evict: np.ndarray | None) -> float:
    """Seconds of the fastest of `calls` isolated, synchronized calls of fn (the clock's
    harness), each after a pass over `evict` outside the clock where it is given."""
    prepare = None if evict is None else evict.sum
    sync = jax.block_until_ready
    return harness.measure(fn, sync=sync, repeats=calls, budget_s=60, prepare=prepare).min


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--evict", type=int, default=512, help="MiB passed over before a cold call")
    ap.add_argument("--calls", type=int, default=15, help="calls per timing (fastest kept)")
    args = ap.parse_args()
    evict = np.ones(args.evict * MIB // 8)
    print(f"{'kernel':<24}{'MiB':>6}{'hot ms':>10}{'cold ms':>10}{'cold/hot':>10}")
    for mib in (4, 16, 64):
        for name, (fn, operands) in kernels(mib).items():
            call = functools.partial(jax.jit(fn), *operands)
            hot = fastest(call, args.calls, None)
            cold = fastest(call, args.calls, evict)
            row = f"{name:<24}{mib:>6}{hot * 1e3:>10.3f}{cold * 1e3:>10.3f}{cold / hot:>10.2f}"
            print(row, flush=True)


if __name__ == "__main__":
    main()
