"""One launched instruction's predicted time: priced as the profiler prices it, its kernel kind
and size, its expected time from the device's kernel curves (or the published runs').

predict_op prices an instruction (join.price: XLA's cost model on the instruction alone),
gives it its kernel kind (kinds.kernel_kind) and its expected time from
perfcore.model.chip.kernels.expected: its bound over the efficiency its device's curves give
at its size, else the published runs' efficiency, said as such. What an op holds is priced
part by part: a fusion of several dots as their sum, a batched dot at one of its matmuls, a
sort or reduce-window by what its loops read, transcendentals on the transcendental curve,
bfloat16 roundings between its ops on the rounding curve; an op of a loop's body on the curve
timed as a loop body's op where the curves hold one.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from perfcore.measure.profile import hlo
from perfcore.measure.profile.judge import join
from perfcore.measure.profile.judge.records import DTYPES
from perfcore.measure.profile.predict import kinds, matmuls, permutes
from perfcore.model.chip import kernel_kinds, kernels
from perfcore.model.chip.roofline import t_lower
from perfcore.model.chip.specs import Device

NO_ROOF = "no roof: no kernel curves for this device and no specs row"
NO_TRAFFIC = (
    "not predicted: no device-memory traffic (its operands and result in on-chip memory, a "
    "TPU's VMEM) and no matmul, so no roof here bounds it"
)
# Said of an op inside a loop whose trip count XLA did not know (a while over the data).
UNKNOWN_TRIPS = (
    "; in a loop whose trip count is unknown before it runs (it depends on the data): "
    "priced once a step"
)


@dataclass(frozen=True)
class OpPrediction:
    """One launched instruction's predicted time per step and what it rests on."""

    name: str  # as the profile names the op (the HLO name without its %)
    opcode: str
    category: str
    kernel: str  # perfcore.model.chip.kernels kind; empty when not predicted
    dtype: str
    source: str
    occurrences: int  # runs per step
    flops: float | None  # per step
    bytes: float | None  # per step
    bound_s: float | None  # per step
    predicted_s: float | None  # per step; None when not predicted (derived_from says why)
    efficiency: float | None
    efficiency_source: str  # kernels.MEASURED, NEAREST or PUBLISHED; empty when none
    derived_from: str
    trips_known: bool = True  # False: in a loop of unknown trip count, priced once a step


@dataclass(frozen=True)
class Context:
    """What prices an op on one device: its curves (or None), roofs and the fallbacks."""

    curves: kernels.Curves | None
    spec: Device | None
    fallback: dict[bool, kernels.Efficiency]  # compute-bound? -> the published efficiency

    def roofs(self, dtype: str, precision: str) -> tuple[float | None, float | None]:
        """(FLOP/s, bytes/s) of the curves' roofs, else the spec row's; None where unknown."""
        if self.curves is not None:
            return self.curves.peak(dtype), self.curves.bytes_per_s
        if self.spec is None:
            return None, None
        peak = self.spec.peak_flops(precision) or self.spec.peak_flops("fp32")
        return peak, self.spec.memory_bytes_per_s


def _element_type(module: hlo.Module, instruction: hlo.Instruction) -> str:
    """The HLO element type of the instruction's first operand (else its result), e.g. `f32`."""
    shapes = [hlo.operand_shape(module, o) for o in instruction.operands[:1]]
    kinds = hlo.arrays(shapes[0] if shapes and shapes[0] else instruction.shape)
    return kinds[0][0] if kinds else ""


def _dtype(module: hlo.Module, instruction: hlo.Instruction) -> str:
    """The dtype of the instruction's first operand (else its result), e.g. `float32`."""
    kind = _element_type(module, instruction)
    return DTYPES.get(kind, kind)


