"""An optimized HLO module read from its text: instructions, shapes, sources, categories.

XLA prints a module as computations of instructions, `%name = SHAPE opcode(%a, %b), attrs`,
with a stack-frame table that names each instruction's source file:line. Read here without
JAX: what an instruction is (its category), which computations it calls, the FLOPs of a
library matmul or convolution from its shapes (2·M·N·K: FLOPs, not MACs), and the one-op
module whose cost XLA's cost model prices (perfcore.measure.profile.xla_private).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field

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
CALLS = re.compile(
    r"\b(?:calls|to_apply|body|condition|true_computation|false_computation)"
    r"=(%[\w.\-]+)"
)
CALL_LISTS = re.compile(r"\b(?:branch_computations|called_computations|calls)=\{([^}]*)\}")
ARRAY = re.compile(r"([a-z]\w*)\[([\d,]*)\]")
HEADER = re.compile(r"^(ENTRY )?(%[\w.\-]+)\s")
FRAME = re.compile(r"stack_frame_id=(\d+)")
FRAME_ATTR = re.compile(r" ?stack_frame_id=\d+")
INLINE_SOURCE = re.compile(r'source_file="([^"]*)" source_line=(\d+)')
TABLE_ROW = re.compile(r"^(\d+) (.*)$")
COMMENT = re.compile(r"/\*.*?\*/")


@dataclass(frozen=True)
class Instruction:
    """One HLO instruction: its name, result shape, opcode, operands and the rest of its line."""

    name: str
    computation: str
    shape: str
    opcode: str
    operands: tuple[str, ...]
    attrs: str
    line: str

    @property
    def calls(self) -> tuple[str, ...]:
        """Names of the computations this instruction calls, in order of appearance."""
        listed = [n.strip() for group in CALL_LISTS.findall(self.attrs) for n in group.split(",")]
        return tuple(dict.fromkeys([*CALLS.findall(self.attrs), *filter(None, listed)]))

    @property
    def target(self) -> str:
        """A custom call's target, e.g. `__cublas$gemm`; empty for other instructions."""
        found = re.search(r'custom_call_target="([^"]*)"', self.attrs)
        return found.group(1) if found else ""

    @property
    def frame(self) -> int | None:
        """The instruction's stack frame id in the module's source table; None when absent."""
        found = FRAME.search(self.attrs)
        return int(found.group(1)) if found else None


@dataclass(frozen=True)
class Module:
    """An HLO module: its computations (name -> instructions), entry, source table, text."""

    name: str
    entry: str
    computations: dict[str, tuple[Instruction, ...]]
    texts: dict[str, str]
    frames: dict[int, str] = field(default_factory=dict)

    @property
    def instructions(self) -> dict[str, Instruction]:
        """Every instruction by name (names are unique within a module)."""
        return {i.name: i for body in self.computations.values() for i in body}

    def source(self, instruction: Instruction) -> str:
        """The instruction's innermost source `file:line`; empty when the module has none."""
        inline = INLINE_SOURCE.search(instruction.attrs)
        if inline:
            return f"{inline.group(1)}:{inline.group(2)}"
        return self.frames.get(instruction.frame, "") if instruction.frame is not None else ""


def _closing(text: str, start: int) -> int:
    """Index just past the bracket closing the one that opens at text[start]."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    depth, opener = 0, text[start]
    for i in range(start, len(text)):
        depth += (text[i] == opener) - (text[i] == pairs[opener])
        if depth == 0:
            return i + 1
    raise ValueError(f"unbalanced {opener!r} in {text[:80]!r}")


def _split_top(text: str) -> list[str]:
    """text split on the commas outside any brackets."""
    parts, depth, last = [], 0, 0
    for i, c in enumerate(text):
        depth += (c in "([{") - (c in ")]}")
        if c == "," and depth == 0:
            parts.append(text[last:i])
            last = i + 1
    return [p.strip() for p in [*parts, text[last:]] if p.strip()]


def parse_instruction(line: str, computation: str) -> Instruction:
    """One instruction from its printed line (ROOT marker, if any, dropped)."""
    body = line.strip().removeprefix("ROOT ")
    name, _, rest = body.partition(" = ")
    end = _closing(rest, 0) if rest.startswith("(") else rest.index(" ")
    shape, rest = rest[:end], rest[end:].lstrip()
    opcode = rest[: rest.index("(")]
    close = _closing(rest, len(opcode))
    listed = COMMENT.sub("", rest[len(opcode) + 1 : close - 1])  # XLA writes /*index=5*/
    operands = tuple(p.split()[-1] for p in _split_top(listed))
    attrs = rest[close:].lstrip(", ")
    named = tuple(o for o in operands if o.startswith("%"))
    return Instruction(name, computation, shape, opcode, named, attrs, body)


def _tables(lines: list[str]) -> dict[int, str]:
    """Stack frame id -> innermost `file:line`, from the module's source tables."""
    section, tables = "", {"FileNames": {}, "FileLocations": {}, "StackFrames": {}}
    for line in lines:
        if line in tables or line == "FunctionNames":
            section = line
        elif section in tables and (row := TABLE_ROW.match(line)):
            tables[section][int(row.group(1))] = row.group(2)
    files = {k: v.strip('"') for k, v in tables["FileNames"].items()}
    places = {}
    for k, v in tables["FileLocations"].items():
        ids = dict(re.findall(r"(\w+)=(\d+)", v))
        places[k] = f"{files.get(int(ids.get('file_name_id', 0)), '?')}:{ids.get('line', '?')}"
    frames = {}
    for k, v in tables["StackFrames"].items():
        location = re.search(r"file_location_id=(\d+)", v)
        frames[k] = places.get(int(location.group(1)), "") if location else ""
    return frames


