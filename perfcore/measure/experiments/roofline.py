"""The roofline this device delivers: best matmul FLOP/s per dtype, bandwidth per memory level.

Compute roofs: for each dtype JAX runs here, an (n x n) @ (n x n) matmul over the suite's
sides, stopping after a call longer than roofline_call_s; the roof is the best FLOP/s
(perfcore.measure.results.empirical rates each record at its fastest sample).
Memory roofs: the bandwidth sweep of measure.experiments.stream (scale and triad over working
sets from inside the first cache to far beyond the last, each path's overhead per pass timed
and overhead-bound working sets flagged).
Levels are found from the curve by measure.results.plateaus (measure.results.empirical).
"""

from __future__ import annotations

import dataclasses

from perfcore.measure.experiments import stream
from perfcore.measure.experiments.env import Env, compile_case, free_memory_bytes, random_inputs
from perfcore.measure.experiments.suites import DeviceMemoryError, require_fits
from perfcore.measure.results import Record, empirical
from perfcore.model.chip import ops

EXPERIMENT = "roofline"
# Dtypes the dtype-to-precision table of perfcore.measure.clock.devices does not name.
EXTRA_PRECISION = {"float8_e4m3fn": "fp8", "float8_e5m2": "fp8"}
# The runtime's codes for "this backend has no kernel for that type" (XLA status codes).
UNSUPPORTED = ("UNIMPLEMENTED", "INVALID_ARGUMENT")


def _matmul_record(env: Env, n: int, dtype: str) -> Record:
    """One (n x n) matmul of dtype timed as isolated calls, with its costs."""
    jax, jnp = env.jax, env.jnp
    model = ops.matmul(n, n, n, jnp.dtype(dtype).itemsize)
    require_fits(model.bytes, free_memory_bytes(), f"matmul {n}x{n}x{n} {dtype}")
    with jax.enable_x64(dtype == "float64"):
        case = compile_case(
            env, jnp.matmul, random_inputs(env, ((n, n),) * 2, dtype), model, matmul=True
        )
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


def unsupported(env: Env, dtype: str) -> str | None:
    """Why this backend does not run dtype, or None where a small matmul of it runs.

    Only "not a dtype this JAX knows" and the runtime's UNSUPPORTED codes drop a dtype; any
    other failure (out of memory, a driver fault, a bug) propagates and stops the run."""
    jnp = env.jnp
    try:
        jnp.dtype(dtype)
    except TypeError:
        return f"{dtype} (not a dtype this JAX knows)"
    try:
        with env.jax.enable_x64(dtype == "float64"):
            a = jnp.ones((8, 8), dtype)
            env.jax.block_until_ready(jnp.matmul(a, a))
    except env.jax.errors.JaxRuntimeError as error:
        if error.error_code_string not in UNSUPPORTED:
            raise
        return f"{dtype} ({error.error_code_string} on the {env.detected.backend} backend)"
    return None


def run(env: Env) -> list[Record]:
    """Matmul roofs for every dtype JAX runs here, then the bandwidth sweep with its levels;
    a dtype this backend does not run is named in every record's notes."""
    dropped = {d: why for d in env.suite.roofline_dtypes if (why := unsupported(env, d))}
    matmuls = [
        r for d in env.suite.roofline_dtypes if d not in dropped for r in _matmul_sweep(env, d)
    ]
    records = [*matmuls, *empirical.with_levels(tuple(stream.sweep(env)))]
    if not dropped:
        return records
    note = f"not measured, the backend does not run: {', '.join(dropped.values())}"
    return [r.noted(note) for r in records]
