"""The workloads page in AppTest: every model on a few devices, links, hostile links."""

import json
import logging

import pytest

from perfcore.model.llm.models import load_models
from tests.support.pages import notices, run_page

MODELS = list(load_models())
DEVICES = ["NVIDIA H100 SXM", "NVIDIA A100 SXM4 80GB", "AMD Instinct MI300X"]


def chart_titles(at) -> list[str]:
    """The titles of the charts the page drew."""
    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]


def metric(at, label: str) -> str:
    """The displayed value of the metric called `label`."""
    return next(m.value for m in at.metric if m.label == label)


@pytest.mark.parametrize("device", DEVICES)
def test_every_model_renders_without_an_exception(device, specs):
    assert device in specs, f"{device} is not in data/specs.csv"
    at = run_page("workloads", {"device": device})
    for name in MODELS:
        at.selectbox(key="wl_model").set_value(name).run()
        assert not at.exception, (name, at.exception)
        assert not at.error, (name, [e.value for e in at.error])
        assert "Time (bound, sum of ops)" in [m.label for m in at.metric]


@pytest.mark.parametrize("phase", ["prefill", "generate", "train"])
def test_every_phase_renders_with_a_compare_device(phase):
    at = run_page(
        "workloads",
        {
            "device": "NVIDIA H100 SXM",
            "compare": "NVIDIA A100 SXM4 80GB",
            "wl_phase": phase,
            "wl_output_tokens": "64",
        },
    )
    assert not at.exception
    assert at.radio(key="wl_phase").value == phase
    if phase == "generate":
        assert "Time to first token (bound)" in [m.label for m in at.metric]


def test_a_larger_batch_raises_tokens_per_s():
    at = run_page("workloads", {"device": "NVIDIA H100 SXM"})
    before = float(metric(at, "Tokens/s (bound)").replace(",", ""))
    at.number_input(key="wl_batch").set_value(64).run()
    assert float(metric(at, "Tokens/s (bound)").replace(",", "")) > before


def test_the_headline_leads_with_the_expected_time_then_the_bound():
    """Expected from published runs (no curves loaded), above the bound it divides."""
    at = run_page("workloads", {"device": "NVIDIA H100 SXM"})
    assert [m.label for m in at.metric][:2] == ["Time (expected)", "Time (bound, sum of ops)"]
    assert "published runs" in at.metric[0].help
    shown = [metric(at, k).split() for k in ("Time (expected)", "Time (bound, sum of ops)")]
    assert [unit for _, unit in shown] == ["ms", "ms"]  # decode at batch 16 on an H100
    assert float(shown[0][0]) > float(shown[1][0])


def test_a_model_that_does_not_fit_says_so_plainly():
    at = run_page("workloads", {"device": "NVIDIA H100 SXM", "wl_model": "Llama-3.1-405B"})
    assert "does not fit on 1 GPU" in at.info[0].value


def test_a_link_restores_the_view():
    query = {
        "device": "NVIDIA H100 SXM",
        "wl_model": "Mixtral-8x7B",
        "wl_phase": "prefill",
        "wl_batch": "4",
        "wl_context": "2048",
        "wl_weights_bits": "8",
        "wl_fused": "false",
        "wl_tp": "2",
        "wl_chart": "Memory",
    }
    at = run_page("workloads", query)
    assert not at.exception and not notices(at)
    assert at.selectbox(key="wl_model").value == "Mixtral-8x7B"
    assert at.radio(key="wl_phase").value == "prefill"
    assert (at.number_input(key="wl_batch").value, at.number_input(key="wl_context").value) == (
        4,
        2048,
    )
    assert at.selectbox(key="wl_weights_bits").value == 8
    assert at.toggle(key="wl_fused").value is False
    assert at.radio(key="wl_chart").value == "Memory"
    (title,) = chart_titles(at)  # the memory chart alone, its verdict in the title
    assert "fits on 2 GPUs" in title


def test_a_hostile_link_falls_back_with_notices():
    query = {
        "device": "NVIDIA H100 SXM",
        "wl_model": "<script>",
        "wl_batch": "-3",
        "wl_kv_bits": "3",
        "wl_tp": "1e999",
        "wl_chart": "pie",
    }
    at = run_page("workloads", query)
    assert not at.exception
    said = " ".join(notices(at))
    for key in ("wl_model", "wl_batch", "wl_kv_bits", "wl_tp", "wl_chart"):
        assert key in said
    assert at.selectbox(key="wl_model").value == "Llama-3.1-8B"
    assert at.radio(key="wl_chart").value == "Ops on the roofline"


def test_a_precision_the_device_lacks_is_named_not_drawn():
    at = run_page(
        "workloads", {"device": "NVIDIA A100 SXM4 80GB", "wl_weights_bits": "4", "wl_act_bits": "4"}
    )
    assert not at.exception
    assert "publishes no fp4 peak" in at.error[0].value


def test_a_bug_is_logged_with_its_traceback_and_said_as_one(monkeypatch, caplog):
    """A fault in the code, not a missing figure: the page says something went wrong, and
    where; the server log holds the traceback. (The old page let it escape as an exception.)"""
    import streamlit as st

    from perfcore.explain.llm import workloads as view

    def broken(*args):
        raise ZeroDivisionError("kv heads do not divide")

    monkeypatch.setattr(view, "page", broken)
    st.cache_resource.clear()
    with caplog.at_level(logging.ERROR, logger="perfcore"):
        at = run_page("workloads", {"wl_batch": "3"})
    st.cache_resource.clear()
    assert not at.exception
    shown = [e.value for e in at.error]
    assert shown and shown[0].startswith("Something went wrong in the Workloads page, pricing ")
    assert "kv heads" not in shown[0]  # the bug's own text is for the log, not the reader
    assert any(r.exc_info and r.exc_info[0] is ZeroDivisionError for r in caplog.records)
