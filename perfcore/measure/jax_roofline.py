"""The roofline this device delivers: best matmul FLOP/s per dtype, bandwidth per memory level.

Compute roofs: for each dtype JAX runs here, an (n x n) @ (n x n) matmul over the suite's
sides, stopping after a call longer than roofline_call_s; the roof is the best FLOP/s
(perfcore.measure.empirical rates each record at its fastest sample).
Memory roofs: two streaming kernels over working sets from inside the first cache to far
beyond the last, x <- s*x ("scale", STREAM's scale in place: one read, one write) and
a <- a + s*c ("triad": two reads, one write). s is a traced scalar so XLA can neither drop
nor fold the pass; the loop carry is donated so no call allocates (fresh pages would time the
OS's page faults, not the memory); each iteration is a separate pass over the arrays (no
unrolling, which would fuse passes); a call repeats passes until it
streams stream_pass_bytes, so a call's fixed cost stays small.
Levels are found from the curve by perfcore.measure.plateaus (perfcore.measure.empirical).
"""

from __future__ import annotations

import dataclasses
import math

from perfcore import format as fmt
from perfcore.measure import empirical
from perfcore.measure.jax_env import Env, compile_case, free_memory_bytes
from perfcore.measure.results import Record
from perfcore.measure.suites import DeviceMemoryError, require_fits
from perfcore.model import ops

EXPERIMENT = "roofline"
# Dtypes the dtype-to-precision table of perfcore.measure.devices does not name.
EXTRA_PRECISION = {"float8_e4m3fn": "fp8", "float8_e5m2": "fp8"}
# (arrays in the working set, arrays moved per pass, FLOPs per element per pass) per kernel.
KERNELS = {"scale": (1, 2, 1), "triad": (2, 3, 2)}
BYTES_NOTE = "bytes from the model: cost_analysis does not count a loop body per pass"


def _operands(env: Env, n: int, dtype: str) -> tuple:
    """Two random (n x n) arrays of dtype (drawn in float32, then cast)."""
    jax, jnp = env.jax, env.jnp
    keys = jax.random.split(jax.random.key(0), 2)
    return tuple(jax.random.normal(k, (n, n), jnp.float32).astype(dtype) for k in keys)


def _matmul_record(env: Env, n: int, dtype: str) -> Record:
    """One (n x n) matmul of dtype timed as isolated calls, with its costs."""
    jax, jnp = env.jax, env.jnp
    model = ops.matmul(n, n, n, jnp.dtype(dtype).itemsize)
    require_fits(model.bytes, free_memory_bytes(), f"matmul {n}x{n}x{n} {dtype}")
    with jax.enable_x64(dtype == "float64"):
        case = compile_case(env, jnp.matmul, _operands(env, n, dtype), model, matmul=True)
    precision = case.precision or EXTRA_PRECISION.get(dtype, "")
    case = dataclasses.replace(case, precision=precision)
    m = env.measure(case.run)
    return env.record(EXPERIMENT, f"matmul {dtype} {n}", m, case, size=n, size_kind="side")


def _matmul_sweep(env: Env, dtype: str) -> list[Record]:
    """A dtype's matmuls over the suite's sides, until one call takes roofline_call_s."""
    records = []
    for n in env.suite.roofline_sides:
        try:
            records.append(_matmul_record(env, n, dtype))
        except DeviceMemoryError:
            break
        if records[-1].measurement.median > env.suite.roofline_call_s:
            break
    return records


def _supported(env: Env, dtype: str) -> bool:
    """True when a small matmul of dtype compiles and runs on this device."""
    jnp = env.jnp
    try:
        with env.jax.enable_x64(dtype == "float64"):
            a = jnp.ones((8, 8), dtype)
            env.jax.block_until_ready(jnp.matmul(a, a))
    except Exception:  # noqa: BLE001 - any failure means "not on this device"
        return False
    return True


def _stream_fn(env: Env, kernel: str, passes: int):
    """kernel repeated `passes` times in one call, one pass per loop iteration."""
    lax = env.jax.lax

    def scale(x, c, s):
        return lax.fori_loop(0, passes, lambda i, x: x * s, x)

    def triad(a, c, s):
        return lax.fori_loop(0, passes, lambda i, a: a + s * c, a)

    return {"scale": scale, "triad": triad}[kernel]


def _stream_record(env: Env, kernel: str, working_set: int) -> Record:
    """One streaming kernel over a working set of working_set bytes, as a Record."""
    jax, jnp = env.jax, env.jnp
    arrays, moved, flops_per_element = KERNELS[kernel]
    n = working_set // (4 * arrays)
    passes = max(1, math.ceil(env.suite.stream_pass_bytes / (moved * 4 * n)))
    require_fits(working_set, free_memory_bytes(), f"{kernel} over {fmt.capacity(working_set)}")
    x, c, s = jnp.ones(n, jnp.float32), jnp.ones(n, jnp.float32), jnp.float32(1.0)
    compiled = jax.jit(_stream_fn(env, kernel, passes), donate_argnums=0).lower(x, c, s).compile()
    state = [x]

    def run():
        state[0] = compiled(state[0], c, s)
        return state[0]

    m = env.measure(run, repeats=env.suite.stream_repeats, budget_s=math.inf)
    cost = ops.elementwise(n * passes, moved - 1, 1, flops_per_element, 4, f"{kernel} n={n}")
    return env.record(
        EXPERIMENT, f"{kernel} {fmt.capacity(working_set)}", m, shapes=((n,),), dtype="float32",
        precision="fp32", flops=cost.flops, bytes=cost.bytes, flops_model=cost.flops,
        bytes_model=cost.bytes, flops_source="model", size=working_set, size_kind="bytes",
        notes=(f"{passes} passes per call", BYTES_NOTE),
    )  # fmt: skip


def _stream_sweep(env: Env) -> list[Record]:
    """Both kernels over every working set of the suite that fits."""
    records = []
    for working_set in env.suite.stream_bytes:
        try:
            records += [_stream_record(env, kernel, working_set) for kernel in KERNELS]
        except DeviceMemoryError:
            break
    return records


def run(env: Env) -> list[Record]:
    """Matmul roofs for every dtype JAX runs here, then the bandwidth sweep with its levels."""
    matmuls = [r for d in env.suite.roofline_dtypes if _supported(env, d)
               for r in _matmul_sweep(env, d)]  # fmt: skip
    return [*matmuls, *empirical.with_levels(tuple(_stream_sweep(env)))]
