"""How far back a program's ops last touched what they read: each operand's reuse distance.

The optimized HLO's entry computation is walked in its order, a step after a step (the second
step's distances, so a parameter's last touch is in the step before). Each launched op's
operand (through bitcasts, tuples and get-tuple-elements, to the buffers it aliases) is at a
reuse distance: the bytes every op in between read and wrote. A loop or call is one op of the
computation holding it. A while loop's body is walked the same way, a trip after a trip (the
second trip's distances): each element of its carry its own buffer, linked at the end of a trip
to what the body's result put there, so an element the loop passes through unchanged (a weight
a scan reads every trip) was last touched a trip before, and one the trip wrote (its state)
where it was written. Which operands are read cold (perfcore.model.chip.cold.read_cold: an
operand's bytes and its distance against the host's last-level cache) and what that costs:
perfcore.model.chip.cold.
"""

from __future__ import annotations

import re

from perfcore.measure.profile import hlo
from perfcore.model.chip import cold

INDEX = re.compile(r"\bindex=(\d+)")

Reads = list[tuple[str, float, float]]  # (op name, an operand's bytes, its reuse distance)


def reads(module: hlo.Module, computation: str = "") -> tuple[float, Reads]:
    """(bytes a step, or a trip of the loop body `computation`, moves; [(op name, an
    operand's bytes, its reuse distance in bytes)] of the second step or trip, in program
    order; an operand never touched before: infinite)."""
    ops = module.computations[computation or module.entry]
    alias: dict[str, list[str]] = {}
    carry = [i.name.lstrip("%") for i in ops if i.opcode == "parameter"] if computation else []

    def bases(name: str) -> list[str]:
        name = name.lstrip("%")
        return alias.get(name, [name])

    def walk(last: dict[str, float]) -> tuple[float, Reads]:
        moved, out = 0.0, []
        for i in ops:
            name = i.name.lstrip("%")
            if i.opcode in hlo.FREE:
                alias[name] = _aliases(i, bases, carry)
                continue
            sizes = [hlo.shape_bytes(hlo.operand_shape(module, o)) for o in i.operands]
            for o, size in zip(i.operands, sizes, strict=True):
                touched = [last[b] for b in bases(o) if b in last]
                out.append((name, size, moved - max(touched) if touched else float("inf")))
            moved += sum(sizes) + hlo.shape_bytes(i.shape)
            for b in [b for o in i.operands for b in bases(o)] + [name]:
                last[b] = moved
        if carry:  # the next trip's carry: each element what this trip's result put there
            for k, o in enumerate(ops[-1].operands if ops[-1].opcode == "tuple" else ()):
                touched = [last[b] for b in bases(o) if b in last]
                if touched:
                    last[f"{carry[0]}#{k}"] = max(touched)
        return moved, out

    first: dict[str, float] = {}
    step, _ = walk(first)
    return step, walk({k: v - step for k, v in first.items()})[1]


def _aliases(i: hlo.Instruction, bases, carry: list[str]) -> list[str]:
    """The buffers a free instruction's value is: a parameter or constant its own, an element
    of a loop body's carry (a get-tuple-element of its parameter) the carry's element, else its
    operands'."""
    if i.opcode in ("parameter", "constant"):
        return [i.name.lstrip("%")]
    if i.opcode == "get-tuple-element" and carry and i.operands[0].lstrip("%") == carry[0]:
        index = INDEX.search(i.attrs)
        return [f"{carry[0]}#{index.group(1)}"] if index else bases(i.operands[0])
    return [b for o in i.operands for b in bases(o)]


def cold_bytes(module: hlo.Module, cache_bytes: int = 0) -> dict[str, float]:
    """Op name -> bytes of its operands read cold per run (cold.read_cold, on a last-level
    cache of cache_bytes; 0 where unknown): the entry's ops and every while loop's body's."""
    bodies = [hlo.body_of(i) for body in module.computations.values() for i in body]
    out: dict[str, float] = {}
    for computation in ("", *(b for b in bodies if b in module.computations)):
        for name, size, d in reads(module, computation)[1]:
            if cold.read_cold(size, d, cache_bytes):
                out[name] = out.get(name, 0.0) + size
    return out
