"""Efficiency from published runs, conditioned on what the data support, and its held-out error.

Each run's efficiency = its bound time ÷ its measured time (1 at the bound). Runs fall in
cells: regime (train, prefill, decode) × attention-heavy (sample.setting) ×
FP8 (8 bits or fewer) × framework family (× batching, where a serving candidate splits by
it). A cell's efficiency is the median of its runs'; a cell with fewer than MIN_RUNS runs falls
back to its parent (framework dropped first, then FP8, then attention-heavy, then batching; the
regime's own cell whatever it holds). The error is leave-one-framework-out, per regime: each
family's runs predicted as bound ÷ the efficiency the other families' runs give their setting,
|expected ÷ measured − 1|, median and p90.
An expected figure is (bound + what `Exposure` adds) ÷ efficiency, labelled with what it
was derived from: the efficiency is taken on that basis, not on the bound alone
(docs/plans.md, "Expected figures": the candidates and why this one).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from perfcore.model.chip import kernels
from perfcore.model.runs.sample import FLASH2_ON_HOPPER, Exposure, Sample, Setting

if TYPE_CHECKING:
    from perfcore.model.runs.rows import Run

REGIMES = ("train", "prefill", "decode")
MIN_RUNS = 5  # a cell with fewer runs is not trusted on its own: its parent speaks for it
MIN_FAMILIES = 2  # nor a cell above the framework level whose runs are one family's


@dataclass(frozen=True)
class Efficiency:
    """A cell's efficiency and how well its regime predicts frameworks it has not seen."""

    regime: str
    value: float  # median of the runs' efficiencies
    runs: int
    sources: int
    low: float
    high: float
    error_median: float | None  # leave-one-framework-out; None with one framework
    error_p90: float | None
    setting: Setting | None = None  # the cell; None: the whole regime
    families: int = 0  # framework families among the runs
    pair_error: float | None = None  # median |eff_a / eff_b - 1| of one source's pairs

    @property
    def tie(self) -> float:
        """Two plans' expected steps closer than this are a tie: the regime's pair error."""
        return self.pair_error or 0.0

    def expected_s(self, bound_s: float, added_s: float = 0.0) -> float:
        """Expected seconds: (the bound + what Exposure adds to it) over this efficiency."""
        return (bound_s + added_s) / self.value

    def band_s(self, bound_s: float, added_s: float = 0.0) -> tuple[float, float | None]:
        """Seconds the measured figure lies in when the expected one is off by the p90 error
        or less: expected ÷ (1 ± p90), never below the bound; None above where p90 ≥ 1."""
        e, q = self.expected_s(bound_s, added_s), self.error_p90 or 0.0
        return max(bound_s, e / (1 + q)), (e / (1 - q) if q < 1 else None)

    def error(self) -> dict[str, float | None]:
        """The JSON `expected_error`: leave-one-framework-out median and p90."""
        return {"median": self.error_median, "p90": self.error_p90}

    def derived_from(self, basis: str | None = None) -> str:
        """What the figure rests on, in words (`basis`: what the efficiency divides, where not
        the regime's own basis)."""
        finer = self.setting not in (None, Setting(self.regime))
        cell = f" ({self.setting.label()})" if finer else ""
        held = (
            ""
            if self.error_median is None
            else f"; leave-one-framework-out error {self.error_median:.0%} median, "
            f"{self.error_p90:.0%} p90"
        )
        basis = basis or (
            "(bound + TP's, EP's and PP's hidden communication + a quarter of the DP, ZeRO and "
            "CP traffic the compute hides + FP8's BF16 parts + the memory-bound math + the "
            "attention core again, at half the GEMMs' rate, and "
            f"{FLASH2_ON_HOPPER:g}× slower still for a kernel written for Ampere on a Hopper)"
            if self.regime == "train"
            else "(bound + kernel boundaries + no-overlap)"
        )
        return (
            f"{basis} ÷ {self.value:.2f}, the median efficiency of {self.runs} published "
            f"{self.regime} runs{cell} from {self.sources} sources (range "
            f"{self.low:.2f}-{self.high:.2f}){held}"
        )


@dataclass(frozen=True, eq=False)
class Table(Mapping):
    """Efficiency per cell; as a mapping, regime -> the regime's own cell."""

    cells: dict

    def __getitem__(self, regime: str) -> Efficiency:
        """The regime's cell (all its runs)."""
        return self.cells[Setting(regime)]

    def __iter__(self) -> Iterator[str]:
        """Regimes with runs, in REGIMES order."""
        return iter(r for r in REGIMES if Setting(r) in self.cells)

    def __len__(self) -> int:
        """How many regimes have runs."""
        return sum(1 for _ in self)

    def of(self, wanted: Setting) -> Efficiency | None:
        """The finest cell of `wanted`'s chain with MIN_RUNS runs, else the regime's; None
        where no run informs the regime."""
        return _finest(self.cells, wanted, lambda c, e: _trusted(c, e.runs, e.families))


def _finest(cells: dict, wanted: Setting, trusted: Callable[[Setting, object], bool]):
    """The first cell of wanted.chain() `trusted`, else the regime's (or None)."""
    for cell in wanted.chain()[:-1]:
        if cell in cells and trusted(cell, cells[cell]):
            return cells[cell]
    return cells.get(Setting(wanted.regime))


def _trusted(cell: Setting, runs: int, families: int) -> bool:
    """MIN_RUNS runs, from MIN_FAMILIES framework families unless the cell is one family's."""
    return runs >= MIN_RUNS and (cell.framework is not None or families >= MIN_FAMILIES)


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


