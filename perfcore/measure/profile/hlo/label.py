"""What an op does and where, for a reader: `dot 256×512·512×1024, examples.py:74`.

XLA names ops by their fusions (`ynn_fusion.1`, `loop_multiply_fusion`); a reader wants the
work. An op is named by its opcode and shapes: a matmul by its operands' dimensions joined by
`·` (lhs·rhs), anything else by its result's. A fusion is named by what it fuses (the
instructions of its fused computation, nested fusions included, a reduction's combiner not):
by that one kind when it fuses one, else `fusion: ` and its kinds in order, a matmul first
and data movement (broadcasts, copies, converts) left out where it does more, e.g.
`fusion: multiply+add 4096×1024`. A LAPACK call is named by its kind, its operands'
dimensions and its routine: `triangular solve 512×512·512×64 (trsm)`. Then the source
`file:line` (the file's name only).
"""

from __future__ import annotations

from perfcore.measure.profile.hlo.flops import factorization, factorization_kind
from perfcore.measure.profile.hlo.kinds import FREE, MATMUL_OPS, MOVES, is_library_matmul
from perfcore.measure.profile.hlo.loops import trip_count
from perfcore.measure.profile.hlo.shapes import arrays
from perfcore.measure.profile.hlo.text import Instruction, Module, operand_shape

SHOWN_KINDS = 3  # a fusion's kinds named, at most; the rest as `+…`
SILENT = MOVES | {"convert"}  # named in a fusion only when it does nothing else


def dims(shape: str) -> str:
    """A shape's dimensions for a reader: `256×512`, `scalar`, a tuple's arrays in brackets."""
    found = [("×".join(map(str, d)) or "scalar") for _, d in arrays(shape)]
    return found[0] if len(found) == 1 else f"({' '.join(found)})"


def _is_matmul(instruction: Instruction) -> bool:
    """A dot, a convolution, or a cuBLAS/cuDNN call."""
    return instruction.opcode in MATMUL_OPS or is_library_matmul(instruction)


def _operands(module: Module, instruction: Instruction) -> str:
    """A matmul's operand dimensions, lhs·rhs."""
    return "·".join(dims(operand_shape(module, o)) for o in instruction.operands[:2])


def fused(module: Module, instruction: Instruction) -> list[Instruction]:
    """The instructions a fusion computes, nested fusions opened, free ones left out."""
    out = []
    for name in instruction.calls:
        for inner in module.computations.get(name, ()):
            if inner.opcode == "fusion":
                out += fused(module, inner)
            elif inner.opcode not in FREE:
                out.append(inner)
    return out


def _one(module: Module, instruction: Instruction) -> str:
    """One instruction by its opcode (a custom call by its target, a LAPACK call by its kind
    and routine) and shapes."""
    if routine := factorization(instruction):
        kind = factorization_kind(module, instruction)[0]
        shapes = [dims(operand_shape(module, o)) for o in instruction.operands]
        return f"{kind} {'·'.join(shapes)} ({routine})"
    name = instruction.target.lstrip("_") if instruction.opcode == "custom-call" else ""
    name = name or instruction.opcode
    if _is_matmul(instruction):
        return f"{name} {_operands(module, instruction)}"
    if instruction.opcode == "while" and trip_count(instruction) is not None:
        return f"while ×{trip_count(instruction)}"
    return f"{name} {dims(instruction.shape)}"


def what(module: Module, instruction: Instruction) -> str:
    """What the instruction does, without where: its kind and shapes."""
    if instruction.opcode != "fusion":
        return _one(module, instruction)
    inside = fused(module, instruction)
    kinds = list(dict.fromkeys(i.opcode for i in sorted(inside, key=lambda i: not _is_matmul(i))))
    kinds = [k for k in kinds if k not in SILENT] or kinds
    if len(kinds) == 1:
        first = inside[0]
        return _one(module, first) if _is_matmul(first) else f"{kinds[0]} {dims(instruction.shape)}"
    if not kinds:
        return f"fusion {dims(instruction.shape)}"
    matmul = next((i for i in inside if _is_matmul(i)), None)
    shapes = _operands(module, matmul) if matmul else dims(instruction.shape)
    shown = "+".join(kinds[:SHOWN_KINDS]) + ("+…" if len(kinds) > SHOWN_KINDS else "")
    return f"fusion: {shown} {shapes}"


def label(module: Module, instruction: Instruction) -> str:
    """What the instruction does and where, e.g. `dot 256×512·512×1024, examples.py:74`."""
    source = module.source(instruction)
    if not source:
        inside = fused(module, instruction) if instruction.opcode == "fusion" else []
        source = next((module.source(i) for i in inside if module.source(i)), "")
    where = source.replace("\\", "/").rsplit("/", 1)[-1]
    return f"{what(module, instruction)}, {where}" if where else what(module, instruction)
