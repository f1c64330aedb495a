"""The kernel kind of an HLO instruction: which of a device's kernel curves prices it.

A matmul with M or N of at most 16 is a matvec; else its kind follows its operand layout
(A·B, a weight gradient's Aᵀ·B, an input gradient's A·Bᵀ: perfcore.model.chip.kernels.
matmul_kind). An op that writes three or more dimensions longer than 1 in another order (a
transpose, a layout-changing copy, a fusion holding either) is a `transpose`; an elementwise
fusion with transcendentals a `transcendental` chain; a fused attention custom call
`attention` (forward or backward); the rest by category.
"""

from __future__ import annotations

import math
import re

from perfcore.measure.profile import hlo
from perfcore.model.chip import kernels

KIND = {
    hlo.ELEMENTWISE: "elementwise",
    hlo.REDUCTION: "reduction",
    hlo.DATA: "copy",
    hlo.COLLECTIVE: "collective",
    hlo.OTHER: "elementwise",
}
CONTRACTING = re.compile(r"(lhs|rhs)_contracting_dims=\{([\d,]*)\}")
LAYOUT = re.compile(r"\]\{([\d,]*)\}")
PERMUTES = frozenset({"transpose", "copy"})
TRANSPOSE_DIMS = re.compile(r"dimensions=\{([\d,]*)\}")


def dots(module: hlo.Module, instruction: hlo.Instruction) -> list[hlo.Instruction]:
    """The instruction's dots: itself, or those inside its fusion, in program order."""
    if instruction.opcode in hlo.MATMUL_OPS:
        return [instruction]
    inner = [i for c in hlo.called(module, instruction) for i in module.computations[c]]
    return [i for i in inner if i.opcode in hlo.MATMUL_OPS]


BATCH = re.compile(r"lhs_batch_dims=\{([\d,]*)\}")


def dot_instances(module: hlo.Module, dot: hlo.Instruction | None) -> int:
    """How many matmuls a dot runs: the product of its batch dimensions (1 without)."""
    found = BATCH.search(dot.attrs) if dot else None
    lhs = hlo.arrays(hlo.operand_shape(module, dot.operands[0])) if found and dot.operands else []
    if not lhs:
        return 1
    dims = [int(d) for d in found.group(1).split(",") if d]
    return math.prod(lhs[0][1][d] for d in dims if d < len(lhs[0][1]))


def dot_kind(module: hlo.Module, dot: hlo.Instruction | None, shape: str = "") -> str:
    """The kernel kind of a dot (kernels.matmul_kind, by its M×N and operand layout); of
    `shape` where no dot is given; `matvec` for a result of rank below 2."""
    dims = hlo.arrays(dot.shape if dot else shape)[0][1]
    return kernels.matmul_kind(*dims[-2:], *_layout(module, dot)) if len(dims) >= 2 else "matvec"


def _layout(module: hlo.Module, dot: hlo.Instruction | None) -> tuple[bool, bool]:
    """(A contracted on a dim other than its last, B contracted on its last) of a dot: the
    weight gradient's Aᵀ·B and the input gradient's A·Bᵀ."""
    found = dict(CONTRACTING.findall(dot.attrs)) if dot else {}
    if not found or len(dot.operands) < 2:
        return False, False
    ranks = [
        len(a[0][1]) if (a := hlo.arrays(hlo.operand_shape(module, o))) else 0
        for o in dot.operands[:2]
    ]

    def dims(side: str) -> set[int]:
        return {int(d) for d in found.get(side, "").split(",") if d}

    lhs, rhs = dims("lhs"), dims("rhs")
    return bool(lhs - {ranks[0] - 1}), ranks[1] >= 2 and rhs == {ranks[1] - 1}


def _reorders(module: hlo.Module, instruction: hlo.Instruction) -> bool:
    """True for a transpose or a copy that moves 3 or more dimensions longer than 1 into
    another order (a layout change of size-1 dimensions moves no data)."""
    dims = hlo.arrays(instruction.shape)
    source = hlo.operand_shape(module, instruction.operands[0]) if instruction.operands else ""
    if not dims or not source:
        return False
    long = [d for d, n in enumerate(dims[0][1]) if n > 1]
    if instruction.opcode == "transpose":
        found = TRANSPOSE_DIMS.search(instruction.attrs)
        order = [int(d) for d in found.group(1).split(",") if d] if found else []
        source_dims = hlo.arrays(source)[0][1] if hlo.arrays(source) else ()
        moved = [d for d in order if d < len(source_dims) and source_dims[d] > 1]
        return len(moved) >= 3 and moved != sorted(moved)
    layouts = [[int(d) for d in x.split(",") if d] for x in LAYOUT.findall(instruction.shape)]
    before = [[int(d) for d in x.split(",") if d] for x in LAYOUT.findall(source)]
    if not layouts or not before:
        return False
    kept = [[d for d in x if d in long] for x in (layouts[0], before[0])]
    return len(long) >= 3 and kept[0] != kept[1]


def _permutes(module: hlo.Module, instruction: hlo.Instruction) -> bool:
    """True for an op that writes 3 or more dimensions in another order: a transpose, a copy
    into another layout, or a fusion holding either."""
    if instruction.opcode in PERMUTES:
        return _reorders(module, instruction)
    if instruction.opcode != "fusion":
        return False
    inside = [i for c in hlo.called(module, instruction) for i in module.computations[c]]
    return any(i.opcode in PERMUTES and _reorders(module, i) for i in inside)


def kernel_kind(module: hlo.Module, instruction: hlo.Instruction, priced) -> str:
    """The kernel kind of a priced instruction; empty where none applies (a custom kernel)."""
    if priced.category == hlo.MATMUL:
        found = dots(module, instruction)
        return dot_kind(module, found[0] if found else None, instruction.shape)
    if priced.category == hlo.CUSTOM:
        target = instruction.target.lower()
        if "fmha" not in target and "attention" not in target:
            return ""
        return "attention backward" if "backward" in target or "bwd" in target else "attention"
    if priced.category in (hlo.DATA, hlo.ELEMENTWISE) and _permutes(module, instruction):
        return "transpose"
    if priced.category == hlo.ELEMENTWISE and priced.transcendentals:
        return "transcendental"
    return KIND.get(priced.category, "")
