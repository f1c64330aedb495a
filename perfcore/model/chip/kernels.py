"""Expected kernel time from a device's measured curves: an op's bound over its efficiency there.

A curve is one device's measured efficiency (bound time ÷ measured time; 1 at the roof) over
kernel size, per kernel kind (perfcore.model.chip.kernel_kinds) and dtype. An op's efficiency
is interpolated linearly in log size between the two measured points around it; outside the
measured range it is the nearest measured point's, said as such. A matmul is priced from the
curve of its operand layout (a weight gradient's Aᵀ·B and an input gradient's A·Bᵀ run other
library paths than A·B), a dot's batch of matmuls (attention's per head) from the batched
curve at one of them, and a permuting copy from the transpose curve (one that moves whole
rows, its minor dimension kept, from the row transpose's), a copy that keeps its layout from
the plain copy's, a gather from the gather's; where the device's curves lack that layout's
(an older results file), from its base kind's curve (kernel_kinds.BASE_KIND), said as such. A
convolution is priced from the convolution curves (forward-shaped, or a weight gradient's
whose window spans its input), a sort from the sort curve at the size of one of its rows'
keys, a reduce-window (a cumulative sum's) from its own curve by the bytes its windows read
(kernel_kinds.window_bytes), and a sum of a product of two operands over a shape with a size-1
dimension from its own curve (XLA:CPU runs (a·b).sum(-1) of (1, 1536, 256) 8-10× slower than
of (1536, 256)). A sine, power or rsqrt an op evaluates is priced on its function's own curve
(kernel_kinds.FUNCTIONS), the rest of its transcendentals on the exp·tanh chain's, and each
float32 result it rounds to bfloat16 or float16 (its own result's too) on the rounding curve.

Some kinds have a second coordinate (kernel_kinds.SWEPT), swept at fixed values of it over
size: a matvec (its rows, M or N, 1 to 16: a decode batch's, or attention's one query a head
against its KV cache) streams its weights slower the more rows it takes (over 16 MiB on a
2-core CPU: 36-37 GB/s at 1 and 4 rows, 14 at 16); a narrow matmul (its smallest side, M, N
or K, at most 1/8 of its largest: an MLP's batch of 32-128 rows against layers of 1024 or
more) runs well below a square one of its FLOPs (a 32-row one at 0.45-0.7 of it there); a
filter gradient runs slower the more it reduces per output (batch x image: 38-40 GFLOP/s at
16,384 against 56-94 at 8,192 and 106-175 at 4,096 there); a column reduction (a sum over a
major dimension, its operand's minor one kept: x.sum(0) of a row-major matrix) runs slower the
wider what it keeps (over 16 MiB: 46 GB/s keeping 256, 25 keeping 4,096, 17 keeping 16,384,
where a row sum ran at 42-46); a strided transpose runs slower the more of its operand its read
spans before it comes back to a line (at 8 MiB: 14-17 GB/s over 64 KiB, 6-9 over 256 KiB,
2.0-2.7 over 4 MiB).
Such an op is read along the sweeps around its own value in log size, then between them in
log value (swept_efficiency); a narrow matmul from twice the widest narrow sweep's side on
reads the layout's other points. A kind sized by bytes with no curve of the op's dtype takes
float32's, said as such. With no curve for its device, kind and dtype, the fallback given (the
published runs' efficiency), said as such. expected() is the one kernel model.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

from perfcore.model.chip.kernel_kinds import BASE_KIND, KINDS, SIZE_UNIT, SWEPT

MMAP_MAX = 32 * 2**20  # bytes: glibc malloc's largest mmap threshold on 64-bit (mallopt(3))
# A complex dtype's real parts: its matmul's real FLOPs read their curve where its own is absent
COMPLEX_PARTS = {"complex64": "float32", "complex128": "float64"}
MEASURED, NEAREST, PUBLISHED = (
    "measured kernels",
    "nearest measured kernel (outside the measured range)",
    "published runs",
)


@dataclass(frozen=True)
class Point:
    """One measured kernel: kind, dtype, size (FLOPs or bytes, SIZE_UNIT), efficiency, spread."""

    kind: str
    dtype: str
    size: float
    efficiency: float
    spread: float = 0.0  # IQR / median of the measurement
    loop: bool = False  # timed as a loop body's op (no launch), not as a program of its own
    sweep: int = 0  # its second coordinate where its kind has one (SWEPT) and it is set; else 0
    in_place: bool = False  # a loop's op writing its result in place (else copied each time)

    def __post_init__(self) -> None:
        if self.kind not in SIZE_UNIT:
            raise ValueError(f"kernel kind {self.kind!r}: expected one of {', '.join(KINDS)}")
        if not (self.size > 0 and self.efficiency > 0):
            raise ValueError(f"kernel point {self}: expected size > 0 and efficiency > 0")


@dataclass(frozen=True)
class Curves:
    """A device's kernel curves and the roofs their efficiencies are fractions of."""

    device: str
    date: str  # when measured, YYYY-MM-DD
    points: tuple[Point, ...]
    peak_flops_per_s: tuple[tuple[str, float], ...]  # dtype -> the compute roof, FLOP/s
    bytes_per_s: float  # the memory roof, bytes/s
    roofs_from: str  # e.g. "spec row H100 SXM", "best measured in the suite"
    dispatch_s: float = 0.0  # host time to launch one program and wait for it, seconds
    dispatch_per_arg_s: float = 0.0  # more per argument passed, seconds
    spec_name: str = ""  # the specs row the device matched; empty when none
    threads: int = 0  # host threads the runtime ran on when measured (CPU); 0 when unknown
    fresh_s_per_byte: float = 0.0  # first touch of fresh host pages, seconds per byte; 0 unknown
    dispatch_results_s: float = 0.0  # more where the program returns several results, seconds
    cold_s_per_byte: tuple[tuple[str, float, float], ...] = ()  # (cold kind, bytes, s/B): cold
    # (bytes, seconds): what a launch returning that many bytes of results adds (accelerators)
    dispatch_bytes: tuple[tuple[float, float], ...] = ()
    cache_bytes: int = 0  # the host's last-level cache (CPU), bytes; 0 when unknown

    @property
    def label(self) -> str:
        """What an expected figure from these curves is derived from, in words."""
        return f"measured kernels on {self.device}, {self.date}"

    def curve(
        self, kind: str, dtype: str, loop: bool = False, in_place: bool = False
    ) -> tuple[Point, ...]:
        """The points of one kind and dtype, smallest size first: those timed as a loop
        body's op with loop (with in_place, those writing their result in place; else those
        copying it into the loop's carry), else those timed as programs of their own."""
        wanted = (kind, dtype, loop, in_place and loop)
        points = (p for p in self.points if (p.kind, p.dtype, p.loop, p.in_place) == wanted)
        return tuple(sorted(points, key=_size))

    def peak(self, dtype: str) -> float | None:
        """The compute roof of dtype (else float32's), FLOP/s; None when neither was measured."""
        roofs = dict(self.peak_flops_per_s)
        return roofs.get(dtype) or roofs.get("float32")

    def dispatch(self, n_args: int, n_results: int = 1, result_bytes: float = 0.0) -> float:
        """Host seconds to launch one program of n_args arguments and n_results results (a
        tuple where more than one) holding result_bytes in all, and wait for it."""
        several = self.dispatch_results_s if n_results > 1 else 0.0
        launch = self.dispatch_s + self.dispatch_per_arg_s * max(n_args - 1, 0) + several
        return launch + self.results_s(result_bytes)

    def results_s(self, result_bytes: float) -> float:
        """What results of result_bytes add to a launch beyond its device time, seconds:
        linear in bytes between the measured sizes (dispatch_bytes) and from nothing at 0
        bytes; past the largest measured, the largest's (none measured: 0)."""
        if not self.dispatch_bytes or result_bytes <= 0:
            return 0.0
        sizes = [b for b, _ in self.dispatch_bytes]
        if result_bytes >= sizes[-1]:
            return self.dispatch_bytes[-1][1]
        at = bisect.bisect_right(sizes, result_bytes)
        (b0, s0), (b1, s1) = ((0.0, 0.0), *self.dispatch_bytes)[at : at + 2]
        return s0 + (s1 - s0) * (result_bytes - b0) / (b1 - b0)


