"""What a fresh page costs on the host: first touch of memory the allocator maps new per call.

glibc's malloc serves a request at or above its mmap threshold with fresh pages from the kernel
and returns them on free; the threshold adapts to what a program frees but never passes 32 MiB
on 64-bit (`DEFAULT_MMAP_THRESHOLD_MAX`, mallopt(3); profile.predict.graph.MMAP_MAX). So an
XLA:CPU program whose temporary arena or one of whose outputs is that large or larger takes a page
fault per 4 KiB page it writes, every step (a decode step's 32 MiB of transposed KV cache).
Measured here as isolated calls: map FRESH_BYTES private and anonymous as malloc does (no
huge-page advice, as XLA's allocator gives none), write one byte per page, unmap; the record's
fastest call over its bytes is the cost per fresh byte, in core-seconds: one thread took the
faults (perfcore.measure.results.curves).
"""

from __future__ import annotations

import mmap

from perfcore.measure.clock import harness
from perfcore.measure.experiments.env import NO_WORK, Env

KERNEL = "page faults"
FRESH_BYTES = 64 * 2**20  # mapped and touched per call
PAGE = mmap.PAGESIZE


def touch_fresh(n_bytes: int = FRESH_BYTES) -> None:
    """Map n_bytes anonymously, write one byte per page, unmap."""
    import numpy as np

    with mmap.mmap(-1, n_bytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS) as fresh:
        np.frombuffer(fresh, np.uint8)[::PAGE] = 1  # a view: released before unmapping


def record(env: Env, experiment: str, **fields):
    """The fresh-page record: FRESH_BYTES first touched per call, isolated calls."""
    m = harness.measure(touch_fresh, sync=lambda _: None, repeats=env.suite.repeats)
    label = f"first touch of {FRESH_BYTES // 2**20} MiB of fresh {PAGE}-byte pages"
    work = NO_WORK | {"bytes": float(FRESH_BYTES), "size": float(FRESH_BYTES)}
    return env.record(experiment, label, m, kernel=KERNEL, size_kind="bytes", **work, **fields)
