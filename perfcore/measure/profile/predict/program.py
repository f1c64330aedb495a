"""A program's step predicted before it runs: its optimized HLO priced op by op, each op's time
from the device's kernel curves, plus the dispatch of each launched program.

Every instruction the program launches (the entry computation's and its loops' bodies', free
ones such as parameters and tuples left out) is predicted as op.predict_op prices it
(docs/profile.md).
Where the curves say how many host threads their kernels ran on (XLA:CPU), each program's
ops are scheduled over its dependency graph (graph, concurrency.step) rather than summed;
where they say what a fresh host page costs, the step adds the first touch of the buffers its
allocator maps fresh each step (graph.fresh_bytes), each page's on the op that writes it
first where the buffer assignment says which (graph.first_writes), the rest spread over the
cores; where they hold cold points, each op of
the entry computation adds its operands read cold (reuse.cold_bytes) at its kind's measured
cost (perfcore.model.chip.cold). Where the program moves data on the device's DMA engines
(a TPU's async copies and slices, prefetching weights and caches into its on-chip VMEM:
hlo.move_bytes), the core's ops run beside those moves, so the step lasts at least as long as
the moves take at the memory roof (dma_s).
"""

from __future__ import annotations

import dataclasses
import re
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

from perfcore.measure.clock import host
from perfcore.measure.clock.devices import match_device
from perfcore.measure.profile import hlo
from perfcore.measure.profile.hlo import buffers
from perfcore.measure.profile.predict import graph, reuse
from perfcore.measure.profile.predict.op import Context, OpPrediction, fallbacks, predict_op
from perfcore.model.chip import cold, concurrency, kernels
from perfcore.model.chip.concurrency import StepTime
from perfcore.model.chip.specs import load_specs


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
    fresh_bytes: float = 0.0  # per step: the buffers malloc maps fresh (graph.fresh_bytes)
    dma_s: float = 0.0  # per step: the async moves' bytes at the memory roof (hlo.move_bytes)
    dma_from: str = ""
    untaken: frozenset[str] = frozenset()  # ops of a conditional's cheaper branches (untaken)

    @property
    def op_s(self) -> float:
        """Sum of the predicted op times per step (a conditional's costliest branch), seconds."""
        counted = (o for o in self.ops if o.name not in self.untaken)
        return sum(o.predicted_s for o in counted if o.predicted_s is not None)

    @property
    def ops_step_s(self) -> float:
        """The programs' ops per step, seconds: each program's scheduled step where its ops
        run concurrently (concurrency.step, fresh pages in its work), else their sum; at
        least the async moves' time (dma_s), which the core's ops run beside."""
        ops = sum(t.seconds for t in self.schedule) if self.schedule else self.op_s + self.fresh_s
        return max(ops, self.dma_s)

    @property
    def step_from(self) -> str:
        """What the predicted step was derived from: the curves, the dispatch, and the async
        moves where they outlast the ops."""
        moves = f"; {self.dma_from}" if self.dma_s and self.ops_step_s == self.dma_s else ""
        return f"{self.curves_label}; {self.dispatch_from}{moves}"

    def inside_s(self, name: str) -> float | None:
        """An op's predicted time inside the step (sharing the cores with the ops running
        beside it, as a profile of the step times it), seconds; None where not scheduled."""
        found = [s for t in self.schedule for n, s in t.durations if n == name]
        return found[0] if found else None

    @property
    def step_s(self) -> float:
        """The predicted step: the ops' time (fresh pages in it) plus dispatch, seconds."""
        return self.ops_step_s + self.dispatch_s