def predict_op(module: hlo.Module, instruction: hlo.Instruction, ctx: Context, cost):
    """One instruction's OpPrediction on the context's device."""
    p = join.price(module, instruction, cost)
    counted = hlo.runs_per_step(module, instruction)
    runs, trips = counted or 1, ("" if counted is not None else UNKNOWN_TRIPS)
    kind, dtype = kinds.kernel_kind(module, instruction, p), _dtype(module, instruction)
    base = (instruction.name.lstrip("%"), instruction.opcode, p.category, kind, dtype, p.source)
    per_step = (runs, *(None if v is None else v * runs for v in (p.flops, p.bytes)))
    peak, bandwidth = ctx.roofs(dtype, p.precision)
    if not kind or p.flops is None or p.bytes is None or not peak or not bandwidth:
        why = NO_ROOF if kind and p.flops is not None else f"not predicted: {p.cost_source}"
        return OpPrediction(*base, *per_step, None, None, None, "", why)
    if not p.bytes and p.category != hlo.MATMUL and hlo.on_chip_bytes(module, instruction):
        return OpPrediction(*base, *per_step, None, None, None, "", NO_TRAFFIC)  # VMEM alone
    bound = t_lower(p.flops, p.bytes, peak, bandwidth)
    fallback = ctx.fallback[p.flops / peak >= p.bytes / bandwidth]
    body = instruction.computation != module.entry  # an op of a loop's (or call's) body
    inner = kinds.dots(module, instruction) if p.category == hlo.MATMUL else []
    if len(inner) > 1:
        seconds, eff = _fused_dots(module, inner, dtype, (peak, bandwidth), ctx, bound, body)
    else:
        instances = matmuls.dot_instances(module, inner[0] if inner else None)
        size = _size(kind, p.flops, p.bytes, instances)
        if kind in WINDOWED:  # a sort or reduce-window: sized by what its loops read
            bound, size = _windowed(module, instruction, kind, p.flops, (peak, bandwidth))
        # its data on the stream's curve; what it evaluates is added below (_with_evaluations)
        own = "elementwise" if kind == "transcendental" else kind
        at = _second_coordinate(module, instruction, kind, inner)
        e = kernels.expected(bound, own, dtype, size, ctx.curves, fallback, body, at)
        seconds, eff = e.seconds, e.efficiency
        if kind == "strided transpose":
            seconds, eff = _walks(module, instruction, p.bytes, bound, seconds, eff)
    if inner and instruction.opcode not in hlo.MATMUL_OPS:
        seconds, eff = _with_epilogue(
            module, inner, p.bytes, (bandwidth, dtype), ctx, body, seconds, eff
        )
    if evals := kinds.evaluations(module, instruction, p):
        seconds, eff = _with_evaluations(
            module, p, evals, dtype, body, bandwidth, ctx, bound, seconds, eff
        )
    return OpPrediction(
        *base,
        *per_step,
        bound * runs,
        seconds * runs,
        eff.value,
        eff.source,
        eff.derived_from + trips,
        counted is not None,
    )


def _walks(module, instruction, moved: float, bound: float, seconds: float, eff):
    """(seconds, Efficiency) of a strided transpose whose k operands of its output's size are
    each walked on their own (permutes.walked_operands): its bytes count each read once (k + 1
    arrays), k walks move 2k, so its bytes' time is scaled by (moved + (k - 1) x one) / moved."""
    k, one = permutes.walked_operands(module, instruction)
    if k < 2 or not moved:
        return seconds, eff
    scale = (moved + (k - 1) * one) / moved
    said = (
        f"{eff.derived_from}; {k} operands walked strided, each a walk of its own (x {scale:.2f})"
    )
    return seconds * scale, kernels.Efficiency(bound / (seconds * scale), eff.source, said)


WINDOWED = ("sort", "reduce-window")


def _windowed(module, instruction, kind: str, flops: float, roofs) -> tuple[float, float]:
    """(bound, size on its curve) of a sort or a reduce-window, from the bytes the kernel
    model sizes them by: a sort's keys read and written once, at one row's share (its rows
    sorted one after another: a sort of R rows takes R times one row's); a reduce-window's
    outputs each reading its window (kernel_kinds.sort_bytes, window_bytes)."""
    if kind == "sort":
        moved, rows = kinds.sorted_keys(module, instruction)
    else:
        moved, rows = kinds.window_reads(module, instruction), 1
    return t_lower(flops, moved, *roofs), moved / rows


