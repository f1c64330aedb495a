"""Which matmul curve a dot takes and at what size: its rows and columns, operand layout and
batch of matmuls, and a convolution's kind and FLOPs from its shapes.

A TPU writes every dot as a convolution (`dim_labels=bf_io->bf`; a batched dot's batch as a
spatial dimension under a dilated window): one whose metadata's op_name ends in
`dot_general` is taken as the dot JAX asked for. kinds (an instruction's kernel kind) and op
(its predicted time) read these.
"""

from __future__ import annotations

import math
import re

from perfcore.measure.profile import hlo
from perfcore.model.chip import kernel_kinds

DIMS = re.compile(r"(lhs|rhs)_(batch|contracting)_dims=\{([\d,]*)\}")
DIM_LABELS = re.compile(r"dim_labels=(\w+)_(\w+)->(\w+)")
OP_NAME = re.compile(r'op_name="([^"]*)"')
WINDOW = re.compile(r"window=\{size=([\dx]+)")
GROUPS = re.compile(r"(?:feature|batch)_group_count=(\d+)")


def is_dot_as_conv(instruction: hlo.Instruction | None) -> bool:
    """True for a convolution JAX asked for as a dot (its metadata's op_name ends in
    `dot_general`): a TPU's compiler writes every dot as one (dim_labels=bf_io->bf, a batched
    dot's batch as a spatial dimension under a dilated window), which runs as a matmul."""
    if instruction is None or instruction.opcode != "convolution":
        return False
    found = OP_NAME.search(instruction.attrs)
    return found is not None and found.group(1).endswith("dot_general")


def is_convolution(instruction: hlo.Instruction) -> bool:
    """True for a convolution run as one: an HLO `convolution` (not a dot JAX asked for) or a
    cuDNN call."""
    if instruction.opcode == "custom-call":
        return hlo.is_library_matmul(instruction) and "$conv" in instruction.target
    return instruction.opcode == "convolution" and not is_dot_as_conv(instruction)


def _conv_out(conv: hlo.Instruction) -> tuple[int, int, int]:
    """(rows, columns, matmuls) of a dot written as a convolution: its output's batch and
    feature sizes, and the product of its spatial sizes (a batched dot's batch)."""
    labels, dims = DIM_LABELS.search(conv.attrs), hlo.arrays(conv.shape)
    if not labels or not dims:
        return 1, 1, 1
    size = dict(zip(labels.group(3), dims[0][1], strict=False))
    spatial = math.prod(n for c, n in size.items() if c.isdigit())
    return size.get("b", 1), size.get("f", 1), spatial


def dimension_numbers(dot: hlo.Instruction | None) -> dict[tuple[str, str], set[int]]:
    """A dot's batch and contracting dimensions by operand: {("lhs", "batch"): {0, 1}, ("rhs",
    "contracting"): {3}, ...}; the keys its text gives (none for another op)."""
    found = DIMS.findall(dot.attrs) if dot else []
    return {(side, what): {int(d) for d in dims.split(",") if d} for side, what, dims in found}


def dot_instances(module: hlo.Module, dot: hlo.Instruction | None) -> int:
    """How many matmuls a dot runs: the product of its batch dimensions (1 without)."""
    if is_dot_as_conv(dot):
        return _conv_out(dot)[2]
    batch = dimension_numbers(dot).get(("lhs", "batch"), set())
    lhs = hlo.arrays(hlo.operand_shape(module, dot.operands[0])) if batch and dot.operands else []
    if not lhs:
        return 1
    return math.prod(lhs[0][1][d] for d in batch if d < len(lhs[0][1]))


