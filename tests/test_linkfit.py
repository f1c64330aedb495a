"""measure.results.linkfit: comm.py's alpha-beta model fitted to a sweep, algbw and busbw."""

import numpy as np
import pytest

from perfcore.measure.clock.harness import Measurement
from perfcore.measure.results import Record, linkfit
from perfcore.model.chip import comm

SIZES = [4**i for i in range(5, 14)]  # 1 KiB .. 64 MiB


def truth(collective="all-reduce", n=8, latency_s=20e-6, bytes_per_s=5e9):
    """A model with known constants, and the times it gives over SIZES."""
    model = linkfit.AlphaBeta(collective, n, latency_s, bytes_per_s)
    return model, [model.seconds(s) for s in SIZES]


@pytest.mark.parametrize("collective", ["all-reduce", "all-gather", "reduce-scatter", "all-to-all"])
def test_exact_alpha_beta_times_give_back_alpha_and_beta(collective):
    model, seconds = truth(collective)
    fitted = linkfit.fit_alpha_beta(collective, 8, SIZES, seconds)
    assert fitted.latency_s == pytest.approx(model.latency_s, rel=1e-9)
    assert fitted.bytes_per_s == pytest.approx(model.bytes_per_s, rel=1e-9)


def test_the_model_is_the_ring_time():
    """By hand, a 1 MiB all-reduce over 4 ranks: 2 x 3 = 6 hops x 10 µs, plus
    2 x 3/4 x 1,048,576 = 1,572,864 bytes at 1 GB/s = 1.572864 ms; 1.632864 ms in all."""
    model = linkfit.AlphaBeta("all-reduce", 4, 1e-5, 1e9)
    assert model.seconds(2**20) == pytest.approx(1.632864e-3, rel=1e-12)


def test_held_out_middle_sizes_are_predicted_from_the_ends():
    _, seconds = truth()
    model, errors = linkfit.fit_and_check("all-reduce", 8, SIZES, seconds)
    assert sorted(errors) == SIZES[3:6]
    assert all(abs(e) < 1e-9 for e in errors.values())


def test_a_negative_latency_from_noise_is_held_at_zero():
    fitted = linkfit.fit_alpha_beta("all-gather", 2, [1e3, 1e6], [1e-9, 2e-3])
    assert fitted.latency_s == 0
    assert fitted.bytes_per_s > 0


def test_a_sweep_whose_time_does_not_grow_has_no_bandwidth():
    with pytest.raises(linkfit.NoFit, match="does not grow"):
        linkfit.fit_alpha_beta("all-reduce", 8, [1e3, 1e6], [2e-3, 1e-3])
    with pytest.raises(linkfit.NoFit, match="two different sizes"):
        linkfit.fit_alpha_beta("all-reduce", 8, [1e3, 1e3], [1e-3, 1e-3])


def record(collective, n, size, seconds):
    """A collectives record of one size as experiments.collectives writes it."""
    sent = comm.collective_bytes(collective, size, n)
    return Record(
        experiment="collectives",
        label=f"{collective} {size}",
        device="cpu",
        backend="cpu",
        jax_version="0",
        timestamp="2026-01-01T00:00:00+00:00",
        shapes=((n, size // 4),),
        bytes=sent,
        size=size,
        size_kind="bytes",
        measurement=Measurement((seconds,)),
    )


# nccl-tests' PERFORMANCE.md bus factors for 8 ranks: 2(n-1)/n for all-reduce, else (n-1)/n.
NCCL_FACTOR_8 = {
    "all-reduce": 1.75,
    "all-gather": 0.875,
    "reduce-scatter": 0.875,
    "all-to-all": 0.875,
}


@pytest.mark.parametrize("collective", sorted(NCCL_FACTOR_8))
def test_busbw_over_algbw_is_nccl_tests_factor(collective):
    """1 MiB in 1 ms: algbw 1,048,576 / 1e-3 = 1.048576e9 B/s; busbw that x the factor."""
    (row,) = linkfit.table((record(collective, 8, 2**20, 1e-3),))
    assert row["algbw"] == pytest.approx(1.048576e9, rel=1e-12)
    assert row["busbw"] == pytest.approx(1.048576e9 * NCCL_FACTOR_8[collective], rel=1e-12)


def test_a_noisy_sweep_is_fitted_within_a_fixed_tolerance():
    """Times of a known model (alpha 20 µs, beta 5 GB/s) each scaled by a factor drawn
    uniformly from [1, 1.2] (other work only adds time): the fit recovers beta within 20 %
    and predicts every held-out size within 20 %, the noise's own bound."""
    model, seconds = truth()
    rng = np.random.default_rng(0)
    noisy = [t * f for t, f in zip(seconds, rng.uniform(1, 1.2, len(seconds)), strict=True)]
    fitted, errors = linkfit.fit_and_check("all-reduce", 8, SIZES, noisy)
    assert fitted.bytes_per_s == pytest.approx(model.bytes_per_s, rel=0.2)
    assert errors and all(abs(e) <= 0.2 for e in errors.values())


def test_sweep_reads_collective_ranks_sizes_and_medians_in_size_order():
    records = [record("all-to-all", 4, s, s * 1e-9 + 1e-5) for s in (4096, 1024)]
    collective, n, sizes, seconds = linkfit.sweep(records)
    assert (collective, n, sizes) == ("all-to-all", 4, [1024, 4096])
    assert seconds == [1024 * 1e-9 + 1e-5, 4096 * 1e-9 + 1e-5]


def test_a_sweep_that_cannot_be_fitted_is_noted_and_a_bug_in_the_fit_propagates(monkeypatch):
    """The old catch took any ValueError for 'too noisy a sweep', a bug in the fit included."""
    from perfcore.measure.experiments import collectives

    flat = [record("all-reduce", 8, s, 1e-3) for s in SIZES]  # time does not grow with size
    notes = {n for r in collectives._with_fit(flat) for n in r.notes}
    assert any(n.startswith("no alpha-beta fit: all-reduce: time does not grow") for n in notes)

    def buggy(*args):
        raise ValueError("shapes (2,) and (3,) not aligned")

    monkeypatch.setattr(linkfit, "fit_and_check", buggy)
    growing = [record("all-reduce", 8, s, s * 1e-9 + 1e-5) for s in SIZES]
    with pytest.raises(ValueError, match="not aligned"):
        collectives._with_fit(growing)
