"""FLOPs read from shapes, and the one-op module XLA's cost model prices.

A dot, a cuBLAS gemm: 2·M·N·K (FLOPs, not MACs), the result's elements times the contracted
size; a cuDNN convolution: 2 FLOPs per output per kernel tap; a LAPACK factorization XLA:CPU
calls (`lapack_sgetrf_ffi` and its kin): its textbook count (kernel_lapack.lapack_flops)
for each matrix of its batch, by its backend config's job letters; an FFT: 8 N log2 N a
transform of N points (ops.fft_flops), in place of XLA's count, which in several dimensions
multiplies the lengths' log2s; a complex dot: 8 FLOPs a multiply-add (a complex product's 4
multiplies and 2 adds, and its accumulation's 2: LAPACK's count for CGEMM, 8·M·N·K), where
XLA's cost model counts 2 (complex_dot_flops adds the 6). Anything else is priced by
XLA's cost model over a module holding only that instruction
(perfcore.measure.profile.hlo.xla_private): parameters cost nothing, so its cost is the op's.
"""

from __future__ import annotations

import math
import re

from perfcore.measure.profile.hlo.shapes import arrays
from perfcore.measure.profile.hlo.text import (
    FRAME_ATTR,
    Instruction,
    Module,
    backend_config,
    called,
    held,
    operand_shape,
)
from perfcore.model.chip import kernel_lapack, ops

COMPLEX = ("c64", "c128")  # HLO's complex element types

# A real LAPACK routine's custom call on XLA:CPU: `lapack_` + s or d + its name + `_ffi`
# (jaxlib's targets; a complex one, c or z, does other arithmetic and stays unpriced).
LAPACK = re.compile(r"lapack_[sd](getrf|potrf|trsm|geqrf|orgqr|syevd|gesdd)_ffi")
FFT_LENGTH = re.compile(r"fft_length=\{([\d,]+)\}")
JOB = re.compile(r"\bmode = (\d+)")  # the routine's job as a character code (`mode = 65 : ui8`)


def factorization(instruction: Instruction) -> str:
    """The LAPACK routine a custom call runs (`getrf`, `potrf`, `trsm`, `geqrf`, `orgqr`,
    `syevd`, `gesdd`: kernel_lapack.LAPACK_KINDS); empty for any other instruction."""
    found = LAPACK.fullmatch(instruction.target) if instruction.opcode == "custom-call" else None
    return found.group(1) if found else ""


def factorization_job(instruction: Instruction) -> str:
    """The job letter a LAPACK call's backend config gives (`mode = 78 : ui8`: `N`, no vectors);
    the full vectors' where it gives none."""
    job = JOB.search(instruction.attrs)
    return chr(int(job.group(1))) if job else ops.VECTORS_FULL


def _operand_dims(module: Module, instruction: Instruction) -> tuple[tuple[int, ...], ...]:
    """Each operand's dimensions, where its shape is an array."""
    shapes = [arrays(operand_shape(module, o)) for o in instruction.operands]
    return tuple(tuple(found[0][1]) for found in shapes if found)


def factorization_kind(module: Module, instruction: Instruction) -> tuple[str, int]:
    """A LAPACK call's kernel kind and its second coordinate (kernel_lapack.lapack_coordinate,
    from its operands' shapes); ("", 0) for any other instruction."""
    routine = factorization(instruction)
    if not routine:
        return "", 0
    kind = kernel_lapack.lapack_kind(routine, factorization_job(instruction))
    return kind, kernel_lapack.lapack_coordinate(kind, _operand_dims(module, instruction))


def factorization_flops(module: Module, instruction: Instruction) -> float | None:
    """A LAPACK call's FLOPs (kernel_lapack.lapack_flops: its count a matrix times the matrices
    of its batch); None where it is not one or its shapes are unread."""
    routine = factorization(instruction)
    if not routine:
        return None
    job = factorization_job(instruction)
    kind = kernel_lapack.lapack_kind(routine, job)
    return kernel_lapack.lapack_flops(kind, _operand_dims(module, instruction), job) or None


def fft_lengths(instruction: Instruction) -> tuple[int, ...]:
    """An fft instruction's lengths (its fft_length, one per dimension transformed); empty for
    any other instruction."""
    found = FFT_LENGTH.search(instruction.attrs) if instruction.opcode == "fft" else None
    return tuple(int(n) for n in found.group(1).split(",") if n) if found else ()


