"""How much slower a kernel runs when its operands are not in the cache: hot against cold.

The kernel curves time each kernel back to back on the same buffers, so its operands sit in
the cache from the call before. Inside a program that moves more bytes a step than the cache
keeps (a decode step writing 8 KV caches of 16 MiB, bench/zoo_idioms.py's
decode_dynamic_update), an op finds its operands evicted by the ops between. This times four
streaming kernels of the kinds such a step runs, each at several sizes: hot (the fastest of
--calls back-to-back calls) and cold (the fastest of --calls calls, each right after a NumPy
pass over --evict MiB), and prints cold / hot. With --rotate R, instead: each kernel of 4 and
16 MiB timed back to back over R copies of its operands, each copy read R - 1 calls after its
last touch (as a program reads each layer's weights once a step), against R = 1. Run only on a
quiet machine.

    .venv/bin/python -m bench.cold_cache [--evict 512] [--calls 15] [--rotate 16]
"""

from __future__ import annotations

import argparse
import functools
import itertools

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


def rotated(fn, operands: tuple, copies: int, calls: int) -> float:
    """Seconds of the fastest of `calls` isolated, synchronized calls of fn, each on the next
    of `copies` copies of its operands in turn."""
    sets = [jax.block_until_ready(tuple(x + i for x in operands)) for i in range(copies)]
    turn = itertools.cycle(sets)
    jitted = jax.jit(fn)
    sync = jax.block_until_ready
    return harness.measure(lambda: jitted(*next(turn)), sync=sync, repeats=calls, budget_s=60).min


def rotation(copies: int, calls: int) -> None:
    """Each kernel of 4 and 16 MiB over `copies` copies of its operands against one copy."""
    print(f"{'kernel':<24}{'MiB':>6}{'1 copy ms':>11}{f'{copies} copies':>11}{'ratio':>8}")
    for mib in (4, 16):
        for name, (fn, operands) in kernels(mib).items():
            one = rotated(fn, operands, 1, calls)
            many = rotated(fn, operands, copies, calls)
            print(f"{name:<24}{mib:>6}{one * 1e3:>11.3f}{many * 1e3:>11.3f}{many / one:>8.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--evict", type=int, default=512, help="MiB passed over before a cold call")
    ap.add_argument("--calls", type=int, default=15, help="calls per timing (fastest kept)")
    ap.add_argument("--rotate", type=int, default=0, help="copies of the operands to cycle")
    args = ap.parse_args()
    if args.rotate > 1:
        rotation(args.rotate, args.calls)
        return
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
