"""How far back each program's ops last touched what they read: bytes read cold, per program.

For every program of bench/predict.py and bench/predict_zoo.py, each operand's reuse distance
(perfcore.measure.profile.predict.reuse). Prints, per program, the bytes a step moves, the
bytes its ops read, and those read at 32 MiB or more and at 128 MiB or more since their last
touch: the kernel curves time each kernel on operands it touched a call before
(docs/profile.md, "Warm curves, cold operands").

    PYTHONPATH=$PWD JAX_PLATFORMS=cpu .venv/bin/python bench/reuse_distance.py [NAME ...]
"""

from __future__ import annotations

import sys

import jax

from bench.predict import PROGRAMS as GATE
from bench.predict_zoo import PROGRAMS as ZOO
from perfcore.measure.profile import hlo
from perfcore.measure.profile.hlo import xla_private
from perfcore.measure.profile.predict.reuse import reads

MIB = 2**20
FAR = (32 * MIB, 128 * MIB)


def main() -> None:
    programs = {**GATE, **ZOO}
    names = sys.argv[1:] or list(programs)
    print(f"{'program':<24}{'step MiB':>10}{'read MiB':>10}{'≥ 32 MiB':>10}{'≥ 128 MiB':>11}")
    for name in names:
        fn, args = programs[name]()
        jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
        for text in xla_private.compiled_texts(jitted.lower(*args).compile()):
            step, read = reads(hlo.parse_module(text))
            far = [sum(b for _, b, d in read if d >= f) / MIB for f in FAR]
            total = sum(b for _, b, _ in read) / MIB
            print(f"{name:<24}{step / MIB:>10.1f}{total:>10.1f}{far[0]:>10.1f}{far[1]:>11.1f}")


if __name__ == "__main__":
    main()