def fft_flops(module: Module, instruction: Instruction) -> float | None:
    """An fft's FLOPs (ops.fft_flops), its transforms those of the larger of its operand and
    result (the real side of a real-input or inverse real one); None where it is not one."""
    lengths = fft_lengths(instruction)
    sides = [arrays(operand_shape(module, o)) for o in instruction.operands[:1]]
    sides.append(arrays(instruction.shape))
    points = max((math.prod(dims) for found in sides for _, dims in found[:1]), default=0)
    if not lengths or not points:
        return None
    return ops.fft_flops(lengths, max(points // math.prod(lengths), 1))


def _dims(config: dict, key: str) -> list[int]:
    """A list of dimension numbers from a backend config, written as strings or ints."""
    return [int(d) for d in config.get(key, [])]


def library_flops(module: Module, instruction: Instruction) -> float | None:
    """FLOPs of a cuBLAS gemm (2·M·N·K) or cuDNN convolution from its shapes; None if unread."""
    shapes = [arrays(operand_shape(module, o)) for o in instruction.operands[:2]]
    out = arrays(instruction.shape)
    if len(shapes) < 2 or not all(shapes) or not out:
        return None
    lhs, rhs, result = shapes[0][0][1], shapes[1][0][1], out[0][1]
    if instruction.target.startswith("__cublas$"):
        config = backend_config(instruction)
        numbers = (config.get("gemm_backend_config") or config).get("dot_dimension_numbers", {})
        contracting = _dims(numbers, "lhs_contracting_dimensions") or [len(lhs) - 1]
        return 2.0 * math.prod(result) * math.prod(lhs[d] for d in contracting)
    labels = re.search(r"dim_labels=\w+_(\w+)->", instruction.attrs)
    out_features = rhs[labels.group(1).index("o")] if labels else rhs[-1]
    return 2.0 * math.prod(result) * math.prod(rhs) / out_features


def dot_flops(module: Module, dot: Instruction) -> float:
    """2·M·N·K of a dot from its shapes: result elements times the contracted size."""
    lhs = arrays(operand_shape(module, dot.operands[0]))[0][1]
    contracting = re.search(r"lhs_contracting_dims=\{([\d,]*)\}", dot.attrs)
    dims = [int(d) for d in contracting.group(1).split(",") if d] if contracting else []
    return 2.0 * math.prod(arrays(dot.shape)[0][1]) * math.prod(lhs[d] for d in dims)


# An ordering edge to instructions of the whole module (jax.random's copies of its key carry
# them): the one-op module has none of those instructions, and orders nothing.
CONTROL = re.compile(r",?\s*control-predecessors=\{[^}]*\}")


def complex_dot_flops(module: Module, instruction: Instruction) -> float:
    """FLOPs a dot of complex numbers does beyond XLA's count, for the op or the dots a fusion
    holds: 6 a multiply-add more than XLA's 2 (3 × its 2·M·N·K); 0 where none is complex."""
    dots = [instruction] if instruction.opcode == "dot" else held(module, instruction)
    return sum(
        3 * dot_flops(module, d)
        for d in dots
        if d.opcode == "dot" and (found := arrays(d.shape)) and found[0][0] in COMPLEX
    )


def one_op_module(module: Module, instruction: Instruction) -> str:
    """HLO text of a module whose entry computes only this instruction from parameters.

    XLA's cost model prices this module as it prices the instruction inside the whole one:
    parameters cost nothing, so the module's cost is the instruction's."""
    shapes = dict.fromkeys(instruction.operands)
    params = [f"  {o} = {operand_shape(module, o)} parameter({i})" for i, o in enumerate(shapes)]
    bodies = [module.texts[c] for c in called(module, instruction)]
    root = CONTROL.sub("", instruction.line)
    entry = ["ENTRY %one_op {", *params, f"  ROOT {root}", "}"]
    text = "\n\n".join(
        [f"HloModule one_op_{instruction.name.lstrip('%')}", *bodies, "\n".join(entry)]
    )
    return FRAME_ATTR.sub("", text)  # the one-op module has no source table to point into
