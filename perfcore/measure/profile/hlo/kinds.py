"""What an instruction is: one of CATEGORIES, from its opcode and the opcodes of everything it
calls (a fusion holding a dot is a matmul; one holding only copies and slices moves data).
A cuBLAS or cuDNN custom call is a matmul run by a library; a while, conditional or call is
a container whose body's ops are traced themselves.
"""

from __future__ import annotations

import math

from perfcore.measure.profile.hlo.shapes import arrays, on_chip, shape_bytes
from perfcore.measure.profile.hlo.text import Instruction, Module, held, operand_shape, split_top

MATMUL, ELEMENTWISE, REDUCTION, DATA, COLLECTIVE, CUSTOM, OTHER = (
    "matmul/conv",
    "elementwise fusion",
    "reduction",
    "data movement",
    "collective",
    "custom call",
    "other",
)


CATEGORIES = (MATMUL, ELEMENTWISE, REDUCTION, DATA, COLLECTIVE, CUSTOM, OTHER)


COLLECTIVES = (
    "all-reduce",
    "all-gather",
    "reduce-scatter",
    "all-to-all",
    "collective-permute",
    "collective-broadcast",
    "send",
    "recv",
    "ragged-all-to-all",
)


MOVES = frozenset(
    {
        "copy",
        "transpose",
        "broadcast",
        "slice",
        "dynamic-slice",
        "reshape",
        "dynamic-update-slice",
        "concatenate",
        "pad",
        "gather",
        "scatter",
        "reverse",
        "iota",
        "copy-start",
        "copy-done",
        "bitcast-convert",
    }
)


FREE = frozenset({"parameter", "constant", "tuple", "get-tuple-element", "bitcast"})


REDUCES = frozenset({"reduce", "reduce-window", "select-and-scatter", "reduce-precision"})


CONTROL = frozenset({"while", "conditional", "call"})  # containers: their ops are traced


MATMUL_OPS = frozenset({"dot", "convolution", "ragged-dot"})


# The opcodes XLA's cost model counts as transcendentals (HloCostAnalysis: one per element).
TRANSCENDENTALS = frozenset(
    {
        "exponential",
        "exponential-minus-one",
        "log",
        "log-plus-one",
        "logistic",
        "tanh",
        "erf",
        "sine",
        "cosine",
        "tan",
        "power",
        "rsqrt",
        "sqrt",
        "cbrt",
        "atan2",
    }
)


COPY_BLOCK, COPY_BLOCKS = 2**20, 8  # CopyThunk: a memcpy in blocks of 1 MiB or more, 8 at most


def keeps_layout(module: Module, instruction: Instruction) -> bool:
    """True for an op whose one operand has its own shape and layout (a copy of it: a memcpy)."""
    ops = instruction.operands
    return len(ops) == 1 and operand_shape(module, ops[0]) == instruction.shape


def copy_blocks(module: Module, instruction: Instruction) -> int:
    """The blocks XLA:CPU's CopyThunk splits a copy into: a copy keeping its layout (a memcpy)
    of n MiB, min(n, 8), the first on its own thread and the rest on the pool (it returns
    before they end); a copy into another layout runs whole on its thread: 1."""
    if instruction.opcode != "copy" or not keeps_layout(module, instruction):
        return 1
    blocks = math.ceil(shape_bytes(instruction.shape) / COPY_BLOCK)
    return max(1, min(COPY_BLOCKS, blocks))


def runs_async_on_cpu(module: Module, instruction: Instruction) -> bool:
    """True for an op XLA:CPU hands to its thread pool and returns from: a dot or convolution
    run by Eigen (not fused into a YNNPACK or oneDNN fusion), a memcpy of more than 1 MiB
    (CopyThunk copies its first block and leaves the others to the pool: copy_blocks). Its
    trace event ends at the hand-off, and the work ends before the first op that reads its
    result starts."""
    return instruction.opcode in MATMUL_OPS or copy_blocks(module, instruction) > 1


def readers(module: Module, instruction: Instruction) -> tuple[str, ...]:
    """The ops of its computation that read its result (through free ops such as bitcasts,
    tuples and get-tuple-elements), by name, in program order."""
    body = module.computations.get(instruction.computation, ())
    wanted, found = {instruction.name}, []
    for i in body:
        if wanted.intersection(i.operands):
            if i.opcode in FREE:
                wanted.add(i.name)
            else:
                found.append(i.name)
    return tuple(found)


def opcodes(module: Module, instruction: Instruction) -> set[str]:
    """The opcodes of the instruction and of every computation it calls."""
    inner = {i.opcode for i in held(module, instruction)}
    return {instruction.opcode} | inner


def is_async_wait(instruction: Instruction) -> bool:
    """True for an async op's update or done (`async-done`, `copy-done`, `all-gather-done`):
    a wait on the work its start launched."""
    return instruction.opcode.endswith(("-done", "-update"))


