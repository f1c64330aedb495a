"""A joined capture's data: each op's time per step beside its cost, each program's steps.

Op (one instruction of one program over the profiled steps: its time per step, FLOPs and
bytes per step, where its cost came from), Program (one program's steps: wall, device span,
busy and op time) and Profile (a capture's ops, slowest first, and programs), as
perfcore.measure.profile.judge.join builds them and assess, records and the pages read them.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass


def fastest(samples: tuple[float, ...]) -> float:
    """The fastest of an op's per-step times over the steps it ran in (those above 0); 0 where
    it ran in none."""
    return min((s for s in samples if s > 0), default=0.0)


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
    what: str = ""  # what it does and where: `dot 256×512·512×1024, examples.py:74`
    open_end: bool = False  # run asynchronously, no op read its result: time to its hand-off

    @property
    def total_s(self) -> float:
        """Device time over all profiled steps, seconds."""
        return sum(self.samples_s)

    @property
    def median_s(self) -> float:
        """Median device time per step, seconds."""
        return statistics.median(self.samples_s)

    @property
    def fastest_s(self) -> float:
        """Fastest device time per step over the steps it ran in, seconds; 0 where none."""
        return fastest(self.samples_s)

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
