"""A captured program joined with its cost: every op's device time beside its FLOPs and bytes.

Each op event of a capture names its instruction by (module, program id, op name); the
instruction's FLOPs and bytes come from XLA's cost model applied to that instruction alone
(perfcore.measure.profile.xla_private), a cuBLAS/cuDNN call's FLOPs from its shapes, and nothing for
a custom kernel XLA cannot price ("no cost model", never 0 FLOPs). A step is one execution
of a program (one `run_id`); an op's FLOPs per step are its cost times how often it ran in
the step, so a loop body run N times counts N times (cost_analysis() counts it once).
"""

from __future__ import annotations

import bisect
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass

from perfcore.measure.profile import hlo
from perfcore.measure.profile.xspace import Capture, Event

COST_MODEL, SHAPES, NO_COST, IN_BODY, NOT_IN_HLO = (
    "cost model",
    "shapes (library call)",
    "no cost model",
    "in its body's ops",
    "not in the HLO",
)
NS = 1e-9
LAYOUT = re.compile(r"\{[^}]*\}")  # a shape's layout, `{1,0}`: not part of what a reader needs


@dataclass(frozen=True)
class Op:
    """One instruction of one program over the profiled steps; time per step, cost per step."""

    module: str
    program_id: int
    name: str
    opcode: str
    category: str
    source: str
    precision: str
    device: str
    occurrences: int  # times it ran per step
    samples_s: tuple[float, ...]  # its device time in each step, seconds
    flops: float | None  # per step, all occurrences; None: no cost model
    bytes: float | None  # per step
    cost_source: str
    shapes: str

    @property
    def total_s(self) -> float:
        """Device time over all profiled steps, seconds."""
        return sum(self.samples_s)

    @property
    def median_s(self) -> float:
        """Median device time per step, seconds."""
        return statistics.median(self.samples_s)

    @property
    def per_occurrence_s(self) -> float:
        """Median time of one occurrence, seconds."""
        return self.median_s / max(self.occurrences, 1)

    @property
    def intensity(self) -> float | None:
        """FLOPs per byte; None without both."""
        return self.flops / self.bytes if self.flops is not None and self.bytes else None

    @property
    def flops_per_s(self) -> float | None:
        """Achieved FLOP/s at the median step; None without FLOPs or time."""
        return self.flops / self.median_s if self.flops is not None and self.median_s else None

    @property
    def bytes_per_s(self) -> float | None:
        """Achieved bytes/s at the median step; None without bytes or time."""
        return self.bytes / self.median_s if self.bytes is not None and self.median_s else None

    @property
    def key(self) -> tuple[str, int, str]:
        """(module, program id, op name): how events name the instruction."""
        return (self.module, self.program_id, self.name)


@dataclass(frozen=True)
class Program:
    """One program's steps: host wall, device span and busy time, op time, per step (s)."""

    module: str
    program_id: int
    wall_s: tuple[float | None, ...]  # host dispatch to last op's end; None: not in capture
    span_s: tuple[float, ...]  # first op's start to last op's end
    busy_s: tuple[float, ...]  # union of the ops' intervals
    op_s: tuple[float, ...]  # sum of op times
    covered_s: tuple[float, ...]  # op time of ops joined to an instruction
    flops: float  # per step, sum over ops with a cost
    module_flops: float | None  # XLA's cost model over the whole module (= cost_analysis())
    module_bytes: float | None
    notes: tuple[str, ...]

    @property
    def steps(self) -> int:
        """Profiled steps (executions) of the program."""
        return len(self.span_s)

    @property
    def idle_s(self) -> tuple[float, ...]:
        """Device idle between ops within each step, seconds."""
        return tuple(s - b for s, b in zip(self.span_s, self.busy_s, strict=True))

    @property
    def coverage(self) -> float:
        """Fraction of device busy time spent in ops joined to their instruction."""
        busy = sum(self.busy_s)
        return min(1.0, sum(self.covered_s) / busy) if busy else 0.0


