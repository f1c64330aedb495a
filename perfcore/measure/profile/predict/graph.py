"""A program's dependency graph from its optimized HLO, as XLA:CPU's runtime runs it.

XLA:CPU executes the entry computation's ops as a dataflow graph (ThunkExecutor): an op
waits for the ops whose results it reads (its operands, through free ops such as bitcasts
and tuples) and, where the buffer assignment is known, for every earlier op that writes a
slice it reads or writes or reads a slice it writes (hlo.buffers.conflicts: XLA's execution
graph is built from these buffer conflicts, and buffer reuse adds waits the data flow does
not have). How many cores an op keeps busy: a library op (a dot run by Eigen, a custom
fusion run by YNNPACK or oneDNN, a custom call) splits itself over the whole thread pool; a
loop fusion over the product of its `outer_dimension_partitions` (XLA:CPU's parallel task
assignment writes it into the backend config); a copy keeping its layout of n MiB over
min(n, 8) (hlo.copy_blocks); any other op runs on one thread. Which ops hand their work to the
pool and let their thread go on (hands_off) decides what runs beside what (concurrency). A
loop or call is one op whose time is its bodies' ops'. XLA runs the graph in order where it has at
most SEQUENTIAL_OPS ops or every buffer is at most SMALL_BUFFER bytes (ThunkExecutor's
defaults, `execute_sequential_num_thunks_threshold` and `execute_sequential_buffer_threshold`).
The step's time from these is perfcore.model.chip.concurrency.step.

Fresh pages: XLA:CPU allocates a step's temporaries as one arena and each output as its own
buffer, through glibc's malloc, which maps a request at or above its mmap threshold (never
above MMAP_MAX; malloc's header puts a request of exactly MMAP_MAX above it) fresh from the
kernel and unmaps it on free; every page of such a buffer faults on its first write, every
step (fresh_bytes). Measured here in fresh processes: causal attention over 512 tokens, whose
arena is exactly 32 MiB, took 8,296-8,347 faults a step; over 500 tokens (30.5 MiB), 1,248.
The faults are taken by the op that writes a page first, on the threads it runs on
(first_writes, from the buffer assignment): a decode step's two transposes into its 32 MiB
arena took 13.0-13.6 ms each in the profile, their copies alone 2.8 ms and their faults 7.7
core-ms each.
"""

from __future__ import annotations

import math
import re

from perfcore.measure.profile import hlo
from perfcore.measure.profile.hlo import buffers
from perfcore.model.chip import concurrency
from perfcore.model.chip.concurrency import Node
from perfcore.model.chip.kernels import MMAP_MAX

PARTITIONS = re.compile(r'"outer_dimension_partitions":\[([^\]]*)\]')
SEQUENTIAL_OPS = 8
SMALL_BUFFER = 512  # bytes


def threads(instruction: hlo.Instruction, cores: int) -> int:
    """The cores an op keeps busy when it runs alone."""
    library = instruction.opcode in hlo.MATMUL_OPS or instruction.opcode == "custom-call"
    if library or "kind=kCustom" in instruction.attrs or instruction.opcode in hlo.CONTROL:
        return cores
    found = PARTITIONS.search(instruction.attrs)
    parts = [int(p.strip(' "')) for p in found.group(1).split(",") if p.strip()] if found else []
    return max(1, min(cores, math.prod(parts))) if parts else 1


def hands_off(module: hlo.Module, instruction: hlo.Instruction, cores: int) -> bool:
    """True where XLA:CPU hands the op's work to its thread pool and returns (its thread goes
    on to the next ready op): a dot or convolution run by Eigen or a memcpy in blocks
    (hlo.runs_async_on_cpu), a loop kernel split over more than one thread (KernelThunk
    launches its tasks on the pool unless it runs once). A YNNPACK or oneDNN fusion, a custom
    call, a one-thread kernel and a loop run to their end on the thread that started them."""
    if hlo.runs_async_on_cpu(module, instruction):
        return True
    library = instruction.opcode == "custom-call" or "kind=kCustom" in instruction.attrs
    control = instruction.opcode in hlo.CONTROL
    return not library and not control and threads(instruction, cores) > 1


def _body_s(
    module: hlo.Module,
    instruction: hlo.Instruction,
    seconds: dict[str, float],
    cores: int,
    placed: dict[str, tuple[buffers.Slice, ...]] | None,
) -> float:
    """A loop's or call's time: each computation it runs (a body and its condition, a call's)
    scheduled as the entry is, by the nested executor XLA:CPU gives it, seconds (the ops' times
    are per step, their runs counted); a conditional's costliest branch (one runs, and which
    is the data's: untaken)."""
    times = [
        concurrency.step(
            nodes(module, seconds, cores, placed, name), cores, sequential(module, name)
        ).seconds
        for name in instruction.calls
        if name in module.computations
    ]
    if instruction.opcode == "conditional":
        return max(times, default=0.0)
    return sum(times)


def untaken(module: hlo.Module, seconds: dict[str, float]) -> frozenset[str]:
    """The launched ops (by name without %) of every conditional's branches but its costliest
    by their predicted seconds (nested computations' included). A call runs one branch, chosen
    by the data, so a prediction made before it runs prices the costliest, as XLA's own cost
    analysis does (HloCostAnalysis::HandleConditional keeps each property's maximum over the
    branches)."""
    out: set[str] = set()
    for body in module.computations.values():
        for i in (i for i in body if i.opcode == "conditional"):
            branches = [
                [
                    x.name.lstrip("%")
                    for j in module.computations[b]
                    for x in (j, *hlo.held(module, j))
                ]
                for b in i.calls
                if b in module.computations
            ]
            costs = [sum(seconds.get(n, 0.0) for n in names) for names in branches]
            kept = costs.index(max(costs, default=0.0)) if costs else -1
            out.update(n for k, names in enumerate(branches) if k != kept for n in names)
    return frozenset(out & set(seconds))


