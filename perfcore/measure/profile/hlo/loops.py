"""How often an instruction runs per execution of its module: the product of the trip counts
XLA knew (`known_trip_count` in a while loop's backend config) of the loops around it, a
loop's condition running once more than its body.
"""

from __future__ import annotations

import re

from perfcore.measure.profile.hlo.text import Instruction, Module, backend_config


def trip_count(instruction: Instruction) -> int | None:
    """A while loop's known trip count from its backend config; None when XLA did not know."""
    n = backend_config(instruction).get("known_trip_count", {}).get("n")
    return int(n) if n is not None else None


BODY = re.compile(r"\bbody=(%[\w.\-]+)")


def body_of(instruction: Instruction) -> str | None:
    """A while loop's body computation's name (with its %); None for another instruction."""
    found = BODY.search(instruction.attrs) if instruction.opcode == "while" else None
    return found.group(1) if found else None


def _callers(module: Module, instruction: Instruction) -> list[tuple[Instruction, str]] | None:
    """The instructions whose calls hold the instruction, innermost first, each with the
    computation of it that holds the one inside; None where the entry is not reached."""
    callers = {c: i for body in module.computations.values() for i in body for c in i.calls}
    out, where = [], instruction.computation
    while where != module.entry:
        caller = callers.get(where)
        if caller is None:
            return None
        out.append((caller, where))
        where = caller.computation
    return out


def in_loop(module: Module, instruction: Instruction) -> bool:
    """True where a while loop holds the instruction (a loop body's or condition's op, nested
    or not); a conditional's branch or a call's op outside any loop is not."""
    return any(c.opcode == "while" for c, _ in _callers(module, instruction) or ())


def runs_per_step(module: Module, instruction: Instruction) -> int | None:
    """How often the instruction runs per execution of its module: the product of the known
    trip counts of the while loops around it; None when one of those counts is unknown."""
    chain = _callers(module, instruction)
    if chain is None:
        return None
    runs = 1
    for caller, where in chain:
        if caller.opcode == "while":
            count = trip_count(caller)
            if count is None:
                return None
            runs *= count if body_of(caller) == where else count + 1  # else: its condition
    return runs
