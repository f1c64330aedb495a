"""A captured program joined with its cost: every op's device time beside its FLOPs and bytes.

Each op event of a capture names its instruction by (module, program id, op name), priced
once by perfcore.measure.profile.judge.price. A step is one execution of a program (one `run_id`,
grouped by perfcore.measure.profile.judge.steps); an op's FLOPs per step are its cost times how
often it ran in the step, so a loop body run N times counts N times (cost_analysis() counts
it once).
"""

from __future__ import annotations

import statistics

import numpy as np

from perfcore.measure.clock.devices import precision_ran
from perfcore.measure.profile import hlo
from perfcore.measure.profile.judge import steps
from perfcore.measure.profile.judge.joined import Op, Profile, Program
from perfcore.measure.profile.judge.price import NO_COST, NOT_IN_HLO, UNKNOWN, Priced, price
from perfcore.measure.profile.read.events import Capture


class _Join:
    """The state of one join: the parsed modules and each instruction's price, cached."""

    def __init__(self, capture: Capture, module_text, cost):
        self.capture, self.cost = capture, cost
        self.modules = {k: hlo.parse_module(module_text(v)) for k, v in capture.modules.items()}
        self.prices: dict[tuple[str, int, str], Priced] = {}

    def priced(self, key: tuple[str, int, str]) -> Priced:
        """The price of the instruction an event names (cached)."""
        if key not in self.prices:
            module = self.modules.get(key[:2])
            found = module.instructions.get("%" + key[2]) if module else None
            self.prices[key] = price(module, found, self.cost) if found else UNKNOWN
        return self.prices[key]

    def occurrences(self, program: tuple[str, int], priced: Priced, counts: list[int]) -> int:
        """Runs per step: the events counted on the CPU backend; on a GPU or TPU, where one
        op may launch several kernels, the loops' trip counts where XLA knew them."""
        seen = round(statistics.median(counts))
        if self.capture.backend == "cpu" or priced.instruction is None:
            return seen
        runs = hlo.runs_per_step(self.modules[program], priced.instruction)
        return seen if runs is None else runs

    def dispatches(self, module: str) -> list[float]:
        """Start times (ns) of the host dispatch events of a jitted function's module."""
        name = f"PjitFunction({module.removeprefix('jit_')})"
        return sorted({h.start_ns for h in self.capture.host if h.name == name})


def _times(amount: float | None, occurrences: int) -> float | None:
    """An amount per occurrence as an amount per step; None stays None."""
    return None if amount is None else amount * occurrences


def _async_readers(join: _Join, program: tuple[str, int], s: steps.Steps, prices: list) -> dict:
    """On XLA:CPU, each op slot run asynchronously (hlo.runs_async_on_cpu: its event ends at
    the hand-off to the thread pool) with the slots of the ops that read its result (none
    where only the program's result does)."""
    module = join.modules.get(program)
    if join.capture.backend != "cpu" or module is None:
        return {}
    slot = {join.capture.events.ops[c]: k for k, c in enumerate(s.ops.tolist())}
    out = {}
    for k, p in enumerate(prices):
        if p.instruction is not None and hlo.runs_async_on_cpu(module, p.instruction):
            names = (n.lstrip("%") for n in hlo.readers(module, p.instruction))
            out[k] = [slot[n] for n in names if n in slot]  # empty: no op reads it here
    return out


HIGHEST = "operand_precision={highest"  # a dot or convolution asking for full float32


def _ran_at(backend: str, module: hlo.Module | None, p: Priced) -> str:
    """The precision whose roof an op is held to: its element type's, but a float32 matmul on
    a TPU runs as bfloat16 passes (precision_ran) unless it asks for the highest precision."""
    if backend != "tpu" or p.category != hlo.MATMUL or p.precision != "fp32" or module is None:
        return p.precision
    inside = [p.instruction, *hlo.held(module, p.instruction)] if p.instruction else []
    asked = "highest" if any(HIGHEST in i.line for i in inside) else None
    return precision_ran("float32", "tpu", asked, matmul=True)


