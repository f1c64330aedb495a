"""What a fused op holds, priced part by part beside its own stream: a fusion of several dots as
the sum of each on its own curve (fused_dots), what a fusion moves beyond its dots' operands and
results on the elementwise curve (with_epilogue), and the transcendentals and bfloat16
roundings it evaluates on their curves (with_evaluations). perfcore.measure.profile.predict.op
calls them for one instruction; `ctx` is its Context there (the device's curves and the
published runs' fallback efficiencies).
"""

from __future__ import annotations

import math

from perfcore.measure.profile import hlo
from perfcore.measure.profile.predict import matmuls
from perfcore.model.chip import kernel_kinds, kernels
from perfcore.model.chip.roofline import t_lower


def element_type(module: hlo.Module, instruction: hlo.Instruction) -> str:
    """The HLO element type of the instruction's first operand (else its result), e.g. `f32`."""
    shapes = [hlo.operand_shape(module, o) for o in instruction.operands[:1]]
    kinds = hlo.arrays(shapes[0] if shapes and shapes[0] else instruction.shape)
    return kinds[0][0] if kinds else ""


def curve_size(kind: str, flops: float, moved: float, instances: int = 1) -> float:
    """Where an op sits on its kind's curve: FLOPs (of one of a batched dot's matmuls) or
    bytes (all of them: a batched matvec streams every instance's), as SIZE_UNIT says."""
    return flops / instances if kernel_kinds.SIZE_UNIT[kind] == "flops" else moved


def dot_bytes(module: hlo.Module, dot: hlo.Instruction) -> float:
    """Bytes a dot or convolution reads and writes on its own in device memory: its operands
    and result, but those a TPU holds in its on-chip VMEM (in_vmem: a fusion's weights XLA:TPU
    prefetched there, read by the dots inside through bitcasts)."""
    values = [*dot.operands, dot.name]
    shapes = [hlo.operand_shape(module, v) for v in values if not in_vmem(module, v)]
    return sum(hlo.shape_bytes(x) for x in shapes if x)


def in_vmem(module: hlo.Module, name: str) -> bool:
    """True where the value called name is laid out in a TPU's on-chip VMEM (S(1)), or is a
    bitcast of one: a `bitcast`, or a fusion whose one op bitcasts its parameter (as XLA:TPU
    wraps a fusion's prefetched operand before a dot reads it)."""
    i = module.instructions.get(name)
    while i is not None and not hlo.on_chip(i.shape):
        inner = module.computations.get(i.calls[0], ()) if i.opcode == "fusion" else ()
        work = [x.opcode for x in inner if x.opcode != "parameter"]
        if i.opcode != "bitcast" and work != ["bitcast"]:
            return False
        i = module.instructions.get(i.operands[0]) if i.operands else None
    return i is not None


def fused_dots(module, dots, dtype, roofs, ctx, bound: float, body: bool = False):
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
        moved = dot_bytes(module, dot)
        kind = matmuls.matmul_kind(module, dot)
        fallback = ctx.fallback[flops / peak >= moved / bandwidth]
        size = curve_size(kind, flops, moved, matmuls.dot_instances(module, dot))
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


def with_epilogue(module, dots, moved: float, at, ctx, body: bool, seconds, eff):
    """(seconds, Efficiency) of a fusion holding dots that moves more than they do: what it
    reads and writes beyond its dots' own operands and results (an epilogue's other operands
    and results: an optimizer's states updated beside a weight gradient, a softmax's scores
    beside its dot) streams on the elementwise curve, added to the dots' time (a CPU library
    fusion runs its epilogue after the dot's tiles; XLA:TPU's fusion times measured likewise).
    at: (bandwidth, dtype)."""
    bandwidth, dtype = at
    extra = moved - sum(dot_bytes(module, d) for d in dots)
    if extra <= 0:
        return seconds, eff
    stream = _stream(extra, bandwidth, dtype, ctx, body)
    said = (
        f"{eff.derived_from}; and {extra / 1e6:.3g} MB its fusion moves beyond its dots' "
        f"operands and results, on the elementwise curve ({stream * 1e6:.3g} µs)"
    )
    total = seconds + stream
    return total, kernels.Efficiency(eff.value * seconds / total, eff.source, said)


def with_evaluations(module, p, evals, dtype, body, bandwidth, ctx, bound, seconds, eff):
    """(seconds, Efficiency) of an op that evaluates transcendentals or rounds to bfloat16,
    `evals` by the curve that prices them (kinds.evaluations; the roofline counts no FLOPs for
    them): over its largest array's E elements, each curve's kernel over E elements (each
    element read and written once at the width of its dtype, its first operand's (op._dtype), or
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
    own_width = hlo.ELEMENT_BYTES.get(element_type(module, p.instruction), 4)
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


def _measured_in(curves: kernels.Curves, kind: str, dtype: str) -> bool:
    """True where the curves hold kind (or its base kind) in dtype, timed either way."""
    named = (kind, kernel_kinds.BASE_KIND.get(kind, kind))
    return any(curves.curve(k, dtype, lp) for k in named for lp in (False, True))


def _stream(moved: float, bandwidth: float, dtype: str, ctx, body: bool) -> float:
    """Seconds the elementwise curve gives `moved` bytes read and written (an evaluation
    kernel's own stream)."""
    bound = moved / bandwidth
    return kernels.expected(
        bound, "elementwise", dtype, moved, ctx.curves, ctx.fallback[False], body
    ).seconds
