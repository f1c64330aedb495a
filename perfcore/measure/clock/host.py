"""The host a measurement runs on: the cores this process may run on and the last-level cache.

XLA:CPU sizes its thread pool by the cores the process may run on (its affinity), and what a
program's operands find still cached depends on the host's last-level cache; the kernels
suite records both beside each kernel (results version 5 and 6), and a prediction on a host
says where its curves came from another (perfcore.measure.profile.predict.program.other_host).
"""

from __future__ import annotations

import os
from pathlib import Path

CPUS = Path("/sys/devices/system/cpu")  # Linux's sysfs: each CPU's caches under cpuN/cache
UNITS = {"K": 2**10, "M": 2**20, "G": 2**30}


def threads() -> int:
    """The cores this process may run on (its affinity where the platform has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def last_level_cache(cpu: Path | None = None) -> int | None:
    """Bytes of the highest-level data or unified cache the OS reports for one CPU (sysfs
    `cache/index*/{level,type,size}`, a size such as `32768K`; by default the first core this
    process may run on); None where it reports none."""
    if cpu is None:
        first = min(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 0
        cpu = CPUS / f"cpu{first}"
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
