"""The kernels suite's launches: what a launched program costs the host beyond its kernels.

A tiny program with 1 and with 16 arguments times the dispatch per launched program, one
returning a tuple what several results add, and on an accelerator one returning a 64 and a
256 MiB array what a large result adds (curves.dispatch_fit, dispatch_bytes_fit); and the
cores and last-level cache a host's records were measured on (host_columns).
"""

from __future__ import annotations

from perfcore.measure.clock import host
from perfcore.measure.experiments.env import NO_WORK, Env, free_memory_bytes
from perfcore.measure.experiments.kernels.traced import Trace
from perfcore.measure.experiments.suites import require_fits
from perfcore.measure.results import Record
from perfcore.measure.results.curves import DISPATCH_BYTES, DISPATCH_RESULTS, EXPERIMENT

DISPATCH_ARGS = (1, 16)
RESULTS = 4  # the results of the dispatch program that returns several
LARGE_RESULTS_MIB = (64, 256)  # the one result of each large-result launch (accelerators)


def host_threads(env: Env) -> int | None:
    """The cores this process may run on, which XLA:CPU sizes its thread pool by; None on
    other backends."""
    return host.threads() if env.detected.backend == "cpu" else None


def host_columns(env: Env) -> dict:
    """A kernels record's host columns: its threads (host_threads) and, on a CPU, the
    last-level cache of the first core it may run on (clock.host.last_level_cache)."""
    if env.detected.backend != "cpu":
        return {"threads": None, "cache_bytes": None}
    return {"threads": host.threads(), "cache_bytes": host.last_level_cache()}


def dispatch(env: Env) -> list[Record]:
    """A tiny program of 1 and of 16 scalar arguments, launched and waited for; and one of 1
    argument returning RESULTS scalars (a tuple: a TPU v5e here launched a program of one result
    in 347-404 µs and of 2 to 4 in 505-553, whatever their size up to 4 MiB)."""
    jnp, records = env.jnp, []
    programs = [(n, 1, lambda *xs: sum(xs) + 1) for n in DISPATCH_ARGS]
    programs.append((1, RESULTS, lambda x: tuple(x + i for i in range(RESULTS))))
    for n, results, fn in programs:
        args = tuple(jnp.ones((1,), jnp.float32) for _ in range(n))
        compiled = env.jax.jit(fn).lower(*args).compile()
        m = env.measure(lambda c=compiled, a=args: c(*a))
        label = f"dispatch, {n} argument{'s' if n > 1 else ''}"
        label += f", {results} results" if results > 1 else ""
        records.append(
            env.record(
                EXPERIMENT,
                label,
                m,
                kernel=DISPATCH_RESULTS if results > 1 else "dispatch",
                shapes=((1,),) * n,
                **host_columns(env),
                **NO_WORK,
            )
        )
    return records


def large_results(env: Env, trace: Trace | None = None) -> list[Record]:
    """A program of one 1-element argument returning one float32 array of each of
    LARGE_RESULTS_MIB, a broadcast of it: as isolated calls, untraced (launch and device time)
    or, under `trace`, their device times alone (samples replaced once the trace ends). What a
    large result adds to a launch is the one less the other and the plain launch (curves:
    dispatch_bytes_fit): on a TPU v5e here 90-175 µs for 64-256 MiB, where a 4 MiB result
    added nothing. Accelerators only: on a CPU the output's fresh pages are priced on their own."""
    jnp, records = env.jnp, []
    arg = jnp.ones((1,), jnp.float32)
    for mib in LARGE_RESULTS_MIB:
        n = mib * 2**20 // 4
        require_fits(2 * n * 4, free_memory_bytes(), f"a launch returning {mib} MiB")
        label = f"dispatch, 1 argument, one result of {mib} MiB"

        def fill(x, n=n):
            return jnp.full((n,), x[0])

        fn = trace.named(fill, label) if trace is not None else fill
        compiled = env.jax.jit(fn).lower(arg).compile()
        m = env.measure(lambda c=compiled: c(arg))
        fields = {"kernel": DISPATCH_BYTES, "shapes": ((1,),), **NO_WORK, "bytes": float(n * 4)}
        records.append(env.record(EXPERIMENT, label, m, **fields))
    return records