def with_cold(
    module: hlo.Module, group: list[OpPrediction], curves: kernels.Curves
) -> list[OpPrediction]:
    """The module's ops, each of the entry computation or a loop's body with the operands it
    reads cold (reuse.cold_bytes, on the curves' host's last-level cache; at most the bytes the
    op moves a run: a slice of a stacked weight reads its slice) added at its kind's seconds
    per byte (the curves' cold points, cold.extra_s), each run."""
    rates, cache = curves.cold_s_per_byte, curves.cache_bytes
    far, out = reuse.cold_bytes(module, cache), []
    why = (
        f"read whole after at least the host's {cache / 2**20:g} MiB last-level cache of other "
        "bytes and their own"
        if cache
        else f"last touched {cold.DISTANCE // 2**20} MiB or more before"
    )
    for o in group:
        runs = max(o.occurrences, 1)
        bytes_ = min(far.get(o.name, 0.0), (o.bytes or 0.0) / runs)
        extra = cold.extra_s(o.kernel, bytes_, rates) * runs
        if not extra or o.predicted_s is None:
            out.append(o)
            continue
        seconds = o.predicted_s + extra
        each = f" a run, {runs} runs" if runs > 1 else ""
        said = (
            f"{o.derived_from}; + {bytes_ / 2**20:.1f} MiB of operands{each} {why} "
            f"(+{extra * 1e3:.3f} ms: the cold {cold.COLD_OF[o.kernel]} kernel's)"
        )
        eff = o.bound_s / seconds if o.bound_s else o.efficiency
        out.append(dataclasses.replace(o, predicted_s=seconds, efficiency=eff, derived_from=said))
    return out


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


def predict_modules(
    texts: list[str],
    device: str,
    curves: kernels.Curves | None,
    n_args: int,
    cost,
    label: str = "",
    temp_bytes: float = 0.0,
    assignments: dict[str, str] | None = None,
) -> Prediction:
    """The Prediction of programs given as optimized HLO texts, run on device (temp_bytes:
    the temporaries XLA allocates per step, from its memory analysis; assignments: module
    name -> its buffer-assignment dump, whose conflicts order ops in the schedule)."""
    mine = curves if curves is not None and curves.device == device else None
    ctx = Context(mine, match_device(device, load_specs()), fallbacks())
    modules = [hlo.parse_module(t) for t in texts]
    per_module = [
        [predict_op(m, i, ctx, cost, k > 0) for k, i in enumerate(launched(m))] for m in modules
    ]
    if mine is not None and mine.cold_s_per_byte:
        pairs = zip(modules, per_module, strict=True)
        per_module = [with_cold(m, group, mine) for m, group in pairs]
    ops = tuple(o for group in per_module for o in group)
    cores = mine.threads if mine is not None else 0
    rate = mine.fresh_s_per_byte if mine is not None else 0.0
    fresh = [graph.fresh_bytes(m, temp_bytes if k == 0 else 0.0) for k, m in enumerate(modules)]
    texts_of = [(assignments or {}).get(m.name, "") for m in modules]
    placed = [buffers.slices(text) for text in texts_of]
    writes = [
        graph.first_writes(m, where, buffers.mapped(text, graph.MMAP_MAX))
        for m, where, text in zip(modules, placed, texts_of, strict=True)
    ]
    schedule = tuple(
        concurrency.step(
            graph.nodes(
                m,
                {o.name: o.predicted_s or 0.0 for o in group},
                cores,
                where,
                faults={name: b * rate for name, b in first.items()},
            ),
            cores,
            graph.sequential(m),
            max(0.0, fresh_bytes - sum(first.values())) * rate,
        )
        for m, group, fresh_bytes, where, first in zip(
            modules, per_module, fresh, placed, writes, strict=True
        )
        if cores
    )
    if mine is not None:
        sizes = [graph.result_sizes(m) for m in modules]
        dispatch = sum(mine.dispatch(n_args, len(s), sum(s)) for s in sizes)
        held = sum(mine.results_s(sum(s)) for s in sizes)
        large = f" (+{held * 1e6:.0f} µs for results of {sum(map(sum, sizes)) / 2**20:.0f} MiB)"
        whence = (
            f"dispatch of {len(modules)} program(s) of {n_args} argument(s) and "
            f"{'/'.join(str(len(s)) for s in sizes)} result(s){large if held else ''}, "
            f"{mine.label}"
        )
    else:
        dispatch, whence = 0.0, f"no kernel curves for {device}: dispatch not counted"
    used = mine.label if mine else kernels.PUBLISHED
    fresh_from = (
        f"first touch of {sum(fresh) / 2**20:.1f} MiB of fresh pages per step (buffers at or above "
        f"malloc's {graph.MMAP_MAX // 2**20} MiB mmap threshold), {mine.label}"
        if sum(fresh) and rate
        else ""
    )
    fresh_s = sum(fresh) * rate
    dma_s, dma_from = moves(modules, ctx)
    skipped = frozenset().union(
        *(
            graph.untaken(m, {o.name: o.predicted_s or 0.0 for o in group})
            for m, group in zip(modules, per_module, strict=True)
        )
    )
    return Prediction(
        label,
        device,
        ops,
        len(modules),
        dispatch,
        whence,
        used,
        schedule,
        fresh_s,
        fresh_from,
        float(sum(fresh)),
        dma_s,
        dma_from,
        skipped,
    )


