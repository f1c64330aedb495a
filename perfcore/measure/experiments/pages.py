"""What a fresh page costs on the host: first touch of memory the allocator maps new per call.

glibc's malloc serves a request at or above its mmap threshold with fresh pages from the kernel
and returns them on free; the threshold adapts to what a program frees but never passes 32 MiB
on 64-bit (`DEFAULT_MMAP_THRESHOLD_MAX`, mallopt(3); profile.predict.graph.MMAP_MAX). So an
XLA:CPU program whose temporary arena or one of whose outputs is that large or larger takes a page
fault per 4 KiB page it writes, every step (a decode step's 32 MiB of transposed KV cache).
The ops that write such a buffer run on every core at once, and page faults taken at once
contend in the kernel (each costs about a fifth more core time on two cores than alone).
Measured here as isolated calls: map FRESH_BYTES private and anonymous as malloc does (no
huge-page advice, as XLA's allocator gives none), write one byte per page from each of the
host's threads, each its own contiguous part, unmap; the record's fastest call times its
threads over its bytes is the cost per fresh byte, in core-seconds
(perfcore.measure.results.curves).

That kernel read 2.8-4.9 core-µs a page here where the faults an XLA op takes as it writes a
fresh output added 1.9-3.1 (a decode step's 8,258 a step, and x + 1 over 64 MiB into a fresh
output against the same into its donated input): the op's own threads fault as they stream,
the kernel's from Python threads one byte a page. So the suite times that op both ways, in
turn (in_place), and a prediction takes the difference where a file has both.
"""

from __future__ import annotations

import mmap
import threading

from perfcore.measure.clock import harness
from perfcore.measure.experiments.env import NO_WORK, Env
from perfcore.measure.results.curves import FAULT_PAIR

KERNEL = "page faults, every core"
FRESH_BYTES = 64 * 2**20  # mapped and touched per call
PAGE = mmap.PAGESIZE


def touch_fresh(n_bytes: int = FRESH_BYTES, threads: int = 1) -> None:
    """Map n_bytes anonymously; `threads` threads at once each write one byte per page of
    their own contiguous part; unmap."""
    import numpy as np

    with mmap.mmap(-1, n_bytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS) as fresh:
        pages = np.frombuffer(fresh, np.uint8)[::PAGE]  # a view: released before unmapping
        cuts = [len(pages) * k // threads for k in range(threads + 1)]
        parts = [pages[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]
        workers = [threading.Thread(target=part.fill, args=(1,)) for part in parts]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        del pages, parts


def in_place(env: Env, experiment: str, threads: int | None) -> list:
    """x + 1 over FRESH_BYTES of float32 (an XLA:CPU loop fusion on every core) into a fresh
    output, whose pages fault as it writes them, and into its donated input, whose pages are
    mapped, timed in turn (harness.interleaved): the two records (curves.FAULT_PAIR) whose
    fastest calls' difference is what fresh pages add to an op."""
    jax, jnp = env.jax, env.jnp
    x = jnp.ones((FRESH_BYTES // 4,), jnp.float32)
    fresh = jax.jit(lambda v: v + 1.0).lower(x).compile()
    donated = jax.jit(lambda v: v + 1.0, donate_argnums=0).lower(x).compile()
    held = [jnp.array(x, copy=True)]

    def in_place_call():
        held[0] = donated(held[0])
        return held[0]

    timed = env.interleaved((lambda: fresh(x), in_place_call), repeats=env.suite.repeats)
    work = NO_WORK | {"bytes": float(FRESH_BYTES), "size": float(FRESH_BYTES)}
    mib = FRESH_BYTES // 2**20
    return [
        env.record(
            experiment,
            f"x + 1 over {mib} MiB of float32 into {where}",
            m,
            kernel=kind,
            size_kind="bytes",
            threads=threads,
            **work,
        )
        for kind, where, m in zip(
            FAULT_PAIR, ("a fresh output", "its donated input"), timed, strict=True
        )
    ]


def record(env: Env, experiment: str, threads: int | None):
    """The fresh-page record: FRESH_BYTES first touched per call by `threads` threads at once
    (one where unknown), isolated calls."""
    n = max(threads or 1, 1)
    m = harness.measure(
        lambda: touch_fresh(FRESH_BYTES, n), sync=lambda _: None, repeats=env.suite.repeats
    )
    label = f"first touch of {FRESH_BYTES // 2**20} MiB of fresh {PAGE}-byte pages by {n} threads"
    work = NO_WORK | {"bytes": float(FRESH_BYTES), "size": float(FRESH_BYTES)}
    return env.record(
        experiment, label, m, kernel=KERNEL, size_kind="bytes", threads=threads, **work
    )
