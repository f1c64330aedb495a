"""Fusion on this machine's CPU: the fused chain moves the bytes the model says, and wins."""

import pytest

from perfcore.measure import jax_bench
from perfcore.measure.devices import CROSSCHECK_TOLERANCE


@pytest.fixture(scope="module")
def records():
    return {r.label: r for r in jax_bench.run_suite("quick", experiments=("fusion",))}


@pytest.mark.parametrize("k", [1, 2, 4, 8])
def test_cost_analysis_bytes_agree_with_the_model_within_5_percent(records, k):
    for kind in ("unfused", "fused"):
        r = records[f"{kind}, k={k}"]
        assert abs(r.bytes - r.bytes_model) <= CROSSCHECK_TOLERANCE * r.bytes_model
        assert "agrees with" in r.note


@pytest.mark.parametrize("k", [2, 4, 8])
def test_fusion_moves_k_times_fewer_bytes(records, k):
    assert records[f"unfused, k={k}"].bytes_model == k * records[f"fused, k={k}"].bytes_model


@pytest.mark.parametrize("k", [4, 8])
def test_fused_is_faster_than_unfused_from_k_4(records, k):
    fused, unfused = records[f"fused, k={k}"], records[f"unfused, k={k}"]
    print(f"k={k}: {fused.note}")
    assert fused.measurement.median < unfused.measurement.median
    assert fused.flops == unfused.flops  # the same arithmetic, fewer bytes
