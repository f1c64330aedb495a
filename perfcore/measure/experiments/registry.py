"""The experiments a measurement run can time, by name, each with the function that runs it.

An Experiment holds its runner, a public function of an env.Env returning Records
(classic, roofline, collectives, fusion). Those modules import JAX only
inside a run, so the dashboard and the CLI list, describe and pick experiments before JAX
is loaded. A module adding experiments calls register(); the process-wide lock is clock.lock.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from perfcore.measure.experiments import classic, collectives, fusion, kernels, roofline
from perfcore.measure.experiments.suites import Suite


@dataclass(frozen=True)
class Experiment:
    """One experiment: its id, title, help line, runner function and measurement count."""

    name: str
    title: str
    runner: Callable[[Any], list]  # an env.Env -> its Records; imports JAX when called
    count: Callable[[Suite], int]
    help: str = ""
    heavy: bool = False  # long-running: opt-in, left out of the page's default selection
    takes: str = ""  # roughly how long its default suite runs, per device class

    @property
    def summary(self) -> str:
        """The experiment in one line: id, title, what it times, and how long if heavy."""
        what = f" ({self.help})" if self.help else ""
        return f"**{self.name}**: {self.title}{what}" + (f", {self.takes}" if self.takes else "")


EXPERIMENTS: dict[str, Experiment] = {}


def register(*experiments: Experiment) -> None:
    """Add experiments to the registry (a name registered again is replaced)."""
    for experiment in experiments:
        EXPERIMENTS[experiment.name] = experiment


def default_selection() -> list[str]:
    """The quick teaching experiments, run unless others are picked (heavy ones are opt-in)."""
    return [name for name, experiment in EXPERIMENTS.items() if not experiment.heavy]


# The classic experiments: quick, the page's default selection.
register(
    Experiment(
        "timer",
        "naive vs synchronized timer",
        classic.timer,
        lambda s: 2,
        "the same matmul loop timed without and with block_until_ready",
    ),
    Experiment(
        "barriers",
        "implicit barriers",
        classic.barriers,
        lambda s: 2,
        "reading a value every step vs accumulating on the device",
    ),
    Experiment(
        "sweep",
        "matmul size sweep",
        classic.sweep,
        lambda s: 1 + len(s.matmul_sizes),
        "achieved FLOP/s per matmul size, after the cost of an empty call",
    ),
    Experiment(
        "elementwise",
        "elementwise diagnosis",
        classic.elementwise,
        lambda s: 4,
        "add, mul, sin and sigmoid on one large array",
    ),
    Experiment(
        "dispatch",
        "dispatch vs compute",
        classic.dispatch,
        lambda s: 2 * len(s.dispatch_sizes),
        "isolated calls, unblocked and blocked, at each size",
    ),
    Experiment(
        "compile",
        "compile vs steady state",
        classic.compile_vs_steady,
        lambda s: 2,
        "a small MLP's first call against its steady step",
    ),
    Experiment(
        "blocking",
        "block at the end vs every call",
        classic.blocking,
        lambda s: 2,
        "the same loop blocked once or on every call",
    ),
    Experiment(
        "spread",
        "min vs mean, run-to-run spread",
        classic.spread,
        lambda s: s.spread_runs + 1,
        "repeated runs of one measurement and a back-to-back mean",
    ),
    Experiment(
        "ceilings",
        "empirical ceilings",
        classic.ceilings,
        lambda s: 2,
        "the largest matmul's FLOP/s and a device-memory copy's bytes/s",
    ),
)
register(
    Experiment(
        "roofline",
        "measured roofline",
        roofline.run,
        lambda s: len(s.roofline_dtypes) * len(s.roofline_sides) + 2 * len(s.stream_bytes),
        "best matmul FLOP/s per dtype; scale and triad bandwidth per working set, "
        "with each memory level's plateau found from the data",
        heavy=True,
        takes="about 2 min on a CPU, about 1 min on a GPU",
    ),
    Experiment(
        "collectives",
        "collectives over all devices",
        collectives.run,
        lambda s: 4 * len(s.collective_bytes),
        "all-reduce, all-gather, reduce-scatter and all-to-all per message size: "
        "algbw, busbw and a fitted alpha-beta model",
        heavy=True,
        takes="seconds with one device, minutes over several (up to 1 GiB per device)",
    ),
    Experiment(
        "fusion",
        "fusion, priced and measured",
        fusion.run,
        lambda s: 2 * len(s.fusion_chain),
        "a chain of k elementwise ops run one call each vs fused under one jit",
        heavy=True,
        takes="about 10 s on a CPU, a few seconds on a GPU",
    ),
    Experiment(
        "kernels",
        "kernel curves",
        kernels.run,
        kernels.count,
        "matmuls square, skinny and tall, causal attention forward and backward, "
        "elementwise, transcendental, reduction and copy per size and dtype, the "
        "collectives over several devices, and the dispatch per launched program "
        "(on an accelerator each kernel timed by the profiler's device clock): the curves "
        "an op's expected time is read from",
        heavy=True,
        takes="about 2 min (its budget, --budget)",
    ),
)


def jax_available() -> str | None:
    """None when JAX can be imported; otherwise how to install it."""
    if importlib.util.find_spec("jax") is None:
        return "JAX is not installed: pip install jax (CPU) or pip install 'jax[cuda12]' (GPU)"
    return None
