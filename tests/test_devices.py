"""perfcore.measure.clock.devices: device_kind -> specs row, the roof a run ran under, costs."""

import pytest

from perfcore.measure.clock import devices
from perfcore.model.chip.specs import Device


def device(name: str, vendor: str = "NVIDIA", kinds: tuple[str, ...] = ()) -> Device:
    return Device(name, vendor, 2022, jax_device_kinds=kinds)


# Rows without jax_device_kinds: matched by the words of their names alone.
SPECS = {
    d.name: d
    for d in map(
        device,
        [
            "NVIDIA H100 SXM",
            "NVIDIA H100 PCIe",
            "NVIDIA H100 SXM (round figures)",
            "NVIDIA A100 SXM4 80GB",
            "NVIDIA A100 PCIe 40GB",
            "NVIDIA A10",
            "NVIDIA GeForce RTX 4090",
            "NVIDIA H200 SXM",
        ],
    )
} | {"Google TPU v4": device("Google TPU v4", "Google")}


@pytest.mark.parametrize(
    ("device_kind", "expected"),
    [
        ("NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM"),
        ("NVIDIA H100 PCIe", "NVIDIA H100 PCIe"),
        ("NVIDIA A100-SXM4-80GB", "NVIDIA A100 SXM4 80GB"),
        ("NVIDIA A100-PCIE-40GB", "NVIDIA A100 PCIe 40GB"),
        ("NVIDIA A10", "NVIDIA A10"),
        ("NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090"),
        ("NVIDIA H200", "NVIDIA H200 SXM"),
        ("TPU v4", "Google TPU v4"),
    ],
)
def test_match_device_finds_the_specs_row_a_device_kind_names(device_kind, expected):
    assert devices.match_device(device_kind, SPECS).name == expected


@pytest.mark.parametrize(
    "device_kind",
    ["cpu", "NVIDIA A100-SXM4-40GB", "NVIDIA A100 80GB PCIe", "NVIDIA H100 NVL", "NVIDIA H200 NVL"],
)
def test_match_device_says_unknown_rather_than_guess(device_kind):
    assert devices.match_device(device_kind, SPECS) is None


def test_an_exact_jax_device_kind_wins_over_the_words_of_a_name():
    specs = SPECS | {"Google TPU v5e": device("Google TPU v5e", "Google", ("TPU v5 lite",))}
    assert devices.match_device("TPU v5 lite", specs).name == "Google TPU v5e"
    assert devices.match_device("TPU v5 lite", SPECS) is None  # the words alone do not say v5e


def test_a_device_kind_two_rows_claim_is_ambiguous():
    twice = {n: device(n, kinds=("NVIDIA X1",)) for n in ("NVIDIA X1 a", "NVIDIA X1 b")}
    assert devices.match_device("NVIDIA X1", twice) is None


def test_every_bundled_jax_device_kind_matches_its_own_row(specs):
    listed = [(kind, d.name) for d in specs.values() for kind in d.jax_device_kinds]
    assert len(listed) >= 18
    for kind, name in listed:
        assert devices.match_device(kind, specs).name == name, kind


@pytest.mark.parametrize(
    ("device_kind", "expected"),
    [
        ("TPU v5 lite", "Google TPU v5e"),
        ("TPU v5", "Google TPU v5p"),
        ("TPU v6 lite", "Google TPU v6e"),
        ("Tesla V100-SXM2-32GB", "NVIDIA V100 SXM2 32GB"),
        ("NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM"),
    ],
)
def test_bundled_specs_name_the_real_device_kinds(specs, device_kind, expected):
    assert devices.match_device(device_kind, specs).name == expected


@pytest.mark.parametrize("device_kind", ["NVIDIA H100 NVL", "NVIDIA H200 NVL", "cpu"])
def test_h100_nvl_never_matches_the_h100_sxm_row(specs, device_kind):
    assert devices.match_device(device_kind, specs) is None


def test_the_round_figures_row_claims_no_device_kind(specs, h100):
    assert h100.jax_device_kinds == ()


