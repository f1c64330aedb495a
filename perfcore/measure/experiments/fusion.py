"""Fusion, priced and measured: a chain of k elementwise steps, one call each vs one jit.

Each step is y <- s*y + s (2 FLOPs per element, s a traced scalar XLA cannot fold). Unfused,
every step is its own compiled call: k reads and k writes of the array. It is timed twice: the
k calls dispatched back to back with one wait at the end (k kernels plus their dispatch), and
with a wait after every step (each step adds a host round trip, reported apart as the
difference). Fused, one jit runs the chain in one pass: one read, one write. The model
(perfcore.model.chip.ops.elementwise) prices both; cost_analysis cross-checks the bytes; the saving
predicted by bytes (1 - 1/k) is set beside the saving measured against the unwaited calls. The
three are timed in turn, and the array is donated and carried from call to call.
"""

from __future__ import annotations

from perfcore import format as fmt
from perfcore.measure.clock.devices import crosscheck, reported_cost
from perfcore.measure.clock.harness import Measurement
from perfcore.measure.experiments.env import Env, free_memory_bytes
from perfcore.measure.experiments.suites import require_fits
from perfcore.measure.results import Record
from perfcore.measure.results.report import ROUND_TRIP
from perfcore.model.chip import ops

EXPERIMENT = "fusion"
FLOPS_PER_STEP = 2  # s*y + s


def _chain(k: int):
    """k steps of y <- s*y + s, as one function."""

    def chain(y, s):
        for _ in range(k):
            y = s * y + s
        return y

    return chain


def _compiled(env: Env, k: int, y, s):
    """The k-step chain compiled with y donated, and its cost_analysis bytes (None if absent)."""
    compiled = env.jax.jit(_chain(k), donate_argnums=0).lower(y, s).compile()
    try:
        return compiled, reported_cost(compiled.cost_analysis())[1]
    except NotImplementedError:
        return compiled, None


def _bytes_notes(reported: float | None, modelled: float) -> tuple[str, ...]:
    """A note of the cost_analysis bytes against the model, flagged beyond the tolerance."""
    if reported is None:
        return ("cost_analysis reports no bytes",)
    agree = "agrees with" if crosscheck(reported, modelled) else "DISAGREES with"
    return (f"cost_analysis bytes {reported:.6g} {agree} the model's {modelled:.6g}",)


def _saving(k: int, chain: ops.Cost, step: ops.Cost, fused: float, unfused: float) -> str:
    """The saving predicted by bytes beside the one measured against the unfused calls."""
    return (
        f"saving predicted {1 - chain.bytes / (k * step.bytes):.0%} (bytes), measured "
        f"{1 - fused / unfused:.0%} (median time, against the {k} unfused calls not "
        "waited on)"
    )


def _round_trip(k: int, waited: Measurement, dispatched: Measurement) -> str:
    """The host round trip per step, waited minus not waited over k steps (medians), a note;
    a difference inside the larger IQR of the two is said to be no result yet."""
    difference = waited.median - dispatched.median
    note = (
        f"{ROUND_TRIP} {fmt.seconds(difference / k)} per step ((median waited "
        f"{fmt.seconds(waited.median)} - median not waited {fmt.seconds(dispatched.median)})"
        f" / {k})"
    )
    if abs(difference) <= max(waited.iqr, dispatched.iqr):
        note += ", inside the spread (IQR) of the two: not a result yet"
    return note


def _pair(env: Env, k: int, n: int) -> tuple[Record, Record, Record]:
    """The k-step chain over n float32: unfused (not waited, waited every step) and fused."""
    jnp = env.jnp
    step, chain = ops.elementwise(n, 1, 1, FLOPS_PER_STEP, 4), ops.elementwise(n, 1, 1, 2 * k, 4)
    y, s = [jnp.zeros(n, jnp.float32)], jnp.float32(1.0)
    one, one_bytes = _compiled(env, 1, y[0], s)
    fused, fused_bytes = _compiled(env, k, y[0], s)

    def unfused_call(wait):
        def call():
            for _ in range(k):
                y[0] = wait(one(y[0], s))
            return y[0]

        return call

    def fused_call():
        y[0] = fused(y[0], s)
        return y[0]

    calls = (unfused_call(lambda out: out), unfused_call(env.jax.block_until_ready), fused_call)
    t_dispatched, t_waited, t_fused = env.interleaved(calls)
    per_step = None if one_bytes is None else k * one_bytes
    kw = {
        "shapes": ((n,),),
        "dtype": "float32",
        "precision": "fp32",
        "flops": chain.flops,
        "flops_model": chain.flops,
        "flops_source": "model",
        "size": n,
        "size_kind": "elements",
    }
    unfused = {
        "bytes": per_step or k * step.bytes,
        "bytes_model": k * step.bytes,
        "notes": (*_bytes_notes(per_step, k * step.bytes), _round_trip(k, t_waited, t_dispatched)),
    }
    saving = _saving(k, chain, step, t_fused.median, t_dispatched.median)
    return (
        env.record(EXPERIMENT, f"unfused, k={k}", t_dispatched, **unfused, **kw),
        env.record(EXPERIMENT, f"unfused, waited every step, k={k}", t_waited, **unfused, **kw),
        env.record(
            EXPERIMENT,
            f"fused, k={k}",
            t_fused,
            bytes=fused_bytes or chain.bytes,
            bytes_model=chain.bytes,
            notes=(*_bytes_notes(fused_bytes, chain.bytes), saving),
            **kw,
        ),
    )


def run(env: Env) -> list[Record]:
    """Unfused (unwaited, waited) and fused chains for every k of the suite over fusion_elements."""
    n = env.suite.fusion_elements
    require_fits(8 * n, free_memory_bytes(), f"fusion chain over {n} float32")
    return [r for k in env.suite.fusion_chain for r in _pair(env, k, n)]
