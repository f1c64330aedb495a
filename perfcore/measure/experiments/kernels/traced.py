"""Kernels on an accelerator timed by the profiler: every point a program of its own, its calls
run under one trace that spans the suite, each sample a call's device time.

On a TPU v5e a program's launch and wait took 383-550 µs where its kernel took 1-20 µs, so a
call's wall times the launch. Timed inside a loop instead (the difference of two loop
lengths), a small kernel kept its operands in on-chip memory from one iteration to the next:
a 128×256 · 256×768 matmul took 0.37 µs an iteration there, 1.71 µs in a program of its own,
and 2.00 µs as an op of a real program (docs/profile.md, "A TPU capture"). A kernel is
therefore timed as an op of a program of its own, by the device's clock: each point's jitted
program gets a name of its own (its module `jit_perfcore_kernel_<n>`), its calls are timed
as isolated calls while one profiler trace runs over every point (starting and stopping a
trace cost about 3 s there, a point's compile about 1 s), and when the trace ends each
record's samples become its calls' device times (harness.PROFILED): per call (a run id of
its module), the sum of its op events' durations. The warm-up calls are left out, as a
wall-timed measurement leaves them out.

A host's LAPACK points are traced too (`calls_only`), for their custom call's own events: a
call of jax.lax.linalg.cholesky at n = 1,024 took 6.9 ms here, of which the LAPACK call 3.3
ms, a select over its result 3.0 and a copy into column-major order 0.45; a program's own
copies and selects are priced as ops of their own, so the point is the call alone.
"""

from __future__ import annotations

import dataclasses
import itertools
import shutil
import tempfile
from collections.abc import Callable

import numpy as np

from perfcore.measure.clock import harness
from perfcore.measure.profile import hlo
from perfcore.measure.profile.hlo import xla_private
from perfcore.measure.profile.read import capture
from perfcore.measure.profile.read.events import Capture
from perfcore.measure.results import Record

NAME = "perfcore_kernel_{}"  # a point's function name; its module is jit_<name>
UNTRACED = "no device events for this program in the trace: its calls' wall, launch included"


class Trace:
    """One profiler trace over many points (a context manager): named gives each point's
    function a name of its own, profiled reads every point's calls back once it has ended."""

    def __init__(self, jax) -> None:
        self.jax = jax
        self.folder = ""
        self.programs: dict[str, str] = {}  # a point's label -> its program's module name
        self.calls_only: set[str] = set()  # modules whose custom calls alone are read
        self._numbers = itertools.count()

    def __enter__(self) -> Trace:
        self.folder = tempfile.mkdtemp(prefix="perfcore-kernels-")
        options = self.jax.profiler.ProfileOptions()
        options.python_tracer_level = 0  # no Python events: the device's are what is read
        options.host_tracer_level = 1
        self.jax.profiler.start_trace(self.folder, profiler_options=options)
        return self

    def __exit__(self, kind, error, traceback) -> None:
        self.jax.profiler.stop_trace()
        if error is not None:  # no records will read it
            shutil.rmtree(self.folder, ignore_errors=True)

    def named(self, fn: Callable, label: str, calls_only: bool = False) -> Callable:
        """fn under a name of its own, so its jitted program's events are told apart; the
        point's label remembers its module. calls_only: its calls' times are its custom
        calls' events alone (a LAPACK routine's, without the copies and selects around it)."""

        def kernel(*args):
            return fn(*args)

        kernel.__name__ = kernel.__qualname__ = NAME.format(next(self._numbers))
        self.programs[label] = f"jit_{kernel.__name__}"
        if calls_only:
            self.calls_only.add(self.programs[label])
        return kernel

    def profiled(self, records: list[Record]) -> list[Record]:
        """The records of the points run under this trace, once it has ended, each with its
        calls' device times (profiled)."""
        times = self.device_times()
        return [profiled(r, times.get(self.programs.get(r.label, ""))) for r in records]

    def device_times(self) -> dict[str, list[float]]:
        """Per module (`jit_perfcore_kernel_<n>`), each call's device seconds in the order
        the calls ran: its op events' durations (its custom calls' alone where calls_only)
        summed per run id. The trace's folder is removed once read."""
        try:
            found = capture.read_capture(self.folder)
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
        events, out = found.events, {}
        for number, module in enumerate(events.modules):
            rows = events.module == number
            if module in self.calls_only:
                rows &= np.isin(events.op, custom_calls(found, module))
            runs, which = np.unique(events.run_id[rows], return_inverse=True)
            seconds = np.bincount(which, weights=events.duration_ns[rows], minlength=len(runs))
            first = np.full(len(runs), np.iinfo(np.int64).max)
            np.minimum.at(first, which, events.start_ns[rows])
            out[module] = (seconds[np.argsort(first, kind="stable")] / 1e9).tolist()
        return out


def custom_calls(found: Capture, module: str) -> list[int]:
    """The codes (indices into found.events.ops) of the custom-call instructions of the
    capture's programs named module, as their HloModuleProtos hold them."""
    texts = [xla_private.module_text(p) for (name, _), p in found.modules.items() if name == module]
    names = {
        i.name.lstrip("%")
        for text in texts
        for i in hlo.parse_module(text).instructions.values()
        if i.opcode == "custom-call"
    }
    return [k for k, op in enumerate(found.events.ops) if op in names]


def profiled(record: Record, calls: list[float] | None) -> Record:
    """record with its samples its calls' device times (harness.PROFILED), the warm-up calls
    (the first ones) left out where the trace holds them all; as taken, and noted, where the
    trace holds none."""
    m = record.measurement
    if not calls:
        return record.noted(UNTRACED)
    timed = calls[m.warmup :] if len(calls) >= m.warmup + len(m.samples) else calls
    measured = harness.Measurement(tuple(timed), method=harness.PROFILED, warmup=m.warmup)
    return dataclasses.replace(record, measurement=measured)
