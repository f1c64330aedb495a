"""An optimized HLO module read from its text: computations of instructions, and sources.

XLA prints a module as computations of instructions, `%name = SHAPE opcode(%a, %b), attrs`,
with a stack-frame table that names each instruction's source file:line. Read here without
JAX: each instruction's shape, opcode, operands and attributes, which computations it calls,
its backend config, and the innermost source line of each stack frame.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

CALLS = re.compile(
    r"\b(?:calls|to_apply|body|condition|true_computation|false_computation)"
    r"=(%[\w.\-]+)"
)


CALL_LISTS = re.compile(r"\b(?:branch_computations|called_computations|calls)=\{([^}]*)\}")


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


def split_top(text: str) -> list[str]:
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
    operands = tuple(p.split()[-1] for p in split_top(listed))
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


def held(module: Module, instruction: Instruction) -> list[Instruction]:
    """The instructions of every computation the instruction calls (called(...)), in order."""
    return [i for c in called(module, instruction) for i in module.computations[c]]


def inside(module: Module, instruction: Instruction, opcodes) -> list[Instruction]:
    """The instruction itself if its opcode is one of `opcodes`, else those it holds (held)."""
    if instruction.opcode in opcodes:
        return [instruction]
    return [i for i in held(module, instruction) if i.opcode in opcodes]


def backend_config(instruction: Instruction) -> dict:
    """The instruction's backend_config JSON object; {} when absent or unreadable."""
    at = instruction.attrs.find("backend_config=")
    if at < 0:
        return {}
    start = at + len("backend_config=")
    try:
        return json.loads(instruction.attrs[start : _closing(instruction.attrs, start)])
    except (ValueError, IndexError):
        return {}
