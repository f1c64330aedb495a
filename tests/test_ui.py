"""ui's pure parts: the table a CSV download holds; the heap frozen once; pricing guarded."""

import logging
import math

import pytest

from perfcore.errors import InputError
from perfcore.explain.chip import pitfalls, pitfalls_summary, roofline
from ui import loaders, refusals, tables
from ui.tables import si_table


def test_the_download_keeps_si_numbers_at_full_precision_with_si_units_in_the_headers(h100):
    points = roofline.op_points(h100, "fp16", {"matmul": {"m": 4096, "n": 4096, "k": 4096}})
    df = si_table(roofline.table(points))
    row = df.iloc[0]
    assert row["attainable (FLOP/s)"] == 990e12 and row["time floor (s)"] == 2 * 4096**3 / 990e12
    assert row["share of peak (fraction)"] == 1.0 and row["bytes (B)"] == 3 * 4096**2 * 2


def test_a_table_of_mixed_quantities_names_each_rows_si_unit(specs):
    sections = [pitfalls.batch_one(specs["Google TPU v4"], 1)]
    sections += [pitfalls.copy_in_loop(specs["Google TPU v4"], 4096**2, "fp16", 10)]
    df = si_table(pitfalls_summary.table(sections))
    assert list(df.columns) == ["#", "belief", "quantity", "value", "unit (SI)"]
    assert df["unit (SI)"].iloc[0] == "fraction" and math.isnan(df["value"].iloc[-1])


def test_the_heap_is_collected_then_frozen_once_per_page_without_asking_gc_each_run(monkeypatch):
    calls = []
    monkeypatch.setattr(loaders.gc, "collect", lambda *a: calls.append("collect"))
    monkeypatch.setattr(loaders.gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(loaders.gc, "get_freeze_count", lambda: pytest.fail("walks the heap"))
    loaders.freeze_heap.cache_clear()
    try:
        for page in ("", "", "plan", "", "plan", "profile"):  # six runs over three pages
            loaders.freeze_heap(page)
    finally:
        loaders.freeze_heap.cache_clear()
    assert calls == ["collect", "freeze"] * 3


def test_a_user_error_is_said_in_the_pages_words_and_not_logged(caplog):
    def refuse(batch):
        raise InputError("batch", str(batch), "1 or more")

    with caplog.at_level(logging.ERROR, logger="perfcore"):
        said = refusals.priced("the test page", refuse, -1, say=lambda e: f"no: {e.field}")
    assert said == "no: batch" and not caplog.records


def test_a_bug_is_logged_with_its_traceback_and_said_as_a_bug_where_it_happened(caplog):
    with caplog.at_level(logging.ERROR, logger="perfcore"):
        said = refusals.priced("the test page", lambda n: 1 / n, 0)
    assert said.startswith("Something went wrong in the test page. This is a bug")
    assert [type(r.exc_info[1]) for r in caplog.records] == [ZeroDivisionError]


def test_a_value_is_returned_as_it_is():
    assert refusals.priced("the test page", max, 2, 3) == 3


def test_a_table_shown_again_is_prepared_once_and_a_new_one_afresh(h100):
    points = roofline.op_points(h100, "fp16", {"matmul": {"m": 4096, "n": 4096, "k": 4096}})
    df, same_numbers = roofline.table(points), roofline.table(points)
    shown, config = tables._prepared(df)
    assert tables._prepared(df)[0] is shown  # the cached table, shown again
    again, _ = tables._prepared(same_numbers)
    assert again is not shown and again.equals(shown) and config
    floor = shown.column("time floor")[0].as_py()  # the Arrow table st.dataframe sends
    assert floor == pytest.approx(2 * 4096**3 / 990e12 / 1e-6)  # in µs
