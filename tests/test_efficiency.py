"""Efficiency per regime from published runs, and its leave-one-source-out error."""

from dataclasses import dataclass

import pytest

from perfcore.model.runs import efficiency


@dataclass(frozen=True)
class Row:
    """A run as the runs loader gives it (only what efficiency needs, plus the figures)."""

    source: str
    regime: str
    bound_s: float
    measured_s: float


ROWS = [
    Row("paper A", "train", 1.0, 2.0),
    Row("paper A", "train", 1.0, 2.5),
    Row("bench B", "train", 2.0, 5.0),
    Row("bench C", "train", 1.0, 1.6),
    Row("bench B", "decode", 1.0, 1.25),
]


def priced(row):
    return row.regime, row.bound_s, row.measured_s


def test_the_efficiency_is_the_median_of_bound_over_measured():
    """train efficiencies 0.5, 0.4, 0.4, 0.625 -> median 0.45; decode one run, 0.8."""
    table = efficiency.efficiencies(efficiency.samples(ROWS, priced))
    assert table["train"].value == pytest.approx(0.45)
    assert (table["train"].runs, table["train"].sources) == (4, 3)
    assert table["decode"].value == pytest.approx(0.8)
    assert table["decode"].loso_median_error is None


def test_leave_one_source_out_predicts_each_source_from_the_others():
    """Leaving out A: median(0.4, 0.625) = 0.5125 -> A's runs expected 1.951 s (measured 2.0,
    error 2.44 %) and 1.951 s (2.5: 21.95 %). Leaving out B: median(0.5, 0.4, 0.625) = 0.5 ->
    4.0 s (5.0: 20 %). Leaving out C: median(0.5, 0.4, 0.4) = 0.4 -> 2.5 s (1.6: 56.25 %).
    Median of the four errors 20.98 %, max 56.25 %."""
    table = efficiency.efficiencies(efficiency.samples(ROWS, priced))
    assert table["train"].loso_median_error == pytest.approx((0.2 + 0.2195122) / 2, rel=1e-5)
    assert table["train"].loso_max_error == pytest.approx(0.5625)


def test_expected_is_the_bound_over_the_efficiency_and_none_without_runs():
    table = efficiency.efficiencies(efficiency.samples(ROWS, priced))
    assert efficiency.expected(9.0, "train", table) == pytest.approx(20.0)
    assert efficiency.expected(9.0, "prefill", table) is None
    assert "median efficiency of 4 published train runs from 3 sources" in (
        table["train"].derived_from()
    )


def test_runs_the_pricer_cannot_price_are_left_out():
    got = efficiency.samples(ROWS, lambda r: None if r.source == "paper A" else priced(r))
    assert {s.source for s in got} == {"bench B", "bench C"}
