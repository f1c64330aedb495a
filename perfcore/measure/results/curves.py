"""A device's kernel curves from the `kernels` experiment's records (perfcore.model.chip.kernels).

A kernel's own time is its record's fastest call less the fastest dispatch measured beside it
(the `dispatch` records: a tiny program launched and waited for, with 1 and with more
arguments), so a point is the kernel's time as a profile sees it, without the host's thread
wake-ups a shared machine adds to a typical call; a point whose time is mostly dispatch
(over DISPATCH_SHARE) is no kernel measurement and is left out. Efficiencies are fractions of
the spec row's roofs where the device matched one, else of the best the suite measured
(matmul FLOP/s per dtype, copy bytes/s). The curves carry the host threads the kernels ran
on (version 5 records; 0 when a file has none), which a step's concurrent ops share, the
host's last-level cache, which decides what a program's operands find still cached (version
6; 0 when a file has none), and on a CPU what a byte of fresh pages adds to an op, in
core-seconds (fresh_s_per_byte).
"""

from __future__ import annotations

import dataclasses
import math
import statistics

from perfcore.measure.clock import harness
from perfcore.measure.results.record import Record
from perfcore.model.chip import cold, kernel_kinds, kernel_lapack, kernels
from perfcore.model.chip.roofline import t_lower
from perfcore.model.chip.specs import Device, load_specs

EXPERIMENT = "kernels"
DISPATCH = "dispatch"
IN_LOOP_IN_PLACE = "in a loop, in place"  # the label suffix of a loop point written in place
DISPATCH_RESULTS = "dispatch, several results"  # a launch of a program returning a tuple
DISPATCH_BYTES = "dispatch, large result"  # a launch of a program returning one large array
PAGE_FAULTS = "page faults, every core"  # experiments.pages: first touch by every host thread
PAGE_FAULTS_ONE = "page faults"  # the same by one thread, in files written before
# experiments.pages.in_place: an XLA op's output of FRESH_BYTES, fresh and into its donated input
OP_FRESH, OP_DONATED = "page faults, an op's fresh output", "page faults, an op's donated output"
FAULT_PAIR = (OP_FRESH, OP_DONATED)
# Kinds whose output is as large as their first operand: streams, copies, permutes (and a real
# FFT, whose n / 2 + 1 complex outputs hold the bytes of its n floats)
SAME_SIZE = (
    "elementwise",
    "transcendental",
    "copy",
    "plain copy",
    "transpose",
    "row transpose",
    "strided transpose",
    "sine",
    "power",
    "rsqrt",
    "rounding",
    "fft",
)
DISPATCH_SHARE = 0.8  # a kernel record more than this share dispatch is left out
ROOF_FROM_MEASURED = "best measured in the suite"


def dispatch_fit(records: tuple[Record, ...]) -> tuple[float, float, float]:
    """(seconds to launch a 1-argument program and wait, seconds more per argument, seconds
    more where it returns several results), from the fastest calls: a step predicted from
    fastest-call kernels is the fastest step, and on a host whose launch is most of a step (a
    TPU's here: 383 µs fastest, 530 µs median) a median launch would put a typical call's host
    noise into it. Where more arguments launched faster (host noise: 423 against 433 µs on a
    TPU v5e), a launch costs at most the faster, and nothing more per argument. The results'
    share is the 1-argument program of several results over the 1-argument one (0 in files
    made before the suite timed it)."""
    points = sorted((len(r.shapes), r.measurement.min) for r in records if r.kernel == DISPATCH)
    if not points:
        return 0.0, 0.0, 0.0
    (n0, t0), (n1, t1) = points[0], points[-1]
    per_arg = max(0.0, (t1 - t0) / (n1 - n0)) if n1 > n0 else 0.0
    several = [r.measurement.min for r in records if r.kernel == DISPATCH_RESULTS]
    results = max(0.0, min(several) - t0) if several and n0 == 1 else 0.0
    return min(t0, t1) - per_arg * (n0 - 1), per_arg, results