def nodes(
    module: hlo.Module,
    seconds: dict[str, float],
    cores: int,
    placed: dict[str, tuple[buffers.Slice, ...]] | None = None,
    computation: str | None = None,
    faults: dict[str, float] | None = None,
) -> tuple[Node, ...]:
    """A computation's ops (the entry's by default) as graph nodes in program order: each
    op's predicted seconds per step (by name without %; free ops cost nothing), its cores, and
    what it waits for: its operands, and with `placed` (buffers.slices of the module's buffer
    assignment) the earlier ops whose buffers conflict with its own (waits). faults: core-seconds
    an op spends on the first touch of fresh pages it writes (first_writes), shared by the
    threads it runs on."""
    computation = computation or module.entry
    faults = faults or {}
    extra = waits(module, placed, computation) if placed else {}
    out = []
    for i in module.computations[computation]:
        name = i.name.lstrip("%")
        after = tuple(o.lstrip("%") for o in i.operands) + extra.get(name, ())
        if i.opcode in hlo.FREE:
            out.append(Node(name, 0.0, 1, after))
        elif i.opcode in hlo.CONTROL:
            body = _body_s(module, i, seconds, cores, placed) + faults.get(name, 0.0) / cores
            out.append(Node(name, body, cores, after))
        else:
            blocks = hlo.copy_blocks(module, i)
            split = (min(cores, blocks), after, True) if blocks > 1 else None
            own = split or (threads(i, cores), after, hands_off(module, i, cores))
            alone = seconds.get(name, 0.0) + faults.get(name, 0.0) / max(own[0], 1)
            out.append(Node(name, alone, *own))
    return tuple(out)


def waits(
    module: hlo.Module,
    placed: dict[str, tuple[buffers.Slice, ...]],
    computation: str | None = None,
) -> dict[str, tuple[str, ...]]:
    """Each launched op of a computation (the entry's by default): the earlier ops it waits
    for by buffer (buffers.conflicts); it reads its operands' slices (a free op's are its own
    operands') and writes its own."""
    entry = {i.name.lstrip("%"): i for i in module.computations[computation or module.entry]}

    def read(name: str) -> tuple[buffers.Slice, ...]:
        i = entry.get(name)
        if name in placed or i is None or i.opcode not in hlo.FREE:
            return placed.get(name, ())
        return tuple(s for o in i.operands for s in read(o.lstrip("%")))

    ops = [
        (name, [s for o in i.operands for s in read(o.lstrip("%"))], placed.get(name, ()))
        for name, i in entry.items()
        if i.opcode not in hlo.FREE
    ]
    return buffers.conflicts(ops)


def sequential(module: hlo.Module, computation: str | None = None) -> bool:
    """True where XLA:CPU runs a computation's ops (the entry's by default) in order: few of
    them, or only tiny buffers."""
    ops = [i for i in module.computations[computation or module.entry] if i.opcode not in hlo.FREE]
    if len(ops) <= SEQUENTIAL_OPS:
        return True
    shapes = [
        s for i in ops for s in (i.shape, *(hlo.operand_shape(module, o) for o in i.operands))
    ]
    return all(hlo.shape_bytes(s) <= SMALL_BUFFER for s in shapes)


def result_sizes(module: hlo.Module) -> list[float]:
    """The bytes of each array the program returns (its entry's root: a tuple's elements, or
    the one)."""
    arrays = hlo.arrays(module.computations[module.entry][-1].shape)
    return [hlo.shape_bytes(f"{t}[{','.join(map(str, d))}]") for t, d in arrays]


def first_writes(
    module: hlo.Module, placed: dict[str, tuple[buffers.Slice, ...]], fresh: set[int]
) -> dict[str, float]:
    """Each op of the entry computation that writes fresh pages: the bytes of the fresh
    allocations (buffers.mapped) it writes before any op earlier in program order has (its
    result's slices there; a loop's or call's, those of every op in the computations it runs),
    whose pages fault on that write."""
    touched: dict[int, list[tuple[int, int]]] = {}
    out: dict[str, float] = {}
    for i in module.computations[module.entry]:
        if i.opcode in hlo.FREE:
            continue
        name = i.name.lstrip("%")
        mine = [*placed.get(name, ()), *(s for n in _inner(module, i) for s in placed.get(n, ()))]
        new = sum(
            _untouched(touched.setdefault(a, []), start, end)
            for a, start, end in mine
            if a in fresh
        )
        if new:
            out[name] = float(new)
    return out


def _inner(module: hlo.Module, instruction: hlo.Instruction) -> list[str]:
    """The names of the ops in the computations a loop or call runs, and in theirs."""
    if instruction.opcode not in hlo.CONTROL:
        return []
    return [
        i.name.lstrip("%") for c in hlo.called(module, instruction) for i in module.computations[c]
    ]


def _untouched(spans: list[tuple[int, int]], start: int, end: int) -> int:
    """Bytes of [start, end) that no span in spans covers; the range then joins them."""
    new, points = 0, sorted(spans)
    at = start
    for s, e in points:
        if e <= at or s >= end:
            continue
        new += max(0, min(s, end) - at)
        at = max(at, e)
    new += max(0, end - at)
    spans.append((start, end))
    return new


def fresh_bytes(module: hlo.Module, temp_bytes: float) -> float:
    """Bytes a step maps fresh: its temporary arena (temp_bytes, from XLA's memory analysis)
    and each output array, where one is MMAP_MAX or larger."""
    return sum(b for b in (temp_bytes, *result_sizes(module)) if b >= MMAP_MAX)
