"""The kernel kind of an HLO instruction: which of a device's kernel curves prices it.

A matmul with M or N of at most 16 is a matvec; a dot of several (its batch dimensions) a
batched matmul; else its kind follows its operand layout (A·B, a weight gradient's Aᵀ·B, an
input gradient's A·Bᵀ: perfcore.model.chip.kernel_kinds.matmul_kind). A convolution JAX asked
for as a dot (a TPU writes every dot so) is a matmul by its output's rows and columns. A
fusion holding a broadcast that moves its minor dimension, of any rank, is a `strided
transpose` (permutes.strided_transpose); else an op that writes three or more dimensions
longer than 1 in another order (a transpose, a layout-changing copy, a fusion holding either)
is a `transpose`, a `row transpose` where each reorder keeps its minor-most dimension (whole
rows moved: attention's head split, (batch, seq, heads, dim) -> (batch, heads, seq, dim)); an
elementwise fusion with transcendentals (XLA's count less its square roots, plus those a
fusion evaluates again: evaluations, `again`; a sine, power or rsqrt on its own function's
curve) a `transcendental` chain; a fused attention
custom call `attention` (forward or backward). A convolution (an HLO `convolution`, a cuDNN
call) is a `convolution filter` where its window spans its input (a weight gradient: the
window is at least its output's spatial size), else a `convolution`; an op holding a sort is a
`sort`, one holding a reduce-window (a cumulative sum's scan) a `reduce-window`, one holding a
gather (an embedding's rows) a `gather`, one holding a scatter (an embedding gradient's rows
added) a `scatter`, a copy that keeps its layout a `plain copy`, a sum of the product of two
different operands over a shape with a size-1 dimension a `unit-dim product sum`, a reduce of
several arrays at once (argmax's values and indices) an `arg reduction`, an op that is or holds
an FFT an `fft`, a LAPACK call its routine's kind (`lu`, `cholesky`, `triangular solve`, `qr`,
`householder product`, `eigh`, `svd`, `singular values`: hlo.factorization_kind); the rest by
category.
"""

from __future__ import annotations

import math
import re

from perfcore.measure.profile import hlo
from perfcore.measure.profile.predict import permutes
from perfcore.measure.profile.predict.matmuls import (
    WINDOW,
    conv_kind,
    is_convolution,
    matmul_kind,
    window,
)
from perfcore.model.chip import kernel_kinds

KIND = {
    hlo.ELEMENTWISE: "elementwise",
    hlo.REDUCTION: "reduction",
    hlo.DATA: "copy",
    hlo.COLLECTIVE: "collective",
    hlo.OTHER: "elementwise",
}
SORT_DIM = re.compile(r"dimensions=\{(\d+)\}")


def dots(module: hlo.Module, instruction: hlo.Instruction) -> list[hlo.Instruction]:
    """The instruction's dots: itself, or those inside its fusion, in program order."""
    return hlo.inside(module, instruction, hlo.MATMUL_OPS)


def sorted_keys(module: hlo.Module, instruction: hlo.Instruction) -> tuple[float, int]:
    """(bytes a sort is sized and bounded by, kernel_kinds.sort_bytes of its keys: its first
    operand; how many rows it sorts: the keys' elements over the sorted dimension's length)."""
    found = hlo.inside(module, instruction, {"sort"})
    keys = hlo.arrays(hlo.operand_shape(module, found[0].operands[0])) if found else []
    if not keys or not keys[0][1]:
        return 0.0, 1
    kind, dims = keys[0]
    at = SORT_DIM.search(found[0].attrs)
    length = dims[int(at.group(1))] if at and int(at.group(1)) < len(dims) else dims[-1]
    elements = math.prod(dims)
    return kernel_kinds.sort_bytes(elements, hlo.ELEMENT_BYTES.get(kind, 4)), max(
        elements // max(length, 1), 1
    )


def window_reads(module: hlo.Module, instruction: hlo.Instruction) -> float:
    """Bytes its reduce-windows are sized and bounded by (kernel_kinds.window_bytes: every output
    reads its whole window, and is written once)."""
    total = 0.0
    for rw in hlo.inside(module, instruction, {"reduce-window"}):
        out = hlo.arrays(rw.shape)
        if out:
            kind, dims = out[0]
            total += kernel_kinds.window_bytes(
                math.prod(dims), window(rw), hlo.ELEMENT_BYTES.get(kind, 4)
            )
    return total


STRIDE = re.compile(r"stride=([\dx]+)")


