"""The profile reader's own cost: join time for a large capture, and the profiler's overhead.

1. A capture of 100,000 op events (the XLA:CPU MLP module of tests/data/profile, its three
   ops over 33,334 steps) written with perfcore.measure.profile.read.write, then read and joined
   as a user's capture is: walk (wire format, stdlib), events (the wire format into numpy
   columns), join (XLA's cost model per instruction, steps, programs). Goal: under 0.5 s in
   all. The reference, timed in the same run: JAX's reader (jax.profiler.ProfileData) giving
   the same events with their stats, which the reader replaced; the ratio is ours over it.
2. The built-in MLP's step time (perf_counter around each synchronized call, the min of
   STEPS) untraced then traced, ROUNDS times in one process: each ratio is the profiler's
   overhead on what it measures; their range is the run-to-run spread.

    PYTHONPATH=$PWD .venv/bin/python bench/profile.py
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import jax

from perfcore.measure.profile.examples import mlp
from perfcore.measure.profile.hlo import xla_private
from perfcore.measure.profile.judge import join as profile
from perfcore.measure.profile.read import events as xspace_events
from perfcore.measure.profile.read import write, xspace
from tests.support.profiledata import profiledata_events

EVENTS = 100_000
STEPS = 30
ROUNDS = 5
REPEATS = 3
HLO = Path(__file__).parent.parent / "tests" / "data" / "profile" / "cpu_mlp.hlo"
OPS = (("ynn_fusion.1", 2_000), ("wrapped_tanh", 500), ("ynn_fusion", 1_000))


def big_capture() -> bytes:
    """A serialized XSpace of EVENTS op events of the MLP module, 1 µs gaps between."""
    events, t = [], 0
    for i in range(EVENTS):
        op, duration = OPS[i % len(OPS)]
        events.append(write.OpEvent(op, "jit_mlp", 8, i // len(OPS), t, duration))
        t += duration + 1_000
    proto = xla_private.module_proto(HLO.read_text())
    return write.xspace({("jit_mlp", 8): proto}, events, "/host:CPU")


def _stages(data: bytes) -> tuple[float, float, float, object]:
    """Seconds to walk, read the events of, and join the capture; and the Profile."""
    start = time.perf_counter()
    names, modules = xspace.walk(*xspace.capture_bytes(data, "big"))
    walked = time.perf_counter()
    capture = xspace_events.capture(data, "big", names, modules)
    read = time.perf_counter()
    joined = profile.join(capture)
    return walked - start, read - walked, time.perf_counter() - read, joined


def _reference(data: bytes) -> float:
    """Seconds for JAX's reader to give the capture's op events with their stats."""
    start = time.perf_counter()
    profiledata_events(data)
    return time.perf_counter() - start


def join_time() -> None:
    """Each stage of reading and joining the large capture, and the reference, the fastest of
    REPEATS each (other work on this shared machine only ever adds time)."""
    data = big_capture()
    runs = [_stages(data) for _ in range(REPEATS)]
    reference = min(_reference(data) for _ in range(REPEATS))
    (program,) = runs[0][3].programs
    print(
        f"capture: {len(data) / 2**20:.1f} MiB, {len(runs[0][3].ops)} ops, "
        f"{program.steps} steps, {EVENTS} op events"
    )
    walk, events, join = (min(r[i] for r in runs) for i in range(3))
    totals = sorted(sum(r[:3]) for r in runs)
    print(
        f"walk {walk:.3f} s, events {events:.3f} s, join {join:.3f} s (fastest of {REPEATS}); "
        f"total {totals[0]:.3f} s, slowest {totals[-1]:.3f} s (goal < 0.5 s)"
    )
    print(
        f"reference, JAX's reader (ProfileData) alone: {reference:.3f} s; read and join "
        f"over it: x{totals[0] / reference:.2f}"
    )


def _steps(jitted, args) -> list[float]:
    """perf_counter seconds of STEPS synchronized calls."""
    out = []
    for _ in range(STEPS):
        start = time.perf_counter()
        jax.block_until_ready(jitted(*args))
        out.append(time.perf_counter() - start)
    return out


def overhead() -> None:
    """The MLP's fastest step untraced then traced, ROUNDS times; each traced / untraced.

    The min of isolated calls: other work on the machine only ever adds time to a call."""
    example = mlp()
    jitted = jax.jit(example.fn)
    jax.block_until_ready(jitted(*example.args))
    ratios = []
    for i in range(ROUNDS):
        untraced = min(_steps(jitted, example.args))
        with jax.profiler.trace(f"/tmp/perfcore-bench-profile-{i}"):
            traced = min(_steps(jitted, example.args))
        ratios.append(traced / untraced)
        print(
            f"round {i + 1}: MLP step (min of {STEPS}) untraced {untraced * 1e6:.0f} µs, "
            f"traced {traced * 1e6:.0f} µs: x{traced / untraced:.2f}"
        )
    print(
        f"profiler overhead on the step: median x{statistics.median(ratios):.2f} "
        f"(rounds from x{min(ratios):.2f} to x{max(ratios):.2f})"
    )


if __name__ == "__main__":
    join_time()
    overhead()
