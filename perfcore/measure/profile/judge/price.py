"""An instruction priced: its category, source, precision, shapes and cost per occurrence.

XLA's cost model applied to the instruction alone (perfcore.measure.profile.hlo.xla_private), a
cuBLAS/cuDNN call's FLOPs from its shapes, a top-k's bytes from its shapes (it compares, so
no FLOPs), a LAPACK factorization's textbook FLOPs from its shapes (hlo.factorization_flops),
an FFT's bytes by XLA's cost model and its FLOPs from its shapes (hlo.fft_flops), a complex
dot's at 8 FLOPs a multiply-add where XLA's cost model counts 2 (hlo.complex_dot_flops),
and nothing for any other custom kernel XLA cannot price ("no cost model", never
0 FLOPs, nor for an op XLA's cost model cannot read alone); a loop or call is priced by its
body's ops; bytes a TPU's layouts place in its on-chip VMEM are not device-memory traffic
(hlo.on_chip_bytes); an async op's update and done (a TPU's async copies and collectives) are its
waits, their work priced at its start; an async start of a data move (a TPU's copy-start or
async slice) is an issue, its transfer on the DMA engines beside the core, so no core work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfcore.measure.profile import hlo

COMPLEX_DOT = "cost model, a complex dot's multiply-adds at 8 FLOPs (XLA's counts 2)"
COST_MODEL, SHAPES, NO_COST, IN_BODY, NOT_IN_HLO, TOP_K, ASYNC_WAIT, ASYNC_MOVE, LAPACK, FFT = (
    "cost model",
    "shapes (library call)",
    "no cost model",
    "in its body's ops",
    "not in the HLO",
    "shapes (a top-k: its input read, its values and indices written, no FLOPs)",
    "the wait of an async op (its work is its start's)",
    "an async move's issue (its DMA moves the data beside the core's ops)",
    "shapes (a LAPACK routine: its textbook FLOPs, its operands read and results written)",
    "shapes (an FFT: 8 N log2 N a transform of N points; its bytes by XLA's cost model)",
)
LAYOUT = re.compile(r"\{[^}]*\}")  # a shape's layout, `{1,0}`: not part of what a reader needs


@dataclass(frozen=True)
class Priced:
    """An instruction's category, source and cost per occurrence."""

    instruction: hlo.Instruction | None
    category: str
    source: str
    precision: str
    flops: float | None
    bytes: float | None
    cost_source: str
    shapes: str
    what: str = ""  # what it does and where, for a reader (perfcore.measure.profile.hlo.label)
    transcendentals: float = 0.0  # per occurrence, by XLA's cost model (exp, tanh, sin, ...)


def _shapes(module: hlo.Module, instruction: hlo.Instruction) -> str:
    """The operand shapes and result shape, e.g. `f32[16,64] f32[64,128] -> f32[16,128]`."""
    ins = [LAYOUT.sub("", hlo.operand_shape(module, o)) for o in instruction.operands]
    return f"{' '.join(ins)} -> {LAYOUT.sub('', instruction.shape)}"


