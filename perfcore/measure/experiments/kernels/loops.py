"""A kernel timed as a loop body's op: run inside one program's loop, per iteration.

On this CPU (timed under load) an op inside a running program's loop neither paid the launch
nor woke the thread pool as a one-op program does (exp·tanh of 4,096 elements: about 4 µs an
iteration, 28 µs a program), and a large one ran slower there than at a program's top level
(262,144 elements: 273 µs against 149 µs): neither curve prices the other place. So the
kernels suite times each stream point both ways (harness.IN_PROGRAM for this one). A scatter is
timed only so, into a table its loop carries (`carried`): as a program of its own it would
copy the whole table it updates first.

(An accelerator's points are profiled as programs of their own instead: kernel_traced.)
"""

from __future__ import annotations

import functools
import math
import time

from perfcore.measure.clock import harness
from perfcore.measure.experiments.env import Env, compiled

LOOP_ITERATIONS = (2, 10)  # the fewest: per iteration (T(10) - T(2)) / 8
EXTRA_S = 2e-3  # seconds the long loop's extra iterations should take, at least
MAX_EXTRA = 256  # extra iterations at most (a kernel of under 8 µs an iteration)


def in_place(jax, fn):
    """fn jitted as `looped` is, each iteration's result tied to the iteration's index instead
    of the last result (zero times the index, as a float, added to fn's first argument): the
    body reads nothing the last iteration wrote, so XLA writes its result into the loop's
    carry in place, with no copy, and fn's arguments stay where the last iteration left them
    (in the host's caches where they fit). So a program's loop body runs its ops on arrays the
    iterations before wrote or read: x·y + x over 1,048,576 floats took 94 µs an iteration
    so, 313 µs tied to the last result (`looped`) and 128 µs updating its carry (x ← x·y + x),
    on this CPU at stop 59 (docs/profile.md)."""

    def run(trips, first, *rest):
        shapes = jax.eval_shape(fn, first, *rest)

        def body(i, _):
            return fn(first + (i.astype(first.dtype) * 0), *rest)

        zeros = jax.tree.map(lambda s: jax.numpy.zeros(s.shape, s.dtype), shapes)
        return jax.lax.fori_loop(0, trips, body, zeros)

    return jax.jit(run)


def looped(jax, fn):
    """fn jitted to run a number of times given as its first argument (an int32 scalar: one
    program compiled for every loop length) in one program: a fori_loop each of whose
    iterations adds zero times one element of the last result to fn's first argument (fused
    into fn's own kernel), so XLA can neither hoist fn out of the loop nor skip an iteration
    (an optimization barrier on the arguments alone was hoisted with it). A result of several
    arrays (a backward pass's gradients, a top-k's values and indices) is carried whole, tied
    by its first.

    The body reads the carry it writes, so XLA writes the result to a new array and copies it
    into the carry every iteration: a point is the op and that copy (262,144 floats of
    x·y + x: 242 µs an iteration, 38 µs tied to the iteration's index instead, with no copy).
    Kept, for what it prices: tied to the index (tried at stop 49, docs/profile.md) dropout's
    loop-body ops, which reuse what the last iteration wrote, came out right (+80 % → +9 %),
    but generate_scan's, which slice 4 MiB weights out of arrays the loop does not write, came
    out 4-5× fast (+13 % → −29 %): the copy stood in for operands read warm. A host's suite
    times its stream kinds both ways since stop 59 (`in_place`): a loop body's ops are priced
    by those, and a program's later ops by these."""

    def run(trips, first, *rest):
        shapes = jax.eval_shape(fn, first, *rest)

        def body(_, carry):
            lead = jax.tree.leaves(carry)[0]
            tie = (lead.reshape(-1)[0] * 0).astype(first.dtype)
            return fn(first + tie, *rest)

        zeros = jax.tree.map(lambda s: jax.numpy.zeros(s.shape, s.dtype), shapes)
        return jax.lax.fori_loop(0, trips, body, zeros)

    return jax.jit(run)


def carried(jax, fn):
    """fn(table, *rest) -> a table like it, jitted to run a number of times given as its first
    argument in one program, each iteration updating the last one's result: the loop's carry,
    which XLA updates in place (a scatter into it copies nothing), the table given copied into
    it once, before the loop."""

    def run(trips, table, *rest):
        return jax.lax.fori_loop(0, trips, lambda _, t: fn(t, *rest), table)

    return jax.jit(run)


def trip_counts(probe_s: float, probe_trips: int) -> tuple[int, int]:
    """(short, long) loop lengths for a kernel whose loop of probe_trips iterations took
    probe_s seconds: the long loop's extra iterations take EXTRA_S or more, 8 to MAX_EXTRA of
    them, and the short loop an eighth of them (at least 2). A difference of a few iterations
    is lost in the launch's noise: on this CPU a call of the same short loop took 114-420 µs at
    its fastest of 25 from one measurement to the next, and at (2, 10) a 16,384-element
    x·1.5 + y came out 1.5-10.8 µs an iteration in three tries, a 65,536-element one 29-32 µs,
    where (4, 36) and (10, 90) gave 2.6-4.6 and 15-19 µs (docs/profile.md, stop 55)."""
    short, long = LOOP_ITERATIONS
    each = probe_s / probe_trips
    extra = min(max(long - short, math.ceil(EXTRA_S / each) if each > 0 else MAX_EXTRA), MAX_EXTRA)
    first = max(short, extra // 8)
    return first, first + extra


def _probe(env: Env, program, inputs: tuple) -> tuple[float, int]:
    """(seconds, iterations) of one call of the loop, lengthened 4× at a time from
    LOOP_ITERATIONS' longer length until it takes EXTRA_S (its launch then a small part of
    it) or runs MAX_EXTRA iterations; the first call, its pages faulted in, untimed."""
    trips = LOOP_ITERATIONS[1]
    env.jax.block_until_ready(program(env.jnp.int32(trips), *inputs))
    while True:
        start = time.perf_counter()
        env.jax.block_until_ready(program(env.jnp.int32(trips), *inputs))
        took = time.perf_counter() - start
        if took >= EXTRA_S or trips >= MAX_EXTRA:
            return took, trips
        trips = min(4 * trips, MAX_EXTRA)


def per_iteration(
    env: Env, fn, inputs: tuple, budget_s: float, carry: bool = False, place: bool = False
) -> harness.Measurement:
    """fn's seconds per iteration as a loop body's op (harness.in_program): a probe of the
    loop (_probe) sets its two lengths (trip_counts), each then timed as isolated calls within
    half of what is left of budget_s, all run by one compiled program (carry: fn updating its
    first input, carried: `carried`; place: its result written in place, `in_place`; else
    `looped`)."""
    loop = (carried if carry else in_place if place else looped)(env.jax, fn)
    count = env.jnp.int32
    program = compiled(env.jax, loop.lower(count(LOOP_ITERATIONS[0]), *inputs), "a kernel's loop")
    start = time.perf_counter()
    short, long = trip_counts(*_probe(env, program, inputs))
    left = max(budget_s - (time.perf_counter() - start), 1e-3)
    timed = [
        env.measure(functools.partial(program, count(k), *inputs), budget_s=left / 2)
        for k in (short, long)
    ]
    return harness.in_program(timed[1], timed[0], long - short)
