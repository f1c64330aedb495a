"""A step of ops that run concurrently: the time of a dependency graph on a number of cores.

XLA:CPU runs a program's ops as a dataflow graph (its ThunkExecutor, xla/backends/cpu/runtime):
an op becomes ready when every op it waits for has finished (what it reads, and every earlier
op whose buffers conflict with its own). A thread walks a first-in-first-out queue of ready
ops and runs each in turn. An op that hands its work to the thread pool and returns (a dot run
by Eigen, a loop kernel split over several threads: `hands_off`) lets that thread go on to the
next ready op at once, and the ops it makes ready are run by the thread that finishes it, a
second lane; any other op holds its thread until it ends, the ops it makes ready joining that
thread's queue. A queue longer than SPLIT_THRESHOLD hands half of itself to another thread,
up to MAX_WORKERS of them (Thunk::ExecuteSession's defaults). Ops running at once share the
cores in proportion to the threads they ask for (an op alone on enough cores runs at its own
speed; ops asking for more threads than there are cores all slow by cores / threads asked).

Two things bound such a step from below: its critical path (the longest chain of ops that wait
on each other) and its work over the cores (each op keeps `threads` cores busy for its time
alone). The step is that schedule played out (simulate), which gives each op the time it
takes inside the step, what a profile of the step shows. Where XLA runs the graph in order
(few ops, or only tiny buffers: ThunkExecutor's sequential rule) the step is the sum of its
ops.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

SPLIT_THRESHOLD, MAX_WORKERS = 8, 4  # Thunk::ExecuteSession::kSplitThreshold, kMaxWorkers
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
    hands_off: bool = False  # returns to its thread at once, its work left to the pool


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
    """(start, end) of every node, seconds: the ready ops run by lanes (threads walking
    first-in-first-out queues, module docstring), the nodes running at once sharing the cores
    in proportion to the threads they ask for."""
    cores = max(cores, 1)
    index = {n.name: n for n in nodes}
    waits = {n.name: {a for a in n.after if a in index and a != n.name} for n in nodes}
    users: dict[str, list[str]] = {n.name: [] for n in nodes}
    for name, after in waits.items():
        for a in after:
            users[a].append(name)
    left = {n.name: n.seconds for n in nodes}
    spans: dict[str, tuple[float, float]] = {}
    lanes = [deque(n.name for n in nodes if not waits[n.name])]
    holding: dict[int, str] = {}  # lane -> the op its thread is running
    now, running = 0.0, []
    while True:
        running += _launched(lanes, holding, index)
        spans |= {r: (now, now) for r in running if r not in spans}
        if not running:
            return spans
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
            ready = [u for u in users[r] if _released(waits[u], r)]
            lane = next((k for k, held in holding.items() if held == r), None)
            if lane is None:  # a hand-off: the thread that finished it runs what it freed
                lanes.append(deque(ready))
            else:
                del holding[lane]
                lanes[lane].extend(ready)


def _released(waiting: set[str], done: str) -> bool:
    """Drop `done` from what an op waits for; True when nothing is left."""
    waiting.discard(done)
    return not waiting


def _launched(lanes: list[deque], holding: dict[int, str], index: dict[str, Node]) -> list[str]:
    """The ops each free lane starts now, off its queue in order until one holds its thread;
    past SPLIT_THRESHOLD ops left in a queue, its later half goes to a new lane while fewer
    than MAX_WORKERS lanes beside the first are at work (ThunkExecutor::SplitReadyQueue)."""
    started, k = [], 0
    while k < len(lanes):
        queue = lanes[k]
        while queue and k not in holding:
            name = queue.popleft()
            while len(queue) > SPLIT_THRESHOLD and _workers(lanes, holding) < MAX_WORKERS:
                keep = len(queue) // 2
                lanes.append(deque(list(queue)[keep:]))
                for _ in range(len(queue) - keep):
                    queue.pop()
            started.append(name)
            if not index[name].hands_off:
                holding[k] = name
        k += 1
    return started


def _workers(lanes: list[deque], holding: dict[int, str]) -> int:
    """Lanes beside the first with work queued or running."""
    return sum(1 for j in range(1, len(lanes)) if lanes[j] or j in holding)


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
