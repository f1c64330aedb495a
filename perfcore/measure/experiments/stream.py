"""The bandwidth sweep: streaming kernels over working sets, and what a pass costs beyond memory.

x <- s*x ("scale": STREAM's scale, one read and one write) and a <- a + s*c ("triad"), s a traced
scalar; a call repeats passes until it streams stream_pass_bytes, its carry donated (no call
allocates). Two paths: "loop", a lax.fori_loop with one pass per iteration (on a GPU each pass
is a kernel launch plus loop bookkeeping), on every backend; and on a GPU also "pallas", one
Pallas (Triton) kernel whose programs each loop over the passes, loading and storing their share
of the working set every pass. Each path's overhead per pass is the slope of its time over a
tiny array (P vs 2P passes); a pass too close to it is flagged (empirical.overhead_bound).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from perfcore import format as fmt
from perfcore.measure.experiments.env import (
    Env,
    compiled,
    free_memory_bytes,
    refused_for_memory,
)
from perfcore.measure.experiments.suites import DeviceMemoryError, require_fits
from perfcore.measure.results import Record, empirical
from perfcore.model.chip import ops

EXPERIMENT = "roofline"
# (arrays in the working set, arrays moved per pass, FLOPs per element per pass) per kernel.
KERNELS = {"scale": (1, 2, 1), "triad": (2, 3, 2)}
LOOP, PALLAS = "loop", "pallas"
PATH_NOTES = {
    LOOP: f"{empirical.PATH_NOTE}loop, one pass per lax.fori_loop iteration (on a GPU a kernel "
    "launch per pass)",
    PALLAS: f"{empirical.PATH_NOTE}pallas, every pass inside one kernel launch (Triton)",
}
BYTES_NOTE = "bytes from the model: cost_analysis does not count a loop body per pass"
# Float32 elements a Pallas program loads and stores per step: 4 warps of 32 threads, 8 each
# (two 16 B vectors a thread, 4 KiB a program in flight, to hide the memory's latency).
BLOCK, WARPS = 1024, 4
# Pallas programs per call: few enough to be resident at once on a large GPU (8 per unit of a
# 132-unit one), so that each pass sweeps the whole working set before the next begins.
MAX_PROGRAMS = 1024
MAX_PALLAS_ELEMENTS = 2**31  # its indices are int32: larger arrays run on the loop path only
OVERHEAD_ELEMENTS = 16  # the tiny array the overhead is timed over: 64 B, one cache line
OVERHEAD_PASSES = 2**14  # P: the overhead is the slope between P and 2P passes over it


def passes_for(kernel: str, n: int, pass_bytes: float) -> int:
    """Passes over n float32 elements per call so that one call streams pass_bytes."""
    return max(1, math.ceil(pass_bytes / (KERNELS[kernel][1] * 4 * n)))


def stream_cost(kernel: str, n: int, passes: int) -> ops.Cost:
    """FLOPs and bytes of `passes` passes of kernel over n float32 elements (the model)."""
    _, moved, flops_per_element = KERNELS[kernel]
    return ops.elementwise(n * passes, moved - 1, 1, flops_per_element, 4, f"{kernel} n={n}")


def loop_fn(env: Env, kernel: str, passes: int):
    """kernel repeated `passes` times in one call, one pass per fori_loop iteration."""
    lax = env.jax.lax

    def scale(x, c, s):
        return lax.fori_loop(0, passes, lambda i, x: x * s, x)

    def triad(a, c, s):
        return lax.fori_loop(0, passes, lambda i, a: a + s * c, a)

    return {"scale": scale, "triad": triad}[kernel]


def _programs(n: int) -> tuple[int, int]:
    """(Pallas programs, BLOCK-sized steps each makes per pass) to cover n elements."""
    programs = min(-(-n // BLOCK), MAX_PROGRAMS)
    return programs, -(-n // (programs * BLOCK))


def _pallas_body(env: Env, kernel: str, n: int, passes: int):
    """The kernel body: program p sweeps blocks p, p + programs, ... on every pass."""
    import jax.experimental.pallas.triton as plgpu
    from jax.experimental import pallas as pl

    jnp, lax = env.jnp, env.jax.lax
    programs, steps = _programs(n)
    ragged = programs * steps * BLOCK != n  # only then are the last blocks masked

    def body(x_ref, c_ref, s_ref, o_ref):
        s, pid = s_ref[...], pl.program_id(0)

        def sweep(src):  # one pass: pass 0 reads the input, later ones the output (aliased)
            def step(j, carry):
                idx = (j * programs + pid) * BLOCK + jnp.arange(BLOCK)
                masked = {"mask": idx < n, "other": 0.0} if ragged else {}
                value = plgpu.load(src.at[idx], **masked)
                if kernel == "scale":
                    value = value * s
                else:
                    value = value + s * plgpu.load(c_ref.at[idx], **masked)
                plgpu.store(o_ref.at[idx], value, mask=masked.get("mask"))
                return carry

            lax.fori_loop(0, steps, step, 0)

        sweep(x_ref)
        lax.fori_loop(1, passes, lambda i, carry: (sweep(o_ref), carry)[1], 0)

    return body, programs


def pallas_fn(env: Env, kernel: str, n: int, passes: int, *, interpret: bool = False):
    """kernel repeated `passes` times inside one Pallas kernel over n float32, x updated in place.

    interpret=True runs it on any backend (the CPU included) as JAX ops, for testing only.
    """
    import jax.experimental.pallas.triton as plgpu
    from jax.experimental import pallas as pl

    if n > MAX_PALLAS_ELEMENTS:
        raise ValueError(f"the Pallas kernel indexes in int32: n = {n} is over 2**31")
    body, programs = _pallas_body(env, kernel, n, passes)
    return pl.pallas_call(
        body,
        out_shape=env.jax.ShapeDtypeStruct((n,), env.jnp.float32),
        grid=(programs,),
        input_output_aliases={0: 0},
        interpret=interpret,
        name=f"stream_{kernel}",
        compiler_params=None if interpret else plgpu.CompilerParams(num_warps=WARPS),
    )


def _callable(env: Env, kernel: str, path: str, n: int, passes: int, scale: float = 1.0):
    """run() calling the path's compiled kernel on n float32 ones, carry donated; and x."""
    jax, jnp = env.jax, env.jnp
    with refused_for_memory(jax, f"{kernel} over {n} float32", "the allocator"):
        x, c, s = jnp.ones(n, jnp.float32), jnp.ones(n, jnp.float32), jnp.float32(scale)
    fn = loop_fn(env, kernel, passes) if path == LOOP else pallas_fn(env, kernel, n, passes)
    program = compiled(jax, jax.jit(fn, donate_argnums=0).lower(x, c, s), f"{kernel} over {n}")
    state = [x]

    def run():
        state[0] = program(state[0], c, s)
        return state[0]

    return run


