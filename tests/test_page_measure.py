"""The measure page: it measures only on Run, keeps what it measured, opens from a link,
overlays an uploaded file, and without JAX or on a hosted instance offers upload instead."""

import json

import pytest
import streamlit as st
from conftest import notices, run_page
from measured import seed_records

from perfcore.explain import measure as view
from perfcore.measure import jax_bench, results
from perfcore.measure.suites import DeviceMemoryError

QUICK = {"me_suite": "quick", "me_experiments": ["dispatch", "sweep"]}


def titles(at) -> list[str]:
    """The titles of the page's Plotly charts, in order."""
    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]


def texts(at, kind: str) -> list[str]:
    return [str(e.value) for e in at.get(kind)]


def upload(at, records=None):
    """Upload a results file (JSON) of records, by default the seeds' GPU records."""
    data = results.to_json(records or seed_records()).encode()
    uploader = next(u for u in at.file_uploader if u.key == "me_results")
    return uploader.set_value(("results.json", data, "application/json")).run()


@pytest.fixture
def fake_run(monkeypatch):
    """run_suite replaced: it reports progress and waiting, then returns the seeds' records."""
    calls = []

    def run_suite(suite, *, experiments, progress, wait_callback, specs):
        calls.append((suite, experiments))
        wait_callback(jax_bench.WAITING)
        progress(0.5, "halfway")
        return seed_records()

    monkeypatch.setattr(jax_bench, "run_suite", run_suite)
    return calls


def test_the_page_names_the_cpu_and_measures_nothing_by_itself(fake_run):
    at = run_page("measure")
    assert not at.exception
    assert any("**the CPU**" in t for t in texts(at, "markdown"))
    assert any("unknown device: pick its spec row" in t for t in texts(at, "warning"))
    assert at.button(key="me_run").label.startswith("Run")
    assert fake_run == [] and titles(at) == [] and view.STATE not in at.session_state


def test_run_draws_the_records_and_a_widget_change_keeps_them(fake_run):
    at = run_page("measure", QUICK)
    at.button(key="me_run").click().run()
    assert not at.exception and not at.error
    assert fake_run == [("quick", ("dispatch", "sweep"))]
    assert at.dataframe[0].value["what"].tolist()[:2] == ["naive timer", "synchronized"]
    assert any("spread of 20.9 %" in t for t in texts(at, "info"))
    at.selectbox(key="precision").set_value("fp8").run()
    assert len(fake_run) == 1 and len(at.dataframe[0].value) == len(seed_records())
    assert "Roofline — NVIDIA H100 SXM" in titles(at)


def test_run_with_the_quick_suite_measures_this_cpu():
    pytest.importorskip("jax")
    at = run_page("measure", QUICK)
    at.button(key="me_run").click().run()
    assert not at.exception and not at.error
    records = at.session_state[view.STATE]
    assert {r.experiment for r in records} == {"dispatch", "sweep"}
    assert {r.backend for r in records} == {"cpu"}
    assert set(at.dataframe[0].value["experiment"]) == {"dispatch", "sweep"}
    shown = titles(at)
    assert shown[0] == "Matmul size sweep: one kernel, three regimes"
    assert "Roofline — NVIDIA H100 SXM" in shown and "Dispatch vs compute" in shown[2]
    at.selectbox(key="me_spec").set_value("NVIDIA A100 SXM4 80GB").run()
    assert "Roofline — NVIDIA A100 SXM4 80GB" in titles(at)
    assert at.session_state[view.STATE] == records


def test_a_size_that_does_not_fit_is_refused_with_an_error(monkeypatch):
    def refuse(*args, **kw):
        raise DeviceMemoryError("matmul 8192x8192x8192 needs 1e+09 bytes: refused")

    monkeypatch.setattr(jax_bench, "run_suite", refuse)
    at = run_page("measure")
    at.button(key="me_run").click().run()
    assert not at.exception
    assert any("refused" in t for t in texts(at, "error"))
    assert view.STATE not in at.session_state


def test_a_link_opens_with_its_experiments_suite_and_spec_row():
    query = QUICK | {"me_spec": "NVIDIA L4"}
    at = run_page("measure", query)
    assert at.multiselect(key="me_experiments").value == ["dispatch", "sweep"]
    assert at.radio(key="me_suite").value == "quick"
    assert at.selectbox(key="me_spec").value == "NVIDIA L4"
    assert any("**NVIDIA L4**" in t for t in texts(at, "caption"))
    assert not notices(at)


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [("me_suite", "huge", "default"), ("me_experiments", "rm -rf", None),
     ("me_spec", "<b>GPU</b>", view.SIDEBAR)],
)  # fmt: skip
def test_garbage_link_values_fall_back_with_a_notice(key, value, shown):
    at = run_page("measure", {key: value})
    assert not at.exception
    assert any(f"`{key}=" in text for text in notices(at))
    if shown is not None:
        widget = at.radio if key == "me_suite" else at.selectbox
        assert widget(key=key).value == shown


def test_an_uploaded_file_fills_the_page_and_its_points_are_overlaid():
    at = upload(run_page("measure"))
    assert not at.exception and not at.error
    assert not any("unknown device" in t for t in texts(at, "warning"))
    assert any("its own row" in t for t in texts(at, "caption"))
    shown = titles(at)
    assert len(shown) == 6 and "Roofline — NVIDIA H100 SXM" in shown
    roofline = json.loads(at.get("plotly_chart")[1].proto.spec)
    names = [t.get("name", "") for t in roofline["data"]]
    assert "launch overhead ceiling (measured empty call)" in names
    assert any(n.startswith("measured") for n in names)


def test_without_jax_the_page_says_how_to_get_it_and_upload_still_works(monkeypatch):
    monkeypatch.setattr(jax_bench, "jax_available", lambda: "JAX is not installed: pip install jax")
    at = run_page("measure")
    assert not at.exception
    assert any("pip install" in t and ".[cuda]" in t for t in texts(at, "warning"))
    assert not [b for b in at.button if b.label.startswith("Run")]
    assert len(titles(upload(at))) == 6


def test_hosted_mode_has_no_run_button_and_offers_upload(monkeypatch):
    monkeypatch.setenv("PERFCORE_HOSTED", "1")
    at = run_page("measure")
    assert not at.exception
    assert any("hosted" in t and view.MEASURE_CMD in t for t in texts(at, "info"))
    assert not [b for b in at.button if b.label.startswith("Run")]
    assert not any("**the CPU**" in t for t in texts(at, "markdown"))
    assert not upload(at).exception and titles(at)


@pytest.fixture
def jax_that_cannot_start(monkeypatch):
    """JAX importable, but its backend fails to start (a CUDA install without a driver)."""

    def detect(specs=None):
        raise RuntimeError("Unable to initialize backend 'cuda'")

    monkeypatch.setattr(jax_bench, "detect", detect)
    st.cache_resource.clear()  # the detected device is cached once per process
    yield
    st.cache_resource.clear()


def test_a_jax_that_cannot_start_is_said_and_upload_still_works(jax_that_cannot_start):
    at = run_page("measure")
    assert not at.exception
    assert any("could not start a backend" in t for t in texts(at, "error"))
    assert not [b for b in at.button if b.label.startswith("Run")]
    assert len(titles(upload(at))) == 6
