"""A program's step predicted before it runs: its optimized HLO priced op by op, each op's time
from the device's kernel curves, plus the dispatch of each launched program.

Every instruction the program launches (the entry computation's and its loops' bodies', free
ones such as parameters and tuples left out) is priced as the profiler prices it (join.price:
XLA's cost model on the instruction alone), given its kernel kind (kinds.kernel_kind) and its
expected time from perfcore.model.chip.kernels.expected: its bound over the efficiency its
device's curves give at its size, else the published runs' efficiency, said as such. What an
op holds is priced part by part: a fusion of several dots as their sum, a batched dot at one
of its matmuls, transcendentals on the transcendental curve; an op of a loop's body on the
curve timed as a loop body's op where the curves hold one (docs/profile.md).
Where the curves say how many host threads their kernels ran on (XLA:CPU), each program's
ops are scheduled over its dependency graph (graph, concurrency.step) rather than summed;
where they say what a fresh host page costs, the step adds the first touch of the buffers its
allocator maps fresh each step (graph.fresh_bytes).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from perfcore.measure.clock.devices import match_device
from perfcore.measure.profile import hlo
from perfcore.measure.profile.judge import join
from perfcore.measure.profile.judge.records import DTYPES
from perfcore.measure.profile.predict import graph, kinds
from perfcore.model.chip import concurrency, kernels
from perfcore.model.chip.concurrency import StepTime
from perfcore.model.chip.roofline import t_lower
from perfcore.model.chip.specs import Device, load_specs

NO_ROOF = "no roof: no kernel curves for this device and no specs row"


@dataclass(frozen=True)
class OpPrediction:
    """One launched instruction's predicted time per step and what it rests on."""

    name: str  # as the profile names the op (the HLO name without its %)
    opcode: str
    category: str
    kernel: str  # perfcore.model.chip.kernels kind; empty when not predicted
    dtype: str
    source: str
    occurrences: int  # runs per step
    flops: float | None  # per step
    bytes: float | None  # per step
    bound_s: float | None  # per step
    predicted_s: float | None  # per step; None when not predicted (derived_from says why)
    efficiency: float | None
    efficiency_source: str  # kernels.MEASURED, NEAREST or PUBLISHED; empty when none
    derived_from: str


@dataclass(frozen=True)
class Prediction:
    """A program's predicted ops and step: the ops' times plus the dispatch of its programs."""

    label: str
    device: str
    ops: tuple[OpPrediction, ...]
    programs: int
    dispatch_s: float  # per step, every program's launch
    dispatch_from: str
    curves_label: str  # what the efficiencies came from: the curves, or published runs
    schedule: tuple[StepTime, ...] = ()  # per program where its ops overlap (XLA:CPU)
    fresh_s: float = 0.0  # core-seconds per step: first touch of the pages its buffers map fresh
    fresh_from: str = ""

    @property
    def op_s(self) -> float:
        """Sum of the predicted op times per step, seconds."""
        return sum(o.predicted_s for o in self.ops if o.predicted_s is not None)

    @property
    def ops_step_s(self) -> float:
        """The programs' ops per step, seconds: each program's scheduled step where its ops
        run concurrently (concurrency.step, fresh pages in its work), else their sum."""
        return sum(t.seconds for t in self.schedule) if self.schedule else self.op_s + self.fresh_s

    def inside_s(self, name: str) -> float | None:
        """An op's predicted time inside the step (sharing the cores with the ops running
        beside it, as a profile of the step times it), seconds; None where not scheduled."""
        found = [s for t in self.schedule for n, s in t.durations if n == name]
        return found[0] if found else None

    @property
    def step_s(self) -> float:
        """The predicted step: the ops' time (fresh pages in it) plus dispatch, seconds."""
        return self.ops_step_s + self.dispatch_s


@dataclass(frozen=True)
class Context:
    """What prices an op on one device: its curves (or None), roofs and the fallbacks."""

    curves: kernels.Curves | None
    spec: Device | None
    fallback: dict[bool, kernels.Efficiency]  # compute-bound? -> the published efficiency

    def roofs(self, dtype: str, precision: str) -> tuple[float | None, float | None]:
        """(FLOP/s, bytes/s) of the curves' roofs, else the spec row's; None where unknown."""
        if self.curves is not None:
            return self.curves.peak(dtype), self.curves.bytes_per_s
        if self.spec is None:
            return None, None
        peak = self.spec.peak_flops(precision) or self.spec.peak_flops("fp32")
        return peak, self.spec.memory_bytes_per_s


def launched(module: hlo.Module) -> list[hlo.Instruction]:
    """The instructions a step launches: the entry's and its loops' and calls' bodies'."""
    out, seen, todo = [], set(), [module.entry]
    while todo:
        name = todo.pop()
        if name in seen or name not in module.computations:
            continue
        seen.add(name)
        for i in module.computations[name]:
            if i.opcode in hlo.CONTROL:
                todo += list(i.calls)
            elif i.opcode not in hlo.FREE:
                out.append(i)
    return out