def dot_kind(module: hlo.Module, dot: hlo.Instruction | None, shape: str = "") -> str:
    """The kernel kind of a dot (kernel_kinds.matmul_kind, by its M×N, operand layout and batch of
    matmuls; a dot written as a convolution by its output's rows and columns); of `shape`
    where no dot is given; `matvec` for a result of rank below 2."""
    if is_dot_as_conv(dot):
        m, n, instances = _conv_out(dot)
        return kernel_kinds.matmul_kind(m, n, instances=instances)
    dims = hlo.arrays(dot.shape if dot else shape)[0][1]
    if len(dims) < 2:
        return "matvec"
    return kernel_kinds.matmul_kind(*dims[-2:], *_layout(module, dot), dot_instances(module, dot))


def skinny_side(module: hlo.Module, dot: hlo.Instruction) -> int:
    """The rows (M) or columns (N) of each matmul a dot runs, whichever are fewer: its operands'
    dimensions neither batched nor contracted (a convolution JAX asked for as a dot: its
    output's); 1 for attention's one query a head against its KV cache, where the result's last
    two dims are a batch dim and the cache length. 0 where the shapes are unknown."""
    if is_dot_as_conv(dot):
        return min(_conv_out(dot)[:2])
    arrays = [hlo.arrays(hlo.operand_shape(module, o)) for o in dot.operands[:2]]
    if len(arrays) < 2 or not all(arrays):
        return 0
    numbers, free = dimension_numbers(dot), []
    for side, found in zip(("lhs", "rhs"), arrays, strict=True):
        used = numbers.get((side, "batch"), set()) | numbers.get((side, "contracting"), set())
        free.append(math.prod(n for d, n in enumerate(found[0][1]) if d not in used))
    return min(free)


def second_coordinate(module: hlo.Module, dot: hlo.Instruction | None) -> int:
    """A dot's or convolution's second coordinate (kernel_kinds.SWEPT): a convolution's spatial
    dimensions, a grouped one's input features a group, a filter gradient's reduced
    volume (the elements each output sums: its FLOPs over two per output), a matvec's skinny
    side (skinny_side), else kernel_kinds.narrow_side of one of its matmuls (its result's last
    two dims and the contraction its FLOPs imply); 0 for an unknown
    shape."""
    if dot is None:
        return 0
    if matmul_kind(module, dot) in ("matvec", "batched matvec"):
        return skinny_side(module, dot)
    if is_convolution(dot):
        out, kind = hlo.arrays(dot.shape), conv_kind(dot)
        if kind == "grouped convolution":
            return group_features(module, dot)
        if kind == "convolution":
            labels = DIM_LABELS.search(dot.attrs)
            return sum(c.isdigit() for c in labels.group(3)) if labels else 0
        if kind != "convolution filter" or not out:
            return 0
        return round(conv_flops(module, dot) / (2 * math.prod(out[0][1])))
    if is_dot_as_conv(dot):
        (m, n, instances), flops = _conv_out(dot), conv_flops(module, dot)
    else:
        found = hlo.arrays(dot.shape)
        if not found or len(found[0][1]) < 2:
            return 0
        (m, n), instances = found[0][1][-2:], dot_instances(module, dot)
        flops = hlo.dot_flops(module, dot)
    k = round(flops / (2 * m * n * instances)) if m and n and instances else 0
    return kernel_kinds.narrow_side(m, n, k) if k >= 1 else 0


def window(instruction: hlo.Instruction) -> int:
    """The product of a convolution's or reduce-window's window sizes (1 without a window)."""
    found = WINDOW.search(instruction.attrs)
    return math.prod(int(n) for n in found.group(1).split("x")) if found else 1


