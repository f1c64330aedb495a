"""Run the registered experiments on JAX's default device, one run at a time per process.

run_suite() holds the process's measurement lock (clock.lock), starts JAX (env), resolves the suite
for the backend and calls each experiment's function with an Env, reporting progress after
every measurement. The environment is perfcore.measure.experiments.env, the classic experiments
perfcore.measure.experiments.classic; their public names are re-exported here for callers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from perfcore.measure.clock.lock import LOCK, WAITING
from perfcore.measure.experiments.env import (
    NO_WORK,
    Case,
    Env,
    compile_case,
    detect,
    free_memory_bytes,
    jax_modules,
    start_jax,
)
from perfcore.measure.experiments.registry import EXPERIMENTS
from perfcore.measure.experiments.suites import SUITES, BackendFailed, Suite, resolve_suite
from perfcore.measure.results import Record
from perfcore.model.chip.specs import Device

__all__ = [
    "NO_WORK",
    "Case",
    "Env",
    "Progress",
    "compile_case",
    "detect",
    "free_memory_bytes",
    "jax_modules",
    "progress_printer",
    "run_suite",
    "start_jax",
]

Progress = Callable[[float, str], None]


@contextmanager
def _exclusive(wait_callback: Callable[[str], None] | None) -> Iterator[None]:
    """Hold the process-wide measurement lock, telling wait_callback if we must wait."""
    if not LOCK.acquire(blocking=False):
        if wait_callback is not None:
            wait_callback(WAITING)
        LOCK.acquire()
    try:
        yield
    finally:
        LOCK.release()


def _run_all(names: tuple[str, ...], env_of: Callable, plan: Suite, report: Progress) -> list:
    """Every named experiment's records, reporting progress after each measurement."""
    total, done, records = sum(EXPERIMENTS[n].count(plan) for n in names), [0], []

    def tick(message: str) -> None:
        done[0] += 1
        report(min(done[0] / total, 0.99), message)

    runtime_error = jax_modules()[0].errors.JaxRuntimeError
    for name in names:
        report(min(done[0] / total, 0.99), EXPERIMENTS[name].title)
        try:
            records += EXPERIMENTS[name].runner(env_of(tick))
        except runtime_error as error:  # the device or its driver; any other error is a bug
            raise BackendFailed(name, error.error_code_string, str(error)) from error
    report(1.0, f"done: {len(records)} records")
    return records


def run_suite(
    suite: str | Suite = "default",
    *,
    experiments: tuple[str, ...] | None = None,
    progress: Progress | None = None,
    wait_callback: Callable[[str], None] | None = None,
    specs: dict[str, Device] | None = None,
    budget_s: float | None = None,
) -> tuple[Record, ...]:
    """Run experiments (the suite's, else all) on JAX's default device, one suite at a time
    per process; budget_s, where given, replaces the suite's kernels budget (seconds)."""
    named = SUITES.get(suite) if isinstance(suite, str) else suite
    names = tuple(experiments or (named.experiments if named else ()) or EXPERIMENTS)
    unknown = [n for n in names if n not in EXPERIMENTS]
    if unknown:
        raise ValueError(f"unknown experiment(s) {unknown}; expected some of {list(EXPERIMENTS)}")
    report = progress or (lambda fraction, message: None)
    with _exclusive(wait_callback):
        report(0.0, "starting JAX")
        detected = detect(specs)
        plan = resolve_suite(suite, detected.backend)
        if budget_s is not None:
            plan = dataclasses.replace(plan, kernels_budget_s=budget_s)
        jax, jnp = jax_modules()

        def env_of(tick: Callable[[str], None]) -> Env:
            return Env(jax, jnp, detected, plan, tick)

        return tuple(_run_all(names, env_of, plan, report))


def progress_printer(stream: TextIO) -> Callable[[float, str], None]:
    """A progress callback drawing '[ 42%] message' on stream (one line each if not a tty)."""
    end = "\r" if stream.isatty() else "\n"

    def show(fraction: float, message: str) -> None:
        stream.write(f"[{fraction:4.0%}] {message:<60.60}{end if fraction < 1 else chr(10)}")
        stream.flush()

    return show
