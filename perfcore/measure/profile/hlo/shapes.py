"""HLO shapes: each array's element type and dimensions, their bytes, and an instruction's
precision (the roof it runs on), read from shape text such as `(f32[16,64]{1,0}, s32[])`.
"""

from __future__ import annotations

import math
import re

from perfcore.measure.profile.hlo.text import Instruction, Module, operand_shape

# Bytes per element of an HLO element type; a type not listed is priced by its bit width.
ELEMENT_BYTES = {
    "pred": 1,
    "s8": 1,
    "u8": 1,
    "f8e4m3fn": 1,
    "f8e5m2": 1,
    "s16": 2,
    "u16": 2,
    "f16": 2,
    "bf16": 2,
    "s32": 4,
    "u32": 4,
    "f32": 4,
    "s64": 8,
    "u64": 8,
    "f64": 8,
    "c64": 8,
    "c128": 16,
}


ELEMENT_PRECISION = {
    "f64": "fp64",
    "f32": "fp32",
    "bf16": "bf16",
    "f16": "fp16",
    "f8e4m3fn": "fp8",
    "f8e5m2": "fp8",
    "s8": "int8",
}


ARRAY = re.compile(r"([a-z]\w*)\[([\d,]*)\]")


def arrays(shape: str) -> list[tuple[str, tuple[int, ...]]]:
    """The (element type, dimensions) of each array in a shape, tuples flattened."""
    return [(t, tuple(int(d) for d in dims.split(",") if d)) for t, dims in ARRAY.findall(shape)]


def shape_bytes(shape: str) -> float:
    """Bytes of every array in a shape."""
    return float(sum(ELEMENT_BYTES.get(t, 4) * math.prod(d) for t, d in arrays(shape)))


ON_CHIP = re.compile(r"([a-z]\w*\[[\d,]*\])\{[^}]*S\(1\)[^}]*\}")  # in memory space 1: VMEM


def on_chip(shape: str) -> bool:
    """True for a shape whose layout places it in memory space 1 (`{1,0:T(8,128)S(1)}`: a
    TPU's on-chip VMEM)."""
    return bool(ON_CHIP.search(shape))


def on_chip_bytes(module: Module, instruction: Instruction) -> float:
    """Bytes of the instruction's operands and result that its layouts place in memory space 1
    (`{1,0:T(8,128)S(1)}`: a TPU's on-chip VMEM, where XLA:TPU prefetches an op's inputs):
    read or written there, not in device memory, whose bandwidth bounds the rest."""
    shapes = [operand_shape(module, o) for o in instruction.operands] + [instruction.shape]
    return sum(shape_bytes(a) for shape in shapes for a in ON_CHIP.findall(shape))


def precision(instruction: Instruction, module: Module) -> str:
    """The precision (roof) of the instruction: its first operand's element type, else its own."""
    shapes = [operand_shape(module, o) for o in instruction.operands[:1]] or [instruction.shape]
    kinds = arrays(shapes[0]) or arrays(instruction.shape)
    return ELEMENT_PRECISION.get(kinds[0][0], "") if kinds else ""
