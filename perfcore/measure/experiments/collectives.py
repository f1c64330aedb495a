"""Collectives over every device JAX sees: all-reduce, all-gather, reduce-scatter, all-to-all.

Each runs under shard_map on a one-axis mesh of all devices (all processes' devices under
jax.distributed), over buffer sizes S swept from 1 KiB per rank: nccl-tests' S is the
per-rank buffer of all-reduce, reduce-scatter's input, all-gather's output and all-to-all's
buffer. A Record's bytes are what each rank sends (comm.py's factor x S), so bytes / time is
busbw; size is S. Every size takes the suite's full repeats with no time budget: processes
must issue the same collectives in the same order. Inputs come from a jitted function with
the mesh's sharding, which works in one process or many. On a CPU the "devices" share one
memory: the numbers are memory copies (or sockets between processes), not a network.
"""

from __future__ import annotations

import math

from perfcore import format as fmt
from perfcore.measure.experiments.env import Env, free_memory_bytes
from perfcore.measure.experiments.suites import require_fits
from perfcore.measure.results import Record, linkfit
from perfcore.model.chip import comm

EXPERIMENT = "collectives"
AXIS = "ranks"
COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all")


def _body(lax, collective: str):
    """The per-rank function of one collective over AXIS (tiled: shapes stay 2-D)."""
    return {
        "all-reduce": lambda x: lax.psum(x, AXIS),
        "all-gather": lambda x: lax.all_gather(x, AXIS, axis=1, tiled=True),
        "reduce-scatter": lambda x: lax.psum_scatter(x, AXIS, scatter_dimension=1, tiled=True),
        "all-to-all": lambda x: lax.all_to_all(x, AXIS, 1, 1, tiled=True),
    }[collective]


def _buffer(collective: str, requested_bytes: int, n_ranks: int) -> tuple[int, int]:
    """float32 elements each rank holds as input, and the buffer S (bytes) they make."""
    per_rank = requested_bytes // 4 // n_ranks  # a multiple of n_ranks elements, rounded down
    if collective == "all-gather":
        return per_rank, 4 * per_rank * n_ranks
    return per_rank * n_ranks, 4 * per_rank * n_ranks


def _compiled(env: Env, mesh, collective: str, elements: int):
    """The collective compiled over the mesh, and its (ranks, elements) float32 input."""
    jax, jnp = env.jax, env.jnp
    spec = jax.sharding.PartitionSpec(AXIS, None)
    sharding = jax.sharding.NamedSharding(mesh, spec)
    n = mesh.size
    x = jax.jit(lambda: jnp.ones((n, elements), jnp.float32), out_shardings=sharding)()
    fn = jax.shard_map(_body(jax.lax, collective), mesh=mesh, in_specs=spec, out_specs=spec)
    return jax.jit(fn).lower(x).compile(), x


def _record(env: Env, mesh, collective: str, buffer_bytes: int, notes: tuple) -> Record:
    """One collective over one buffer size, timed as isolated calls."""
    n = mesh.size
    elements, buffer_bytes = _buffer(collective, buffer_bytes, n)
    require_fits(3 * n * buffer_bytes, free_memory_bytes(), f"{collective} {buffer_bytes} bytes")
    compiled, x = _compiled(env, mesh, collective, elements)
    m = env.measure(lambda: compiled(x), budget_s=math.inf)  # same calls in every process
    sent = comm.collective_bytes(collective, buffer_bytes, n)
    return env.record(
        EXPERIMENT,
        f"{collective} {fmt.capacity(buffer_bytes)}",
        m,
        shapes=((n, elements),),
        dtype="float32",
        bytes=sent,
        bytes_model=sent,
        size=buffer_bytes,
        size_kind="bytes",
        notes=notes,
    )


def _with_fit(records: list[Record]) -> list[Record]:
    """The records, noted with the alpha-beta model fitted to their sweep and its check."""
    rows = linkfit.sweep(records)
    try:
        note = linkfit.fit_note(*linkfit.fit_and_check(*rows))
    except linkfit.NoFit as error:  # too noisy a sweep: say so rather than fail the run
        note = f"no alpha-beta fit: {error}"
    return [r.noted(note) for r in records]


def run(env: Env) -> list[Record]:
    """Every collective over every buffer size of the suite; nothing with a single device."""
    jax = env.jax
    devices = jax.devices()
    if len(devices) < 2:
        return []
    mesh = jax.sharding.Mesh(devices, (AXIS,))
    procs = jax.process_count()
    notes = (f"{len(devices)} devices in {procs} processes (jax.distributed)",) if procs > 1 else ()
    if env.detected.backend == "cpu":
        notes += ("CPU devices share one memory: memory copies, not a network",)
    records = []
    for collective in COLLECTIVES:
        sweep = [_record(env, mesh, collective, size, notes) for size in env.suite.collective_bytes]
        records += _with_fit(sweep)
    return records