def dispatch_bytes_fit(
    records: tuple[Record, ...], launch_s: float
) -> tuple[tuple[float, float], ...]:
    """((result bytes, seconds), ...) per size of the `dispatch, large result` records: what a
    launch returning one array that large adds beyond its device time and a 1-argument
    program's launch (launch_s): the fastest untraced call less the median device time of the
    same program's calls under the profiler (never below 0), smallest first; empty where the
    suite timed none (a CPU's, whose fresh output pages a prediction prices on their own)."""
    device: dict[float, float] = {}
    wall: dict[float, float] = {}
    for r in records:
        if r.kernel != DISPATCH_BYTES or not r.bytes:
            continue
        if r.measurement.method == harness.PROFILED:
            device[r.bytes] = r.measurement.median
        else:
            wall[r.bytes] = r.measurement.min
    pairs = sorted(set(device) & set(wall))
    return tuple((b, max(0.0, wall[b] - device[b] - launch_s)) for b in pairs)


def in_loop(record: Record) -> bool:
    """True for a kernel timed as a loop body's op (harness.IN_PROGRAM)."""
    return record.measurement.method == harness.IN_PROGRAM


def in_place(record: Record) -> bool:
    """True for a loop body's kernel timed writing its result into the loop's carry in place,
    its operands as the iteration before left them (the suite's loops.in_place: its label ends
    IN_LOOP_IN_PLACE); the suite's other loop points copy each result into the carry."""
    return in_loop(record) and record.label.endswith(IN_LOOP_IN_PLACE)


def loop_body(record: Record) -> bool:
    """True for a kernel timed as a loop body's op on a CPU, which prices loop bodies alone
    (an op there runs at a program's top level otherwise). An accelerator's kernels are
    profiled as programs of their own (kernel_traced); a results file of an earlier version
    timed them in a loop, and prices every op of a program by them, as it was made to."""
    return in_loop(record) and record.backend == "cpu"


def fresh_output(record: Record) -> bool:
    """True for a host kernel timed as a program of its own whose output malloc maps fresh
    every call (kernels.MMAP_MAX or larger): a stream or copy, whose output holds as many
    elements as its first operand. Its time is mostly the first touch of those pages, which a
    prediction adds on its own where a program's buffer is that large (predict.graph)."""
    if record.backend != "cpu" or in_loop(record) or record.kernel not in SAME_SIZE:
        return False
    elements = [math.prod(s) for s in record.shapes]
    if not elements or not record.bytes:
        return False
    return record.bytes * elements[0] / (sum(elements) + elements[0]) >= kernels.MMAP_MAX


def kernel_seconds(record: Record, dispatch: tuple[float, ...]) -> float | None:
    """The record's fastest call less the dispatch of its arguments; None when mostly dispatch.
    A loop body's kernel (in_loop) and a profiled one (its device time) paid no launch: its
    fastest iteration or call as it is (None when 0: too fast to tell)."""
    if in_loop(record) or record.measurement.method == harness.PROFILED:
        return record.measurement.min or None
    launch = dispatch[0] + dispatch[1] * max(len(record.shapes) - 1, 0)
    fastest = record.measurement.min
    own = fastest - launch
    return own if own > (1 - DISPATCH_SHARE) * fastest else None


def _measured_roofs(timed: list[tuple[Record, float]]) -> tuple[dict[str, float], float]:
    """Best matmul FLOP/s per dtype and best copy bytes/s (else any kernel's) timed."""
    peaks: dict[str, float] = {}
    for r, s in timed:
        if r.kernel == "matmul" and r.flops:
            peaks[r.dtype] = max(peaks.get(r.dtype, 0.0), r.flops / s)
    copies = [r.bytes / s for r, s in timed if r.kernel == "copy" and r.bytes]
    streams = copies or [r.bytes / s for r, s in timed if r.bytes]  # no copy: any kernel's
    return peaks, max(streams, default=0.0)


def _roofs(timed: list[tuple[Record, float]], spec: Device | None) -> tuple[dict, float, str]:
    """(dtype -> FLOP/s, bytes/s, whence): the spec row's where published, else measured."""
    peaks, bandwidth = _measured_roofs(timed)
    if spec is None:
        return peaks, bandwidth, ROOF_FROM_MEASURED
    precisions = {r.dtype: r.precision for r, _ in timed if r.kernel == "matmul"}
    published = {d: spec.peak_flops(p) for d, p in precisions.items() if p}
    peaks |= {d: v for d, v in published.items() if v}
    return peaks, spec.memory_bytes_per_s or bandwidth, f"spec row {spec.name}"