def _size(point: Point) -> float:
    """A point's size (the sort key of a curve)."""
    return point.size


@dataclass(frozen=True)
class Efficiency:
    """An op's efficiency (bound ÷ expected time), where it came from and what that means."""

    value: float
    source: str  # MEASURED, NEAREST or PUBLISHED
    derived_from: str


def interpolate(curve: tuple[Point, ...], size: float) -> tuple[float, bool]:
    """(efficiency at size, inside the measured range): linear in log size between the two
    points around it; outside the range the nearest end's efficiency."""
    sizes = [p.size for p in curve]
    if size <= sizes[0] or size >= sizes[-1]:
        end = curve[0] if size <= sizes[0] else curve[-1]
        return end.efficiency, math.isclose(size, end.size)
    at = bisect.bisect_right(sizes, size)
    lo, hi = curve[at - 1], curve[at]
    t = (math.log(size) - math.log(lo.size)) / (math.log(hi.size) - math.log(lo.size))
    return lo.efficiency + t * (hi.efficiency - lo.efficiency), True


def _curve(
    curves: Curves, kind: str, dtype: str, loop: bool, size: float, in_place: bool = True
) -> tuple[tuple[Point, ...], str]:
    """(the curve that prices kind and dtype, its name in words): the loop body's with loop
    where measured (with in_place, the one writing its result in place where measured; up to
    its largest point, where the program curve reaches further: the launch and wake-up the
    loop saves are a smaller share of a larger kernel), else the kind's own, else its loop
    body's where that is all it has, else its base kind's (BASE_KIND, in turn)."""
    placed = curves.curve(kind, dtype, loop=True, in_place=True) if loop and in_place else ()
    body = placed or (curves.curve(kind, dtype, loop=True) if loop else ())
    program = curves.curve(kind, dtype)
    if body and program and size > body[-1].size and program[-1].size > body[-1].size:
        body = ()
    if not program:  # a kind timed only as a loop body's op (an older file's scatter)
        body = curves.curve(kind, dtype, loop=True)
    curve = body or program
    named = f"{kind} as a loop body's op{' in place' if placed and body else ''}" if body else kind
    base = kind
    while not curve and base in BASE_KIND:  # a layout or kind an older file lacks
        base = BASE_KIND[base]
        curve, named = curves.curve(base, dtype), f"{base} (no {kind} curve measured)"
    return curve, named


