"""Where XLA put each value of a compiled module: its buffer assignment, read from the text
XLA dumps (`*-buffer-assignment.txt`, written where `xla_dump_to` points).

XLA:CPU's runtime orders two ops wherever one writes a buffer slice the other reads or writes
(xla/runtime/execution_graph.cc, ExecutionGraph::Create: an execution edge for every buffer
conflict between an op and an earlier one, then a transitive reduction). Buffer assignment
reuses an allocation for values whose lives do not overlap, so ops that the HLO's data flow
leaves independent still wait on each other where one's result lands where the other's
inputs or result lie. conflicts() gives those waits.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

Slice = tuple[int, int, int]  # allocation, first byte, byte past the last

ALLOCATION = re.compile(r"^allocation (\d+): size (\d+)(.*):$")
VALUE = re.compile(r"^\s*value: <\d+ ([^\s{@]+)(?:\{[^}]*\})? @\d+> \(size=(\d+),offset=(\d+)\)")
PRIVATE = ("thread-local",)  # an op's own scratch: no other op reads or writes it


def slices(text: str) -> dict[str, tuple[Slice, ...]]:
    """Instruction name -> the slices its values occupy, from a buffer-assignment dump (the
    values of a tuple-shaped result all under its name; thread-local scratch left out)."""
    out: dict[str, list[Slice]] = {}
    allocation, private = -1, False
    for line in text.splitlines():
        found = ALLOCATION.match(line)
        if found:
            allocation, private = int(found.group(1)), any(p in found.group(3) for p in PRIVATE)
            continue
        value = VALUE.match(line)
        if value and allocation >= 0 and not private:
            name, size, offset = value.group(1), int(value.group(2)), int(value.group(3))
            out.setdefault(name, []).append((allocation, offset, offset + size))
    return {name: tuple(s) for name, s in out.items()}


def mapped(text: str, at_least: int) -> set[int]:
    """The allocations of a buffer-assignment dump that a step allocates afresh and that hold
    at_least bytes or more: the temporaries' arena (`preallocated-temp`) and each output array
    (`maybe-live-out`) that is not a parameter's buffer handed back."""
    out = set()
    for line in text.splitlines():
        found = ALLOCATION.match(line)
        if found and int(found.group(2)) >= at_least:
            kinds = found.group(3)
            output = "maybe-live-out" in kinds and "parameter" not in kinds
            if "preallocated-temp" in kinds or output:
                out.add(int(found.group(1)))
    return out


def conflicts(
    ops: Iterable[tuple[str, Iterable[Slice], Iterable[Slice]]],
) -> dict[str, tuple[str, ...]]:
    """Each op's earlier ops it must wait for (name -> names, in program order), given every
    op as (name, slices it reads, slices it writes) in program order: an earlier op that
    writes a slice it reads or writes, or reads a slice it writes (overlapping bytes of one
    allocation)."""
    seen: dict[int, list[tuple[str, int, int, bool]]] = {}  # allocation -> earlier uses
    out: dict[str, tuple[str, ...]] = {}
    for name, reads, writes in ops:
        uses = [(s, False) for s in reads] + [(s, True) for s in writes]
        waits: dict[str, None] = {}
        for (allocation, start, end), write in uses:
            for other, o_start, o_end, o_write in seen.get(allocation, ()):
                if other != name and (write or o_write) and start < o_end and o_start < end:
                    waits[other] = None
        for (allocation, start, end), write in uses:
            seen.setdefault(allocation, []).append((name, start, end, write))
        out[name] = tuple(waits)
    return out