def pallas_problem(env: Env) -> str | None:
    """Why the Pallas path cannot time here (not a GPU, no build, a wrong result); None if it can.

    The check: 3 passes of scale with s = 0.5 over 1000 random float32 must equal x / 8 exactly.
    """
    if env.detected.backend != "gpu":
        return f"the Pallas path runs on a GPU only, this backend is {env.detected.backend!r}"
    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    try:  # any failure to lower or compile means the path is not available here, reported
        fn = env.jax.jit(pallas_fn(env, "scale", x.size, 3))
        got = np.asarray(fn(env.jnp.asarray(x), env.jnp.asarray(x), env.jnp.float32(0.5)))
    except Exception as error:  # noqa: BLE001 - reported in the records, never dropped
        return f"the Pallas kernel does not build here: {type(error).__name__}: {error}"[:300]
    if not np.array_equal(got, x / 8):
        return f"the Pallas kernel's result is wrong (max error {np.abs(got - x / 8).max():.3g})"
    return None


@dataclass(frozen=True)
class Overhead:
    """What one pass of a path costs beyond memory: the slope over a tiny array, seconds."""

    kernel: str
    path: str
    per_pass_s: float  # (t(2P) - t(P)) / P at the fastest samples
    fixed_s: float  # 2 t(P) - t(2P): the call's fixed cost (launch, argument handling)
    records: tuple[Record, Record]

    @property
    def note(self) -> str:
        """The overhead as a one-line note."""
        return (
            f"{empirical.OVERHEAD_NOTE} {fmt.seconds(self.per_pass_s)} ({self.kernel}, "
            f"{self.path}: slope of {OVERHEAD_PASSES} vs {2 * OVERHEAD_PASSES} passes over "
            f"{OVERHEAD_ELEMENTS} float32, fastest samples, measured in turn); fixed cost "
            f"per call {fmt.seconds(self.fixed_s)}"
        )


