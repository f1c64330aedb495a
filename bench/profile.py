"""The profile reader's own cost: join time for a large capture, and the profiler's overhead.

1. A capture of 100,000 op events (the XLA:CPU MLP module of tests/data/profile, its three
   ops over 33,334 steps) written with perfcore.measure.xspace_write, then read and joined
   as a user's capture is: walk (wire format, stdlib), events (jax.profiler.ProfileData),
   join (XLA's cost model per instruction, steps, programs). Goal: under 2 s in all.
2. The built-in MLP's step time (perf_counter around each synchronized call, median of
   STEPS) untraced, traced, untraced again, in one process: the ratio is the profiler's
   overhead on what it measures.

    PYTHONPATH=$PWD .venv/bin/python bench/profile.py
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import jax

from perfcore.measure import profile, xla_private, xspace, xspace_events, xspace_write
from perfcore.measure.profile_examples import mlp

EVENTS = 100_000
STEPS = 30
HLO = Path(__file__).parent.parent / "tests" / "data" / "profile" / "cpu_mlp.hlo"
OPS = (("ynn_fusion.1", 2_000), ("wrapped_tanh", 500), ("ynn_fusion", 1_000))


def big_capture() -> bytes:
    """A serialized XSpace of EVENTS op events of the MLP module, 1 µs gaps between."""
    events, t = [], 0
    for i in range(EVENTS):
        op, duration = OPS[i % len(OPS)]
        events.append(xspace_write.OpEvent(op, "jit_mlp", 8, i // len(OPS), t, duration))
        t += duration + 1_000
    proto = xla_private.module_proto(HLO.read_text())
    return xspace_write.xspace({("jit_mlp", 8): proto}, events, "/host:CPU")


def join_time() -> None:
    """Time each stage of reading and joining the large capture."""
    data = big_capture()
    start = time.perf_counter()
    names, modules = xspace.walk(*xspace.capture_bytes(data, "big"))
    walked = time.perf_counter()
    capture = xspace_events.capture(data, "big", names, modules)
    read = time.perf_counter()
    joined = profile.join(capture)
    done = time.perf_counter()
    (program,) = joined.programs
    print(f"capture: {len(data) / 2**20:.1f} MiB, {len(capture.events)} op events, "
          f"{program.steps} steps")  # fmt: skip
    print(f"walk {walked - start:.3f} s, events {read - walked:.3f} s, "
          f"join {done - read:.3f} s; total {done - start:.3f} s (goal < 2 s)")  # fmt: skip


def _steps(jitted, args) -> list[float]:
    """perf_counter seconds of STEPS synchronized calls."""
    out = []
    for _ in range(STEPS):
        start = time.perf_counter()
        jax.block_until_ready(jitted(*args))
        out.append(time.perf_counter() - start)
    return out


def overhead() -> None:
    """The MLP's median step untraced, traced, untraced again; traced / untraced."""
    example = mlp()
    jitted = jax.jit(example.fn)
    jax.block_until_ready(jitted(*example.args))
    before = statistics.median(_steps(jitted, example.args))
    with jax.profiler.trace("/tmp/perfcore-bench-profile"):
        traced = statistics.median(_steps(jitted, example.args))
    after = statistics.median(_steps(jitted, example.args))
    untraced = min(before, after)
    print(f"MLP step (median of {STEPS}): untraced {before * 1e6:.0f} µs and "
          f"{after * 1e6:.0f} µs, traced {traced * 1e6:.0f} µs: "
          f"overhead x{traced / untraced:.2f}")  # fmt: skip


if __name__ == "__main__":
    join_time()
    overhead()