def _dtype(module: hlo.Module, instruction: hlo.Instruction) -> str:
    """The dtype of the instruction's first operand (else its result), e.g. `float32`."""
    shapes = [hlo.operand_shape(module, o) for o in instruction.operands[:1]]
    kinds = hlo.arrays(shapes[0] if shapes and shapes[0] else instruction.shape)
    return DTYPES.get(kinds[0][0], kinds[0][0]) if kinds else ""


def predict_op(module: hlo.Module, instruction: hlo.Instruction, ctx: Context, cost):
    """One instruction's OpPrediction on the context's device."""
    p = join.price(module, instruction, cost)
    runs = hlo.runs_per_step(module, instruction) or 1
    kind, dtype = kinds.kernel_kind(module, instruction, p), _dtype(module, instruction)
    base = (instruction.name.lstrip("%"), instruction.opcode, p.category, kind, dtype, p.source)
    per_step = (runs, *(None if v is None else v * runs for v in (p.flops, p.bytes)))
    peak, bandwidth = ctx.roofs(dtype, p.precision)
    if not kind or p.flops is None or p.bytes is None or not peak or not bandwidth:
        why = NO_ROOF if kind and p.flops is not None else f"not predicted: {p.cost_source}"
        return OpPrediction(*base, *per_step, None, None, None, "", why)
    bound = t_lower(p.flops, p.bytes, peak, bandwidth)
    fallback = ctx.fallback[p.flops / peak >= p.bytes / bandwidth]
    body = instruction.computation != module.entry  # an op of a loop's (or call's) body
    inner = kinds.dots(module, instruction) if p.category == hlo.MATMUL else []
    if len(inner) > 1:
        seconds, eff = _fused_dots(module, inner, dtype, (peak, bandwidth), ctx, bound, body)
    else:
        instances = kinds.dot_instances(module, inner[0] if inner else None)
        size = _size(kind, p.flops, p.bytes, instances)
        if kind in WINDOWED:  # a sort or reduce-window: sized by what its loops read
            bound, size = _windowed(module, instruction, kind, p.flops, (peak, bandwidth))
        e = kernels.expected(bound, kind, dtype, size, ctx.curves, fallback, body)
        seconds, eff = e.seconds, e.efficiency
    if p.transcendentals:
        seconds, eff = _with_evaluations(
            module, p, dtype, body, bandwidth, ctx, bound, seconds, eff
        )
    return OpPrediction(
        *base, *per_step, bound * runs, seconds * runs, eff.value, eff.source, eff.derived_from
    )


WINDOWED = ("sort", "reduce-window")


def _windowed(module, instruction, kind: str, flops: float, roofs) -> tuple[float, float]:
    """(bound, size on its curve) of a sort or a reduce-window, from the bytes the kernel
    model sizes them by: a sort's keys read and written once, at one row's share (its rows
    sorted one after another: a sort of R rows takes R times one row's); a reduce-window's
    outputs each reading its window (kernels.sort_bytes, window_bytes)."""
    if kind == "sort":
        moved, rows = kinds.sorted_keys(module, instruction)
    else:
        moved, rows = kinds.window_reads(module, instruction), 1
    return t_lower(flops, moved, *roofs), moved / rows


def _size(kind: str, flops: float, moved: float, instances: int = 1) -> float:
    """Where an op sits on its kind's curve: FLOPs (of one of a batched dot's matmuls) or
    bytes (all of them: a batched matvec streams every instance's), as SIZE_UNIT says."""
    return flops / instances if kernels.SIZE_UNIT[kind] == "flops" else moved


def _with_evaluations(module, p, dtype, body, bandwidth, ctx: Context, bound, seconds, eff):
    """(seconds, Efficiency) of an op that evaluates transcendentals (XLA's cost model counts
    them; the roofline counts no FLOPs for them): over its largest array's E elements, the
    transcendental curve's kernel over E elements (CHAIN_TRANSCENDENTALS per element, each
    element read and written once at the op's width), times its count over that kernel's. A
    matmul's fusion runs them beside its dots, in turn (their sum); any other op takes the
    slower of its own kind's time and theirs (2 per element is the curve's kernel itself).
    body: the op is a loop body's (the curve timed so, where measured)."""
    shapes = [p.instruction.shape, *(hlo.operand_shape(module, o) for o in p.instruction.operands)]
    arrays = [a for x in shapes if x for a in hlo.arrays(x)]
    elements = max((math.prod(d) for _, d in arrays), default=0)
    if not elements:
        return seconds, eff
    moved = 2 * hlo.ELEMENT_BYTES.get(arrays[0][0], 4) * elements
    e = kernels.expected(
        moved / bandwidth, "transcendental", dtype, moved, ctx.curves, ctx.fallback[False], body
    )
    times = p.transcendentals / (kernels.CHAIN_TRANSCENDENTALS * elements)
    matmul = p.category == hlo.MATMUL
    total = seconds + e.seconds * times if matmul else max(seconds, e.seconds * times)
    if total == seconds:
        return seconds, eff
    said = (
        f"{eff.derived_from}; {'and' if matmul else 'at least'} {times:.3g} x the "
        f"transcendental curve's kernel over its {elements:,} elements "
        f"({p.transcendentals:.3g} evaluations): {e.efficiency.derived_from}"
    )
    return total, kernels.Efficiency(bound / total, eff.source, said)