def measure_overhead(env: Env, kernel: str, path: str) -> Overhead:
    """The path's overhead per pass: P and 2P passes over a tiny array timed in turn."""
    n, p = OVERHEAD_ELEMENTS, OVERHEAD_PASSES
    runs = tuple(_callable(env, kernel, path, n, passes) for passes in (p, 2 * p))
    measured = env.interleaved(runs, repeats=env.suite.stream_repeats, budget_s=math.inf)
    t1, t2 = (m.min for m in measured)
    per_pass, fixed = (t2 - t1) / p, 2 * t1 - t2
    records = tuple(
        env.record(
            EXPERIMENT,
            f"{kernel} overhead ({path}), {passes} passes over {n} float32",
            m,
            shapes=((n,),),
            dtype="float32",
            size=n,
            size_kind="elements",
            notes=(PATH_NOTES[path],),
        )
        for passes, m in zip((p, 2 * p), measured, strict=True)
    )
    overhead = Overhead(kernel, path, per_pass, fixed, records)
    return dataclasses.replace(overhead, records=tuple(r.noted(overhead.note) for r in records))


def _overhead_notes(per_pass_s: float, overhead: Overhead) -> tuple[str, ...]:
    """The pass time against the path's overhead, flagged overhead-bound under the factor."""
    if overhead.per_pass_s <= 0:
        return ("the overhead per pass was not resolved (its slope is not positive)",)
    times = per_pass_s / overhead.per_pass_s
    note = (
        f"fastest pass {fmt.seconds(per_pass_s)} = {times:.3g}x the overhead per pass "
        f"{fmt.seconds(overhead.per_pass_s)}"
    )
    flagged = empirical.overhead_bound(per_pass_s, overhead.per_pass_s)
    return (note, empirical.OVERHEAD_BOUND) if flagged else (note,)


def stream_record(env: Env, kernel: str, working_set: int, path: str, overhead: Overhead) -> Record:
    """One streaming kernel over working_set bytes by one path, as a Record."""
    n = working_set // (4 * KERNELS[kernel][0])
    passes = passes_for(kernel, n, env.suite.stream_pass_bytes)
    require_fits(working_set, free_memory_bytes(), f"{kernel} over {fmt.capacity(working_set)}")
    m = env.measure(
        _callable(env, kernel, path, n, passes), repeats=env.suite.stream_repeats, budget_s=math.inf
    )
    cost = stream_cost(kernel, n, passes)
    notes = (
        f"{passes} passes per call",
        BYTES_NOTE,
        PATH_NOTES[path],
        *_overhead_notes(m.min / passes, overhead),
    )
    label = f"{kernel} {fmt.capacity(working_set)}" + (", one kernel" if path == PALLAS else "")
    return env.record(
        EXPERIMENT,
        label,
        m,
        shapes=((n,),),
        dtype="float32",
        precision="fp32",
        flops=cost.flops,
        bytes=cost.bytes,
        flops_model=cost.flops,
        bytes_model=cost.bytes,
        flops_source="model",
        size=working_set,
        size_kind="bytes",
        notes=notes,
    )


def paths(env: Env) -> tuple[tuple[str, ...], str | None]:
    """The paths this device times (the loop always, Pallas where it works) and why not Pallas."""
    problem = pallas_problem(env)
    return ((LOOP,) if problem else (LOOP, PALLAS)), problem


def sweep(env: Env) -> list[Record]:
    """Each path's overheads, then both kernels by each path over every working set that fits."""
    chosen, problem = paths(env)
    overheads = {(k, p): measure_overhead(env, k, p) for p in chosen for k in KERNELS}
    records = [r for overhead in overheads.values() for r in overhead.records]
    if problem and env.detected.backend == "gpu":  # elsewhere the loop is the only path there is
        records = [r.noted(empirical.PALLAS_UNUSED + problem) for r in records]
    for path in chosen:
        for working_set in env.suite.stream_bytes:
            if path == PALLAS and working_set // 4 > MAX_PALLAS_ELEMENTS:
                break
            try:
                records += [
                    stream_record(env, k, working_set, path, overheads[k, path]) for k in KERNELS
                ]
            except DeviceMemoryError:
                break
    return records