def _grouped(group: Iterable[Sample]) -> dict[Setting, list[Sample]]:
    """Each sample under every cell of its chain."""
    by: dict[Setting, list[Sample]] = {}
    for s in group:
        for cell in s.setting.chain():
            by.setdefault(cell, []).append(s)
    return by


def held_out_ratios(
    group: list[Sample], fit: Callable[[list[Sample]], Exposure] | None = None
) -> list[tuple[Sample, float]]:
    """(run, expected ÷ measured) of each run, its framework family left out of the cells (and
    of `fit`, which estimates the Exposure from the other families' runs where given)."""
    out = []
    for family in sorted({s.family for s in group}):
        rest = [s for s in group if s.family != family]
        held = [s for s in group if s.family == family]
        if fit is not None:
            ex = fit(rest)
            rest, held = ([replace(s, exposure=ex) for s in g] for g in (rest, held))
        cells = _grouped(rest)
        for s in held:
            cell = _finest(cells, s.setting, lambda c, g: _trusted(c, len(g), _families(g)))
            if cell is not None:
                eff = statistics.median(o.eta for o in cell)
                out.append((s, s.basis_s / eff / s.measured_s))
    return out


def held_out_errors(
    group: list[Sample], fit: Callable[[list[Sample]], Exposure] | None = None
) -> list[float]:
    """|expected ÷ measured − 1| of each run held out (held_out_ratios)."""
    return [abs(r - 1) for _, r in held_out_ratios(group, fit)]


def pair_errors(group: list[Sample]) -> list[float]:
    """|eff_a / eff_b - 1| of each pair of runs from one source with the same case (model,
    device, precision, length): how far the model misjudges two layouts against each other."""
    by: dict[tuple, list[float]] = {}
    for s in group:
        if s.case:
            by.setdefault((s.source, s.case), []).append(s.eta)
    return [
        abs(a / b - 1) for effs in by.values() for i, a in enumerate(effs) for b in effs[i + 1 :]
    ]


def _families(group: list[Sample]) -> int:
    """How many framework families the samples come from."""
    return len({s.family for s in group})


def p90(values: list[float]) -> float:
    """The 90th percentile (inclusive; the value itself for one)."""
    if len(values) < 2:
        return values[0]
    return statistics.quantiles(values, n=10, method="inclusive")[-1]


def efficiencies(all_samples: Iterable[Sample]) -> Table:
    """Efficiency per cell (only cells with runs), each with its regime's held-out error."""
    cells = _grouped(all_samples)
    present = [r for r in REGIMES if Setting(r) in cells]
    errors = {r: held_out_errors(cells[Setting(r)]) for r in present}
    pairs = {r: pair_errors(cells[Setting(r)]) for r in present}
    out = {}
    for cell, group in cells.items():
        effs, err = [s.eta for s in group], errors[cell.regime]
        out[cell] = Efficiency(
            cell.regime,
            statistics.median(effs),
            len(group),
            len({s.source for s in group}),
            min(effs),
            max(effs),
            statistics.median(err) if err else None,
            p90(err) if err else None,
            cell,
            _families(group),
            statistics.median(pairs[cell.regime]) if pairs[cell.regime] else None,
        )
    return Table(out)


def expected(bound_s: float, regime: str, table: Mapping) -> float | None:
    """bound ÷ the regime's efficiency (nothing added); None where no published run informs
    the regime."""
    eff = table.get(regime)
    return None if eff is None else eff.expected_s(bound_s)


WITHIN = 0.25  # "expected within 25 %" of the measured figure


@dataclass(frozen=True)
class HeldOut:
    """Leave-one-framework-out on a set of runs: how many, how many within WITHIN, median."""

    runs: int
    within: int
    median: float

    @property
    def share(self) -> float:
        """Fraction of the runs whose expected figure is within WITHIN of the measured."""
        return self.within / self.runs


def held_out(
    all_samples: Iterable[Sample],
    regimes: tuple[str, ...],
    fit: Callable[[list[Sample]], Exposure] | None = None,
) -> HeldOut:
    """Leave-one-framework-out errors of the runs in `regimes`, each regime held out alone
    (`fit`: as held_out_errors)."""
    group = list(all_samples)
    errors = [e for r in regimes for e in held_out_errors([s for s in group if s.regime == r], fit)]
    return HeldOut(len(errors), sum(e <= WITHIN for e in errors), statistics.median(errors))


def violations(all_samples: Iterable[Sample]) -> int:
    """Runs measured faster than their bound (efficiency above 1)."""
    return sum(s.efficiency > 1 for s in all_samples)


def kernel_fallback(table: dict[str, Efficiency], compute_bound: bool) -> kernels.Efficiency:
    """The published runs' efficiency for a kernel on a device without curves: compute-bound
    kernels take the training runs' (else prefill's), memory-bound ones decode's."""
    names = ("train", "prefill") if compute_bound else ("decode",)
    eff = next((table[n] for n in names if n in table), None)
    if eff is None:
        raise ValueError(f"no published {' or '.join(names)} runs to take an efficiency from")
    # Said as a kernel's: its roofline bound is what the runs' median divides here, not the
    # whole step's basis those runs were measured against.
    basis = "no kernel curve for it here: the op's roofline bound"
    return kernels.Efficiency(eff.value, kernels.PUBLISHED, eff.derived_from(basis))
