"""The classic timing experiments: what a clock measures when it is used wrong, and right.

Each is a public function of an env.Env returning Records, named in
perfcore.measure.experiments.registry: timer (naive vs synchronized), barriers (a read every step),
sweep (matmul sizes through overhead, utilisation and the compute roof), elementwise, dispatch
vs compute, compile vs steady state, blocking at the end vs every call, spread (min vs mean,
run to run) and the empirical ceilings (the largest matmul, a device-memory copy).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from perfcore.measure.clock import harness
from perfcore.measure.experiments.env import (
    NO_WORK,
    Case,
    Env,
    compile_case,
    free_memory_bytes,
    jax_modules,
)
from perfcore.measure.experiments.suites import require_fits
from perfcore.measure.results import Record
from perfcore.measure.results.points import measured_points, regime, roof_flops_per_s
from perfcore.model.chip import ops
from perfcore.model.chip.specs import Device


def _matmul(env: Env, n: int, dtype: str | None = None) -> Case:
    """A compiled (n x n) @ (n x n) on random inputs, refused first if it would not fit."""
    jax, jnp = env.jax, env.jnp
    dtype = dtype or env.suite.matmul_dtype
    model = ops.matmul(n, n, n, jnp.dtype(dtype).itemsize)
    require_fits(model.bytes, free_memory_bytes(), f"matmul {n}x{n}x{n} {dtype}")
    a, b = (jax.random.normal(k, (n, n), dtype) for k in jax.random.split(jax.random.key(0)))
    return compile_case(env, jnp.matmul, (a, b), model, matmul=True)


def _elementwise_case(env: Env, fn: Callable, side: int, flops_per_element: int = 1) -> Case:
    """A compiled one-in, one-out elementwise fn over a side x side float32 array."""
    jax = env.jax
    model = ops.elementwise(side * side, 1, 1, flops_per_element, 4)
    require_fits(model.bytes, free_memory_bytes(), f"elementwise {side}x{side} float32")
    x = jax.random.normal(jax.random.key(0), (side, side))
    return compile_case(env, fn, (x,), model, matmul=False)


def timer(env: Env) -> list[Record]:
    """Naive vs synchronized timer: the same 10-call matmul loop."""
    case = _matmul(env, env.suite.timer_size)
    naive = env.loop(case.run, 10, blocking=False)
    synced = env.loop(case.run, 10)
    return [
        env.record("timer", "naive timer", naive, case),
        env.record("timer", "synchronized", synced, case),
    ]


def barriers(env: Env) -> list[Record]:
    """Implicit barriers: read a value every step vs accumulate on the device, seconds/step."""
    jax, jnp, side = env.jax, env.jnp, env.suite.barrier_side
    x = jnp.ones((side, side))
    step = jax.jit(lambda x: (x * 1.01).sum())
    total = [jnp.zeros(())]

    def accumulate():
        total[0] = total[0] + step(x)
        return total[0]

    every = env.loop(lambda: float(step(x)), env.suite.barrier_steps)
    once = env.loop(accumulate, env.suite.barrier_steps)
    shape = {"shapes": ((side, side),), "dtype": "float32"}
    return [
        env.record("barriers", "read every step", every, **shape),
        env.record("barriers", "accumulate, read once", once, **shape),
    ]


def _with_regimes(records: list[Record], overhead_s: float, spec: Device | None) -> list[Record]:
    """The sweep records, each with its regime against the spec roof (else the best measured)."""
    points = measured_points(tuple(records))
    best = max(p.flops_per_s for p in points)
    typed = []
    for record, point in zip(records, points, strict=True):
        spec_roof = roof_flops_per_s(point, spec) if spec else None
        kind = regime(point.seconds_median, overhead_s, point.flops_per_s, spec_roof or best)
        against = (
            "regime against the spec roof" if spec_roof else "regime against the best measured"
        )
        typed.append(dataclasses.replace(record, regime=kind).noted(against))
    return typed


def sweep(env: Env) -> list[Record]:
    """Matmul size sweep: achieved FLOP/s per size, after the cost of an empty call."""
    empty = _elementwise_case(env, lambda x: x + 1, 1)
    floor = env.record("sweep", "empty call", env.loop(empty.run, 10), empty, **NO_WORK)
    sized = []
    for n in env.suite.matmul_sizes:
        case = _matmul(env, n)
        m = env.loop(case.run, 10)
        sized.append(env.record("sweep", f"matmul {n}", m, case, size=n, size_kind="side"))
    return [floor, *(_with_regimes(sized, floor.measurement.median, env.detected.spec))]


def elementwise(env: Env) -> list[Record]:
    """add, mul, sin, sigmoid on one large array: alike in time, all bandwidth-bound."""
    jax, jnp, side = env.jax, env.jnp, env.suite.elementwise_side
    fns = {
        "add": lambda x: x + 1,
        "mul": lambda x: x * 1.5,
        "sin": jnp.sin,
        "sigmoid": jax.nn.sigmoid,
    }
    records = []
    for name, fn in fns.items():
        case = _elementwise_case(env, fn, side)
        records.append(env.record("elementwise", name, env.loop(case.run, 10), case))
    return records


def _square(env: Env, n: int) -> Case:
    """The timing lessons' x @ x on an n x n float32 array of ones."""
    model = ops.Cost(2 * n**3, 2 * n * n * 4, f"x @ x, n={n}")  # x is read once: 2 matrices move
    require_fits(model.bytes, free_memory_bytes(), f"matmul {n}x{n}x{n} float32")
    return compile_case(env, lambda x: x @ x, (env.jnp.ones((n, n)),), model, matmul=True)


