"""The served app: `streamlit run app.py` with the repo's config.toml, and hosted mode.

No browser: a websocket client opens a session the way the front end does (the XSRF cookie's
token as the second subprotocol), which is all the upload endpoint needs. The settings that
matter on a public instance are checked where they take effect: health, XSRF, the upload
limit, the session config. Hosted mode (PERFCORE_HOSTED=1) is checked page by page with AppTest.
"""

import json
import os
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.NewSession_pb2 import Config

from perfcore.measure import results
from perfcore.measure.clock.harness import ISOLATED, Measurement
from tests.support.live import XSRF, open_stream, serve
from tests.support.pages import PAGES, run_page, upload_folded

ROOT = Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
LIMIT_MB = CONFIG["server"]["maxUploadSize"]
LIMIT_BYTES = LIMIT_MB * 1024 * 1024
WAIT_S = 60


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`streamlit run app.py` from the repo root on a free port; its base URL. Always stopped.
    Nothing pinned on the command line or in STREAMLIT_*: config.toml alone decides."""
    environ = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("STREAMLIT_") and k != "PERFCORE_HOSTED"
    }
    log = tmp_path_factory.mktemp("server") / "streamlit.log"
    with serve("app.py", flags=(), env=environ, log=log) as running:
        yield running.url


@dataclass(frozen=True)
class Session:
    """A live browser-like session: its id, XSRF token and the first run's messages."""

    id: str
    token: str
    messages: tuple[ForwardMsg, ...]


def first_run(ws) -> tuple[ForwardMsg, ...]:
    """ForwardMsgs of the first script run, up to script_finished (bounded by WAIT_S)."""
    messages, deadline = [], time.monotonic() + WAIT_S
    while not messages or messages[-1].WhichOneof("type") != "script_finished":
        msg = ForwardMsg()
        msg.ParseFromString(ws.recv(timeout=max(deadline - time.monotonic(), 0.1)))
        messages.append(msg)
    return tuple(messages)


@pytest.fixture(scope="module")
def session(server):
    """Open the app as the front end does: cookie, websocket with the token, one run."""
    token = requests.get(f"{server}/_stcore/health", timeout=10).cookies[XSRF]
    with open_stream(server, token, timeout_s=WAIT_S) as ws:
        ws.send(BackMsg(rerun_script={}).SerializeToString())
        messages = first_run(ws)
        (new,) = [m.new_session for m in messages if m.WhichOneof("type") == "new_session"]
        yield Session(new.initialize.session_id, token, messages)


def upload(server: str, session_id: str, body: bytes, token: str | None, chunked=False):
    """PUT one file to the upload endpoint, as st.file_uploader's front end does."""
    url = f"{server}/_stcore/upload_file/{session_id}/file-1"
    headers, cookies = ({"X-Xsrftoken": token}, {XSRF: token}) if token else ({}, {})
    if not chunked:
        files = {"file": ("results.json", body, "application/json")}
        return requests.put(url, files=files, headers=headers, cookies=cookies, timeout=WAIT_S)
    boundary = "perfcoretestboundary"
    disposition = 'Content-Disposition: form-data; name="file"; filename="results.json"'
    head = f"--{boundary}\r\n{disposition}\r\nContent-Type: application/json\r\n\r\n".encode()
    parts = iter([head, body, f"\r\n--{boundary}--\r\n".encode()])  # no Content-Length
    headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
    return requests.put(url, data=parts, headers=headers, cookies=cookies, timeout=WAIT_S)


def test_health_endpoint_answers_ok(server):
    response = requests.get(f"{server}/_stcore/health", timeout=10)
    assert (response.status_code, response.text) == (200, "ok")


def test_xsrf_cookie_is_set(server):
    response = requests.get(f"{server}/_stcore/health", timeout=10)
    assert response.cookies.get(XSRF, "").startswith("2|")


def test_an_upload_without_the_xsrf_token_is_rejected(server, session):
    assert upload(server, session.id, b"{}", token=None).status_code == 403