def is_async_move(module: Module, instruction: Instruction) -> bool:
    """True for an async start whose work is a data move: a `copy-start` (a TPU's prefetch
    into its VMEM, a GPU's copy to or from the host), a `slice-start` (an async slice, as XLA
    prints an `async-start` of one op) or an `async-start` of moves. The core issues it and
    goes on; its DMA engines move the data beside the core's ops, and what the move does not
    hide shows where its done waits."""
    op = instruction.opcode
    if op.endswith("-start") and op.removesuffix("-start") in MOVES:  # XLA prints slice-start
        return True
    return op == "async-start" and category(module, instruction) == DATA


def move_bytes(module: Module, instruction: Instruction) -> float:
    """Bytes an async move's DMA engines read and write in device memory (is_async_move): its
    destination's bytes once for each end of the move, source and destination, that is not in
    a TPU's on-chip VMEM (S(1)). A `copy-start` prints (destination, source, context), any
    other start (its operands, its result, context); a slice's source end is the slice it
    reads, its destination's size. A prefetch of a 4 MiB weight into VMEM reads 4 MiB of
    device memory; a copy from device memory to device memory reads and writes its bytes. A
    cross-program prefetch (`cross_program_prefetch_index`) moves nothing a call: XLA:TPU
    keeps its buffer in VMEM from one run to the next (a gather's 64 MiB table, prefetched so,
    added nothing to its calls there: 420 µs, the launch's)."""
    text = instruction.shape.strip()
    parts = split_top(text[1:-1]) if text.startswith("(") else [text]
    if len(parts) < 2 or "cross_program_prefetch_index" in instruction.attrs:
        return 0.0
    if instruction.opcode == "copy-start":
        destination, source = parts[0], parts[1]
    else:
        destination = parts[1]
        source = ",".join(operand_shape(module, o) for o in instruction.operands)
    ends = (not on_chip(destination)) + (not on_chip(source))
    return ends * shape_bytes(destination)


def is_top_k(instruction: Instruction) -> bool:
    """True for a top-k run as a custom call (XLA:CPU's `TopK`; a GPU's where it has one)."""
    return instruction.opcode == "custom-call" and "topk" in instruction.target.lower()


def is_library_matmul(instruction: Instruction) -> bool:
    """True for a cuBLAS or cuDNN custom call (a matmul or a convolution run by a library)."""
    return instruction.opcode == "custom-call" and instruction.target.startswith(
        ("__cublas$", "__cudnn$conv")
    )


def category(module: Module, instruction: Instruction) -> str:
    """One of CATEGORIES for the instruction, from its opcode and what it calls."""
    op = instruction.opcode
    if op.removesuffix("-start").removesuffix("-done") in COLLECTIVES:
        return COLLECTIVE
    if op.removesuffix("-start").removesuffix("-done") in MOVES:  # XLA's `slice-start`
        return DATA
    if op == "custom-call":
        return MATMUL if is_library_matmul(instruction) else CUSTOM
    if op in CONTROL:
        return OTHER
    inside = opcodes(module, instruction) - FREE - {"fusion", "async-start"}
    if any(o == "custom-call" for o in inside):
        return CUSTOM
    if inside & MATMUL_OPS:
        return MATMUL
    if inside & REDUCES:
        return REDUCTION
    if not inside or inside <= MOVES:
        return DATA
    return ELEMENTWISE if op == "fusion" or op not in {"rng", "sort", "fft"} else OTHER


NARROW, WIDE = frozenset({"bf16", "f16"}), frozenset({"f32", "f64"})
ALONE = frozenset({"parameter", "convert", "bitcast", "copy", "tuple"})  # a convert alone


def roundings(module: Module, instruction: Instruction) -> float:
    """Elements of the fusion's float32 (or float64) results it rounds to bfloat16 (or
    float16), as XLA:CPU computes a bfloat16 op: in float32, its result rounded (and widened
    again by the next). Its result's rounding counts too: a bfloat16 exp took 2.7-3.3 ms over
    4M elements here, a float32 one 1.6 ms. A convert alone (an op of its own, or XLA's
    wrapped convert: a fusion of nothing else) is a stream and counts none: 4M floats to
    bfloat16 in 1.07 ms, x + 1 in float32 in 1.34 ms."""
    inner = held(module, instruction)
    if all(i.opcode in ALONE for i in inner):
        return 0.0
    n = 0.0
    for i in inner:
        if i.opcode != "convert" or not i.operands:
            continue
        out, src = arrays(i.shape), arrays(operand_shape(module, i.operands[0]))
        if out and src and out[0][0] in NARROW and src[0][0] in WIDE:
            n += math.prod(out[0][1])
    return n
