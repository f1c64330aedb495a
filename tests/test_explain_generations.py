"""The generations page's numbers: printed table 3 growth, verdicts per device, takeaway."""

import math

import pytest

from perfcore.explain.chip import generations as view
from perfcore.model.chip.generations import growth

V100, H100 = "NVIDIA V100 SXM2", "NVIDIA H100 SXM"


def _rows(specs, precision="fp16", vendors=None, **sizes):
    cost = view.op_cost("attention", precision, sizes or {"seq": 512, "d_head": 64})
    return view.rows(specs, vendors or view.vendors(specs), precision, cost), cost


def _takeaway(specs, precision="fp16", old=V100, new=H100, vendors=None, **sizes):
    rows, cost = _rows(specs, precision, vendors, **sizes)
    pair = (specs[old], specs[new])
    return view.takeaway(rows, cost, precision, growth(*pair, precision), pair)


def test_round_growth_v100_to_the_round_h100_row_is_as_printed(specs, h100):
    g = growth(specs[V100], h100, "fp16")
    assert view.growth_headline(g) == [
        ("Arithmetic grew", "7.9x"),
        ("Bandwidth grew", "3.7x"),
        ("Ridge grew", "2.1x"),
    ]


def test_growth_headline_says_not_published_where_a_peak_is_missing():
    assert {v for _, v in view.growth_headline(None)} == {"not published"}


def test_rows_run_oldest_first_and_keep_only_the_chosen_vendors(specs):
    rows, _ = _rows(specs, vendors=["AMD"])
    assert [r.device.name for r in rows] == [
        "AMD Instinct MI250X",
        "AMD Instinct MI300X",
        "AMD Instinct MI325X",
    ]


def test_the_default_op_is_compute_bound_on_v100_and_memory_bound_on_h100(specs):
    rows, cost = _rows(specs)
    bound = {r.device.name: r.bound for r in rows}
    assert cost.intensity == 256
    assert (bound[V100], bound[H100]) == ("compute", "memory")


def test_the_ridge_in_the_table_is_peak_over_bandwidth(specs, h100):
    rows, cost = _rows(specs)
    df = view.table(rows, "fp16", cost).set_index("device")
    assert df.loc[h100.name, "ridge"] == pytest.approx(990 / 3.35)
    assert df.loc[h100.name, "fp16 peak"] == 990e12


def test_devices_without_the_precision_are_listed_as_not_published(specs):
    rows, cost = _rows(specs, "fp8")
    df = view.table(rows, "fp8", cost).set_index("device")
    assert df.loc[V100, "op intensity"] == 512
    assert df.loc[V100, "bound by"] is None or math.isnan(df.loc[V100, "bound by"])
    assert math.isnan(df.loc[V100, "ridge"])
    assert df.loc[H100, "bound by"] == "memory"


def test_bound_count_counts_memory_bound_devices_among_those_publishing(specs):
    rows, _ = _rows(specs, vendors=["NVIDIA"])
    assert view.bound_count(rows) == "7 of 18"
    assert view.bound_count(_rows(specs, vendors=["NVIDIA"], seq=8192, d_head=64)[0]) == "0 of 18"


def test_params_carry_the_pages_attention_defaults_and_the_catalogs_otherwise():
    assert [(p.name, p.default) for p in view.params("attention")] == [("seq", 512), ("d_head", 64)]
    assert [p.default for p in view.params("matmul")] == [4096, 4096, 4096]


def test_default_pair_is_v100_and_h100_else_first_and_last():
    assert view.default_pair(["a", V100, H100, "z"]) == (V100, H100)
    assert view.default_pair(["a", "b", "c"]) == ("a", "c")


def test_takeaway_gives_the_memory_bound_share_and_the_growth(specs):
    text = _takeaway(specs)
    assert "memory-bound on 7 of 21 devices (33.3 %)" in text
    assert "grew 7.9x and bandwidth 3.7x, so the ridge grew 2.1x" in text
    assert "compute-bound on the NVIDIA V100 SXM2 and memory-bound on the NVIDIA H100 SXM" in text


def test_takeaway_changes_with_the_ops_size(specs):
    assert "memory-bound on 0 of 21" in _takeaway(specs, seq=8192, d_head=64)


def test_takeaway_names_the_precisions_both_devices_publish_when_growth_is_missing(specs):
    text = _takeaway(specs, "bf16")
    assert "not published at this precision; both publish fp64, fp32, fp16" in text


def test_takeaway_without_vendors_asks_for_one(specs):
    cost = view.op_cost("add", "fp16", {})
    text = view.takeaway([], cost, "fp16", None, (specs[V100], specs[H100]))
    assert text.startswith("No vendor chosen")


def test_a_pair_without_the_precision_falls_back_to_the_nearest_both_publish(specs):
    v100, h100 = specs[V100], specs[H100]
    assert view.shared_precision(v100, h100, "bf16") == "fp16"
    assert view.shared_precision(v100, h100, "fp8") == "fp16"
    assert view.shared_precision(v100, h100, "fp32") == "fp32"
    note = view.precision_note(v100, h100, "bf16", "fp16")
    assert note.startswith(f"The {V100} publishes no bf16 peak") and "shows fp16" in note
    assert view.precision_note(v100, h100, "fp16", "fp16") == ""


def test_the_title_says_which_way_the_ridge_moved(specs):
    rose = view.title(growth(specs[V100], specs[H100], "fp16"))
    fell = view.title(growth(specs[H100], specs["NVIDIA H200 SXM"], "bf16"))
    assert rose == "The fp16 ridge point rose 2.1x from V100 SXM2 to H100 SXM"
    assert "bf16 ridge point fell 1.4x" in fell
    assert "by year" in view.title(None)