def window_kind(module: hlo.Module, instruction: hlo.Instruction) -> str:
    """The kind of an op that is or holds a reduce-window: `windowed arg reduction` where one
    reduces several arrays together (values and their indices: XLA:CPU's expansion of a max
    pool's gradient), `pool` where every window's stride is at least its size (windows that
    do not overlap: each input read once), else `reduce-window` (a cumulative sum's)."""
    found = hlo.inside(module, instruction, {"reduce-window"})
    if any(len(hlo.arrays(rw.shape)) > 1 for rw in found):
        return "windowed arg reduction"
    for rw in found:
        sizes, strides = WINDOW.search(rw.attrs), STRIDE.search(rw.attrs)
        if not sizes or not strides:
            return "reduce-window"
        pairs = zip(sizes.group(1).split("x"), strides.group(1).split("x"), strict=False)
        if any(int(stride) < int(size) for size, stride in pairs):
            return "reduce-window"
    return "pool"


def product_sum(module: hlo.Module, instruction: hlo.Instruction) -> bool:
    """True for an op holding a sum whose input is the product of two different operands over
    a shape with a size-1 dimension (kernel_windows.product_sums says what it costs there)."""
    body = {i.name: i for i in hlo.held(module, instruction)}
    for r in body.values():
        if r.opcode != "reduce" or not r.operands or r.operands[0] not in body:
            continue
        reducer = module.computations.get(r.calls[0], ()) if r.calls else ()
        product = body[r.operands[0]]
        if not reducer or reducer[-1].opcode != "add" or product.opcode != "multiply":
            continue
        dims = hlo.arrays(product.shape)
        if len(set(product.operands)) == 2 and dims and 1 in dims[0][1]:
            return True
    return False


# Opcodes XLA's cost model counts as transcendentals that run as one vector instruction: timed
# here over 4M floats, sqrt took 1.07 ms against 1.35 ms for x·2 + 1 and 1.62 ms for exp.
ONE_INSTRUCTION = frozenset({"sqrt"})
# The opcodes priced on a function's own curve (kernel_kinds.FUNCTIONS), not the exp·tanh chain's.
FUNCTION_OF = {"sine": "sine", "cosine": "sine", "tan": "sine", "power": "power", "rsqrt": "rsqrt"}


def _elements(module: hlo.Module, instruction: hlo.Instruction, opcodes) -> dict[str, float]:
    """Elements the op's instructions of `opcodes` compute, by opcode."""
    out: dict[str, float] = {}
    for i in hlo.inside(module, instruction, opcodes):
        if found := hlo.arrays(i.shape):
            out[i.opcode] = out.get(i.opcode, 0.0) + math.prod(found[0][1])
    return out


def again(module: hlo.Module, instruction: hlo.Instruction) -> dict[str, float]:
    """Elements a fusion's transcendentals are evaluated beyond XLA's one per element, by
    opcode: a fused result is not stored but computed where it is used, and a reduce's loop
    runs apart from the loop that writes the output, so a transcendental that a reduce sums and
    that is used again beside it (a softmax's exp: summed over the row, then divided by that
    sum) is evaluated once in each reduce's loop and once more for its other users."""
    out: dict[str, float] = {}
    for body in (module.computations[c] for c in hlo.called(module, instruction)):
        opcode = {i.name: i.opcode for i in body}
        for t in (i for i in body if i.opcode in hlo.TRANSCENDENTALS):
            users = [opcode[name] for name in hlo.readers(module, t)]
            reduces = users.count("reduce")
            loops = reduces + (1 if len(users) > reduces else 0)
            if loops > 1 and (found := hlo.arrays(t.shape)):
                out[t.opcode] = out.get(t.opcode, 0.0) + (loops - 1) * math.prod(found[0][1])
    return out


def evaluations(module: hlo.Module, instruction: hlo.Instruction, priced) -> dict[str, float]:
    """What the op evaluates beyond its stream, by the curve that prices it: {kind: count}. Its
    transcendentals: a kernel_kinds.FUNCTIONS kind one per element of each of its opcodes,
    `transcendental` (the exp·tanh chain) the rest of XLA's count less one per element of each
    square root; each with the evaluations its fusion repeats (`again`). Outside a matmul's
    fusion, `rounding` its roundings (hlo.roundings). Empty with none."""
    out = {}
    if priced.transcendentals:
        counted = _elements(module, instruction, ONE_INSTRUCTION | set(FUNCTION_OF))
        chain = priced.transcendentals - sum(counted.values())
        for opcode, n in again(module, instruction).items():
            if opcode in FUNCTION_OF:
                counted[opcode] = counted.get(opcode, 0.0) + n
            elif opcode not in ONE_INSTRUCTION:
                chain += n
        out = {"transcendental": chain} if chain > 0 else {}
        for opcode, n in counted.items():
            if kind := FUNCTION_OF.get(opcode):
                out[kind] = out.get(kind, 0.0) + n
    if priced.category != hlo.MATMUL and (n := hlo.roundings(module, instruction)):
        out["rounding"] = n
    return out


