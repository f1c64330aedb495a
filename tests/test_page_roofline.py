"""The roofline page: sizes move the op points, links restore the view, junk falls back."""

import dataclasses
import json

from perfcore.explain.chip import roofline as view
from perfcore.measure import results
from tests.support.measured import lesson_records
from tests.support.pages import ROUND_H100, notices, run_page, table_text, upload_folded

TABLE = {"rf_tab": "Table"}


def table(at):
    return at.dataframe[0].value


def test_a_bigger_batch_moves_decode_up_the_memory_roof():
    query = {"device": ROUND_H100, "precision": "fp16", "rf_ops": "decode", **TABLE}
    at = run_page("roofline", query)
    before = table_text(at)["attainable (TFLOP/s)"].iloc[0]
    at.number_input(key="rf_decode_batch").set_value(64).run()
    after = table_text(at)["attainable (TFLOP/s)"].iloc[0]
    assert (before, after) == ("3.35", "214")  # 64x: on the memory roof, 64x the intensity


def test_a_link_opens_with_its_ops_sizes_and_precision():
    query = {
        "device": ROUND_H100,
        "precision": "fp8",
        "rf_ops": ["matmul", "attention"],
        "rf_matmul_m": "256",
        "rf_attention_seq": "512",
        **TABLE,
    }
    at = run_page("roofline", query)
    assert at.multiselect(key="rf_ops").value == ["matmul", "attention"]
    assert at.number_input(key="rf_matmul_m").value == 256
    assert list(table(at)["operation"]) == [
        "mat-mul 256x4096x4096",
        "attention, seq=512, d_head=128",
    ]
    assert not notices(at)


def test_junk_in_the_link_falls_back_with_a_notice():
    at = run_page("roofline", {"rf_ops": "<img src=x>", "rf_matmul_k": "-1"})
    assert not at.exception
    keys = " ".join(notices(at))
    assert "`rf_ops=" in keys and "`rf_matmul_k=" in keys
    assert at.multiselect(key="rf_ops").value == list(view.DEFAULT_OPS)


def test_switching_precision_draws_the_arrow():
    at = run_page("roofline", {"device": ROUND_H100, "precision": "fp16"})
    at.selectbox(key="precision").set_value("fp8").run()
    spec = at.get("plotly_chart")[0].proto.spec
    assert '"moved from the previous precision"' in spec


def test_the_takeaway_counts_the_memory_bound_ops():
    at = run_page("roofline", {"device": ROUND_H100, "precision": "fp16"})
    text = next(i.value for i in at.info if "Read this" in i.value)
    assert "3 of 5 ops sit below it" in text
    at.multiselect(key="rf_ops").set_value(["matmul"]).run()
    text = next(i.value for i in at.info if "Read this" in i.value)
    assert "0 of 1 ops" in text


def test_a_models_layer_from_the_catalog_adds_its_ops_from_a_link():
    query = {
        "device": "NVIDIA H100 SXM",
        "rf_ops": "a model's layer",
        "rf_layer_model": "Llama-3.1-8B",
        "rf_layer_phase": "prefill",
        **TABLE,
    }
    at = run_page("roofline", query)
    assert not at.exception and not notices(at)
    ops = list(table(at)["operation"])
    assert ops[0] == "Llama-3.1-8B prefill: attention norm" and len(ops) == 12


def upload_results(at, records):
    """Upload records as a results JSON on the roofline page."""
    data = results.to_json(records).encode()
    return upload_folded(at, "rf_results", "results.json", data)


def test_measured_points_are_overlaid_only_on_the_device_they_ran_on():
    h100 = lesson_records()
    at = upload_results(run_page("roofline"), h100)  # the default device is the H100 SXM
    names = [t.get("name", "") for t in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]]
    assert any(n.startswith("measured") for n in names)
    cpu = tuple(dataclasses.replace(r, device="cpu", backend="cpu", spec_name="") for r in h100)
    at = upload_results(run_page("roofline"), cpu)
    names = [t.get("name", "") for t in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]]
    assert not any(n.startswith("measured") for n in names)
    assert any("ran on `cpu`, not on NVIDIA H100 SXM" in str(c.value) for c in at.caption)


def test_an_overlaid_file_stays_once_its_expander_closes():
    """The uploader is drawn only while its expander is open; the file stays overlaid after
    it closes, and the expander is named by it."""
    at = upload_results(run_page("roofline"), lesson_records())
    at.session_state["rf_results_open"] = False
    at.run()
    at.selectbox(key="precision").set_value("fp16").run()  # another run, the expander closed
    names = [t.get("name", "") for t in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]]
    assert not at.file_uploader and any(n.startswith("measured") for n in names)
    assert at.expander[0].label == "Overlay measured points: results.json"


def test_the_chart_opens_first_and_the_table_is_a_tab():
    """Only the open tab is drawn: the chart alone at first, the table alone from its link."""
    first = run_page("roofline", {"device": ROUND_H100})
    assert [c.key for c in first.get("plotly_chart")] == ["rf_chart"] and not first.dataframe
    tabled = run_page("roofline", {"device": ROUND_H100, **TABLE})
    assert not tabled.get("plotly_chart") and len(table(tabled)) == 5
