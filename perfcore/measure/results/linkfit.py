"""Collectives measured: nccl-tests' algbw and busbw per size, and comm.py's model fitted.

comm.py's alpha-beta model: t = steps x alpha + bytes sent per rank / beta, with the ring's
steps and nccl-tests' bytes factor for each collective. Given a size sweep, alpha (seconds
per step) and beta (bytes/s) come from least squares on time against bytes sent, weighted by
1/t^2 so every size counts by its relative error (a log-spaced sweep spans 1000x in time);
alpha is held at zero if the unconstrained fit makes it negative. Held-out middle sizes test
the fit: sizes it never saw, predicted from the two ends of the sweep.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from perfcore import format as fmt
from perfcore.measure.results import Record
from perfcore.model.chip import comm


class NoFit(ValueError):
    """A sweep the model cannot be fitted to (one size, no time growth): said in the records'
    notes, not raised; any other error in a fit is a bug and propagates."""


@dataclass(frozen=True)
class AlphaBeta:
    """comm.py's alpha-beta model of one collective over n_ranks, with fitted constants."""

    collective: str
    n_ranks: int
    latency_s: float
    bytes_per_s: float

    @property
    def steps(self) -> int:
        """Latency hops of the ring for this collective and rank count."""
        return comm.RING_STEPS[self.collective](self.n_ranks)

    def seconds(self, buffer_bytes: float) -> float:
        """Predicted time of the collective over a buffer of buffer_bytes, seconds."""
        sent = comm.collective_bytes(self.collective, buffer_bytes, self.n_ranks)
        return comm.alpha_beta_time(sent, self.bytes_per_s, self.latency_s, self.steps)


def _weighted_line(xs: Sequence[float], ts: Sequence[float]) -> tuple[float, float]:
    """Intercept and slope of t = a + b x minimising sum(((a + b x - t) / t)^2)."""
    x, t = np.asarray(xs, dtype=float), np.asarray(ts, dtype=float)
    if np.ptp(x) == 0:
        raise NoFit("a fit needs at least two different sizes")
    scaled = np.stack([np.ones_like(x), x], axis=1) / t[:, None]
    (a, b), *_ = np.linalg.lstsq(scaled, np.ones_like(t), rcond=None)
    if a < 0:  # a negative latency is noise: refit through the origin
        (b,), *_ = np.linalg.lstsq(scaled[:, 1:], np.ones_like(t), rcond=None)
        a = 0.0
    return float(a), float(b)


def fit_alpha_beta(
    collective: str, n_ranks: int, buffer_bytes: Sequence[float], seconds: Sequence[float]
) -> AlphaBeta:
    """comm.py's model for the collective with alpha and beta fitted to (size, time) pairs."""
    if n_ranks < 2 or len(buffer_bytes) != len(seconds) or min(seconds, default=0) <= 0:
        raise NoFit("a fit needs >= 2 ranks and one positive time per size")
    xs = [comm.collective_bytes(collective, s, n_ranks) for s in buffer_bytes]
    a, b = _weighted_line(xs, seconds)
    if b <= 0:
        raise NoFit(f"{collective}: time does not grow with size; no bandwidth to fit")
    return AlphaBeta(collective, n_ranks, a / comm.RING_STEPS[collective](n_ranks), 1 / b)


def held_out(count: int) -> range:
    """Indices of the middle third of `count` sorted sizes: the fit never sees them."""
    return range(count // 3, count - count // 3) if count >= 5 else range(0)


def fit_and_check(
    collective: str, n_ranks: int, buffer_bytes: Sequence[float], seconds: Sequence[float]
) -> tuple[AlphaBeta, dict[float, float]]:
    """The model fitted without the middle sizes, and each middle size's prediction error.

    The error is (predicted - measured) / measured, a signed fraction, keyed by buffer bytes.
    """
    middle = held_out(len(buffer_bytes))
    keep = [i for i in range(len(buffer_bytes)) if i not in middle]
    model = fit_alpha_beta(
        collective, n_ranks, [buffer_bytes[i] for i in keep], [seconds[i] for i in keep]
    )
    errors = {buffer_bytes[i]: model.seconds(buffer_bytes[i]) / seconds[i] - 1 for i in middle}
    return model, errors


def bandwidths(collective: str, n_ranks: int, buffer_bytes: float, seconds: float):
    """nccl-tests' (algbw, busbw) in bytes/s for one timed collective, from comm.py."""
    algbw = comm.algbw(buffer_bytes, seconds)
    return algbw, comm.busbw(algbw, collective, n_ranks)


def collective_of(record: Record) -> str:
    """The collective a collectives record timed, from its label ('all-reduce 1.00 MiB')."""
    return record.label.split()[0]


def sweep(records: list[Record]) -> tuple[str, int, list[float], list[float]]:
    """(collective, ranks, buffer sizes, median seconds) of one collective's records, by size."""
    ordered = sorted(records, key=lambda r: r.size)
    first = ordered[0]
    sizes = [r.size for r in ordered]
    return collective_of(first), first.shapes[0][0], sizes, [r.measurement.median for r in ordered]


def fit_note(model: AlphaBeta, errors: dict[float, float]) -> str:
    """One line: the fitted alpha and beta and the held-out sizes' prediction errors."""
    held = ", ".join(f"{fmt.capacity(s)} {e:+.0%}" for s, e in errors.items())
    return (
        f"alpha-beta fit on the outer sizes: alpha {fmt.seconds(model.latency_s)} per step, "
        f"beta {fmt.bytes_per_s(model.bytes_per_s)}; held-out {held or 'none'}"
    )


def table(records: tuple[Record, ...]) -> list[dict]:
    """One row per collectives record: collective, ranks, size, seconds, algbw, busbw (SI)."""
    rows = []
    for r in records:
        if r.experiment != "collectives" or not r.size:
            continue
        collective, n = collective_of(r), r.shapes[0][0]
        algbw, busbw = bandwidths(collective, n, r.size, r.measurement.median)
        rows.append(
            {
                "collective": collective,
                "ranks": n,
                "size": r.size,
                "seconds": r.measurement.median,
                "spread": r.measurement.spread,
                "algbw": algbw,
                "busbw": busbw,
            }
        )
    return rows
