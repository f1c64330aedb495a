"""What an operand read cold adds to an op: a kernel's time over operands a program last touched
far back, against the same kernel over operands it touched a call before.

The kernel curves time each kernel back to back on the same operands, so a point reads what it
touched a call before; a program reads a layer's weights or an optimizer's states once a step,
after its other ops moved far more. The kernels suite times a few streaming kinds (COLD_KINDS)
over copies of their operands in turn, each copy read after DISTANCE bytes of the others: a
record at level LEVEL. Measured here (bench/cold_cache.py --rotate 16): ×1.4-2.4 at 4 and 16
MiB, 0.01-0.07 ms more per MiB read cold, by kind. A prediction adds, to each op of a kind
COLD_OF maps to one measured, the bytes of its operands read cold (read_cold, from each
one's reuse distance: perfcore.measure.profile.predict.reuse) at that kind's seconds per byte.
"""

from __future__ import annotations

import bisect
import math

LEVEL = "memory"  # a cold point's Record.level: its operands come from memory, not a cache
DISTANCE = 96 * 2**20  # bytes of other operands read between two reads of a cold point's own
COLD_KINDS = ("elementwise", "plain copy", "reduction", "matvec")
# An op's kernel kind -> the cold kind that prices its cold operands (a kind not here: none).
COLD_OF = {
    "elementwise": "elementwise",
    "transcendental": "elementwise",
    "rounding": "elementwise",
    "plain copy": "plain copy",
    "copy": "plain copy",
    "transpose": "plain copy",
    "row transpose": "plain copy",
    "reduction": "reduction",
    "column reduction": "reduction",
    "arg reduction": "reduction",
    "matvec": "matvec",
    "batched matvec": "matvec",
}


def read_cold(operand_bytes: float, between_bytes: float, cache_bytes: int = 0) -> bool:
    """True where an operand is read cold: its bytes no longer in the host's last-level cache.
    A least-recently-used cache of C bytes keeps a byte until C other bytes are touched after
    it; an operand read whole, in the order it was last touched, finds each byte its own
    bytes plus the `between_bytes` moved since back, so it is cold when operand + between ≥ C
    (a 16 MiB weight read once a step beside another 16 MiB one, on a 32 MiB cache: cold,
    though only 16 MiB came between). With no cache size known (cache_bytes 0: another
    backend, an older results file) the cold points' own distance: between ≥ DISTANCE."""
    if cache_bytes:
        return operand_bytes + between_bytes >= cache_bytes
    return between_bytes >= DISTANCE


def extra_s(kind: str, cold_bytes: float, rates: tuple[tuple[str, float, float], ...]) -> float:
    """Seconds an op of `kind` adds for `cold_bytes` of operands read cold: the bytes at its
    cold kind's measured seconds per byte at that many operand bytes (`rates`: (cold kind,
    operand bytes, s/B) points), linear in log bytes between two, the nearest outside them
    (the cost a byte adds falls with size: a one-row matvec over weights rotated past the
    caches added 0.040 ms a MiB at 16 MiB, 0.023 at 64 here, whose warm curve already reads part
    of them from memory); 0 where its kind has none."""
    points = sorted((size, rate) for k, size, rate in rates if k == COLD_OF.get(kind))
    if not points or cold_bytes <= 0:
        return 0.0
    sizes = [s for s, _ in points]
    if cold_bytes <= sizes[0] or cold_bytes >= sizes[-1]:
        return cold_bytes * (points[0][1] if cold_bytes <= sizes[0] else points[-1][1])
    at = bisect.bisect_right(sizes, cold_bytes)
    (s0, r0), (s1, r1) = points[at - 1], points[at]
    t = math.log(cold_bytes / s0) / math.log(s1 / s0)
    return cold_bytes * (r0 + t * (r1 - r0))
