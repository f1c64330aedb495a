"""Whether bfloat16 math costs its roundings on this device: the check behind the rounding curve.

XLA:CPU computes a bfloat16 op in float32 and rounds its result back to bfloat16 for the next
(measure.profile.hlo.roundings counts them from the HLO). Eight bfloat16 elementwise
ops, at 1M and 4M elements, each timed (fastest of 30 isolated calls) in one process beside
the three kernels the rule rests on, measured there too: a float32 stream (two inputs, one
output), the exp(-x)·tanh(x) chain (kernel_kinds.CHAIN_TRANSCENDENTALS evaluations an element) and
the rounding chain (kernel_windows.rounded: kernel_kinds.ROUNDINGS roundings an element). Each op
predicted two ways from them: its stream by bytes plus its evaluations' share of the chain
less the chain's own stream at the op's width (the rule before), and the same with the
evaluations at float32's width (per element) plus its roundings' share of the rounding chain
less that kernel's own stream (the rule now). Printed per op, and each rule's median |error|
per set (two sets a size: the references move between them on a shared machine).

    .venv/bin/python -m bench.roundings
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from bench.evaluations import fastest, op_line, set_line
from perfcore.measure.experiments.kernels.windows import rounded
from perfcore.measure.profile import hlo
from perfcore.model.chip import kernel_kinds

BF16 = jnp.bfloat16
# name: (function of x, y in bfloat16; arrays read)
OPS = {
    "x*1.5+y": (lambda x, y: x * 1.5 + y, 2),
    "exp": (lambda x, y: jnp.exp(x), 1),
    "tanh": (lambda x, y: jnp.tanh(x), 1),
    "gelu (tanh)": (lambda x, y: jax.nn.gelu(x), 1),
    "gelu (erf)": (lambda x, y: jax.nn.gelu(x, approximate=False), 1),
    "silu(x)*y": (lambda x, y: jax.nn.silu(x) * y, 2),
    "layernorm": (
        lambda x, y: (x - x.mean(-1, keepdims=True)) * jax.lax.rsqrt(x.var(-1) + 1)[:, None],
        1,
    ),
    "(x-y)**2*0.5": (lambda x, y: (x - y) ** 2 * 0.5, 2),
}


def counted(fn, x, y) -> tuple[float, float]:
    """(transcendentals, roundings) per element of fn's compiled program, as the prediction
    counts them: XLA's cost analysis, and hlo.roundings over its launched fusions."""
    compiled = jax.jit(fn).lower(x, y).compile()
    module = hlo.parse_module(compiled.as_text())
    rounds = sum(hlo.roundings(module, i) for i in module.computations[module.entry])
    cost = compiled.cost_analysis()
    cost = cost[0] if isinstance(cost, list) else cost
    return float(cost.get("transcendentals", 0.0)) / x.size, rounds / x.size


def main() -> None:
    for n in (1 << 20, 1 << 22):
        keys = jax.random.split(jax.random.key(0))
        x, y = (jax.random.normal(k, (n // 256, 256)) for k in keys)
        xb, yb = x.astype(BF16), y.astype(BF16)
        for sample in (1, 2):
            per_byte = fastest(lambda x, y: (x * 1.5 + y) * 0.5 - y, x, y) / (3 * 4 * n)
            own = per_byte * 2 * 4 * n  # a float32 kernel's own stream: x read, one written
            chain = max(fastest(lambda x: jnp.exp(-x) * jnp.tanh(x), x) - own, 0.0)
            rounding = max(fastest(lambda x: rounded(jnp, x), x) - own, 0.0)
            errors = {"before": [], "now": []}
            for name, (fn, reads) in OPS.items():
                measured = fastest(fn, xb, yb)
                evals, rounds = counted(fn, xb, yb)
                stream = per_byte * (reads + 1) * 2 * n
                per_element = kernel_kinds.CHAIN_TRANSCENDENTALS
                rules = {
                    "before": stream + chain / 2 * evals / per_element,  # bfloat16's width
                    "now": stream
                    + chain * evals / per_element
                    + rounding * rounds / kernel_kinds.ROUNDINGS,
                }
                for k, v in rules.items():
                    errors[k].append(v / measured - 1)
                head = f"{n:>8} {name:<13} {evals:.0f} evals {rounds:.0f} roundings an element;"
                print(op_line(head, measured, rules))
            print(set_line(f"{n} elements, set {sample}", errors), flush=True)


if __name__ == "__main__":
    main()