def _program_ops(join: _Join, program: tuple[str, int], s: steps.Steps) -> list[Op]:
    """The ops of one program: per instruction, time and occurrences in each step."""
    events = join.capture.events
    prices = [join.priced((*program, events.ops[code])) for code in s.ops.tolist()]
    boxed = np.array(
        [p.instruction is not None and p.instruction.opcode in hlo.CONTROL for p in prices]
    )
    readers = _async_readers(join, program, s, prices)
    own, unended = steps.awaited_ns(events, s, steps.own_ns(events, s, boxed), readers)
    own = own * steps.NS
    open_end = steps.per_op(s, unended.astype(float)).sum(axis=1) > 0
    times = steps.per_op(s, own)
    counts = steps.per_op(s, np.ones(len(s.events))).astype(np.int64)
    device = events.devices[events.device[s.events[0]]]
    ops = []
    rows = zip(s.ops.tolist(), prices, times, counts, open_end.tolist(), strict=True)
    for code, p, samples, seen, unknown_end in rows:
        n = join.occurrences(program, p, seen.tolist())
        ops.append(
            Op(
                program[0],
                program[1],
                events.ops[code],
                p.instruction.opcode if p.instruction else "",
                p.category,
                p.source,
                _ran_at(join.capture.backend, join.modules.get(program), p),
                device,
                n,
                tuple(samples.tolist()),
                _times(p.flops, n),
                _times(p.bytes, n),
                p.cost_source,
                p.shapes,
                p.what,
                unknown_end,
            )
        )
    return ops


def _sums(ops: list[Op], count: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Per step: the op time of all ops, and of the ops joined to an instruction, seconds."""
    total, covered = np.zeros(count), np.zeros(count)
    for o in ops:  # in the ops' order, as a sum over them would add
        total = total + np.array(o.samples_s)
        if o.cost_source != NOT_IN_HLO:
            covered = covered + np.array(o.samples_s)
    return tuple(total.tolist()), tuple(covered.tolist())


def _program(join: _Join, key: tuple[str, int], s: steps.Steps, ops: list[Op]) -> Program:
    """The Program of one module's steps."""
    op_s, covered = _sums(ops, s.count)
    module = join.modules.get(key)
    total = join.cost(module_source(module)) if module else (-1.0, -1.0, -1.0)
    total = (None, None) if min(total[:2]) < 0 else total[:2]  # XLA writes -1 for "unknown"
    flops = sum(o.flops for o in ops if o.flops is not None)
    return Program(
        key[0],
        key[1],
        steps.wall_s(s, join.dispatches(key[0])),
        tuple(steps.span_s(s).tolist()),
        tuple(steps.busy_s(join.capture.events, s).tolist()),
        op_s,
        covered,
        flops,
        total[0],
        total[1],
        _differences(flops, total[0], ops),
    )


def module_source(module: hlo.Module) -> str:
    """A module's text, rebuilt from its computations (entry last)."""
    bodies = [t for name, t in module.texts.items() if name != module.entry]
    text = "\n\n".join([f"HloModule {module.name}", *bodies, module.texts[module.entry]])
    return hlo.FRAME_ATTR.sub("", text)


def _differences(flops: float, module_flops: float | None, ops: list[Op]) -> tuple[str, ...]:
    """Why the ops' FLOP sum differs from cost_analysis()'s total (loops, kernels unpriced)."""
    notes = []
    looped = [o for o in ops if o.occurrences > 1 and o.flops]
    if looped:
        notes.append(
            f"{len(looped)} op(s) ran more than once per step (a loop body): the ops "
            "count every run, cost_analysis() counts a loop body once"
        )
    unpriced = [o.name for o in ops if o.cost_source == NO_COST]
    if unpriced:
        notes.append(f"no cost model for {', '.join(unpriced[:5])}: their FLOPs are unknown")
    off = module_flops is not None and abs(flops - module_flops) > 1e-9 * module_flops
    if off and not looped and not unpriced:
        notes.append("untraced instructions (a loop condition, constants) carry the rest")
    return tuple(notes)


def join(capture: Capture, module_text=None, cost=None) -> Profile:
    """The Profile of a capture: every op event joined to its instruction's cost, per step.

    module_text (HloModuleProto bytes -> text) and cost (module text -> FLOPs, bytes,
    transcendentals) default to XLA's, through perfcore.measure.profile.hlo.xla_private."""
    if module_text is None or cost is None:
        from perfcore.measure.profile.hlo import xla_private

        module_text, cost = module_text or xla_private.module_text, cost or xla_private.cost
    state, events = _Join(capture, module_text, cost), capture.events
    keys = np.stack([events.module, events.program_id], axis=1)
    found, first, program = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    by_program = np.argsort(program.ravel(), kind="stable")
    groups = np.split(by_program, np.cumsum(np.bincount(program.ravel()))[:-1])
    ops, programs = [], []
    for i in np.argsort(first).tolist():  # programs in order of first appearance
        key = (events.modules[int(found[i][0])], int(found[i][1]))
        s = steps.steps(events, groups[i])
        mine = _program_ops(state, key, s)
        programs.append(_program(state, key, s, mine))
        ops += mine
    ops.sort(key=lambda o: -o.total_s)
    return Profile(
        capture.label,
        capture.backend,
        capture.devices,
        tuple(ops),
        tuple(programs),
        jax_version=capture.jax_version,
    )