def test_a_small_upload_passes_the_size_check(server, session):
    assert upload(server, session.id, b"{}", session.token).status_code == 204


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_an_upload_over_max_upload_size_is_rejected(server, session, chunked):
    body = b"x" * (LIMIT_BYTES + 1)
    response = upload(server, session.id, body, session.token, chunked=chunked)
    assert response.status_code == 413, response.text


def test_an_upload_to_another_replicas_session_is_refused(server, session):
    # What happens without sticky sessions: the session lives in another process.
    response = upload(server, "not-this-process", b"{}", session.token)
    assert response.status_code == 400 and "sticky" in response.text


def test_the_session_gets_the_public_instance_settings(session):
    (new,) = [m.new_session for m in session.messages if m.WhichOneof("type") == "new_session"]
    assert new.config.gather_usage_stats is False
    assert new.config.toolbar_mode == Config.ToolbarMode.VIEWER


def test_every_uploader_announces_the_upload_limit(server, session):
    """The Measure page's results uploader (the sidebar's are drawn in a closed popover)."""
    with open_stream(server, session.token, timeout_s=WAIT_S) as ws:
        ws.send(BackMsg(rerun_script={"page_name": "measure"}).SerializeToString())
        messages = first_run(ws)
    deltas = [m.delta.new_element for m in messages if m.WhichOneof("type") == "delta"]
    limits = [
        e.file_uploader.max_upload_size_mb
        for e in deltas
        if e.WhichOneof("type") == "file_uploader"
    ]
    assert limits and set(limits) == {LIMIT_MB}


@pytest.fixture
def hosted(monkeypatch):
    """Hosted mode for an AppTest run in this process."""
    monkeypatch.setenv("PERFCORE_HOSTED", "1")


def texts(at) -> list[str]:
    """Everything an AppTest run shows as text, lower-cased."""
    kinds = ("markdown", "info", "warning", "error", "caption", "title", "header", "subheader")
    return [str(e.value).lower() for kind in kinds for e in at.get(kind)]


def results_json() -> bytes:
    """A one-record results file, as `python -m perfcore measure` writes it."""
    record = results.Record(
        experiment="sweep",
        label="matmul 1024",
        measurement=Measurement((1e-4, 1.1e-4), 1, ISOLATED, 3),
        device="NVIDIA H100 80GB HBM3",
        backend="gpu",
        jax_version="0.10.2",
        timestamp="2025-01-31T12:00:00+00:00",
        spec_name="NVIDIA H100 SXM",
        shapes=((1024, 1024), (1024, 1024)),
        dtype="bfloat16",
        precision="bf16",
        flops=2.0 * 1024**3,
        bytes=6.0 * 1024**2,
        flops_model=2.0 * 1024**3,
        bytes_model=6.0 * 1024**2,
        flops_source="cost_analysis",
    )
    return results.to_json((record,)).encode()


def results_uploader(at):
    """The page's results uploader (not the sidebar's specs or models uploader)."""
    uploaders = [u for u in at.file_uploader if u.key not in ("specs_upload", "models_upload")]
    assert uploaders, "no results-file uploader on the page"
    return uploaders[0]


def test_hosted_measure_page_refuses_to_measure_and_offers_upload(hosted):
    at = run_page("measure")
    assert not at.exception, at.exception
    assert any("hosted" in text for text in texts(at)), "the page must say why it will not measure"
    assert not [b.label for b in at.button if "run" in b.label.lower()]
    results_uploader(at).set_value(("results.json", results_json(), "application/json")).run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])


@pytest.mark.parametrize("page", [p for p in PAGES if p != "measure"])
def test_hosted_mode_leaves_every_other_page_working(hosted, page):
    at = run_page(page)
    assert not at.exception, at.exception


def traces(at) -> int:
    """How many traces the page's first Plotly chart draws."""
    return len(json.loads(at.get("plotly_chart")[0].proto.spec)["data"])


def test_hosted_roofline_overlays_an_uploaded_results_file(hosted):
    at = run_page("roofline")
    before = traces(at)
    at = upload_folded(at, "rf_results", "results.json", results_json())
    assert not at.exception and not at.error
    assert traces(at) > before, "the measured point is drawn"
