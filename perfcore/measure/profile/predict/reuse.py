"""How far back a program's ops last touched what they read: each operand's reuse distance.

The optimized HLO's entry computation is walked in its order, a step after a step (the second
step's distances, so a parameter's last touch is in the step before). Each launched op's
operand (through bitcasts, tuples and get-tuple-elements, to the buffers it aliases) is at a
reuse distance: the bytes every op in between read and wrote. A loop or call is one op (its
bodies' own traffic is not walked, and their ops get no distance). Which operands are read
cold (perfcore.model.chip.cold.read_cold: an operand's bytes and its distance against the
host's last-level cache) and what that costs: perfcore.model.chip.cold.
"""

from __future__ import annotations

from perfcore.measure.profile import hlo
from perfcore.model.chip import cold


def reads(module: hlo.Module) -> tuple[float, list[tuple[str, float, float]]]:
    """(bytes a step moves, [(op name, an operand's bytes, its reuse distance in bytes)] of
    the second step, in program order; an operand never touched before: infinite)."""
    ops = module.computations[module.entry]
    alias: dict[str, list[str]] = {}

    def bases(name: str) -> list[str]:
        name = name.lstrip("%")
        return alias.get(name, [name])

    def walk(last: dict[str, float]) -> tuple[float, list[tuple[str, float, float]]]:
        moved, out = 0.0, []
        for i in ops:
            name = i.name.lstrip("%")
            if i.opcode in hlo.FREE:
                keeps = i.opcode not in ("parameter", "constant")
                alias[name] = [b for o in i.operands for b in bases(o)] if keeps else [name]
                continue
            sizes = [hlo.shape_bytes(hlo.operand_shape(module, o)) for o in i.operands]
            for o, size in zip(i.operands, sizes, strict=True):
                touched = [last[b] for b in bases(o) if b in last]
                out.append((name, size, moved - max(touched) if touched else float("inf")))
            moved += sum(sizes) + hlo.shape_bytes(i.shape)
            for b in [b for o in i.operands for b in bases(o)] + [name]:
                last[b] = moved
        return moved, out

    first: dict[str, float] = {}
    step, _ = walk(first)
    return step, walk({k: v - step for k, v in first.items()})[1]


def cold_bytes(module: hlo.Module, cache_bytes: int = 0) -> dict[str, float]:
    """Op name -> bytes of its operands read cold (cold.read_cold, on a last-level cache of
    cache_bytes; 0 where unknown)."""
    out: dict[str, float] = {}
    for name, size, d in reads(module)[1]:
        if cold.read_cold(size, d, cache_bytes):
            out[name] = out.get(name, 0.0) + size
    return out