def price(module: hlo.Module, instruction: hlo.Instruction, cost) -> Priced:
    """An instruction priced: XLA's cost model, a library call's shapes, or no cost model."""
    kind = hlo.category(module, instruction)
    where = (module.source(instruction), hlo.precision(instruction, module))
    shapes = (_shapes(module, instruction), hlo.label(module, instruction))
    if instruction.opcode in hlo.CONTROL:
        return Priced(instruction, kind, *where, None, None, IN_BODY, *shapes)
    if hlo.is_async_wait(instruction):
        return Priced(instruction, kind, *where, None, None, ASYNC_WAIT, *shapes)
    if hlo.is_async_move(module, instruction):
        return Priced(instruction, kind, *where, None, None, ASYNC_MOVE, *shapes)
    moved = sum(hlo.shape_bytes(hlo.operand_shape(module, o)) for o in instruction.operands)
    if hlo.is_library_matmul(instruction):  # its result: the product, then a scratch buffer
        n_bytes = moved + hlo.shape_bytes(hlo.ARRAY.search(instruction.shape).group(0))
        flops_shapes = hlo.library_flops(module, instruction)
        source = SHAPES if flops_shapes is not None else NO_COST
        return Priced(instruction, kind, *where, flops_shapes, n_bytes, source, *shapes)
    if kind == hlo.CUSTOM:
        n_bytes = moved + hlo.shape_bytes(instruction.shape)
        if hlo.is_top_k(instruction):  # comparisons, no arithmetic: a stream's roof
            return Priced(instruction, kind, *where, 0.0, n_bytes, TOP_K, *shapes)
        if (flops := hlo.factorization_flops(module, instruction)) is not None:
            return Priced(instruction, kind, *where, flops, n_bytes, LAPACK, *shapes)
        return Priced(instruction, kind, *where, None, n_bytes, NO_COST, *shapes)
    try:
        flops, n_bytes, evaluations = cost(hlo.one_op_module(module, instruction))
    except hlo.Unreadable:  # XLA will not parse it without the ops around it
        n_bytes = moved + hlo.shape_bytes(instruction.shape)
        return Priced(instruction, kind, *where, None, n_bytes, NO_COST, *shapes)
    unread = unread_bytes(module, instruction)
    if unread and n_bytes is not None:  # a gather still writes its result
        n_bytes = max(n_bytes - unread, hlo.shape_bytes(instruction.shape))
    untouched = untouched_bytes(module, instruction)
    if untouched and n_bytes is not None:  # a scatter still moves its updates
        n_bytes = max(n_bytes - untouched, 0.0)
    on_chip = hlo.on_chip_bytes(module, instruction)
    if on_chip and n_bytes is not None:  # a TPU's VMEM: not device memory's traffic
        n_bytes = max(n_bytes - on_chip, 0.0)
    if (transformed := hlo.fft_flops(module, instruction)) is not None:
        return Priced(instruction, kind, *where, transformed, n_bytes, FFT, *shapes, evaluations)
    if flops is not None and (extra := hlo.complex_dot_flops(module, instruction)):
        counted = (flops + extra, n_bytes, COMPLEX_DOT)
        return Priced(instruction, kind, *where, *counted, *shapes, evaluations)
    return Priced(instruction, kind, *where, flops, n_bytes, COST_MODEL, *shapes, evaluations)


PARAMETER = re.compile(r"parameter\((\d+)\)")


def unread_bytes(module: hlo.Module, instruction: hlo.Instruction) -> float:
    """Bytes of a gather's source that the gather never reads: XLA's cost model counts all of
    the operand it gathers from (a 50,000-row table for 4,096 rows of it), and a gather reads
    only the rows it writes (its result's size). For a gather, or a fusion whose parameter a
    gather reads from; 0 for any other op."""
    return sum(
        max(0.0, hlo.shape_bytes(hlo.operand_shape(module, source)) - hlo.shape_bytes(g.shape))
        for source, g in _fused(module, instruction, "gather")
    )


def _fused(module: hlo.Module, instruction: hlo.Instruction, opcode: str) -> list:
    """(the op's operand each `opcode` inside it takes as its first, that inner op) of an op
    that is one (itself) or a fusion holding them (through the fusion's parameters)."""
    if instruction.opcode == opcode:
        return [(instruction.operands[0], instruction)] if instruction.operands else []
    if instruction.opcode != "fusion":
        return []
    inner = hlo.held(module, instruction)
    index = {i.name: int(m.group(1)) for i in inner if (m := PARAMETER.search(i.line))}
    return [
        (instruction.operands[index[g.operands[0]]], g)
        for g in inner
        if g.opcode == opcode
        and g.operands
        and g.operands[0] in index
        and index[g.operands[0]] < len(instruction.operands)
    ]


def untouched_bytes(module: hlo.Module, instruction: hlo.Instruction) -> float:
    """Bytes of a scatter's table that it neither reads nor writes: XLA's cost model counts all
    of the operand it scatters into, read and written (a 50,000-row table for 2,048 rows of
    updates), and a scatter updates that operand in place, reading and writing only the rows
    its updates hit (the updates' size). For a scatter, or a fusion whose parameter a scatter
    updates; 0 for any other op."""
    total = 0.0
    for table, scatter in _fused(module, instruction, "scatter"):
        scattered = hlo.shape_bytes(hlo.operand_shape(module, table))
        updates = scatter.operands[2:3]
        moved = hlo.shape_bytes(hlo.operand_shape(module, updates[0])) if updates else 0.0
        total += 2 * max(0.0, scattered - moved)
    return total


UNKNOWN = Priced(None, hlo.OTHER, "", "", None, None, NOT_IN_HLO, "")