def _point(record: Record, seconds: float, peaks: dict, bandwidth: float):
    """The record's kernel point: its efficiency against the roofs; None without a roof."""
    peak = peaks.get(record.dtype) or peaks.get("float32")
    if (
        not peak
        or not bandwidth
        or record.size is None
        or record.kernel not in kernel_kinds.SIZE_UNIT
    ):
        return None
    bound = t_lower(record.flops or 0.0, record.bytes or 0.0, peak, bandwidth)
    spread = record.measurement.spread
    kind, dtype, size = record.kernel, record.dtype, record.size
    loop, placed = loop_body(record), in_place(record)
    return kernels.Point(kind, dtype, size, bound / seconds, spread, loop, _sweep(record), placed)


def _sweep(record: Record) -> int:
    """A record's second coordinate (kernel_kinds.SWEPT) from its operands' shapes: a matvec's
    rows or columns (M or N), whichever are fewer, a matmul's narrow side (their last two
    dimensions are its M, K and N in some order), a filter gradient's reduced volume (its
    filter operand, an image window x batch x C, less C), a column reduction's kept width (its
    operand's last dimension), a strided transpose's KiB a walk spans (its operand's last two
    dimensions), an FFT's dimensions transformed (its operand's, less the batch), a top-k's
    heap steps (kernel_kinds.heap_steps of its row and its k), a LAPACK routine's
    (kernel_lapack.lapack_coordinate), a gather's or scatter's elements a row (its table's
    last dimension); 0 for another kind or without the shapes."""
    shapes = record.shapes[:2]
    if record.kernel in kernel_lapack.FACTORIZATIONS:
        return kernel_lapack.lapack_coordinate(record.kernel, tuple(tuple(s) for s in shapes))
    if record.kernel in ("column reduction", "gather", "scatter"):  # (rows, kept), (table, row)
        return shapes[0][-1] if shapes and shapes[0] else 0
    if record.kernel == "strided transpose":  # (x + 1)ᵀ of (.., R, C): R x C elements spanned
        if not shapes or len(shapes[0]) < 2:
            return 0
        return kernel_kinds.span_kib(
            math.prod(shapes[0][-2:]) * kernel_kinds.ITEMSIZE.get(record.dtype, 4)
        )
    if record.kernel == "fft":  # (batch, *transformed): a row's, an image's
        return len(shapes[0]) - 1 if shapes and shapes[0] else 0
    if record.kernel == "top-k":  # (rows, n) and (k,): a file before k rode along has no k
        whole = len(shapes) == 2 and shapes[0] and len(shapes[1]) == 1
        return kernel_kinds.heap_steps(shapes[0][-1], shapes[1][0]) if whole else 0
    if record.kernel == "convolution":  # (batch, *spatial, features): an image's 2, a volume's 3
        return len(shapes[0]) - 2 if shapes and len(shapes[0]) > 2 else 0
    if record.kernel == "grouped convolution":  # (k, k, g, C) HWIO: its g features a group
        return shapes[1][-2] if len(shapes) == 2 and len(shapes[1]) >= 2 else 0
    if record.kernel == "convolution filter":
        return math.prod(shapes[1][:-1]) if len(shapes) == 2 and len(shapes[1]) >= 2 else 0
    matrices = [s[-2:] for s in shapes if len(s) >= 2]
    if record.kernel not in kernel_kinds.SWEPT or len(matrices) != 2:
        return 0
    if record.kernel in ("matvec", "batched matvec"):  # (M, K)·(K, N): M or N, the fewer
        return min(matrices[0][0], matrices[1][1])
    return kernel_kinds.narrow_side(*(d for m in matrices for d in m))


