"""The precision page's numbers: printed table 4 rows, the span, the unpublished, the takeaway."""

import pytest

from perfcore.explain.chip import precision as view
from perfcore.model.chip.precision import LABELS, matmul_sweep
from tests.support.hand_tables import PRECISION_ROWS

TF = 1e12


def _rows(device, size=4096):
    return matmul_sweep(device, size, size, size)


def _row(df, label):
    return df[df["precision"] == label].iloc[0]


@pytest.mark.parametrize(("precision", "bpe", "peak", "ridge", "intensity"), PRECISION_ROWS)
def test_the_table_holds_the_hand_calculations_rows(h100, precision, bpe, peak, ridge, intensity):
    r = _row(view.table(_rows(h100)), LABELS[precision])
    got = (r["bytes per element"], f"{r['peak (spec)'] / TF:.0f}")
    assert got == (bpe, peak)
    assert (f"{r['ridge']:.0f}", f"{r['intensity']:.0f}") == (
        ridge,
        intensity,
    )
    assert r["bound by"] == "compute"


def test_the_table_keeps_the_vector_and_tensor_paths_apart(h100):
    df = view.table(_rows(h100))
    assert list(df["path"]) == ["vector", "vector"] + ["tensor"] * 6


def test_same_maths_137_gflop_and_201_3_mb_at_fp32_against_50_3_mb_at_fp8(h100):
    df = view.table(_rows(h100))
    assert {f"{f / 1e9:.0f}" for f in df["FLOPs"].dropna()} == {"137"}
    fp32, fp8 = _row(df, "FP32 (no tensor core)"), _row(df, "FP8 tensor core")
    assert (f"{fp32['bytes moved'] / 1e6:.1f}", f"{fp8['bytes moved'] / 1e6:.1f}") == (
        "201.3",
        "50.3",
    )


def test_time_floor_is_flops_over_peak_when_compute_bound(h100):
    fp16 = _row(view.table(_rows(h100)), "FP16 tensor core")
    assert fp16["time floor"] == pytest.approx(2 * 4096**3 / 990e12)


def test_unpublished_precisions_keep_a_row_with_empty_figures(specs):
    df = view.table(_rows(specs["NVIDIA V100 SXM2"])).set_index("precision")
    assert len(df) == 8
    fp8 = df.loc["FP8 tensor core"]
    assert (fp8["bytes per element"], fp8["path"]) == (1, "tensor")
    empty = ["peak (spec)", "ridge", "bound by", "time floor"]
    assert fp8[empty].isna().all()


def test_unpublished_precisions_are_listed_not_dropped(specs, h100):
    assert view.not_published(_rows(h100)) == ("fp4",)
    v100 = specs["NVIDIA V100 SXM2"]
    assert view.not_published(_rows(v100)) == ("tf32", "bf16", "fp8", "int8", "fp4")
    note = view.missing_note(v100, _rows(v100))
    assert "TF32, BF16, FP8, INT8, FP4: not published" in note


def test_a_device_publishing_every_precision_says_so(specs):
    b200 = specs["NVIDIA B200"]
    assert "publishes a peak for every precision" in view.missing_note(b200, _rows(b200))


def test_the_span_runs_from_the_widest_to_the_narrowest_published_precision(h100):
    s = view.span(_rows(h100))
    assert (s.widest.precision, s.narrowest.precision) == ("fp64", "fp8")
    assert s.bytes_ratio == 8
    assert s.peak_ratio == pytest.approx(1979 / 34)


def test_without_fp64_the_widest_is_the_fp32_vector_path_not_tf32(specs):
    s = view.span(_rows(specs["NVIDIA L4"]))
    assert s.widest.precision == "fp32"


def test_the_takeaway_quotes_the_printed_fp32_against_fp8_comparison(h100):
    text = view.takeaway(_rows(h100), h100)
    assert "137 GFLOP" in text
    assert "FP32 (201.3 MB, 67.00 TFLOP/s)" in text
    assert "FP8 moves 4.0x fewer bytes under a 30x higher roof" in text
    assert "stays compute-bound at both ends" in text


def test_the_takeaway_reports_a_change_of_bound(h100):
    s = view.span(_rows(h100, 256))
    assert s.bound_changes
    assert "turns from compute-bound to memory-bound" in view.takeaway(_rows(h100, 256), h100)


def test_the_takeaway_changes_with_the_matmul_size(h100):
    assert view.takeaway(_rows(h100, 4096), h100) != view.takeaway(_rows(h100, 512), h100)


def test_one_published_precision_is_not_compared_with_itself(specs):
    tpu = specs["Google TPU v4"].replace(int8_flops_per_s=None)
    assert "publishes one precision only" in view.takeaway(_rows(tpu), tpu)


def test_no_memory_bandwidth_means_no_rows_and_a_plain_message(h100):
    blind = h100.replace(memory_bytes_per_s=None)
    rows = _rows(blind)
    assert (
        rows == []
        and view.span(rows) is None
        and view.metrics(None) == [("peak and memory bandwidth", "not published")]
    )
    assert "nothing to compare" in view.takeaway(rows, blind)
    assert view.table(rows)["peak (spec)"].isna().all()


def test_the_metrics_show_flops_bytes_roof_and_time_floor(h100):
    metrics = dict(view.metrics(view.span(_rows(h100))))
    assert metrics["FLOPs, every precision"] == "137 GFLOP"
    assert (metrics["bytes moved at FP64"], metrics["bytes moved at FP8"]) == (
        "402.7 MB",
        "50.33 MB",
    )
    assert metrics["roof lifts, FP64 → FP8"] == "58x"
    assert metrics["time floor at FP8"] == "69.4 µs"
