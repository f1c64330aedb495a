"""Profile a JAX function here: jit it, warm up, trace some steps, join each op with its cost.

The steps run under jax.profiler.trace, each call synchronized (block_until_ready) and timed
with perf_counter besides, so a step's host wall in the trace can be checked against the
clock. A program that donates its arguments gets fresh copies for every call, made before the
trace. The trace folder is kept (a temporary one unless given) for TensorBoard or Perfetto.
JAX is imported when a profile is taken; one measurement runs at a time per process. A
program that launches no XLA op (its results its arguments or constants) is refused as such.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from perfcore.errors import UserError
from perfcore.measure.clock.lock import LOCK
from perfcore.measure.profile import hlo
from perfcore.measure.profile.hlo import xla_private
from perfcore.measure.profile.judge.join import join
from perfcore.measure.profile.judge.joined import Profile
from perfcore.measure.profile.read import capture
from perfcore.measure.profile.read.xspace import CaptureError


def arguments(jax, jitted: Callable, args: tuple) -> Callable[[], tuple]:
    """What gives each call of jitted its arguments: args themselves, or, where the program
    donates any (jax.jit's donate_argnums: a donated buffer is deleted by the call that takes
    it), fresh copies of their arrays, ready before the call (the caller's stay untouched)."""
    if not any(a.donated for a in jax.tree.leaves(jitted.lower(*args).args_info)):
        return lambda: args

    def copies() -> tuple:
        fresh = jax.tree.map(lambda a: a.copy() if isinstance(a, jax.Array) else a, args)
        return jax.block_until_ready(fresh)

    return copies


def _capture_steps(jax, jitted: Callable, per_step: list[tuple], trace_dir: Path) -> list:
    """perf_counter seconds of one synchronized call per arguments of per_step, traced into
    trace_dir."""
    calls = []
    with jax.profiler.trace(str(trace_dir)):
        for args in per_step:
            start = time.perf_counter()
            jax.block_until_ready(jitted(*args))
            calls.append(time.perf_counter() - start)
    return calls


def profile(
    fn: Callable, *args: Any, steps: int = 5, trace_dir: str | Path | None = None, warmup: int = 2
) -> Profile:
    """fn(*args) jitted, warmed up, traced for `steps` calls and joined with XLA's costs."""
    import jax

    if steps < 1 or warmup < 1:
        raise ValueError(f"profile needs steps >= 1 and warmup >= 1, got {steps} and {warmup}")
    jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
    folder = Path(trace_dir) if trace_dir else Path(tempfile.mkdtemp(prefix="perfcore-profile-"))
    fresh = arguments(jax, jitted, args)
    with LOCK:
        for _ in range(warmup):  # compiles outside the trace
            jax.block_until_ready(jitted(*fresh()))
        calls = _capture_steps(jax, jitted, [fresh() for _ in range(steps)], folder)
    try:
        joined = join(capture.read_capture(folder))
    except CaptureError:
        if not launches(jitted.lower(*fresh()).compile().as_text()):
            raise UserError(NOTHING_LAUNCHED) from None
        raise
    notes = tuple(filter(None, [xla_private.check_version()]))
    return dataclasses.replace(joined, trace_dir=str(folder), call_s=tuple(calls), notes=notes)


NOTHING_LAUNCHED = (
    "the program launches no XLA op (its results are its arguments or constants): there is "
    "nothing to time"
)


def launches(text: str) -> bool:
    """True where an optimized HLO module's entry runs any op (not only parameters, constants,
    tuples and bitcasts)."""
    module = hlo.parse_module(text)
    return any(i.opcode not in hlo.FREE for i in module.computations[module.entry])


def profile_example(name: str, steps: int = 5, trace_dir: str | Path | None = None) -> Profile:
    """A profile of one built-in example (perfcore.measure.profile.examples)."""
    from perfcore.measure.profile.examples import EXAMPLES

    example = EXAMPLES[name]()
    joined = profile(example.fn, *example.args, steps=steps, trace_dir=trace_dir)
    return dataclasses.replace(joined, label=f"{example.name}: {example.title}")
