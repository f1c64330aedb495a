"""Minor page faults a call takes: the first touch of pages the kernel hands the process fresh.

On a host, a buffer malloc maps (at or above its mmap threshold), or heap memory it handed back
to the kernel and takes again, faults once per page on its first write each call. A prediction
prices the first kind (predict.graph.fresh_bytes); the second depends on what the process ran
before, so a step's measured faults say how much of its wall such pages took. Counted with
getrusage(2) around each call alone (its prepare, e.g. a donating program's fresh arguments,
outside the count); None where the platform has no getrusage.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from typing import Any

try:
    import resource
except ImportError:  # not a Unix: no getrusage
    resource = None


SETTLE_BYTES = 32 * 2**20 - 2**16  # just under glibc's largest mmap threshold, header and all


def settle_heap() -> bool:
    """Raise glibc malloc's mmap threshold to its largest now, as a process does once it frees
    a buffer that large: malloc one of SETTLE_BYTES (mapped, above the threshold it starts at)
    and free it (a freed mapping at most 32 MiB sets the threshold to its size and the trim
    threshold to twice that; mallopt(3)). Until then the threshold follows what the process
    freed before, so a kernel whose output is under 32 MiB was mapped fresh every call, or
    not, by the order the suite ran in: the same 16 MiB transpose timed 6.4 ms in one suite
    run here and 1.4 ms in the next, a 16 MiB copy 1.16 ms and 0.68. After this a buffer under
    32 MiB comes from the heap, and one of 32 MiB or more is mapped fresh, as a prediction
    counts them (predict.graph.fresh_bytes). False where the C library is not glibc's."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
    except (OSError, TypeError):
        return False
    if not hasattr(libc, "gnu_get_libc_version"):  # glibc alone has it
        return False
    libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    libc.free(libc.malloc(SETTLE_BYTES))
    return True


def page_bytes() -> int:
    """The bytes of one page of this host (4,096 on most)."""
    return resource.getpagesize() if resource is not None else 4096


def _minor() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def per_call(
    fn: Callable[[], Any],
    sync: Callable[[Any], Any],
    calls: int = 5,
    prepare: Callable[[], Any] | None = None,
) -> float | None:
    """The minor page faults of one call of fn (synced), the mean over `calls` calls after
    one uncounted (it compiles); None where getrusage is missing."""
    if resource is None or calls < 1:
        return None
    if prepare is not None:
        prepare()
    sync(fn())
    total = 0
    for _ in range(calls):
        if prepare is not None:
            prepare()
        before = _minor()
        sync(fn())
        total += _minor() - before
    return total / calls