def _size(kind: str, flops: float, moved: float, instances: int = 1) -> float:
    """Where an op sits on its kind's curve: FLOPs (of one of a batched dot's matmuls) or
    bytes (all of them: a batched matvec streams every instance's), as SIZE_UNIT says."""
    return flops / instances if kernel_kinds.SIZE_UNIT[kind] == "flops" else moved


def _dot_bytes(module: hlo.Module, dot: hlo.Instruction) -> float:
    """Bytes a dot or convolution reads and writes on its own: its operands and result."""
    shapes = [hlo.operand_shape(module, o) for o in dot.operands]
    return sum(hlo.shape_bytes(x) for x in (*shapes, dot.shape) if x)


def _with_epilogue(module, dots, moved: float, at, ctx: Context, body: bool, seconds, eff):
    """(seconds, Efficiency) of a fusion holding dots that moves more than they do: what it
    reads and writes beyond its dots' own operands and results (an epilogue's other operands
    and results: an optimizer's states updated beside a weight gradient, a softmax's scores
    beside its dot) streams on the elementwise curve, added to the dots' time (a CPU library
    fusion runs its epilogue after the dot's tiles; XLA:TPU's fusion times measured likewise).
    at: (bandwidth, dtype)."""
    bandwidth, dtype = at
    extra = moved - sum(_dot_bytes(module, d) for d in dots)
    if extra <= 0:
        return seconds, eff
    stream = _stream(extra, bandwidth, dtype, ctx, body)
    said = (
        f"{eff.derived_from}; and {extra / 1e6:.3g} MB its fusion moves beyond its dots' "
        f"operands and results, on the elementwise curve ({stream * 1e6:.3g} µs)"
    )
    total = seconds + stream
    return total, kernels.Efficiency(eff.value * seconds / total, eff.source, said)


def _with_evaluations(module, p, evals, dtype, body, bandwidth, ctx: Context, bound, seconds, eff):
    """(seconds, Efficiency) of an op that evaluates transcendentals or rounds to bfloat16,
    `evals` by the curve that prices them (kinds.evaluations; the roofline counts no FLOPs for
    them): over its largest array's E elements, each curve's kernel over E elements (each
    element read and written once at the width of its dtype, its first operand's (_dtype), or
    at float32's where the curves hold that kind in no curve of the op's dtype: XLA:CPU
    evaluates bfloat16 math in float32, so an evaluation costs per element, not per byte;
    kernel_kinds.PER_ELEMENT evaluations per element: 2 on the exp·tanh chain, 8 roundings on the
    rounding's, one on a function's own), times its count over that kernel's. A matmul's
    fusion runs them beside its dots, in turn (their sum). Any other op streams its own bytes (its
    kind's time, `seconds`) and adds the evaluations' time beyond their kernel's own stream
    (that kernel less the elementwise curve's time for its bytes: on a CPU the two add, on a
    device whose evaluations hide behind the stream that excess is near 0). body: the op is
    a loop body's (the curve timed so, where measured)."""
    shapes = [p.instruction.shape, *(hlo.operand_shape(module, o) for o in p.instruction.operands)]
    arrays = [a for x in shapes if x for a in hlo.arrays(x)]
    elements = max((math.prod(d) for _, d in arrays), default=0)
    if not elements:
        return seconds, eff
    matmul = p.category == hlo.MATMUL
    memory = ctx.fallback[False]
    parts, said = 0.0, []
    own_width = hlo.ELEMENT_BYTES.get(_element_type(module, p.instruction), 4)
    for curve, n in evals.items():
        at, width = dtype, own_width
        if ctx.curves is not None and not _measured_in(ctx.curves, curve, dtype):
            at, width = "float32", 4  # evaluated in float32 (XLA:CPU widens bfloat16 math)
        moved = 2 * width * elements
        stream = 0.0 if matmul else _stream(moved, bandwidth, at, ctx, body)
        e = kernels.expected(moved / bandwidth, curve, at, moved, ctx.curves, memory, body)
        times = n / (kernel_kinds.PER_ELEMENT.get(curve, 1) * elements)
        parts += max(e.seconds - stream, 0.0) * times
        beyond = "" if matmul else ", beyond its own stream"
        by = f" (no {dtype} curve measured: float32's, by elements)" if at != dtype else ""
        said.append(
            f"{times:.3g} x the {curve} curve's kernel over its {elements:,} elements{by} "
            f"({n:.3g} evaluations){beyond}: {e.efficiency.derived_from}"
        )
    total = seconds + parts
    joined = f"{eff.derived_from}; and " + "; and ".join(said)
    return total, kernels.Efficiency(bound / total, eff.source, joined)


