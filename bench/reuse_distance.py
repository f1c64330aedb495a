"""How far back each program's ops last touched what they read: bytes read cold, per program.

For every program of bench/predict.py and bench/predict_zoo.py, the optimized HLO's entry
computation is walked in its order, a step after a step (the second step's distances, so a
parameter's last touch is in the step before). Each launched op's operand (through bitcasts,
tuples and get-tuple-elements to the buffers it aliases) is at a reuse distance: the bytes
every op in between read and wrote. A loop is one op (its body's own traffic is not walked).
Prints, per program, the bytes a step moves, the bytes its ops read, and those read at 32 MiB
or more and at 128 MiB or more since their last touch: the kernel curves time each kernel on
operands it touched a call before (docs/profile.md, "Warm curves, cold operands").

    PYTHONPATH=$PWD JAX_PLATFORMS=cpu .venv/bin/python bench/reuse_distance.py [NAME ...]
"""

from __future__ import annotations

import sys

import jax

from bench.predict import PROGRAMS as GATE
from bench.predict_zoo import PROGRAMS as ZOO
from perfcore.measure.profile import hlo
from perfcore.measure.profile.hlo import xla_private

MIB = 2**20
FAR = (32 * MIB, 128 * MIB)


def reads(module: hlo.Module) -> tuple[float, list[tuple[float, float]]]:
    """(bytes a step moves, [(bytes read, reuse distance in bytes)] of the second step)."""
    ops = module.computations[module.entry]
    alias: dict[str, list[str]] = {}

    def bases(name: str) -> list[str]:
        name = name.lstrip("%")
        return alias.get(name, [name])

    def walk(last: dict[str, float]) -> tuple[float, list[tuple[float, float]]]:
        moved, out = 0.0, []
        for i in ops:
            name = i.name.lstrip("%")
            if i.opcode in hlo.FREE:
                keeps = i.opcode not in ("parameter", "constant")
                alias[name] = [b for o in i.operands for b in bases(o)] if keeps else [name]
                continue
            for o in i.operands:
                size = hlo.shape_bytes(hlo.operand_shape(module, o))
                touched = [last[b] for b in bases(o) if b in last]
                out.append((size, moved - max(touched) if touched else float("inf")))
            moved += sum(b for b, _ in out[len(out) - len(i.operands) :])
            moved += hlo.shape_bytes(i.shape)
            for b in [b for o in i.operands for b in bases(o)] + [name]:
                last[b] = moved
        return moved, out

    first: dict[str, float] = {}
    step, _ = walk(first)
    return step, walk({k: v - step for k, v in first.items()})[1]


def main() -> None:
    programs = {**GATE, **ZOO}
    names = sys.argv[1:] or list(programs)
    print(f"{'program':<24}{'step MiB':>10}{'read MiB':>10}{'≥ 32 MiB':>10}{'≥ 128 MiB':>11}")
    for name in names:
        fn, args = programs[name]()
        jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
        for text in xla_private.compiled_texts(jitted.lower(*args).compile()):
            step, read = reads(hlo.parse_module(text))
            far = [sum(b for b, d in read if d >= f) / MIB for f in FAR]
            total = sum(b for b, _ in read) / MIB
            print(f"{name:<24}{step / MIB:>10.1f}{total:>10.1f}{far[0]:>10.1f}{far[1]:>11.1f}")


if __name__ == "__main__":
    main()
