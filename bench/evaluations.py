"""Whether an op's transcendental evaluations add to its stream or hide behind it, on this device.

The check behind measure.profile.predict.fused.with_evaluations: nine elementwise ops that
evaluate transcendentals, at 1M and 4M float32 elements, each timed (fastest of 30 isolated
calls) in one process beside the two kernels the rule rests on, measured there too: the
exp(-x)·tanh(x) chain (kernel_kinds.CHAIN_TRANSCENDENTALS evaluations an element) and a stream
(the suite's elementwise kernel, two inputs and one output). Each op predicted both ways from
those two: the slower of its stream and its evaluations' share of the chain, and its stream
plus that share less the chain's own stream. Printed per op and the median |error| of each
rule per set, and its median signed error (two sets a size: the references move between them
on a shared machine).

    .venv/bin/python -m bench.evaluations
"""

from __future__ import annotations

import statistics
import time

import jax
import jax.numpy as jnp

from bench.zoo_programs import elementwise

# name: (function of x, y; evaluations an element as XLA counts them; arrays read)
OPS = {
    "exp": (lambda x, y: jnp.exp(x), 1, 1),
    "tanh": (lambda x, y: jnp.tanh(x), 1, 1),
    "exp(x)*y": (lambda x, y: jnp.exp(x) * y, 1, 2),
    "log(|x|+1)": (lambda x, y: jnp.log(jnp.abs(x) + 1), 1, 1),
    "sigmoid": (lambda x, y: jax.nn.sigmoid(x), 1, 1),
    "softplus": (lambda x, y: jax.nn.softplus(x), 2, 1),
    "gelu (tanh)": (lambda x, y: jax.nn.gelu(x), 1, 1),
    "zoo chain": (elementwise()[0], 2, 2),
    "silu(x)*y": (lambda x, y: jax.nn.silu(x) * y, 1, 2),
}


def fastest(fn, *args, calls: int = 30) -> float:
    """Seconds of the fastest of `calls` isolated, synchronized calls of fn jitted."""
    jitted = jax.jit(fn)
    jax.block_until_ready(jitted(*args))
    best = float("inf")
    for _ in range(calls):
        start = time.perf_counter()
        jax.block_until_ready(jitted(*args))
        best = min(best, time.perf_counter() - start)
    return best


def op_line(head: str, measured: float, rules: dict[str, float]) -> str:
    """`head measured 1.234 ms  rule 1.100 (-11%) ...`: an op's time and each rule's."""
    said = "  ".join(f"{k} {v * 1e3:7.3f} ({v / measured - 1:+.0%})" for k, v in rules.items())
    return f"{head} measured {measured * 1e3:7.3f} ms  {said}"


def set_line(head: str, errors: dict[str, list[float]]) -> str:
    """`head; median |error| (median error) rule 12% (-3%), ...` of each rule's signed errors."""
    med = statistics.median
    said = ", ".join(f"{k} {med(map(abs, e)):.0%} ({med(e):+.0%})" for k, e in errors.items())
    return f"{head}; median |error| (median error) {said}"


def main() -> None:
    for n in (1 << 20, 1 << 22):
        keys = jax.random.split(jax.random.key(0))
        x, y = (jax.random.normal(k, (n // 256, 256)) for k in keys)
        for sample in (1, 2):
            chain = fastest(lambda x: jnp.exp(-x) * jnp.tanh(x), x)
            per_byte = fastest(lambda x, y: (x * 1.5 + y) * 0.5 - y, x, y) / (3 * 4 * n)
            beyond = max(chain - per_byte * 2 * 4 * n, 0.0)  # the chain less its own stream
            errors = {"slower": [], "added": []}
            for name, (fn, evals, reads) in OPS.items():
                measured = fastest(fn, x, y)
                stream = per_byte * (reads + 1) * 4 * n
                rules = {
                    "slower": max(stream, chain * evals / 2),
                    "added": stream + beyond * evals / 2,
                }
                for k, v in rules.items():
                    errors[k].append(v / measured - 1)
                print(op_line(f"{n:>8} {name:<12}", measured, rules))
            head = f"{n} elements, set {sample}: chain {chain * 1e3:.3f} ms"
            print(set_line(head, errors), flush=True)


if __name__ == "__main__":
    main()