def parse_module(text: str) -> Module:
    """A Module from XLA's printed text (HloModule.to_string()); ValueError when it is not."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("HloModule "):
        raise ValueError("expected HLO module text starting 'HloModule NAME'")
    name = lines[0].split()[1].rstrip(",")
    computations, texts, entry, current, block = {}, {}, "", None, []
    for line in lines:
        header = HEADER.match(line) if line.endswith("{") else None
        if header:
            current, block = header.group(2), [line]
            entry = current if header.group(1) else entry
            computations[current] = []
        elif current and line == "}":
            texts[current] = "\n".join([*block, line])
            current = None
        elif current:
            block.append(line)
            computations[current].append(parse_instruction(line, current))
    frozen = {k: tuple(v) for k, v in computations.items()}
    return Module(name, entry, frozen, texts, _tables(lines))


def arrays(shape: str) -> list[tuple[str, tuple[int, ...]]]:
    """The (element type, dimensions) of each array in a shape, tuples flattened."""
    return [(t, tuple(int(d) for d in dims.split(",") if d)) for t, dims in ARRAY.findall(shape)]


def shape_bytes(shape: str) -> float:
    """Bytes of every array in a shape."""
    return float(sum(ELEMENT_BYTES.get(t, 4) * math.prod(d) for t, d in arrays(shape)))


def precision(instruction: Instruction, module: Module) -> str:
    """The precision (roof) of the instruction: its first operand's element type, else its own."""
    shapes = [operand_shape(module, o) for o in instruction.operands[:1]] or [instruction.shape]
    kinds = arrays(shapes[0]) or arrays(instruction.shape)
    return ELEMENT_PRECISION.get(kinds[0][0], "") if kinds else ""


def operand_shape(module: Module, name: str) -> str:
    """The result shape of the instruction called name; empty when unknown."""
    found = module.instructions.get(name)
    return found.shape if found else ""


def called(module: Module, instruction: Instruction) -> list[str]:
    """Every computation instruction calls, transitively, callees before callers."""
    order: list[str] = []

    def visit(name: str) -> None:
        if name in order or name not in module.computations:
            return
        for inner in module.computations[name]:
            for callee in inner.calls:
                visit(callee)
        order.append(name)

    for callee in instruction.calls:
        visit(callee)
    return order


def opcodes(module: Module, instruction: Instruction) -> set[str]:
    """The opcodes of the instruction and of every computation it calls."""
    inner = {i.opcode for c in called(module, instruction) for i in module.computations[c]}
    return {instruction.opcode} | inner


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
    if op == "custom-call":
        return MATMUL if is_library_matmul(instruction) else CUSTOM
    if op in CONTROL:
        return OTHER
    inside = opcodes(module, instruction) - FREE - {"fusion"}
    if any(o == "custom-call" for o in inside):
        return CUSTOM
    if inside & MATMUL_OPS:
        return MATMUL
    if inside & REDUCES:
        return REDUCTION
    if not inside or inside <= MOVES:
        return DATA
    return ELEMENTWISE if op == "fusion" or op not in {"rng", "sort", "fft"} else OTHER


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
        config = _backend_config(instruction)
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


def _backend_config(instruction: Instruction) -> dict:
    """The instruction's backend_config JSON object; {} when absent or unreadable."""
    at = instruction.attrs.find("backend_config=")
    if at < 0:
        return {}
    start = at + len("backend_config=")
    try:
        return json.loads(instruction.attrs[start : _closing(instruction.attrs, start)])
    except (ValueError, IndexError):
        return {}


def trip_count(instruction: Instruction) -> int | None:
    """A while loop's known trip count from its backend config; None when XLA did not know."""
    n = _backend_config(instruction).get("known_trip_count", {}).get("n")
    return int(n) if n is not None else None


def runs_per_step(module: Module, instruction: Instruction) -> int | None:
    """How often the instruction runs per execution of its module: the product of the known
    trip counts of the while loops around it; None when one of those counts is unknown."""
    callers = {c: i for body in module.computations.values() for i in body for c in i.calls}
    runs, where = 1, instruction.computation
    while where != module.entry:
        caller = callers.get(where)
        if caller is None:
            return None
        if caller.opcode == "while":
            count = trip_count(caller)
            if count is None:
                return None
            body = re.search(r"\bbody=(%[\w.\-]+)", caller.attrs)
            runs *= count if body and body.group(1) == where else count + 1  # else: condition
        where = caller.computation
    return runs


def one_op_module(module: Module, instruction: Instruction) -> str:
    """HLO text of a module whose entry computes only this instruction from parameters.

    XLA's cost model prices this module as it prices the instruction inside the whole one:
    parameters cost nothing, so the module's cost is the instruction's."""
    shapes = dict.fromkeys(instruction.operands)
    params = [f"  {o} = {operand_shape(module, o)} parameter({i})" for i, o in enumerate(shapes)]
    bodies = [module.texts[c] for c in called(module, instruction)]
    entry = ["ENTRY %one_op {", *params, f"  ROOT {instruction.line}", "}"]
    text = "\n\n".join(
        [f"HloModule one_op_{instruction.name.lstrip('%')}", *bodies, "\n".join(entry)]
    )
    return FRAME_ATTR.sub("", text)  # the one-op module has no source table to point into