def _second_coordinate(module, instruction, kind: str, inner: list) -> int:
    """An op's second coordinate (kernel_kinds.SWEPT): a column reduction's kept elements, a
    strided transpose's rows walked, else its one dot's or convolution's
    (matmuls.second_coordinate), else 0."""
    if kind == "column reduction":
        return kinds.kept_elements(module, instruction)
    if kind == "strided transpose":
        return permutes.strided_rows(module, instruction)
    return matmuls.second_coordinate(module, inner[0]) if inner else 0


def _measured_in(curves: kernels.Curves, kind: str, dtype: str) -> bool:
    """True where the curves hold kind (or its base kind) in dtype, timed either way."""
    named = (kind, kernel_kinds.BASE_KIND.get(kind, kind))
    return any(curves.curve(k, dtype, lp) for k in named for lp in (False, True))


def _stream(moved: float, bandwidth: float, dtype: str, ctx: Context, body: bool) -> float:
    """Seconds the elementwise curve gives `moved` bytes read and written (an evaluation
    kernel's own stream)."""
    bound = moved / bandwidth
    return kernels.expected(
        bound, "elementwise", dtype, moved, ctx.curves, ctx.fallback[False], body
    ).seconds


def _fused_dots(module, dots, dtype, roofs, ctx: Context, bound: float, body: bool = False):
    """(seconds, Efficiency) of a fusion of several dots (XLA:CPU's YNNPACK fuses a chain of
    matmuls and what lies between them into one op that runs them in turn): the sum of each
    dot's expected time at its own kind and size (FLOPs from its shapes, bytes its operands and
    result); what lies between rides on their outputs. The efficiency is the fusion's bound
    over that sum. body: the fusion is a loop body's (its dots on the loop curves, where
    measured)."""
    peak, bandwidth = roofs
    parts = []
    for dot in dots:
        conv = dot.opcode == "convolution"
        flops = matmuls.conv_flops(module, dot) if conv else hlo.dot_flops(module, dot)
        shapes = [hlo.operand_shape(module, o) for o in dot.operands]
        moved = sum(hlo.shape_bytes(x) for x in (*shapes, dot.shape) if x)
        kind = matmuls.matmul_kind(module, dot)
        fallback = ctx.fallback[flops / peak >= moved / bandwidth]
        size = _size(kind, flops, moved, matmuls.dot_instances(module, dot))
        alone = t_lower(flops, moved, peak, bandwidth)
        at = matmuls.second_coordinate(module, dot)
        e = kernels.expected(alone, kind, dtype, size, ctx.curves, fallback, body, at)
        parts.append(e)
    seconds = sum(e.seconds for e in parts)
    sources = {e.efficiency.source for e in parts}
    source = next(s for s in (kernels.PUBLISHED, kernels.NEAREST, kernels.MEASURED) if s in sources)
    said = "; ".join(e.efficiency.derived_from for e in parts)
    return seconds, kernels.Efficiency(
        bound / seconds, source, f"the sum of its {len(parts)} matmuls: {said}"
    )


@functools.cache
def fallbacks() -> dict[bool, kernels.Efficiency]:
    """The published runs' efficiency for compute-bound (True) and memory-bound (False) ops
    (data/runs.csv priced once per process: 0.8 s)."""
    from perfcore.model.runs import efficiency, published

    table = published.table()
    return {bound: efficiency.kernel_fallback(table, bound) for bound in (True, False)}
