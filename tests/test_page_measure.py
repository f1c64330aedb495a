"""The measure page: it opens before JAX is imported, measures only on Run, keeps what it
measured, reports a fault and frees the lock, opens from a link, overlays an uploaded file,
and without JAX or on a hosted instance offers upload instead."""

import dataclasses
import json
import logging
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from perfcore.explain.measure import measure as view
from perfcore.explain.measure.measure_sweep import sweep
from perfcore.figures.measure.measure import sweep_title
from perfcore.measure import results
from perfcore.measure.clock import lock
from perfcore.measure.experiments import registry, runner
from perfcore.measure.experiments.suites import BackendFailed, DeviceMemoryError
from tests.support.measured import lesson_records
from tests.support.pages import notices, run_page

QUICK = {"me_suite": "quick", "me_experiments": ["dispatch", "sweep"]}


def titles(at) -> list[str]:
    """The titles of the page's Plotly charts, in order."""
    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]


def texts(at, kind: str) -> list[str]:
    return [str(e.value) for e in at.get(kind)]


def upload(at, records=None):
    """Upload a results file (JSON) of records, by default the timing lessons' GPU records."""
    data = results.to_json(records or lesson_records()).encode()
    uploader = next(u for u in at.file_uploader if u.key == "me_results")
    return uploader.set_value(("results.json", data, "application/json")).run()


@pytest.fixture
def fake_run(monkeypatch):
    """run_suite replaced: it reports progress and waiting, then returns the lessons' records."""
    calls = []

    def run_suite(suite, *, experiments, progress, wait_callback, specs):
        calls.append((suite, experiments))
        wait_callback(lock.WAITING)
        progress(0.5, "halfway")
        return lesson_records()

    monkeypatch.setattr(runner, "run_suite", run_suite)
    return calls


ROOT = Path(__file__).parent.parent
FIRST_RENDER = textwrap.dedent("""
    import sys
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file("app.py", default_timeout=60)
    at.run()
    at.switch_page("app_pages/measure.py").run()
    assert not at.exception, at.exception
    assert at.button(key="me_run").label.startswith("Run")
    print("jax" in sys.modules, "perfcore.measure.experiments.runner" in sys.modules)
""")


def test_the_page_draws_its_run_button_before_jax_is_imported():
    # A fresh process: another test's JAX import must not hide this page's own.
    done = subprocess.run(
        [sys.executable, "-c", FIRST_RENDER], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-2:] == ["False", "False"]


def cpu(records):
    """The records as measured on a CPU: no spec row matches."""
    return tuple(dataclasses.replace(r, device="cpu", backend="cpu", spec_name="") for r in records)


def test_the_page_measures_nothing_by_itself(fake_run):
    at = run_page("measure")
    assert not at.exception
    assert any("when you press **Run**" in t for t in texts(at, "caption"))
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
    assert len(fake_run) == 1 and len(at.dataframe[0].value) == len(lesson_records())
    assert any(t.startswith("Measured roofline") and "NVIDIA H100 SXM" in t for t in titles(at))
    assert not lock.measurement_in_progress()


def test_the_default_selection_is_the_quick_set_and_the_heavy_ones_are_opt_in(fake_run):
    at = run_page("measure")
    heavy = [name for name, e in registry.EXPERIMENTS.items() if e.heavy]
    assert at.multiselect(key="me_experiments").value == registry.default_selection()
    assert {"roofline", "collectives", "fusion"} <= set(heavy)
    assert any(all(name in t for name in heavy) and "min" in t for t in texts(at, "caption"))
    at.button(key="me_run").click().run()
    assert fake_run[-1][1] == tuple(registry.default_selection())
    at.multiselect(key="me_experiments").select("roofline").run()
    at.button(key="me_run").click().run()
    assert "roofline" in fake_run[-1][1]


def test_on_a_cpu_the_roof_is_its_measured_ceilings_until_a_row_is_picked(monkeypatch):
    def run_suite(suite, **kw):
        return cpu(lesson_records())

    monkeypatch.setattr(runner, "run_suite", run_suite)
    at = run_page("measure")
    at.button(key="me_run").click().run()
    assert not at.exception and not at.error
    assert any("matches no spec row" in t for t in texts(at, "warning"))
    assert at.selectbox(key="me_spec").value == view.MEASURED_ONLY
    roofline = next(c for c in at.get("plotly_chart") if "Measured roofline" in c.proto.spec)
    names = [t.get("name", "") for t in json.loads(roofline.proto.spec)["data"]]
    assert any(n.startswith("measured ceiling: bf16") for n in names)
    assert any(n.startswith("measured ceiling: memory") for n in names)
    assert not any("published spec" in n for n in names)
    assert not any("% of" in t for t in texts(at, "info"))  # no fraction of spec
    at.selectbox(key="me_spec").set_value("NVIDIA A100 SXM4 80GB").run()
    assert any("beside NVIDIA A100 SXM4 80GB's spec" in t for t in titles(at))
    assert any("picked, not this device's row" in t for t in texts(at, "caption"))


