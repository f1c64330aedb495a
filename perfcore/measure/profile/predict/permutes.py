"""Transposes and layout-changing copies in an HLO instruction: which dimensions they move, and
how XLA:CPU's loops then read.

A transpose or copy reorders dimensions longer than 1 (reorders); it keeps rows where its
result's minor-most dimension is its operand's (keeps_rows: whole rows moved, each a
contiguous read and write); a copy keeping its one operand's shape and layout is a memcpy
(hlo.keeps_layout). A fusion holding a broadcast and a reorder that moves its minor dimension is a
strided transpose (strided_transpose): XLA:CPU tiles a plain transpose but emits this one as a
loop of strided single-element reads, whose rate follows the bytes the read spans before it
comes back to a line (strided_span), and whose time the operands it walks so each add
(walked_operands).
"""

from __future__ import annotations

import math
import re

from perfcore.measure.profile import hlo
from perfcore.model.chip import kernel_kinds

LAYOUT = re.compile(r"\]\{([\d,]*)\}")
PERMUTES = frozenset({"transpose", "copy"})
DIMENSIONS = re.compile(r"dimensions=\{([\d,]*)\}")  # a transpose's order, a reduce's summed dims


def permutation(instruction: hlo.Instruction) -> list[int]:
    """A transpose's `dimensions`: the operand dimension each result dimension is."""
    found = DIMENSIONS.search(instruction.attrs)
    return [int(d) for d in found.group(1).split(",") if d] if found else []


def layout(shape: str) -> list[int]:
    """The minor-to-major layout of a shape's first array (empty where it has none)."""
    found = LAYOUT.search(shape)
    return [int(d) for d in found.group(1).split(",") if d] if found else []


def reorders(module: hlo.Module, instruction: hlo.Instruction, least: int = 3) -> bool:
    """True for a transpose or a copy that moves `least` or more dimensions longer than 1 into
    another order (a layout change of size-1 dimensions moves no data)."""
    dims = hlo.arrays(instruction.shape)
    source = hlo.operand_shape(module, instruction.operands[0]) if instruction.operands else ""
    if not dims or not source:
        return False
    long = [d for d, n in enumerate(dims[0][1]) if n > 1]
    if instruction.opcode == "transpose":
        sizes = hlo.arrays(source)[0][1] if hlo.arrays(source) else ()
        moved = [d for d in permutation(instruction) if d < len(sizes) and sizes[d] > 1]
        return len(moved) >= least and moved != sorted(moved)
    after, before = layout(instruction.shape), layout(source)
    if not after or not before:
        return False
    kept = [[d for d in x if d in long] for x in (after, before)]
    return len(long) >= least and kept[0] != kept[1]


def reorderings(module: hlo.Module, instruction: hlo.Instruction) -> list[hlo.Instruction]:
    """The transposes and copies an op is or holds that write 3 or more dimensions in another
    order (a transpose, a copy into another layout, or a fusion holding either)."""
    if instruction.opcode in PERMUTES:
        held = [instruction]
    elif instruction.opcode == "fusion":
        held = [i for i in hlo.held(module, instruction) if i.opcode in PERMUTES]
    else:
        held = []
    return [i for i in held if reorders(module, i)]


def strided_transpose(module: hlo.Module, instruction: hlo.Instruction) -> bool:
    """True for a fusion holding a broadcast (of a constant or of a smaller operand) and a
    transpose or copy that moves its operand's minor-most dimension, of any rank: a weight
    gradient's activations transposed with their derivative's chain (x · g + 1)ᵀ. XLA:CPU emits
    such a fusion as a loop reading each element on its own, strided, where it tiles a plain
    transpose or one of a chain without a broadcast: (x + 1)ᵀ of 1,024² floats took 2.9 ms there,
    xᵀ 0.49 ms."""
    if instruction.opcode != "fusion":
        return False
    held = hlo.held(module, instruction)
    if not any(i.opcode == "broadcast" for i in held):
        return False
    return any(
        i.opcode in PERMUTES and reorders(module, i, 2) and not keeps_rows(module, i) for i in held
    )