@dataclass(frozen=True)
class Read:
    """How an efficiency was read off a curve: its value, whether inside what was measured,
    the second coordinate's words ('' without one), and the sizes and values it read over."""

    value: float
    inside: bool
    how: str
    sizes: tuple[float, float]  # where each curve read was measured: its points' range
    values: tuple[int, int] = (0, 0)  # the sweeps' first and last value; (0, 0) without
    swept: bool = True  # its second coordinate within the sweeps' values


def swept_efficiency(curve: tuple[Point, ...], size: float, at: int) -> Read:
    """How a kernel of `size` whose second coordinate is `at` (0: none) reads on a curve of a
    SWEPT kind. Without one: the curve's points outside its sweeps (all of them where every
    point is in a sweep). With one: along the sweeps (the points of each fixed value) around
    it, in log size, then between them in log value; points outside the sweeps stand at
    twice the largest sweep's value, and past the ends the nearest sweep is taken. A curve
    with no sweeps (an older file) reads as if it had no second coordinate."""
    free = tuple(p for p in curve if not p.sweep) or curve
    values = sorted({p.sweep for p in curve if p.sweep})
    if not at or not values:
        return Read(*interpolate(free, size), "", (free[0].size, free[-1].size))
    anchors = [(v, tuple(p for p in curve if p.sweep == v)) for v in values]
    if len(free) < len(curve):
        anchors.append((2 * values[-1], free))
    clamped = min(max(at, anchors[0][0]), anchors[-1][0])
    k = max(i for i, (v, _) in enumerate(anchors) if v <= clamped)
    (lo, lo_pts), (hi, hi_pts) = anchors[k], anchors[min(k + 1, len(anchors) - 1)]
    if clamped == lo:  # on a sweep's value (or past the ends): that sweep alone
        hi, hi_pts = lo, lo_pts
    e_lo, in_lo = interpolate(lo_pts, size)
    e_hi, in_hi = interpolate(hi_pts, size)
    t = 0.0 if hi == lo else (math.log(clamped) - math.log(lo)) / (math.log(hi) - math.log(lo))
    named = {v: f"the {v:,} sweep" for v in values} | {2 * values[-1]: "the points outside sweeps"}
    how = f"{at:,}, " + (f"between {named[lo]} and {named[hi]}" if hi != lo else f"on {named[lo]}")
    swept = at >= anchors[0][0] and (at <= anchors[-1][0] or len(free) < len(curve))
    both = (max(lo_pts[0].size, hi_pts[0].size), min(lo_pts[-1].size, hi_pts[-1].size))
    return Read(
        e_lo + t * (e_hi - e_lo),
        in_lo and in_hi and swept,
        how,
        both,
        (values[0], values[-1]),
        swept,
    )


