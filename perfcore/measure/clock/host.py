"""The host a measurement runs on: the cores this process may run on and the last-level cache.

XLA:CPU sizes its thread pool by the cores the process may run on (its affinity), and what a
program's operands find still cached depends on the host's last-level cache; the kernels
suite records both beside each kernel (results version 5 and 6), and a prediction on a host
says where its curves came from another (differs).
"""

from __future__ import annotations

import os
from pathlib import Path

CPUS = Path("/sys/devices/system/cpu")  # Linux's sysfs: each CPU's caches under cpuN/cache
UNITS = {"K": 2**10, "M": 2**20, "G": 2**30}


def _cores() -> set[int]:
    """The cores this process may run on: its affinity where the platform has one, else all."""
    if hasattr(os, "sched_getaffinity"):
        return os.sched_getaffinity(0)
    return set(range(os.cpu_count() or 1))


def threads() -> int:
    """The cores this process may run on (its affinity where the platform has one)."""
    return len(_cores())


def last_level_cache(cpu: Path | None = None) -> int | None:
    """Bytes of the highest-level data or unified cache the OS reports for one CPU (sysfs
    `cache/index*/{level,type,size}`, a size such as `32768K`; by default the first core this
    process may run on); None where it reports none."""
    if cpu is None:
        cpu = CPUS / f"cpu{min(_cores())}"
    found = []
    for index in sorted((cpu / "cache").glob("index*")):
        try:
            level = int((index / "level").read_text().strip())
            kind = (index / "type").read_text().strip()
            size = (index / "size").read_text().strip()
        except (OSError, ValueError):
            continue
        digits, unit = (size[:-1], size[-1]) if size[-1:] in UNITS else (size, "")
        if kind != "Instruction" and digits.isdigit():
            found.append((level, int(digits) * UNITS.get(unit, 1)))
    return max(found)[1] if found else None


def differs(their_threads: int, their_cache_bytes: int) -> str:
    """What differs between a host of their threads and last-level cache (curves' record of
    where they were measured) and this one, in words; empty where nothing does or they say
    nothing of their host (0 threads: another backend's curves, an older file's)."""
    if not their_threads:
        return ""
    here = threads(), last_level_cache() or 0
    mib = their_cache_bytes / 2**20, here[1] / 2**20
    pairs = [
        (f"{their_threads} threads", f"{here[0]} threads", their_threads != here[0]),
        (
            f"a {mib[0]:g} MiB last-level cache",
            f"{mib[1]:g} MiB",
            bool(their_cache_bytes and here[1]) and mib[0] != mib[1],
        ),
    ]
    theirs, mine = [a for a, _, d in pairs if d], [b for _, b, d in pairs if d]
    if not theirs:
        return ""
    return (
        f"measured on a host with {' and '.join(theirs)}, where this one has {' and '.join(mine)}"
    )
