"""A kernel timed as a loop body's op: run inside one program's loop, per iteration.

On this CPU (timed under load) an op inside a running program's loop neither paid the launch
nor woke the thread pool as a one-op program does (exp·tanh of 4,096 elements: about 4 µs an
iteration, 28 µs a program), and a large one ran slower there than at a program's top level
(262,144 elements: 273 µs against 149 µs): neither curve prices the other place. So the
kernels suite times each stream point both ways (harness.IN_PROGRAM for this one).

On an accelerator every point is timed this way: its kernels take microseconds where a
program's launch and wait take hundreds (a TPU v5e's host here: 390-550 µs), so an isolated
call times the launch; the op a profile times, at a program's top level or in a loop, is the
device's work alone. The long loop runs enough iterations that its extra work takes at least
ACCELERATOR_LOOP_S by the spec row's roofline bound, well past the launch's jitter.
"""

from __future__ import annotations

import functools
import math

from perfcore.measure.clock import harness
from perfcore.measure.experiments.env import Env, compiled
from perfcore.model.chip import ops

LOOP_ITERATIONS = (2, 10)  # per iteration: (T(10) - T(2)) / 8
ACCELERATOR_LOOP_S = 2e-3  # an accelerator's long loop: at least this much more work, bound
ACCELERATOR_EXTRA = (8, 4096)  # its extra iterations, fewest and most
NO_BOUND_EXTRA = 256  # its extra iterations where no spec row bounds the kernel


def looped(jax, fn):
    """fn jitted to run a number of times given as its first argument (an int32 scalar: one
    program compiled for every loop length) in one program: a fori_loop each of whose
    iterations adds zero times one element of the last result to fn's first argument (fused
    into fn's own kernel), so XLA can neither hoist fn out of the loop nor skip an iteration
    (an optimization barrier on the arguments alone was hoisted with it). A result of several
    arrays (a backward pass's gradients, a top-k's values and indices) is carried whole, tied
    by its first."""

    def run(trips, first, *rest):
        shapes = jax.eval_shape(fn, first, *rest)

        def body(_, carry):
            lead = jax.tree.leaves(carry)[0]
            tie = (lead.reshape(-1)[0] * 0).astype(first.dtype)
            return fn(first + tie, *rest)

        zeros = jax.tree.map(lambda s: jax.numpy.zeros(s.shape, s.dtype), shapes)
        return jax.lax.fori_loop(0, trips, body, zeros)

    return jax.jit(run)


def iterations(env: Env, model: ops.Cost | None, dtype: str) -> tuple[int, int]:
    """The short and long loops' iterations: LOOP_ITERATIONS on a CPU; on an accelerator,
    enough more that the extra ones take ACCELERATOR_LOOP_S at the spec row's roofline bound
    (within ACCELERATOR_EXTRA), NO_BOUND_EXTRA more without a row."""
    if env.detected.backend == "cpu":
        return LOOP_ITERATIONS
    bound = _bound_s(env, model, dtype) if model is not None else 0.0
    if not bound:
        return 2, 2 + NO_BOUND_EXTRA
    lo, hi = ACCELERATOR_EXTRA
    return 2, 2 + min(hi, max(lo, math.ceil(ACCELERATOR_LOOP_S / bound)))


def _bound_s(env: Env, model: ops.Cost, dtype: str) -> float:
    """The model's roofline bound on the spec row, seconds (its highest published peak where
    the dtype's precision has none: a lower bound still); 0 without a row or a roof."""
    spec = env.detected.spec
    if spec is None or not spec.memory_bytes_per_s:
        return 0.0
    precision = env.detected.precision(dtype, matmul=True)
    published = [spec.peak_flops(p) for p in spec.published_precisions()]
    peak = (spec.peak_flops(precision) if precision else None) or max(published, default=0.0)
    compute = model.flops / peak if peak else 0.0
    return max(compute, model.bytes / spec.memory_bytes_per_s)


def per_iteration(
    env: Env, fn, inputs: tuple, budget_s: float, model: ops.Cost | None = None, dtype: str = ""
) -> harness.Measurement:
    """fn's seconds per iteration as a loop body's op (harness.in_program), each loop length
    timed as isolated calls within half of budget_s; the loops' lengths from iterations, both
    run by one compiled program (a compile is most of a point's time on a TPU)."""
    short, long = iterations(env, model, dtype)
    trips = [env.jnp.asarray(k, env.jnp.int32) for k in (short, long)]
    program = compiled(env.jax, looped(env.jax, fn).lower(trips[0], *inputs), "a kernel's loop")
    timed = [
        env.measure(functools.partial(program, k, *inputs), budget_s=budget_s / 2) for k in trips
    ]
    return harness.in_program(timed[1], timed[0], long - short)
