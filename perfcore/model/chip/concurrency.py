"""A step of ops that run concurrently: the time of a dependency graph on a number of cores.

XLA:CPU runs a program's ops as a dataflow graph (its ThunkExecutor): an op starts as soon as
the ops it reads have finished, on the host's thread pool (one thread per core the process
may use), so independent ops overlap and a step is not the sum of its ops. Two things bound
such a step from below: its critical path (the longest chain of ops that wait on each
other: no schedule shortens it) and its work over the cores (each op keeps `threads` cores
busy for its time alone, and the cores can do no more than their number at once). The
step's time is that schedule played out (simulate): every op starts when what it waits for
has ended, and the ops running at once share the cores in proportion to the threads they
ask for (an op alone on enough cores runs at its own speed; ops asking for more threads than
there are cores all slow by cores / threads asked). That lies between the larger of the two
bounds and their sum (Graham's bounds of a greedy schedule), and gives each op the time it
takes inside the step, which is what a profile of the step shows. Where XLA runs the graph
in order (few ops, or only tiny buffers: ThunkExecutor's sequential rule) the step is the
sum of its ops.
"""

from __future__ import annotations

from dataclasses import dataclass

SUM, SHARED = (
    "sum of the ops (run in order)",
    "ops run when ready, sharing the cores (simulated)",
)


@dataclass(frozen=True)
class Node:
    """One op of a step: its time alone (seconds), the cores it keeps busy, what it waits for."""

    name: str
    seconds: float
    threads: int
    after: tuple[str, ...] = ()


@dataclass(frozen=True)
class StepTime:
    """A step's time (seconds) and the bounds it came from."""

    seconds: float
    critical_path_s: float
    work_s: float  # sum of seconds x threads / cores
    sum_s: float
    cores: int
    rule: str  # SUM or SHARED
    durations: tuple[tuple[str, float], ...] = ()  # each node's time inside the step, seconds


def critical_path(nodes: tuple[Node, ...]) -> float:
    """The longest chain of dependent nodes, seconds (nodes in an order where each comes
    after what it waits for; a name it waits for that is not a node costs nothing)."""
    finish: dict[str, float] = {}
    for node in nodes:
        waits = [finish[a] for a in node.after if a in finish]
        finish[node.name] = node.seconds + max(waits, default=0.0)
    return max(finish.values(), default=0.0)


def simulate(nodes: tuple[Node, ...], cores: int) -> dict[str, tuple[float, float]]:
    """(start, end) of every node, seconds: each starts when what it waits for has ended, and
    the nodes running at once share the cores in proportion to the threads they ask for."""
    cores = max(cores, 1)
    index = {n.name: n for n in nodes}
    waits = {n.name: {a for a in n.after if a in index and a != n.name} for n in nodes}
    users: dict[str, list[str]] = {n.name: [] for n in nodes}
    for name, after in waits.items():
        for a in after:
            users[a].append(name)
    left = {n.name: n.seconds for n in nodes}
    spans: dict[str, tuple[float, float]] = {}
    now, running = 0.0, []
    ready = [n.name for n in nodes if not waits[n.name]]
    while ready or running:
        running += ready
        spans |= {r: (now, now) for r in ready}
        ready = []
        demand = sum(min(max(index[r].threads, 1), cores) for r in running)
        rate = min(1.0, cores / demand)
        first = min(left[r] for r in running)
        now += first / rate
        ended = [r for r in running if left[r] <= first * (1 + 1e-12)]
        for r in running:
            left[r] = 0.0 if r in ended else left[r] - first
        running = [r for r in running if r not in ended]
        for r in ended:
            spans[r] = (spans[r][0], now)
            for u in users[r]:
                waits[u].discard(r)
                if not waits[u]:
                    ready.append(u)
    return spans


def step(
    nodes: tuple[Node, ...], cores: int, sequential: bool = False, extra_work_s: float = 0.0
) -> StepTime:
    """The step of nodes on cores: their sum where run in order (sequential, or an unknown
    core count), else their simulated run-when-ready schedule's end. extra_work_s:
    core-seconds no node's time holds (the first touch of fresh pages, done by the threads
    that write them), spread over the cores in either case."""
    spread = extra_work_s / max(cores, 1)
    total = sum(n.seconds for n in nodes) + spread
    path = critical_path(nodes)
    busy = sum(n.seconds * min(max(n.threads, 1), max(cores, 1)) for n in nodes)
    work = (busy + extra_work_s) / max(cores, 1)
    if sequential or cores < 1:
        alone = tuple((n.name, n.seconds) for n in nodes)
        return StepTime(total, path, work, total, cores, SUM, alone)
    spans = simulate(nodes, cores)
    end = max((e for _, e in spans.values()), default=0.0)
    inside = tuple((n.name, spans[n.name][1] - spans[n.name][0]) for n in nodes)
    return StepTime(end + spread, path, work, total, cores, SHARED, inside)
