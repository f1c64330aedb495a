"""A kernel timed as a loop body's op: run inside one program's loop, per iteration.

On this CPU (timed under load) an op inside a running program's loop neither paid the launch
nor woke the thread pool as a one-op program does (exp·tanh of 4,096 elements: about 4 µs an
iteration, 28 µs a program), and a large one ran slower there than at a program's top level
(262,144 elements: 273 µs against 149 µs): neither curve prices the other place. So the
kernels suite times each stream point both ways (harness.IN_PROGRAM for this one).
"""

from __future__ import annotations

import functools

from perfcore.measure.clock import harness
from perfcore.measure.experiments.env import Env

LOOP_ITERATIONS = (2, 10)  # per iteration: (T(10) - T(2)) / 8


def looped(jax, fn, iterations: int):
    """fn jitted to run `iterations` times in one program: a fori_loop each of whose
    iterations adds zero times one element of the last result to fn's first argument (fused
    into fn's own kernel), so XLA can neither hoist fn out of the loop nor skip an iteration
    (an optimization barrier on the arguments alone was hoisted with it)."""

    def run(first, *rest):
        shape = jax.eval_shape(fn, first, *rest)

        def body(_, carry):
            tie = (carry.reshape(-1)[0] * 0).astype(first.dtype)
            return fn(first + tie, *rest)

        return jax.lax.fori_loop(0, iterations, body, jax.numpy.zeros(shape.shape, shape.dtype))

    return jax.jit(run)


def per_iteration(env: Env, fn, inputs: tuple, budget_s: float) -> harness.Measurement:
    """fn's seconds per iteration as a loop body's op (harness.in_program), each loop length
    timed as isolated calls within half of budget_s."""
    short, long = LOOP_ITERATIONS
    timed = []
    for k in (short, long):
        compiled = looped(env.jax, fn, k).lower(*inputs).compile()
        timed.append(env.measure(functools.partial(compiled, *inputs), budget_s=budget_s / 2))
    return harness.in_program(timed[1], timed[0], long - short)
