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