def _fused_dots(module, dots, dtype, roofs, ctx: Context, bound: float, body: bool = False):
    """(seconds, Efficiency) of a fusion of several dots (XLA:CPU's YNNPACK fuses a chain of
    matmuls and what lies between them into one op that runs them in turn): the sum of each
    dot's expected time at its own kind and size (FLOPs from its shapes, bytes its operands and
    result); what lies between rides on their outputs. The efficiency is the fusion's bound
    over that sum. body: the fusion is a loop body's (its dots on the loop curves, where
    measured)."""
    peak, bandwidth = roofs
    parts = []
    for dot in dots:
        conv = dot.opcode == "convolution"
        flops = kinds.conv_flops(module, dot) if conv else hlo.dot_flops(module, dot)
        shapes = [hlo.operand_shape(module, o) for o in dot.operands]
        moved = sum(hlo.shape_bytes(x) for x in (*shapes, dot.shape) if x)
        kind = kinds.conv_kind(dot) if conv else kinds.dot_kind(module, dot)
        fallback = ctx.fallback[flops / peak >= moved / bandwidth]
        size = _size(kind, flops, moved, kinds.dot_instances(module, dot))
        e = kernels.expected(
            t_lower(flops, moved, peak, bandwidth), kind, dtype, size, ctx.curves, fallback, body
        )
        parts.append(e)
    seconds = sum(e.seconds for e in parts)
    sources = {e.efficiency.source for e in parts}
    source = next(s for s in (kernels.PUBLISHED, kernels.NEAREST, kernels.MEASURED) if s in sources)
    said = "; ".join(e.efficiency.derived_from for e in parts)
    return seconds, kernels.Efficiency(
        bound / seconds, source, f"the sum of its {len(parts)} matmuls: {said}"
    )


@functools.cache
def _fallbacks() -> dict[bool, kernels.Efficiency]:
    """The published runs' efficiency for compute-bound (True) and memory-bound (False) ops
    (data/runs.csv priced once per process: 0.8 s)."""
    from perfcore.model.runs import efficiency, published

    table = published.table()
    return {bound: efficiency.kernel_fallback(table, bound) for bound in (True, False)}


def predict_modules(
    texts: list[str],
    device: str,
    curves: kernels.Curves | None,
    n_args: int,
    cost,
    label: str = "",
    temp_bytes: float = 0.0,
) -> Prediction:
    """The Prediction of programs given as optimized HLO texts, run on device (temp_bytes:
    the temporaries XLA allocates per step, from its memory analysis)."""
    mine = curves if curves is not None and curves.device == device else None
    ctx = Context(mine, match_device(device, load_specs()), _fallbacks())
    modules = [hlo.parse_module(t) for t in texts]
    per_module = [[predict_op(m, i, ctx, cost) for i in launched(m)] for m in modules]
    ops = tuple(o for group in per_module for o in group)
    cores = mine.threads if mine is not None else 0
    rate = mine.fresh_s_per_byte if mine is not None else 0.0
    fresh = [graph.fresh_bytes(m, temp_bytes if k == 0 else 0.0) for k, m in enumerate(modules)]
    schedule = tuple(
        concurrency.step(
            graph.nodes(m, {o.name: o.predicted_s or 0.0 for o in group}, cores),
            cores,
            graph.sequential(m),
            fresh_bytes * rate,
        )
        for m, group, fresh_bytes in zip(modules, per_module, fresh, strict=True)
        if cores
    )
    if mine is not None:
        dispatch = len(modules) * mine.dispatch(n_args)
        whence = f"dispatch of {len(modules)} program(s) of {n_args} argument(s), {mine.label}"
    else:
        dispatch, whence = 0.0, f"no kernel curves for {device}: dispatch not counted"
    used = mine.label if mine else kernels.PUBLISHED
    fresh_from = (
        f"first touch of {sum(fresh) / 2**20:.1f} MiB of fresh pages per step (buffers above "
        f"malloc's {graph.MMAP_MAX // 2**20} MiB mmap threshold), {mine.label}"
        if sum(fresh) and rate
        else ""
    )
    fresh_s = sum(fresh) * rate
    return Prediction(
        label, device, ops, len(modules), dispatch, whence, used, schedule, fresh_s, fresh_from
    )


def predict(fn, *args, curves: kernels.Curves | None = None) -> Prediction:
    """fn(*args)'s step on JAX's default device, predicted from its optimized HLO."""
    import jax

    from perfcore.measure.profile.hlo import xla_private

    jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
    compiled = jitted.lower(*args).compile()
    device = jax.local_devices()[0].device_kind
    n_args = len(jax.tree.leaves(args))
    label = getattr(fn, "__name__", "program")
    texts = xla_private.compiled_texts(compiled)
    memory = compiled.memory_analysis()
    temp = float(getattr(memory, "temp_size_in_bytes", 0) or 0) if memory is not None else 0.0
    return predict_modules(texts, device, curves, n_args, xla_private.cost, label, temp)
