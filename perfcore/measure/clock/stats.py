"""One statistics vocabulary for timing samples: quantiles, median, IQR and two spreads.

Quantiles interpolate linearly between order statistics (numpy's default), so a
single sample is its own median and has IQR 0. Both spreads are relative: `spread` is
IQR / median of one run's samples; `run_to_run_spread` is (max - min) / min of one
statistic over repeated runs.
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


def spread(samples: Sequence[float]) -> float:
    """IQR / median: the spread within one run, a fraction (0.05 = 5 %)."""
    middle = median(samples)
    return iqr(samples) / middle if middle > 0 else 0.0


def run_to_run_spread(statistic_per_run: Sequence[float]) -> float:
    """(max - min) / min of one statistic over repeated runs: a fraction (0.21 = 21 %).

    A difference between two results smaller than this is not a result yet.
    """
    array = _checked(statistic_per_run)
    low = float(array.min())
    return (float(array.max()) - low) / low if low > 0 else 0.0