def kernel_kind(module: hlo.Module, instruction: hlo.Instruction, priced) -> str:
    """The kernel kind of a priced instruction; empty where none applies (a custom kernel)."""
    if priced.category == hlo.MATMUL:
        found = dots(module, instruction)
        if is_convolution(instruction):  # a cuDNN call
            return conv_kind(instruction)
        return matmul_kind(module, found[0] if found else None, instruction.shape)
    if priced.category == hlo.CUSTOM:
        if hlo.is_top_k(instruction):
            return "top-k"
        if hlo.factorization(instruction):
            return hlo.factorization_kind(module, instruction)[0]
        target = instruction.target.lower()
        if "fmha" not in target and "attention" not in target:
            return ""
        return "attention backward" if "backward" in target or "bwd" in target else "attention"
    inside = hlo.opcodes(module, instruction)
    if "sort" in inside:
        return "sort"
    if "reduce-window" in inside:
        return window_kind(module, instruction)
    if "fft" in inside:
        return "fft"
    if "scatter" in inside:
        return "scatter"
    if "gather" in inside:
        return "gather"
    if priced.category in (hlo.DATA, hlo.ELEMENTWISE) and permutes.strided_transpose(
        module, instruction
    ):
        return "strided transpose"
    if priced.category in (hlo.DATA, hlo.ELEMENTWISE) and (
        reorders := permutes.reorderings(module, instruction)
    ):
        rows = all(permutes.keeps_rows(module, i) for i in reorders)
        return "row transpose" if rows else "transpose"
    if priced.category == hlo.ELEMENTWISE and set(evaluations(module, instruction, priced)) - {
        "rounding"
    }:
        return "transcendental"
    if priced.category == hlo.REDUCTION and arg_reduce(module, instruction):
        return "arg reduction"
    if priced.category == hlo.REDUCTION and product_sum(module, instruction):
        return "unit-dim product sum"
    if priced.category == hlo.REDUCTION and column_reduce(module, instruction) is not None:
        return "column reduction"
    if instruction.opcode == "copy" and hlo.keeps_layout(module, instruction):
        return "plain copy"
    return KIND.get(priced.category, "")


def arg_reduce(module: hlo.Module, instruction: hlo.Instruction) -> bool:
    """True for an op that is or holds a reduce of several arrays at once (argmax's or
    argmin's: the values and their indices, a tuple of results)."""
    held = [instruction] if instruction.opcode == "reduce" else hlo.held(module, instruction)
    return any(i.opcode == "reduce" and len(hlo.arrays(i.shape)) > 1 for i in held)


def column_reduce(module: hlo.Module, instruction: hlo.Instruction) -> hlo.Instruction | None:
    """The reduce an op is or holds that keeps its operand's minor-most dimension (x.sum(0)
    of a row-major matrix: each output summed down a column, a strided read), None where
    every reduce it holds sums along that dimension."""
    held = [instruction] if instruction.opcode == "reduce" else hlo.held(module, instruction)
    for r in (i for i in held if i.opcode == "reduce" and i.operands):
        found = permutes.DIMENSIONS.search(r.attrs)
        reduced = {int(d) for d in found.group(1).split(",") if d} if found else set()
        minor = permutes.minor(hlo.operand_shape(module, r.operands[0]))
        if reduced and minor is not None and minor not in reduced:
            return r
    return None


def reduced_volume(module: hlo.Module, instruction: hlo.Instruction) -> float:
    """The bytes the reduces an op is or holds consume: each reduce's first operand's, summed
    (a fusion that broadcasts two vectors into a matrix and sums it reduces the matrix, though
    it reads the vectors alone); 0 with none."""
    held = [instruction] if instruction.opcode == "reduce" else hlo.held(module, instruction)
    reduces = [i for i in held if i.opcode == "reduce" and i.operands]
    return float(sum(hlo.shape_bytes(hlo.operand_shape(module, r.operands[0])) for r in reduces))


def fft_rank(module: hlo.Module, instruction: hlo.Instruction) -> int:
    """An FFT's second coordinate (kernel_kinds.SWEPT): the dimensions it transforms (its
    fft_length's), of the op or the fft its fusion holds; 0 for any other op."""
    for f in hlo.inside(module, instruction, ("fft",)):
        if lengths := hlo.fft_lengths(f):
            return len(lengths)
    return 0


def top_k_steps(module: hlo.Module, instruction: hlo.Instruction) -> int:
    """A top-k's second coordinate (kernel_kinds.heap_steps): of its operand's rows (their
    last dim) and its values' k (theirs); 0 where the shapes are unread."""
    rows = hlo.arrays(hlo.operand_shape(module, instruction.operands[0]))
    values = hlo.arrays(instruction.shape)
    if not rows or not values or not rows[0][1] or not values[0][1]:
        return 0
    return kernel_kinds.heap_steps(rows[0][1][-1], values[0][1][-1])


def kept_elements(module: hlo.Module, instruction: hlo.Instruction) -> int:
    """A column reduction's second coordinate (kernel_kinds.SWEPT): the elements its reduce keeps
    (its result's), 0 for any other op."""
    r = column_reduce(module, instruction)
    found = hlo.arrays(r.shape) if r is not None else []
    return math.prod(found[0][1]) if found else 0
