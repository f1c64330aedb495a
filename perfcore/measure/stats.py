"""One statistics vocabulary for timing samples: quantiles, median, IQR and spread.

Quantiles interpolate linearly between order statistics (numpy's default), so a
single sample is its own median and has IQR 0. "Spread" is always relative:
IQR / median within one run, (max - min) / min across values or runs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _checked(values: Sequence[float]) -> np.ndarray:
    """The values as a float array; ValueError when empty."""
    array = np.asarray(values, dtype=float)
    if array.size == 0:
        raise ValueError("statistics need at least one value")
    return array


def quantile(values: Sequence[float], q: float) -> float:
    """The q-quantile (0 <= q <= 1) of values, linearly interpolated; same unit as values."""
    return float(np.quantile(_checked(values), q))


def median(values: Sequence[float]) -> float:
    """The median of values; same unit as values."""
    return quantile(values, 0.5)


def iqr(values: Sequence[float]) -> float:
    """Interquartile range (75th minus 25th percentile); same unit as values."""
    return quantile(values, 0.75) - quantile(values, 0.25)


def relative_iqr(values: Sequence[float]) -> float:
    """IQR / median: the spread within one run, a fraction (0.05 = 5 %)."""
    middle = median(values)
    return iqr(values) / middle if middle > 0 else 0.0


def relative_range(values: Sequence[float]) -> float:
    """(max - min) / min: the full spread of values, a fraction (0.21 = 21 %)."""
    array = _checked(values)
    low = float(array.min())
    return (float(array.max()) - low) / low if low > 0 else 0.0


def run_to_run_spread(statistic_per_run: Sequence[float]) -> float:
    """(max - min) / min of one statistic over repeated runs: a fraction.

    A difference between two results smaller than this is not a result yet.
    """
    return relative_range(statistic_per_run)
