"""The Plan page's ranked layouts table (perfcore.explain.plans.plan_layouts): fastest first, the
expected step at bound over efficiency, the fastest hundred with a caption saying how many fit."""

import pytest

from perfcore.explain.plans import plan
from perfcore.explain.plans import plan_layouts as layouts
from perfcore.model.runs import published
from perfcore.model.runs.efficiency import Table
from tests.support.plans import H100, L70, small_view


@pytest.fixture(scope="module")
def small(specs):
    """The shared small training view (tests.support.plans)."""
    return small_view(specs)


def test_the_layouts_table_is_fastest_first_with_expected_at_bound_over_efficiency(small):
    df = layouts.layouts_table(small)
    assert len(df) == min(100, len(small.found.candidates))
    assert list(df["rank"]) == list(range(1, len(df) + 1))
    plans = small.found.candidates[: len(df)]
    assert list(df["layout"]) == [p.layout.label() for p in plans]  # in the search's order
    # efficiency 0.5: the expected step is twice the bound plus what the bound hides
    basis = [p.step_s + published.added_s(p) for p in plans]
    assert df["step (expected)"].to_numpy() == pytest.approx([2 * b for b in basis])
    assert df.attrs["units"]["step (expected)"] == "seconds"
    # p90 error 0.2: the measured step lies in 2 × basis ÷ (1 ± 0.2) = 5/3 to 5/2 of the basis
    assert df["expected, low (p90)"].to_numpy() == pytest.approx([5 / 3 * b for b in basis])
    assert df["expected, high (p90)"].to_numpy() == pytest.approx([5 / 2 * b for b in basis])
    assert "step (expected)" not in layouts.layouts_table(plan.TrainView(small.found, Table({})))


def test_the_table_holds_the_fastest_hundred_and_its_caption_says_how_many_fit(specs):
    v = plan.train_view(L70, specs[H100], plan.TrainSetup(), {})
    fit = len(v.found.candidates)
    assert fit > 100 and len(layouts.layouts_table(v)) == 100
    assert fit < v.found.fitting <= v.found.considered
    assert layouts.layouts_caption(v).startswith(
        f"{fit:,} parallel layouts fit in memory ({v.found.fitting:,} of the "
        f"{v.found.considered:,} variants priced"
    )
    assert "the fastest 100," in layouts.layouts_caption(v)
