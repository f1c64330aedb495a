"""A step of ops that run concurrently: the time of a dependency graph on a number of cores.

XLA:CPU runs a program's ops as a dataflow graph (its ThunkExecutor): an op starts as soon as
the ops it reads have finished, on the host's thread pool (one thread per core the process
may use), so independent ops overlap and a step is not the sum of its ops. Two things bound
such a step from below: its critical path (the longest chain of ops that wait on each
other: no schedule shortens it) and its work over the cores (each op keeps `threads` cores
busy for its time alone, and the cores can do no more than their number at once). The
step's time is taken as the larger of the two (Graham's lower bound of a greedy schedule;
the greedy run-when-ready schedule XLA uses stays within the sum of the two). Where XLA runs
the graph in order (few ops, or only tiny buffers: ThunkExecutor's sequential rule) the
step is the sum of its ops.
"""

from __future__ import annotations

from dataclasses import dataclass

SUM, CRITICAL_PATH, WORK = (
    "sum of the ops (run in order)",
    "critical path (the longest chain of dependent ops)",
    "work over the cores (every op's time x threads / cores)",
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
    rule: str  # SUM, CRITICAL_PATH or WORK: which one set the step


def critical_path(nodes: tuple[Node, ...]) -> float:
    """The longest chain of dependent nodes, seconds (nodes in an order where each comes
    after what it waits for; a name it waits for that is not a node costs nothing)."""
    finish: dict[str, float] = {}
    for node in nodes:
        waits = [finish[a] for a in node.after if a in finish]
        finish[node.name] = node.seconds + max(waits, default=0.0)
    return max(finish.values(), default=0.0)


def step(
    nodes: tuple[Node, ...], cores: int, sequential: bool = False, extra_work_s: float = 0.0
) -> StepTime:
    """The step of nodes on cores: their sum where run in order (sequential, or an unknown
    core count), else the larger of the critical path and the work over the cores.
    extra_work_s: core-seconds no node's time holds (the first touch of fresh pages, done by
    the threads that write them), spread over the cores in either case."""
    spread = extra_work_s / max(cores, 1)
    total = sum(n.seconds for n in nodes) + spread
    path = critical_path(nodes)
    busy = sum(n.seconds * min(max(n.threads, 1), max(cores, 1)) for n in nodes)
    work = (busy + extra_work_s) / max(cores, 1)
    if sequential or cores < 1:
        return StepTime(total, path, work, total, cores, SUM)
    rule = CRITICAL_PATH if path >= work else WORK
    return StepTime(max(path, work), path, work, total, cores, rule)
