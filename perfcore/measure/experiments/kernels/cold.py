"""The kernels suite's cold points: a few streaming kinds timed over copies of their operands in
turn, each copy read after perfcore.model.chip.cold.DISTANCE bytes of the others (a program's
weights or optimizer states, read once a step), their records at level cold.LEVEL. Up to three
sizes of operands per kind (SIZES), in the suite's first dtype; a host's only (an
accelerator's kernels are timed from device memory alike)."""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable

from perfcore.measure.experiments.env import Env, compile_case, free_memory_bytes, random_inputs
from perfcore.measure.experiments.kernels.windows import Planned
from perfcore.measure.experiments.suites import require_fits
from perfcore.measure.results import Record
from perfcore.model.chip import cold, kernel_kinds
from perfcore.model.chip.kernel_kinds import ITEMSIZE

SIZES = (4 * 2**20, 16 * 2**20, 64 * 2**20)  # bytes of a cold point's operands
NEAR = 2.0  # a sweep's point within this factor of a size stands for it (else none is timed)


def operand_bytes(p: Planned) -> float:
    """Bytes of the point's operands (its inputs' shapes at its dtype's width)."""
    return float(sum(math.prod(s) for s in p.shapes) * ITEMSIZE.get(p.dtype, 4))


def points(sweeps: list[list[Planned]], dtype: str) -> list[Planned]:
    """Per cold kind (cold.COLD_KINDS), the dtype's point whose operands are nearest each of
    SIZES in log size, where one is within NEAR of it (a matvec's from the first skinny sweep:
    a decode batch's rows); none for a suite whose sweeps stop short of them."""
    out = []
    for kind in cold.COLD_KINDS:
        found = [s for s in sweeps if s and s[0].kind == kind and s[0].dtype == dtype]
        if not found:
            continue
        for size in SIZES:
            p = min(found[0], key=lambda p, n=size: abs(math.log(operand_bytes(p) / n)))
            if abs(math.log(operand_bytes(p) / size)) <= math.log(NEAR):
                out.append(p)
    return list(dict.fromkeys(out))


def copies(p: Planned) -> int:
    """How many copies of its operands a cold point cycles through: enough that each is read
    after cold.DISTANCE bytes or more of the others'."""
    return math.ceil(cold.DISTANCE / operand_bytes(p)) + 1


def measure(env: Env, p: Planned, budget_s: float, function: Callable, **fields) -> Record:
    """A cold point: isolated calls, each on the next copy of its operands in turn; its costs
    as one call's; `fields` the Record's own (its kind, size, shapes, threads)."""
    n = copies(p)
    require_fits(n * operand_bytes(p) + 3 * p.model.bytes, free_memory_bytes(), p.label)
    fn = function(env.jax, env.jnp, p.fn)
    sets = [random_inputs(env, p.shapes, p.dtype) for _ in range(n)]
    case = compile_case(env, fn, sets[0], p.model, matmul=p.kind == "matvec")
    program, turn = env.jax.jit(fn), itertools.cycle(sets)
    case = dataclasses.replace(case, run=lambda: program(*next(turn)))
    m = env.measure(case.run, repeats=env.suite.repeats, budget_s=max(budget_s, 1e-3))
    unit = kernel_kinds.SIZE_UNIT[p.kind]
    size = case.flops if unit == "flops" else case.bytes
    label = f"{p.label}, cold: {n} copies in turn"
    return env.record(
        "kernels", label, m, case, level=cold.LEVEL, size=size, size_kind=unit, **fields
    )