@dataclass(frozen=True)
class Profile:
    """A joined capture: its ops (slowest first), programs, backend, devices and notes."""

    label: str
    backend: str
    devices: tuple[str, ...]
    ops: tuple[Op, ...]
    programs: tuple[Program, ...]
    notes: tuple[str, ...] = ()
    trace_dir: str = ""
    jax_version: str = ""
    call_s: tuple[float, ...] = ()  # perf_counter around each profiled call, when profiled here

    def top(self, share: float = 0.8) -> tuple[Op, ...]:
        """The slowest ops that together take `share` of the op time."""
        total, running, out = sum(o.total_s for o in self.ops), 0.0, []
        for op in self.ops:
            if total and running >= share * total:
                break
            out.append(op)
            running += op.total_s
        return tuple(out)


@dataclass(frozen=True)
class Priced:
    """An instruction's category, source and cost per occurrence."""

    instruction: hlo.Instruction | None
    category: str
    source: str
    precision: str
    flops: float | None
    bytes: float | None
    cost_source: str
    shapes: str


def _shapes(module: hlo.Module, instruction: hlo.Instruction) -> str:
    """The operand shapes and result shape, e.g. `f32[16,64] f32[64,128] -> f32[16,128]`."""
    ins = [LAYOUT.sub("", hlo.operand_shape(module, o)) for o in instruction.operands]
    return f"{' '.join(ins)} -> {LAYOUT.sub('', instruction.shape)}"


def price(module: hlo.Module, instruction: hlo.Instruction, cost) -> Priced:
    """An instruction priced: XLA's cost model, a library call's shapes, or no cost model."""
    kind = hlo.category(module, instruction)
    where = (module.source(instruction), hlo.precision(instruction, module))
    shapes = _shapes(module, instruction)
    if instruction.opcode in hlo.CONTROL:
        return Priced(instruction, kind, *where, None, None, IN_BODY, shapes)
    moved = sum(hlo.shape_bytes(hlo.operand_shape(module, o)) for o in instruction.operands)
    if hlo.is_library_matmul(instruction):  # its result: the product, then a scratch buffer
        n_bytes = moved + hlo.shape_bytes(hlo.ARRAY.search(instruction.shape).group(0))
        flops_shapes = hlo.library_flops(module, instruction)
        source = SHAPES if flops_shapes is not None else NO_COST
        return Priced(instruction, kind, *where, flops_shapes, n_bytes, source, shapes)
    if kind == hlo.CUSTOM:
        n_bytes = moved + hlo.shape_bytes(instruction.shape)
        return Priced(instruction, kind, *where, None, n_bytes, NO_COST, shapes)
    flops, n_bytes, _ = cost(hlo.one_op_module(module, instruction))
    return Priced(instruction, kind, *where, flops, n_bytes, COST_MODEL, shapes)


UNKNOWN = Priced(None, hlo.OTHER, "", "", None, None, NOT_IN_HLO, "")


def _merged(intervals: list[tuple[float, float]]) -> float:
    """Length of the union of (start, end) intervals."""
    total, end = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total


def _steps(events: list[Event]) -> list[list[Event]]:
    """A program's events grouped by run (one step each), in order of start."""
    runs: dict[int, list[Event]] = defaultdict(list)
    for e in events:
        runs[e.run_id].append(e)
    return sorted(runs.values(), key=lambda run: min(e.start_ns for e in run))


def _wall(run: list[Event], dispatches: list[float], used: set[float]) -> float | None:
    """Host wall of one step: from its call's dispatch to its last op's end, seconds."""
    first = min(e.start_ns for e in run)
    at = bisect.bisect_right(dispatches, first) - 1
    while at >= 0 and dispatches[at] in used:
        at -= 1
    if at < 0:
        return None
    used.add(dispatches[at])
    return (max(e.start_ns + e.duration_ns for e in run) - dispatches[at]) * NS


