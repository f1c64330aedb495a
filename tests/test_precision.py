"""Precision: bytes per element, the vector/tensor split, and unpublished peaks skipped."""

from perfcore.model.chip.precision import BYTES_PER_ELEMENT, LABELS, matmul_at, matmul_sweep, path
from perfcore.model.chip.specs import PRECISIONS


def test_every_precision_has_a_width_and_a_label():
    assert set(BYTES_PER_ELEMENT) == set(LABELS) == set(PRECISIONS)


def test_fp32_and_fp64_are_the_vector_path_and_the_rest_tensor():
    assert [p for p in PRECISIONS if path(p) == "vector"] == ["fp64", "fp32"]


def test_tf32_moves_fp32_bytes():
    assert BYTES_PER_ELEMENT["tf32"] == BYTES_PER_ELEMENT["fp32"] == 4


def test_an_unpublished_precision_is_none_not_zero(specs):
    v100 = specs["NVIDIA V100 SXM2"]
    assert v100.peak_flops("fp8") is None
    assert matmul_at(v100, "fp8", 4096, 4096, 4096) is None
    assert "fp8" not in [r.precision for r in matmul_sweep(v100, 4096, 4096, 4096)]


def test_narrower_precision_raises_intensity_and_never_lowers_the_roof(h100):
    rows = {r.precision: r for r in matmul_sweep(h100, 4096, 4096, 4096)}
    assert rows["fp8"].cost.intensity == 2 * rows["fp16"].cost.intensity
    assert rows["fp8"].peak_flops_per_s >= rows["fp16"].peak_flops_per_s
    assert rows["fp16"].time_floor_s < rows["fp32"].time_floor_s