def conv_kind(instruction: hlo.Instruction) -> str:
    """`grouped convolution` for one whose features are split into groups (a
    feature_group_count or batch_group_count above 1: a depthwise convolution's one feature a
    group, and its input gradient), `convolution filter` for a convolution whose window is at
    least its output's spatial size (a weight gradient: the input convolved with the output's
    gradient, window = the image), else `convolution` (a forward pass or an input gradient); a
    cuDNN call by its target."""
    groups = GROUPS.findall(instruction.attrs)
    if any(int(g) > 1 for g in groups):
        return "grouped convolution"
    if instruction.opcode == "custom-call":
        filtering = "backwardfilter" in instruction.target.lower()
        return "convolution filter" if filtering else "convolution"
    labels = DIM_LABELS.search(instruction.attrs)
    dims = hlo.arrays(instruction.shape)
    if not labels or not dims:
        return "convolution"
    out = labels.group(3)
    spatial = [n for c, n in zip(out, dims[0][1], strict=False) if c.isdigit()]
    taps = window(instruction)
    return "convolution filter" if taps > 1 and taps >= math.prod(spatial) else "convolution"


def group_features(module: hlo.Module, conv: hlo.Instruction) -> int:
    """The input features each output of a convolution reads (its filter's input-feature size:
    all of them ungrouped, a group's where grouped, 1 for a depthwise one); 0 without the
    shapes."""
    labels = DIM_LABELS.search(conv.attrs)
    rhs = hlo.arrays(hlo.operand_shape(module, conv.operands[1])) if len(conv.operands) > 1 else []
    if not labels or not rhs or "i" not in labels.group(2):
        return 0
    return rhs[0][1][labels.group(2).index("i")]


def conv_size(module: hlo.Module, conv: hlo.Instruction, flops: float) -> tuple[float, bool]:
    """(Where a forward convolution sits on a host's curve, whether that is less than its
    FLOPs): its FLOPs, at most the suite's forward convolution's at its input × output features
    (kernel_kinds.conv_sweep_flops: on a CPU its rate follows its channels, not its batch or
    image; an accelerator's needs the batch and image to fill it, so its curves keep FLOPs)."""
    labels, out = DIM_LABELS.search(conv.attrs), hlo.arrays(conv.shape)
    features = group_features(module, conv)
    if not labels or not out or not features or "f" not in labels.group(3):
        return flops, False
    spatial = sum(c.isdigit() for c in labels.group(3))
    made = out[0][1][labels.group(3).index("f")]
    cap = kernel_kinds.conv_sweep_flops(features, made, spatial)
    return min(flops, cap), cap < flops


def conv_flops(module: hlo.Module, conv: hlo.Instruction) -> float:
    """2 FLOPs per output element per kernel tap per input feature of a convolution, from its
    shapes (padding counted: XLA's cost model leaves padded taps out); a grouped one's input
    features are a group's."""
    out, features = hlo.arrays(conv.shape), group_features(module, conv)
    if not out or not features:
        return 0.0
    taps = 1 if is_dot_as_conv(conv) else window(conv)  # a batched dot's window: one tap each
    return 2.0 * math.prod(out[0][1]) * taps * features


def _layout(module: hlo.Module, dot: hlo.Instruction | None) -> tuple[bool, bool]:
    """(A contracted on a dim other than its last, B contracted on its last) of a dot: the
    weight gradient's Aᵀ·B and the input gradient's A·Bᵀ."""
    numbers = dimension_numbers(dot)
    if not any(what == "contracting" for _, what in numbers) or len(dot.operands) < 2:
        return False, False
    ranks = [
        len(a[0][1]) if (a := hlo.arrays(hlo.operand_shape(module, o))) else 0
        for o in dot.operands[:2]
    ]
    lhs = numbers.get(("lhs", "contracting"), set())
    rhs = numbers.get(("rhs", "contracting"), set())
    return bool(lhs - {ranks[0] - 1}), ranks[1] >= 2 and rhs == {ranks[1] - 1}


def matmul_kind(module: hlo.Module, dot: hlo.Instruction | None, shape: str = "") -> str:
    """The kernel kind of a dot, an HLO convolution or a cuDNN call: conv_kind for a
    convolution (but one JAX asked for as a dot), else dot_kind (of `shape` where no dot is
    given)."""
    if dot is not None and is_convolution(dot):
        return conv_kind(dot)
    return dot_kind(module, dot, shape)