def _dispatches(capture: Capture, module: str) -> list[float]:
    """Start times (ns) of the host dispatch events of a jitted function's module."""
    name = f"PjitFunction({module.removeprefix('jit_')})"
    return sorted({h.start_ns for h in capture.host if h.name == name})


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

    def containers(self, program: tuple[str, int], names) -> set[str]:
        """The names among `names` of loops or calls, whose body's ops are traced themselves."""
        out = set()
        for name in names:
            found = self.priced((*program, name)).instruction
            if found is not None and found.opcode in hlo.CONTROL:
                out.add(name)
        return out


def _own_ns(event: Event, run: list[Event], containers: set[str]) -> float:
    """An event's own time, ns: a loop's or call's duration less the ops traced inside it."""
    if event.op not in containers:
        return event.duration_ns
    end = event.start_ns + event.duration_ns
    inside = sum(
        e.duration_ns for e in run if e.op not in containers and event.start_ns <= e.start_ns < end
    )
    return max(0.0, event.duration_ns - inside)


def _times(amount: float | None, occurrences: int) -> float | None:
    """An amount per occurrence as an amount per step; None stays None."""
    return None if amount is None else amount * occurrences


def _program_ops(join: _Join, program: tuple[str, int], runs: list[list[Event]]) -> list[Op]:
    """The ops of one program: per instruction, time and occurrences in each step."""
    times: dict[str, list[float]] = defaultdict(lambda: [0.0] * len(runs))
    counts: dict[str, list[int]] = defaultdict(lambda: [0] * len(runs))
    containers = join.containers(program, {e.op for run in runs for e in run})
    for step, run in enumerate(runs):
        for e in run:
            own = _own_ns(e, run, containers) if containers else e.duration_ns
            times[e.op][step] += own * NS
            counts[e.op][step] += 1
    ops = []
    for name, samples in times.items():
        p = join.priced((*program, name))
        n = join.occurrences(program, p, counts[name])
        flops, n_bytes = (_times(p.flops, n), _times(p.bytes, n))
        opcode = p.instruction.opcode if p.instruction else ""
        ops.append(
            Op(
                program[0],
                program[1],
                name,
                opcode,
                p.category,
                p.source,
                p.precision,
                runs[0][0].device,
                n,
                tuple(samples),
                flops,
                n_bytes,
                p.cost_source,
                p.shapes,
            )
        )
    return ops


def _program(join: _Join, key: tuple[str, int], runs: list[list[Event]], ops: list[Op]):
    """The Program of one module's steps."""
    used: set[float] = set()
    dispatches = _dispatches(join.capture, key[0])
    intervals = [[(e.start_ns, e.start_ns + e.duration_ns) for e in r] for r in runs]
    span = tuple((max(b for _, b in r) - min(a for a, _ in r)) * NS for r in intervals)
    busy = tuple(_merged(r) * NS for r in intervals)
    op_s = tuple(sum(o.samples_s[step] for o in ops) for step in range(len(runs)))
    covered = tuple(
        sum(o.samples_s[step] for o in ops if o.cost_source != NOT_IN_HLO)
        for step in range(len(runs))
    )
    module = join.modules.get(key)
    total = join.cost(module_source(module)) if module else (-1.0, -1.0, -1.0)
    total = (None, None) if min(total[:2]) < 0 else total[:2]  # XLA writes -1 for "unknown"
    flops = sum(o.flops for o in ops if o.flops is not None)
    notes = _differences(flops, total[0], ops)
    return Program(
        key[0],
        key[1],
        tuple(_wall(r, dispatches, used) for r in runs),
        span,
        busy,
        op_s,
        covered,
        flops,
        total[0],
        total[1],
        notes,
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
    transcendentals) default to XLA's, through perfcore.measure.profile.xla_private."""
    if module_text is None or cost is None:
        from perfcore.measure.profile import xla_private

        module_text, cost = module_text or xla_private.module_text, cost or xla_private.cost
    state = _Join(capture, module_text, cost)
    by_program: dict[tuple[str, int], list[Event]] = defaultdict(list)
    for e in capture.events:
        by_program[(e.module, e.program_id)].append(e)
    ops, programs = [], []
    for key, events in by_program.items():
        runs = _steps(events)
        mine = _program_ops(state, key, runs)
        programs.append(_program(state, key, runs, mine))
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