def curves(
    records: tuple[Record, ...], specs: dict[str, Device] | None = None
) -> kernels.Curves | None:
    """The kernel curves of the first device with `kernels` records; None when there are none."""
    mine = [r for r in records if r.experiment == EXPERIMENT and r.kernel]
    if not mine:
        return None
    device = mine[0].device
    mine = [r for r in mine if r.device == device]
    launch, per_arg, results = dispatch_fit(tuple(mine))
    skip = (DISPATCH, DISPATCH_RESULTS, DISPATCH_BYTES, PAGE_FAULTS, PAGE_FAULTS_ONE, *FAULT_PAIR)
    kernels_only = [
        r for r in mine if r.kernel not in skip and not fresh_output(r) and r.level != cold.LEVEL
    ]
    timed = [(r, s) for r in kernels_only if (s := kernel_seconds(r, (launch, per_arg)))]
    row = mine[0].spec_name
    spec = (specs if specs is not None else load_specs()).get(row) if row else None
    peaks, bandwidth, whence = _roofs([(r, t) for r, t in timed if not loop_body(r)], spec)
    points = tuple(p for r, s in timed if (p := _point(r, s, peaks, bandwidth)) is not None)
    warm = kernels.Curves(
        device,
        max(r.timestamp for r in mine)[:10],
        points,
        tuple(sorted(peaks.items())),
        bandwidth,
        whence,
        launch,
        per_arg,
        row or "",
        max((r.threads or 0 for r in mine), default=0),
        fresh_s_per_byte(tuple(mine)),
        dispatch_results_s=results,
        dispatch_bytes=dispatch_bytes_fit(tuple(mine), launch),
        cache_bytes=max((r.cache_bytes or 0 for r in mine), default=0),
    )
    colds = [r for r in mine if r.level == cold.LEVEL and not fresh_output(r)]
    rates = cold_rates(colds, warm, (launch, per_arg))
    return dataclasses.replace(warm, cold_s_per_byte=rates)


def cold_rates(
    records: list[Record], warm: kernels.Curves, dispatch: tuple[float, ...]
) -> tuple[tuple[str, float, float], ...]:
    """(cold kind, operand bytes, seconds a byte of them read cold adds) per cold record
    (perfcore.model.chip.cold): its kernel's time (kernel_seconds) less what the warm curves
    expect of the same kernel, over its operands' bytes (its shapes at its dtype's width),
    never below 0; the median where a kind has several at one size. Empty without them."""
    out: dict[tuple[str, float], list[float]] = {}
    for r in records:
        seconds = kernel_seconds(r, dispatch)
        peak = warm.peak(r.dtype)
        width = kernel_kinds.ITEMSIZE.get(r.dtype, 4)
        operands = sum(math.prod(s) for s in r.shapes) * width
        if seconds is None or not peak or not r.size or not operands:
            continue
        bound = t_lower(r.flops or 0.0, r.bytes or 0.0, peak, warm.bytes_per_s)
        fallback = kernels.Efficiency(1.0, kernels.PUBLISHED, "none")
        hot = kernels.expected(bound, r.kernel, r.dtype, r.size, warm, fallback, at=_sweep(r))
        added = max(0.0, seconds - hot.seconds) / operands
        out.setdefault((r.kernel, float(operands)), []).append(added)
    return tuple(sorted((k, n, statistics.median(v)) for (k, n), v in out.items()))


def fresh_s_per_byte(records: tuple[Record, ...]) -> float:
    """Core-seconds per byte of fresh pages: what they add to an XLA op (FAULT_PAIR: fresh less
    donated fastest call), else the every-core record's fastest call, each times its threads
    over its bytes; else an older file's one-thread record's fastest over its bytes; or 0."""
    fresh, donated = ([r for r in records if _fresh(r, k)] for k in FAULT_PAIR)
    if fresh and donated:
        added = max(0.0, fresh[0].measurement.min - donated[0].measurement.min)
        return added * (fresh[0].threads or 1) / fresh[0].bytes
    every = [
        r.measurement.min * (r.threads or 1) / r.bytes for r in records if _fresh(r, PAGE_FAULTS)
    ]
    one = [r.measurement.min / r.bytes for r in records if _fresh(r, PAGE_FAULTS_ONE)]
    return min(every or one, default=0.0)


def _fresh(r: Record, kernel: str) -> bool:
    """True for a fresh-page record of `kernel` with bytes."""
    return r.kernel == kernel and bool(r.bytes)


def median_spread(curve: kernels.Curves) -> float:
    """The curves' median measurement spread (IQR / median), a fraction; 0 without points."""
    return statistics.median(p.spread for p in curve.points) if curve.points else 0.0
