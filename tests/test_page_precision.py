"""The precision page: printed table 4 on screen, sizes move the numbers, links restore it."""

import pandas as pd
import pytest

from perfcore.model.chip.precision import LABELS
from tests.support.hand_tables import PRECISION_ROWS
from tests.support.pages import ROUND_H100, notices, run_page, table_text

TABLE = {"device": ROUND_H100, "pr_view": "Table"}


def _metric(at, start: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(start))


def test_the_round_h100_shows_printed_peaks_ridges_and_intensities():
    at = run_page("precision", TABLE)
    df = at.dataframe[0].value.set_index("precision")
    for precision, _, *expected in PRECISION_ROWS:
        r = df.loc[LABELS[precision]]
        peak, ridge, intensity = (float(r[c]) for c in ("peak (spec)", "ridge", "intensity"))
        got = (f"{peak:.0f}", f"{ridge:.0f}", f"{intensity:.0f}")  # peak shown in TFLOP/s
        assert list(got) == expected, precision
    assert _metric(at, "FLOPs") == "137 GFLOP"
    assert "FP32 (201.3 MB, 67.00 TFLOP/s), FP8 moves 4.0x fewer bytes" in at.info[0].value


def _time_floors(at) -> list[float]:
    """The table's published time floors, as numbers (in the unit the table chose)."""
    return list(at.dataframe[0].value["time floor"].dropna())


def test_a_bigger_matmul_raises_the_flops_and_the_time_floor():
    at = run_page("precision", TABLE)
    before = _time_floors(at)
    at.number_input(key="pr_m").set_value(8192).run()
    assert _metric(at, "FLOPs") == "275 GFLOP"
    after = _time_floors(at)
    assert all(a == pytest.approx(2 * b, rel=1e-3) for a, b in zip(after, before, strict=True))


def test_a_link_opens_the_page_with_its_sizes():
    at = run_page(
        "precision", {"device": ROUND_H100, "pr_m": "1024", "pr_n": "2048", "pr_k": "512"}
    )
    sizes = [at.number_input(key=f"pr_{d}").value for d in "mnk"]
    assert sizes == [1024, 2048, 512]
    assert _metric(at, "FLOPs") == "2.15 GFLOP"
    assert not notices(at)


@pytest.mark.parametrize(
    ("key", "value"), [("pr_m", "abc"), ("pr_n", "-3"), ("pr_k", "99999999"), ("pr_m", "nan")]
)
def test_garbage_link_values_fall_back_to_4096_with_a_notice(key, value):
    at = run_page("precision", {"device": ROUND_H100, key: value})
    assert not at.exception
    assert any(f"`{key}=" in text and "showing 4096" in text for text in notices(at))
    assert at.number_input(key=key).value == 4096


def test_an_unpublished_precision_is_listed_as_not_published():
    at = run_page("precision", {**TABLE, "device": "NVIDIA V100 SXM2"})
    assert any("FP8, INT8, FP4: not published" in c.value for c in at.caption)
    df = at.dataframe[0].value.set_index("precision")
    assert df["peak (spec)"].dtype == float and pd.isna(df.loc["FP8 tensor core", "peak (spec)"])
    assert df.loc["FP16 tensor core", "bound by"] == "compute"
    shown = table_text(at).set_index("precision")
    assert shown.loc["FP8 tensor core", "peak (spec) (TFLOP/s)"] == "not published"
    assert shown.loc["FP16 tensor core", "peak (spec) (TFLOP/s)"] == "125.0"
    assert shown.loc["FP16 tensor core", "time floor (ms)"] == "1.10"


def test_the_vector_and_tensor_paths_are_a_column_of_the_table():
    at = run_page("precision", TABLE)
    assert at.dataframe[0].value["path"].tolist()[:3] == ["vector", "vector", "tensor"]


def test_the_chart_and_the_table_are_tabs_and_a_link_before_them_opens_the_bars():
    """The roofline chart opens first, alone; the bar chart's old toggle in a link opens its tab."""
    first = run_page("precision", {"device": ROUND_H100})
    assert [c.key for c in first.get("plotly_chart")] == ["pr_roofline"] and not first.dataframe
    old_link = run_page("precision", {"device": ROUND_H100, "pr_bars": "true"})
    assert [c.key for c in old_link.get("plotly_chart")] == ["pr_bars_chart"]
