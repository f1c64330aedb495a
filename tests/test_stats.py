"""measure.clock.stats: known values, the lessons' spread, and invariants of the vocabulary."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfcore.measure.clock import stats

positive_samples = st.lists(
    st.floats(min_value=1e-9, max_value=1e3, allow_nan=False), min_size=1, max_size=50
)


def test_median_and_quantiles_interpolate_linearly():
    assert stats.median([1, 2, 3, 4]) == 2.5
    assert stats.quantile([1, 2, 3, 4, 5], 0.25) == 2
    assert stats.quantile([0, 10], 0.3) == pytest.approx(3)


def test_iqr_and_spread_of_known_samples():
    assert stats.iqr([1, 2, 3, 4, 5]) == 2
    assert stats.spread([1, 2, 3, 4, 5]) == pytest.approx(2 / 3)


def test_a_single_sample_has_no_spread():
    assert stats.iqr([7.0]) == 0
    assert stats.spread([7.0]) == 0
    assert stats.run_to_run_spread([7.0]) == 0


def test_run_to_run_spread_reproduces_the_timing_lessons_21_percent():
    # The timing lessons: five runs put the 1024 figure between 5929.7 and 7167.1 µs.
    spread = stats.run_to_run_spread([5929.7e-6, 6400e-6, 7167.1e-6, 6100e-6, 6900e-6])
    assert round(spread, 2) == 0.21


def test_empty_samples_are_refused():
    with pytest.raises(ValueError):
        stats.median([])


@given(positive_samples, st.floats(0, 1), st.floats(0, 1))
def test_quantiles_are_monotone_and_within_min_max(samples, q1, q2):
    lo, hi = sorted((q1, q2))
    assert min(samples) <= stats.quantile(samples, lo) <= stats.quantile(samples, hi)
    assert stats.quantile(samples, hi) <= max(samples)


@given(positive_samples)
def test_the_spread_never_exceeds_the_full_range(samples):
    assert 0 <= stats.spread(samples) <= stats.run_to_run_spread(samples) + 1e-12
