"""Minor page faults a call takes: the first touch of pages the kernel hands the process fresh.

On a host, a buffer malloc maps (at or above its mmap threshold), or heap memory it handed back
to the kernel and takes again, faults once per page on its first write each call. A prediction
prices the first kind (predict.graph.fresh_bytes); the second depends on what the process ran
before, so a step's measured faults say how much of its wall such pages took. Counted with
getrusage(2) around each call alone (its prepare, e.g. a donating program's fresh arguments,
outside the count); None where the platform has no getrusage.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    import resource
except ImportError:  # not a Unix: no getrusage
    resource = None


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