def efficiency(
    curves: Curves | None,
    kind: str,
    dtype: str,
    size: float,
    fallback: Efficiency,
    loop: bool = False,
    at: int = 0,
    in_place: bool = True,
) -> Efficiency:
    """The efficiency of a kernel of kind, dtype and size: from the curves (the base kind's
    where kind's was not measured), else fallback. With loop (an op of a loop's body), from
    the curve timed as a loop body's op where the curves have one (in_place: the one writing
    its result in place, where measured), said as such. at: its second coordinate where its
    kind has one (SWEPT), read along the curve's sweeps."""
    if curves is None or size <= 0:
        return fallback
    curve, named = _curve(curves, kind, dtype, loop, size, in_place)
    if not curve and SIZE_UNIT[kind] == "bytes" and dtype != "float32":  # a stream's per byte
        curve, named = _curve(curves, kind, "float32", loop, size, in_place)
        named, dtype = f"{named} (no {dtype} curve measured: float32's, by bytes)", "float32"
    if not curve and dtype in COMPLEX_PARTS:  # a complex matmul's real FLOPs on its parts'
        real = COMPLEX_PARTS[dtype]
        curve, named = _curve(curves, kind, real, loop, size, in_place)
        named, dtype = f"{named} (no {dtype} curve measured: {real}'s, by real FLOPs)", real
    if not curve:
        return fallback
    # its own curve, or a base kind's swept by the same coordinate (a batched matvec's rows)
    swept = kind in SWEPT and SWEPT.get(curve[0].kind) == SWEPT[kind]
    read = swept_efficiency(curve, size, at if swept else 0)
    unit = SIZE_UNIT[kind]
    where = f"{size:.3g} {unit}" + (f", {SWEPT[kind]} {read.how}" if read.how else "")
    if read.inside:
        return Efficiency(read.value, MEASURED, f"{named} {dtype} at {where}, {curves.label}")
    (lo, hi), (first, last) = read.sizes, read.values
    if not read.swept:  # its second coordinate is past the sweeps'
        where += f" ({SWEPT[kind]} outside the swept {first:,}-{last:,})"
    if not lo <= size <= hi:  # its size past what the curves it read between were measured at
        where += f" outside the measured {lo:.3g}-{hi:.3g} {unit}"
    return Efficiency(read.value, NEAREST, f"{named} {dtype}, {where}: the nearest, {curves.label}")


def later_efficiency(
    curves: Curves | None, kind: str, dtype: str, size: float, fallback: Efficiency, at: int = 0
) -> Efficiency:
    """The efficiency of an op at its program's top level after the program's first: the
    greater of the curve timed as a program of its own and the one timed as a loop body's op
    (where the curves hold one: a host's stream kinds). A program of one op wakes the host's
    thread pool, which a later op finds awake; a loop body's op runs with it awake but copies
    its result into the loop's carry (the loop curve timed so, not the one written in place,
    which runs below a later op's time). Both are above a later op's time, so the faster reads
    it. Measured here, programs of k independent copies of one op: a row sum of 4 MiB 174 µs as
    the only op and 102-130 µs as each later one; x·2 + 1 over 4 MiB 300 and 188-198 µs."""
    alone = efficiency(curves, kind, dtype, size, fallback, False, at)
    warm = efficiency(curves, kind, dtype, size, fallback, True, at, in_place=False)
    if warm.value <= alone.value:
        return alone
    own = f"as a program of its own {alone.value:.2f}"
    said = f"{warm.derived_from}; a later op of its program ({own})"
    return Efficiency(warm.value, warm.source, said)


@dataclass(frozen=True)
class Expected:
    """An expected kernel time (seconds) and the efficiency it rests on."""

    seconds: float
    bound_s: float
    efficiency: Efficiency


def expected(
    bound: float,
    kind: str,
    dtype: str,
    size: float,
    curves: Curves | None,
    fallback: Efficiency,
    loop: bool = False,
    at: int = 0,
    later: bool = False,
) -> Expected:
    """The one kernel model: bound ÷ the efficiency of (kind, dtype, size), seconds (loop: an
    op of a loop's body; at: its second coordinate where its kind has one, efficiency; later:
    an op at its program's top level after its first, later_efficiency)."""
    if later and not loop:
        eff = later_efficiency(curves, kind, dtype, size, fallback, at)
    else:
        eff = efficiency(curves, kind, dtype, size, fallback, loop, at)
    return Expected(bound / eff.value, bound, eff)