@pytest.mark.parametrize(
    ("dtype", "platform", "setting", "matmul", "cc", "expected"),
    [
        ("float32", "cpu", None, True, None, "fp32"),
        ("float32", "gpu", None, True, "9.0", "tf32"),
        ("float32", "gpu", None, True, "7.0", "fp32"),
        ("float32", "gpu", "highest", True, "9.0", "fp32"),
        ("float32", "gpu", "bfloat16", True, "9.0", "bf16"),
        ("float32", "gpu", None, False, "9.0", "fp32"),
        ("bfloat16", "gpu", None, True, "9.0", "bf16"),
        ("float32", "tpu", None, True, None, "bf16"),
    ],
)
def test_precision_ran_names_the_roof_the_work_ran_under(
    dtype, platform, setting, matmul, cc, expected
):
    got = devices.precision_ran(dtype, platform, setting, matmul=matmul, compute_capability=cc)
    assert got == expected


def test_detected_applies_its_own_backend_and_setting():
    on_a100 = devices.Detected("gpu", "NVIDIA A100-SXM4-80GB", None, "0.10.2", None, "8.0")
    assert on_a100.precision("float32", matmul=True) == "tf32"
    assert on_a100.precision("float32", matmul=False) == "fp32"


def test_reported_cost_reads_dicts_and_lists_and_says_none_when_absent():
    assert devices.reported_cost({"flops": 8.0, "bytes accessed": 12.0}) == (8.0, 12.0)
    assert devices.reported_cost([{"flops": 8.0}]) == (8.0, None)
    assert devices.reported_cost(None) == (None, None)
    assert devices.reported_cost({"flops": -1.0}) == (None, None)


def test_crosscheck_accepts_counts_within_its_tolerance_only():
    assert devices.crosscheck(1.04e9, 1e9)
    assert not devices.crosscheck(1.2e9, 1e9)


def _sized(name: str, gib: int, kinds: tuple[str, ...] = ()) -> Device:
    return Device(name, "NVIDIA", 2018, memory_bytes=gib * 1024**3, jax_device_kinds=kinds)


TWO_SIZES = {
    d.name: d for d in (_sized("NVIDIA V100 SXM2", 16), _sized("NVIDIA V100 SXM2 32GB", 32))
}


@pytest.mark.parametrize(
    ("memory_bytes", "expected"),
    [
        (12e9, "NVIDIA V100 SXM2"),
        (16.9e9, "NVIDIA V100 SXM2"),
        (25.4e9, "NVIDIA V100 SXM2 32GB"),
        (34e9, "NVIDIA V100 SXM2 32GB"),
        (40e9, None),
    ],
)
def test_the_memory_jax_reports_picks_between_two_sizes_of_one_part(memory_bytes, expected):
    found = devices.match_device("Tesla V100-SXM2", TWO_SIZES, memory_bytes)
    assert (found and found.name) == expected


def test_without_a_memory_size_a_row_named_by_its_size_is_not_guessed():
    assert devices.match_device("Tesla V100-SXM2", TWO_SIZES).name == "NVIDIA V100 SXM2"
    assert devices.match_device("Tesla V100-SXM2-32GB", TWO_SIZES).name == "NVIDIA V100 SXM2 32GB"


def test_rows_claiming_one_device_kind_are_told_apart_by_memory():
    kind = ("NVIDIA X1",)
    rows = {d.name: d for d in (_sized("NVIDIA X1 a", 40, kind), _sized("NVIDIA X1 b", 80, kind))}
    assert devices.match_device("NVIDIA X1", rows) is None
    assert devices.match_device("NVIDIA X1", rows, 60e9).name == "NVIDIA X1 b"


def test_the_bundled_v100_and_a100_sizes_are_separate_rows(specs):
    for kind, memory, name in [
        ("Tesla V100-SXM2-16GB", 12e9, "NVIDIA V100 SXM2"),
        ("Tesla V100-SXM2-32GB", 25e9, "NVIDIA V100 SXM2 32GB"),
        ("NVIDIA A100-SXM4-40GB", 30e9, "NVIDIA A100 SXM4 40GB"),
        ("NVIDIA A100-SXM4-80GB", 60e9, "NVIDIA A100 SXM4 80GB"),
    ]:
        assert devices.match_device(kind, specs, memory).name == name
        assert devices.match_device(kind, specs).name == name
