"""A program's op events grouped into steps and ops, as arrays (numpy group-by, no per-event
objects).

A step is one execution of the program (one `run_id`), steps in order of their first op's
start. Per step: its ops' device time and count, the device span (first op's start to last
op's end), busy time (the union of the ops' intervals) and host wall (from the latest unused
`PjitFunction(...)` dispatch before the step to its last op's end). A loop's or call's own
time is its duration less the ops traced inside it; an op run asynchronously (its event ends
at a hand-off) runs to the first start of an op reading its result. Times in ns unless named
`_s`.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from perfcore.measure.profile.read.events import Events

NS = 1e-9


@dataclass(frozen=True, eq=False)
class Steps:
    """One program's events (indices into the capture's Events) arranged by step and op."""

    events: np.ndarray  # the program's events, in the capture's order
    step: np.ndarray  # each of those events' step
    first_ns: np.ndarray  # each step's first op start
    last_ns: np.ndarray  # each step's last op end
    ops: np.ndarray  # the program's op codes, in order of first appearance step by step
    slot: np.ndarray  # each event's op: its index into ops

    @property
    def count(self) -> int:
        """Steps of the program."""
        return len(self.first_ns)


def steps(events: Events, mine: np.ndarray) -> Steps:
    """The steps of the events `mine` (one program's), each event's step and op slot."""
    start, end = events.start_ns[mine], events.start_ns[mine] + events.duration_ns[mine]
    runs, seen, run = np.unique(events.run_id[mine], return_index=True, return_inverse=True)
    first = np.full(len(runs), np.inf)
    np.minimum.at(first, run, start)
    order = np.lexsort((seen, first))  # by first start, ties in order of appearance
    rank = np.empty(len(runs), np.int64)
    rank[order] = np.arange(len(runs))
    step = rank[run]
    last = np.full(len(runs), -np.inf)
    np.maximum.at(last, step, end)
    walk = np.argsort(step, kind="stable")  # step by step, each in the capture's order
    codes, at = np.unique(events.op[mine][walk], return_index=True)
    ops = codes[np.argsort(at)]
    slot = np.empty(int(codes.max()) + 1 if len(codes) else 0, np.int64)
    slot[ops] = np.arange(len(ops))
    return Steps(mine, step, first[order], last, ops, slot[events.op[mine]])


def own_ns(events: Events, s: Steps, containers: np.ndarray) -> np.ndarray:
    """Each event's own time: a loop's or call's duration less the ops traced inside it in
    its step (containers: a flag per op slot); other events' durations."""
    duration = events.duration_ns[s.events]
    boxed = containers[s.slot]
    if not boxed.any():
        return duration
    start, own = events.start_ns[s.events], duration.copy()
    by_step = np.split(np.argsort(s.step, kind="stable"), np.cumsum(np.bincount(s.step))[:-1])
    for i in np.flatnonzero(boxed).tolist():
        run = by_step[s.step[i]]
        inside = ~boxed[run] & (start[run] >= start[i]) & (start[run] < start[i] + duration[i])
        own[i] = max(0.0, duration[i] - sum(duration[run[inside]].tolist()))
    return own


def awaited_ns(
    events: Events, s: Steps, own: np.ndarray, readers: dict[int, list[int]]
) -> tuple[np.ndarray, np.ndarray]:
    """Each event's time where its op runs asynchronously (readers: for each such op slot,
    the slots of the ops that read its result): from its start to the first start, in its
    step and not before its own, of an event of a reader; never less than its own time.
    Other events keep `own`. Beside it, which events of such ops no reader follows in their
    step (their end was not traced: their own time, the hand-off, is all that is known)."""
    out, unended = own.astype(float), np.zeros(len(own), bool)
    if not readers:
        return out, unended
    width = float(np.max(s.last_ns - s.first_ns)) + 1.0  # a step's keys lie in [k w, (k+1) w)
    key = s.step * width + (events.start_ns[s.events] - s.first_ns[s.step])
    for slot, users in readers.items():
        mine = np.flatnonzero(s.slot == slot)
        theirs = np.sort(key[np.isin(s.slot, users)])
        if not len(theirs):
            unended[mine] = True
            continue
        after = theirs[np.minimum(np.searchsorted(theirs, key[mine]), len(theirs) - 1)]
        same = (after >= key[mine]) & (after < (s.step[mine] + 1) * width)
        out[mine] = np.maximum(out[mine], np.where(same, after - key[mine], 0.0))
        unended[mine] = ~same
    return out, unended


def per_op(s: Steps, amounts: np.ndarray) -> np.ndarray:
    """An (op, step) table of amounts summed in the capture's order."""
    cells = s.slot * s.count + s.step
    size = len(s.ops) * s.count
    return np.bincount(cells, weights=amounts, minlength=size).reshape(len(s.ops), s.count)


def span_s(s: Steps) -> np.ndarray:
    """Each step's device span: first op's start to last op's end, seconds."""
    return (s.last_ns - s.first_ns) * NS


def busy_s(events: Events, s: Steps) -> np.ndarray:
    """Each step's busy time: the length of the union of its ops' intervals, seconds."""
    start = events.start_ns[s.events]
    stop = start + events.duration_ns[s.events]
    order = np.lexsort((stop, start, s.step))
    start, stop, step = start[order], stop[order], s.step[order]
    # the latest end before each interval in its step: a running max that restarts each step,
    # taken over stop's ranks offset by the step (exact: integers)
    ranked = np.sort(stop)
    rank = np.searchsorted(ranked, stop) + step * len(stop)
    reach = np.maximum.accumulate(rank) - step * len(stop)
    before = np.full(len(stop), -np.inf)
    later = np.flatnonzero(step[1:] == step[:-1]) + 1
    before[later] = ranked[reach[later - 1]]
    added = np.where(stop > before, stop - np.maximum(start, before), 0.0)
    return np.bincount(step, weights=added, minlength=s.count) * NS


def wall_s(s: Steps, dispatches: list[float]) -> tuple[float | None, ...]:
    """Each step's host wall: from its call's dispatch (the latest before the step's first op
    not taken by an earlier step) to its last op's end, seconds; None where none is."""
    if not dispatches:
        return (None,) * s.count
    used: set[float] = set()
    out = []
    for first, last in zip(s.first_ns.tolist(), s.last_ns.tolist(), strict=True):
        at = bisect.bisect_right(dispatches, first) - 1
        while at >= 0 and dispatches[at] in used:
            at -= 1
        if at < 0:
            out.append(None)
            continue
        used.add(dispatches[at])
        out.append((last - dispatches[at]) * NS)
    return tuple(out)
