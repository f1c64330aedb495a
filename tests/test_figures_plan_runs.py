"""The published-runs chart: runs at (bound, measured), the bound's diagonal, the expected
line and its held-out band per regime."""

from types import SimpleNamespace

import pytest

from perfcore.figures.chip.style import LIGHT
from perfcore.figures.plans import plan_runs as charts
from perfcore.model.runs.efficiency import Efficiency
from perfcore.model.runs.sample import Sample


def run_sample(name: str, bound: float, measured: float, regime: str = "train") -> Sample:
    """A published run priced: only what the chart reads."""
    run = SimpleNamespace(name=name, model="M", device="D", gpus=8)
    return Sample(run, regime, f"{name}'s paper", bound, measured)


SAMPLES = [run_sample("a", 1.0, 2.0), run_sample("b", 4.0, 5.0), run_sample("c", 0.5, 2.0)]
HALF = Efficiency("train", 0.5, 3, 2, 0.25, 0.8, None, None)


def test_the_published_chart_draws_the_bound_diagonal_and_expected_at_bound_over_efficiency():
    fig = charts.published_runs_figure(SAMPLES, SAMPLES[:1], [HALF], LIGHT)
    by = {t.name: t for t in fig.data}
    near, rest = by["nearest this setting (numbered as in the table)"], by["other published runs"]
    assert (list(near.x), list(near.y)) == ([1.0], [2.0]) and list(near.text) == ["1"]
    assert sorted(rest.x) == [0.5, 4.0]
    low, high = 0.25, 10.0  # half the smallest time, twice the largest
    assert list(by["at the bound"].y) == [low, high]
    assert list(by["expected train (bound ÷ 0.50)"].y) == [low / 0.5, high / 0.5]
    assert "efficiency 50.0 %" in near.hovertext[0]


def test_the_published_chart_shades_each_regimes_p90_band_around_its_expected_line():
    """Efficiency 0.5, p90 0.2: the measured time lies in 2 × bound ÷ (1 ± 0.2), i.e. 5/3 to
    5/2 of the bound; with p90 1.2 (past 100 %) the band has no upper end: it reaches the top."""
    held = Efficiency("train", 0.5, 3, 2, 0.25, 0.8, 0.1, 0.2)
    wide = Efficiency("decode", 0.5, 3, 2, 0.25, 0.8, 0.9, 1.2)
    fig = charts.published_runs_figure(SAMPLES, SAMPLES[:1], [held, wide], LIGHT)
    low, high = 0.25, 10.0  # the axis: half the smallest time, twice the largest
    name = "expected train: 20 % p90 error of held-out frameworks"
    lower, upper = [t for t in fig.data if t.legendgroup == name]
    assert list(lower.y) == pytest.approx([5 / 3 * low, 5 / 3 * high])
    assert list(upper.y) == pytest.approx([5 / 2 * low, 5 / 2 * high])
    assert upper.fill == "tonexty" and upper.showlegend and not lower.showlegend
    wide_name = "expected decode: 120 % p90 error of held-out frameworks"
    _, top = [t for t in fig.data if t.legendgroup == wide_name]
    assert list(top.y) == [high, high]
    no_band = charts.published_runs_figure(SAMPLES, SAMPLES[:1], [HALF], LIGHT)
    assert not [t for t in no_band.data if t.fill]  # no held-out error, nothing shaded
