"""The Plan page's published runs: those of a setup's regimes, the ones nearest its setting,
each measured against the bound this model gives at the run's own settings, and the
efficiency per regime the expected figures use. Both modes (plan.py, plan_serve.py) hold
their setup against these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from perfcore.model.runs.efficiency import Efficiency
from perfcore.model.runs.sample import Sample

NEAREST = 8  # published runs shown beside the bound


def nearest(
    samples, regimes: tuple[str, ...], model: str, device: str, setting: dict
) -> list[Sample]:
    """The NEAREST runs of these regimes: same model and device first, then same model, then
    same device, then the rest; within a group, by how many factors of 2 the run's settings
    (`setting`: Run field -> this page's value, e.g. gpus, seq_len) are from this one's."""

    def distance(s: Sample) -> tuple[int, float]:
        r = s.run
        group = {0: 0, 2: 1, 1: 2, 3: 3}[(r.model != model) + 2 * (r.device != device)]
        apart = sum(
            abs(math.log2(getattr(r, k) / v)) for k, v in setting.items() if getattr(r, k, None)
        )
        return group, apart

    return sorted((s for s in samples if s.regime in regimes), key=distance)[:NEAREST]


@dataclass(frozen=True)
class Held:
    """The published runs of a setup's regimes, those nearest it, and their efficiencies."""

    runs: tuple[Sample, ...]
    nearest: tuple[Sample, ...]
    efficiencies: tuple[Efficiency, ...]


def held(samples, table: dict, model: str, device: str, setup) -> Held:
    """The published runs the setup is held against (setup.regimes, setup.setting())."""
    mine = tuple(s for s in samples if s.regime in setup.regimes)
    near = tuple(nearest(mine, setup.regimes, model, device, setup.setting()))
    return Held(mine, near, tuple(table[r] for r in setup.regimes if r in table))


def runs_table(chosen: list[Sample]) -> pd.DataFrame:
    """The published runs shown: what they ran, the figure as printed, bound, efficiency."""
    df = pd.DataFrame(
        {
            "#": range(1, len(chosen) + 1),  # as the chart numbers them
            "run": [s.run.name for s in chosen],
            "regime": [s.regime for s in chosen],
            "model": [s.run.model for s in chosen],
            "device": [s.run.device for s in chosen],
            "GPUs": [s.run.gpus for s in chosen],
            "published": [f"{s.run.printed} {s.run.metric}" for s in chosen],
            "measured": [s.measured_s for s in chosen],
            "bound": [s.bound_s for s in chosen],
            "efficiency": [s.efficiency for s in chosen],
            "source": [s.run.source for s in chosen],
        }
    )
    df.attrs["units"] = {"measured": "seconds", "bound": "seconds", "efficiency": "percent"}
    return df


def runs_caption(h: Held) -> str:
    """What the runs shown are, and the efficiency each regime's expected figures use."""
    said = " ".join(f"Expected {e.regime}: {e.derived_from()}." for e in h.efficiencies)
    return (
        f"The {len(h.nearest)} published runs nearest this setting (same model and device "
        f"first) of {len(h.runs)} priced: each run's measured time (as its source printed "
        "it, converted to seconds) against the bound this model gives at its settings; "
        f"efficiency = bound ÷ measured. {said}"
    )