def test_run_with_the_quick_suite_measures_this_cpu():
    at = run_page("measure", QUICK)
    at.button(key="me_run").click().run()
    assert not at.exception and not at.error
    records = at.session_state[view.STATE]
    assert {r.experiment for r in records} == {"dispatch", "sweep"}
    assert {r.backend for r in records} == {"cpu"}
    assert set(at.dataframe[0].value["experiment"]) == {"dispatch", "sweep"}
    shown = titles(at)
    assert shown[0] == sweep_title(sweep(records))  # the regimes this run found
    assert shown[1].startswith("Measured roofline — cpu") and "Dispatch vs compute" in shown[2]
    at.selectbox(key="me_spec").set_value("NVIDIA A100 SXM4 80GB").run()
    assert "beside NVIDIA A100 SXM4 80GB's spec" in titles(at)[1]
    assert at.session_state[view.STATE] == records


FAULTS = [
    (DeviceMemoryError("matmul 8192x8192x8192 needs 1e+09 bytes: refused"), "refused"),
    (
        BackendFailed("starting JAX", "", "Unable to initialize backend 'cuda'"),
        "JAX's runtime failed in starting JAX",
    ),
    # bugs, not the backend: the old page called any RuntimeError "JAX's backend failed"
    (ZeroDivisionError("inside an experiment"), "Something went wrong in the Measure page's run"),
    (RuntimeError("a bug of ours"), "Something went wrong in the Measure page's run"),
]


@pytest.mark.parametrize(("error", "said"), FAULTS)
def test_a_fault_in_a_run_is_said_and_the_next_run_works(monkeypatch, caplog, error, said):
    def fail(*args, progress, **kw):
        progress(0.5, "halfway")
        raise error

    monkeypatch.setattr(runner, "run_suite", fail)
    at = run_page("measure")
    with caplog.at_level(logging.ERROR, logger="perfcore"):
        at.button(key="me_run").click().run()
    assert not at.exception
    assert any(said in t for t in texts(at, "error"))
    logged = [r.exc_info[1] for r in caplog.records if r.exc_info]
    bug = not isinstance(error, (DeviceMemoryError, BackendFailed))
    assert logged == ([error] if bug else [])  # a bug's traceback goes to the server log
    assert view.STATE not in at.session_state and not at.session_state[view.RUNNING]
    monkeypatch.setattr(runner, "run_suite", lambda *a, **kw: lesson_records())
    at.button(key="me_run").click().run()
    assert not at.exception and not at.error and at.session_state[view.STATE]


def test_a_run_stopped_mid_way_is_reported_on_the_next_render(fake_run):
    at = run_page("measure")
    at.session_state[view.RUNNING] = True  # what a stopped run leaves behind
    at.run()
    assert any("stopped before it finished" in t for t in texts(at, "warning"))
    at.run()
    assert not any("stopped before it finished" in t for t in texts(at, "warning"))


def test_a_link_opens_with_its_experiments_suite_and_spec_row():
    query = QUICK | {"me_spec": "NVIDIA L4"}
    at = upload(run_page("measure", query), cpu(lesson_records()))
    assert at.multiselect(key="me_experiments").value == ["dispatch", "sweep"]
    assert at.radio(key="me_suite").value == "quick"
    assert at.selectbox(key="me_spec").value == "NVIDIA L4"
    assert any("**NVIDIA L4**" in t for t in texts(at, "caption"))
    assert not notices(at)


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        ("me_suite", "huge", "default"),
        ("me_experiments", "rm -rf", None),
        ("me_spec", "<b>GPU</b>", view.MEASURED_ONLY),
    ],
)
def test_garbage_link_values_fall_back_with_a_notice(key, value, shown):
    at = run_page("measure", {key: value})
    at = upload(at, cpu(lesson_records())) if key == "me_spec" else at  # the picker needs records
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
    assert len(shown) == 6 and "beside NVIDIA H100 SXM's spec" in shown[1]
    roofline = json.loads(at.get("plotly_chart")[1].proto.spec)
    names = [t.get("name", "") for t in roofline["data"]]
    assert "launch overhead ceiling (measured empty call)" in names
    assert any(n.startswith("measured ceiling") for n in names)
    assert any(n.startswith("NVIDIA H100 SXM (published spec)") for n in names)
    assert any(n.startswith("measured (median") for n in names)


def test_without_jax_the_page_says_how_to_get_it_and_upload_still_works(monkeypatch):
    monkeypatch.setattr(registry, "jax_available", lambda: "JAX is not installed: pip install jax")
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
    assert not any("when you press **Run**" in t for t in texts(at, "caption"))
    assert not upload(at).exception and titles(at)