def moves(modules: list[hlo.Module], ctx: Context) -> tuple[float, str]:
    """(seconds, what from) of the bytes a step's async moves carry (hlo.move_bytes, each
    times its runs a step) at the memory roof: the curves' measured one, else the spec row's;
    (0, "") where the programs move nothing so, or no roof is known."""
    moved = sum(
        hlo.move_bytes(m, i) * (hlo.runs_per_step(m, i) or 1)
        for m in modules
        for i in launched(m)
        if hlo.is_async_move(m, i)
    )
    measured = ctx.curves.bytes_per_s if ctx.curves is not None else None
    rate = measured or (ctx.spec.memory_bytes_per_s if ctx.spec is not None else None)
    if not moved or not rate:
        return 0.0, ""
    roof = "the measured memory roof" if measured else "the spec's memory bandwidth"
    return moved / rate, (
        f"the step's async copies and slices move {moved / 2**20:.1f} MiB (prefetches into "
        f"on-chip memory), {moved / rate * 1e6:.0f} µs at {roof} ({rate / 1e9:.0f} GB/s), "
        "longer than its ops: the step lasts that long"
    )


class OtherHost(UserWarning):
    """Kernel curves measured on another host than the one a prediction is for."""


def predict(fn, *args, curves: kernels.Curves | None = None) -> Prediction:
    """fn(*args)'s step on JAX's default device, predicted from its optimized HLO; a warning
    where the curves were measured on another host (clock.host.differs): their schedule's
    threads and cold reads are that host's."""
    import jax

    from perfcore.measure.profile.hlo import xla_private

    jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
    with tempfile.TemporaryDirectory() as dump:
        compiled = jitted.lower(*args).compile(compiler_options=dump_options(dump))
        assignments = read_assignments(Path(dump))
    device = jax.local_devices()[0].device_kind
    mine = curves is not None and curves.device == device
    differs = host.differs(curves.threads, curves.cache_bytes) if mine else ""
    if differs:
        warnings.warn(f"the kernel curves were {differs}", OtherHost, stacklevel=2)
    n_args = len(jax.tree.leaves(args))
    label = getattr(fn, "__name__", "program")
    texts = xla_private.compiled_texts(compiled)
    memory = compiled.memory_analysis()
    temp = float(getattr(memory, "temp_size_in_bytes", 0) or 0) if memory is not None else 0.0
    cost = xla_private.cost
    return predict_modules(texts, device, curves, n_args, cost, label, temp, assignments)


ASSIGNMENT = re.compile(r"^module_\d+\.(.+)\.\w+_after_optimizations-buffer-assignment\.txt$")


def dump_options(folder: str) -> dict:
    """Compiler options that make XLA write the module's text and buffer assignment to
    `folder` (the executable is the same: dumping reads the compilation, it does not steer it)."""
    return {"xla_dump_to": folder, "xla_dump_hlo_as_text": True}


def read_assignments(folder: Path) -> dict[str, str]:
    """Module name -> its buffer-assignment dump, from a folder dump_options wrote (XLA names
    each `module_NNNN.<name>.<backend>_after_optimizations-buffer-assignment.txt`)."""
    found = (ASSIGNMENT.match(p.name) for p in sorted(folder.iterdir()))
    return {m.group(1): (folder / m.group(0)).read_text() for m in found if m}