def strided_span(module: hlo.Module, instruction: hlo.Instruction) -> int:
    """A strided transpose's second coordinate (kernel_kinds.SWEPT): the KiB of its operand its
    strided read spans before it comes back to the line it left, the most of its transposes or
    copies (1 where none moves a minor dimension). Its output is written in order, so a line
    of an operand's row is read again only after the output elements more minor than the
    dimension the operand's minor one lands in, each a row pitch apart: (x + 1)ᵀ of (R, C)
    floats spans R x C x 4 bytes, the whole matrix; per head, (B, S, S) -> (B, S, S)ᵀ spans one
    head's S² x 4. Measured here at 8 MiB: 64 KiB spans 14-17 GB/s, 256 KiB 6-9, 4 MiB 2.0-2.7
    (rows of 256 and 1,024 floats; the lines a walk leaves stay in the cache the smaller it is)."""
    held = hlo.held(module, instruction) if instruction.opcode == "fusion" else [instruction]
    return max((_span(module, i) for i in held if i.opcode in PERMUTES), default=1)


def walked_operands(module: hlo.Module, instruction: hlo.Instruction) -> tuple[int, float]:
    """(k, bytes of one) of a strided transpose's operands of its output's element count, each
    read element by element in the output's order (a broadcast one, smaller, is not walked).
    Each walk costs what a lone (x + 1)ᵀ's does, its read and its write: measured here over
    2,048 rows of 4M floats, 1 to 4 such operands took 15, 34, 52 and 65 ms, where their bytes
    ((k + 1) x 16 MiB) would say 15, 23, 31 and 39."""
    out = hlo.arrays(instruction.shape)
    if not out:
        return 0, 0.0
    elements = math.prod(out[0][1])
    shapes = [hlo.operand_shape(module, o) for o in instruction.operands]
    sized = [s for s in shapes if (a := hlo.arrays(s)) and math.prod(a[0][1]) == elements]
    return len(sized), hlo.shape_bytes(sized[0]) if sized else 0.0


def _span(module: hlo.Module, instruction: hlo.Instruction) -> int:
    """The KiB of its operand a transpose or copy reads between two reads of one line of it:
    over the result's dimensions more minor (in its layout) than the one its operand's
    minor-most dimension lands in, the largest of each one's length x its operand dimension's
    pitch; 1 where the minor dimension stays minor."""
    source = hlo.operand_shape(module, instruction.operands[0]) if instruction.operands else ""
    lands, dims, read = minor(source), hlo.arrays(instruction.shape), hlo.arrays(source)
    if lands is None or not dims or not read:
        return 1
    sizes, order = dims[0][1], list(range(len(dims[0][1])))
    if instruction.opcode == "transpose":
        order = permutation(instruction)
    written = layout(instruction.shape)
    if lands not in order or order.index(lands) not in written:
        return 1
    walked = [d for d in written[: written.index(order.index(lands))] if d < len(sizes)]
    laid, extents = layout(source), read[0][1]

    def pitch(d: int) -> int:  # elements between neighbours along the operand's dimension d
        return math.prod(extents[m] for m in laid[: laid.index(d)]) if d in laid else 0

    spans = [sizes[d] * pitch(order[d]) for d in walked if order[d] < len(extents)]
    return kernel_kinds.span_kib(max(spans, default=0) * hlo.ELEMENT_BYTES.get(read[0][0], 4))


def minor(shape: str) -> int | None:
    """The logical index of an array shape's minor-most dimension longer than 1 (its layout's
    first such), None where it has none or no layout."""
    dims = hlo.arrays(shape)
    if not dims:
        return None
    return next((d for d in layout(shape) if d < len(dims[0][1]) and dims[0][1][d] > 1), None)


def keeps_rows(module: hlo.Module, instruction: hlo.Instruction) -> bool:
    """True for a transpose or copy whose result's minor-most dimension is its operand's
    (rows moved whole, each a contiguous read and write)."""
    source = hlo.operand_shape(module, instruction.operands[0]) if instruction.operands else ""
    out, before = minor(instruction.shape), minor(source)
    if out is None or before is None:
        return False
    if instruction.opcode == "transpose":
        order = permutation(instruction)
        return out < len(order) and order[out] == before
    return out == before
