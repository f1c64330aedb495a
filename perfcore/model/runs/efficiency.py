"""Efficiency per regime from published runs: how far measured runs land from the bound.

Each run's efficiency = its bound time ÷ its measured time (1 at the bound). A regime's
efficiency is the median over its runs (train: compute-bound training steps; prefill:
compute-bound prefill; decode: memory-bound decode). Its leave-one-source-out error: each
source's runs predicted (bound ÷ the median of the other sources' runs) and compared with
what they measured; the median and the largest |expected - measured| / measured.
An expected figure is bound ÷ efficiency, labelled with what it was derived from.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from perfcore.model.chip import kernels

REGIMES = ("train", "prefill", "decode")


class Run(Protocol):
    """What this module needs of a published run: where it was published."""

    source: str


@dataclass(frozen=True)
class Sample:
    """One run priced: its regime, its bound and its measured time (seconds)."""

    run: object
    regime: str
    source: str
    bound_s: float
    measured_s: float

    @property
    def efficiency(self) -> float:
        """Bound time over measured time (1 = at the bound)."""
        return self.bound_s / self.measured_s


@dataclass(frozen=True)
class Efficiency:
    """A regime's efficiency and how well it predicts runs from a source it has not seen."""

    regime: str
    value: float  # median of the runs' efficiencies
    runs: int
    sources: int
    low: float
    high: float
    loso_median_error: float | None  # None with a single source
    loso_max_error: float | None

    def expected_s(self, bound_s: float) -> float:
        """Expected seconds: the bound over this efficiency."""
        return bound_s / self.value

    def derived_from(self) -> str:
        """What the figure rests on, in words."""
        loso = (
            ""
            if self.loso_median_error is None
            else f"; leave-one-source-out error {self.loso_median_error:.0%} median, "
            f"{self.loso_max_error:.0%} max"
        )
        return (
            f"bound ÷ {self.value:.2f}, the median efficiency of {self.runs} published "
            f"{self.regime} runs from {self.sources} sources (range "
            f"{self.low:.2f}-{self.high:.2f}){loso}"
        )


def samples(
    runs: Iterable[Run], priced: Callable[[Run], tuple[str, float, float] | None]
) -> list[Sample]:
    """Sample per run that `priced` can price: it returns (regime, bound_s, measured_s)."""
    out = []
    for run in runs:
        got = priced(run)
        if got is not None:
            regime, bound_s, measured_s = got
            out.append(Sample(run, regime, run.source, bound_s, measured_s))
    return out


def _errors(group: list[Sample]) -> list[float]:
    """|expected - measured| / measured of each run, its own source left out of the median."""
    errors = []
    for source in {s.source for s in group}:
        others = [s.efficiency for s in group if s.source != source]
        if not others:
            continue
        eff = statistics.median(others)
        errors += [
            abs(s.bound_s / eff - s.measured_s) / s.measured_s for s in group if s.source == source
        ]
    return errors


def efficiencies(all_samples: Iterable[Sample]) -> dict[str, Efficiency]:
    """Efficiency per regime (only regimes with runs), with its leave-one-source-out error."""
    by: dict[str, list[Sample]] = {}
    for s in all_samples:
        by.setdefault(s.regime, []).append(s)
    out = {}
    for regime, group in by.items():
        effs = [s.efficiency for s in group]
        errors = _errors(group)
        out[regime] = Efficiency(
            regime,
            statistics.median(effs),
            len(group),
            len({s.source for s in group}),
            min(effs),
            max(effs),
            statistics.median(errors) if errors else None,
            max(errors) if errors else None,
        )
    return out


def expected(bound_s: float, regime: str, table: dict[str, Efficiency]) -> float | None:
    """bound ÷ the regime's efficiency; None where no published run informs the regime."""
    eff = table.get(regime)
    return None if eff is None else eff.expected_s(bound_s)


def kernel_fallback(table: dict[str, Efficiency], compute_bound: bool) -> kernels.Efficiency:
    """The published runs' efficiency for a kernel on a device without curves: compute-bound
    kernels take the training runs' (else prefill's), memory-bound ones decode's."""
    names = ("train", "prefill") if compute_bound else ("decode",)
    eff = next((table[n] for n in names if n in table), None)
    if eff is None:
        raise ValueError(f"no published {' or '.join(names)} runs to take an efficiency from")
    return kernels.Efficiency(eff.value, kernels.PUBLISHED, eff.derived_from())