def dispatch(env: Env) -> list[Record]:
    """Dispatch vs compute: min of isolated calls, unblocked and blocked, at each size."""
    records = []
    for n in env.suite.dispatch_sizes:
        case = _square(env, n)
        side = {"size": n, "size_kind": "side"}
        unblocked = env.measure(case.run, blocking=False)
        records.append(env.record("dispatch", f"dispatch {n}", unblocked, case, **side))
        records.append(env.record("dispatch", f"compute {n}", env.measure(case.run), case, **side))
    return records


def _mlp_fn() -> Callable:
    """A fresh tanh MLP function (a new function object, so jax.jit compiles it anew)."""

    def mlp(params, x):
        for w, b in params:
            x = env_tanh(x @ w + b)
        return x.sum()

    env_tanh = jax_modules()[1].tanh
    return mlp


def compile_vs_steady(env: Env) -> list[Record]:
    """Compile vs steady state of a small MLP: first call (upper bound on compile), steady step."""
    jax, jnp, s = env.jax, env.jnp, env.suite
    layer = ops.linear(s.mlp_batch, s.mlp_width, s.mlp_width, 4)
    model = ops.Cost(s.mlp_layers * layer.flops, s.mlp_layers * layer.bytes, "mlp")
    require_fits(model.bytes, free_memory_bytes(), f"MLP {s.mlp_layers}x{s.mlp_width}")
    keys = jax.random.split(jax.random.key(0), s.mlp_layers)
    params = [
        (jax.random.normal(k, (s.mlp_width,) * 2) * 0.05, jnp.zeros(s.mlp_width)) for k in keys
    ]
    x = jnp.ones((s.mlp_batch, s.mlp_width))
    first = env.measure(lambda: jax.jit(_mlp_fn())(params, x), warmup=0, repeats=s.compile_runs)
    case = compile_case(env, _mlp_fn(), (params, x), model, matmul=True)
    steady = env.loop(case.run, 20)
    ratio = (
        f"first call / steady step = {first.statistic / steady.statistic:.0f} "
        "(min of the first calls / mean of the steady loop)"
    )
    return [
        env.record("compile", "first call", first, case, notes=(ratio,), **NO_WORK),
        env.record("compile", "steady step", steady, case),
    ]


def blocking(env: Env) -> list[Record]:
    """Block once at the end vs on every call: mean per call of the same loop."""
    case = _square(env, env.suite.loop_size)
    calls = env.suite.loop_calls
    end = env.loop(case.run, calls)
    every = env.loop(lambda: env.jax.block_until_ready(case.run()), calls)
    return [
        env.record("blocking", "block at the end", end, case),
        env.record("blocking", "block every call", every, case),
    ]


def spread(env: Env) -> list[Record]:
    """Min vs mean, and the run-to-run spread of the min over repeated runs."""
    case = _square(env, env.suite.spread_size)
    runs = [
        env.record("spread", f"isolated min, run {i + 1}", env.measure(case.run), case)
        for i in range(env.suite.spread_runs)
    ]
    mean = env.record("spread", "back-to-back mean", env.loop(case.run, 10), case)
    spread = harness.run_to_run_spread([r.measurement for r in runs])
    note = f"run-to-run spread {spread:.1%}: a difference smaller than this is not a result yet"
    return [*(r.noted(note) for r in runs), mean]


def ceilings(env: Env) -> list[Record]:
    """Empirical ceilings: the largest matmul's FLOP/s and a device-memory copy's bytes/s."""
    s = env.suite
    n = max(s.matmul_sizes, default=s.timer_size)
    case = _matmul(env, n)
    best = env.record(
        "ceilings", "best matmul", env.loop(case.run, 10), case, size=n, size_kind="side"
    )
    copy = _elementwise_case(env, lambda x: x.copy(), s.copy_side, flops_per_element=0)
    working_set = 8 * s.copy_side**2  # float32 in and out
    m = env.loop(copy.run, 10)
    return [best, env.record("ceilings", "copy", m, copy, size=working_set, size_kind="bytes")]
