"""Page parts over the app's websocket, as the front end sends them: a control inside a part
(st.fragment) reruns that part alone.

Each test opens a page (one full run), then changes one control the way the browser does: a
rerun message carrying the widget's new value and the part it sits in. What the server sends
back is the rerun: every element it re-sends. (The link is the front end's: it writes a bound
widget's value into the URL itself. tests/test_browser.py changes each page's first number
input, inside a part on Pitfalls and Workloads, and checks the link and that it reopens.)
"""

from dataclasses import dataclass

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.support.live import ROOT, WAIT_MS, open_stream, serve

WAIT_S = WAIT_MS / 1e3


@pytest.fixture(scope="module")
def app_url():
    with serve(ROOT / "app.py") as server:
        yield server.url


@dataclass
class Run:
    """One script run's messages: the elements sent (type, key, part) and how it ended."""

    elements: list[tuple[str, str, str]]  # (element type, widget key or "", fragment id)
    finished: int
    widgets: dict[str, tuple[str, str]]  # widget key -> (widget id, fragment id)
    page_hash: str


def receive(ws) -> Run:
    """Messages up to the run's end (a run cut short for the one it asked for goes on)."""
    run = Run([], -1, {}, "")
    while True:
        msg = ForwardMsg.FromString(ws.recv(timeout=WAIT_S))
        kind = msg.WhichOneof("type")
        if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            which = element.WhichOneof("type")
            inner = getattr(element, which)
            key = getattr(inner, "id", "")
            key = key.rsplit("-", 1)[-1] if "-" in key else ""  # ids end with the user's key
            run.elements.append((which, key, msg.delta.fragment_id))
            if key:
                run.widgets[key] = (inner.id, msg.delta.fragment_id)
        elif kind == "new_session":
            run.page_hash = msg.new_session.page_script_hash
        elif kind == "script_finished" and msg.script_finished != msg.FINISHED_EARLY_FOR_RERUN:
            run.finished = msg.script_finished
            return run


def open_page(ws, page: str, query: str = "") -> Run:
    """The page's first run, from a link with `query` (?a=b&c=d without the ?)."""
    ws.send(BackMsg(rerun_script={"page_name": page, "query_string": query}).SerializeToString())
    return receive(ws)


def change(ws, opened: Run, key: str, **value) -> Run:
    """Set the widget `key` (double_value=, string_value=: its proto field) as the browser does,
    within the part it sits in; the run that follows."""
    widget_id, fragment_id = opened.widgets[key]
    msg = BackMsg(rerun_script={"page_script_hash": opened.page_hash, "fragment_id": fragment_id})
    msg.rerun_script.widget_states.widgets.add(id=widget_id, **value)
    ws.send(msg.SerializeToString())
    return receive(ws)


def test_a_pitfall_input_reruns_its_belief_alone(app_url):
    with open_stream(app_url) as ws:
        opened = open_page(ws, "pitfalls", "pf_belief=Batch+size+one")
        assert opened.finished == ForwardMsg.FINISHED_SUCCESSFULLY
        kinds = [e for e, _, _ in opened.elements]
        assert kinds.count("metric") == 1 and "plotly_chart" not in kinds  # one tab drawn
        run = change(ws, opened, "pf_batch", double_value=64)  # belief 2: batch 1 wastes the chip
    assert run.finished == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
    kinds = [e for e, _, _ in run.elements]
    # Belief 2's input, metric and verdict; not the summary under the tabs (at the defaults),
    # not the sidebar's pickers, not the page's title.
    assert kinds.count("metric") == 1 and "dataframe" not in kinds, kinds
    assert "heading" not in kinds and "selectbox" not in kinds
    assert {f for _, _, f in run.elements} == {opened.widgets["pf_batch"][1]}


def test_a_workload_input_reruns_the_workload_not_the_sidebar(app_url):
    with open_stream(app_url) as ws:
        opened = open_page(ws, "workloads")
        run = change(ws, opened, "wl_batch", double_value=32)
    assert run.finished == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
    keys = {k for _, k, _ in run.elements}
    assert "wl_batch" in keys and "wl_chart" in keys  # the workload, with its chart inside
    assert not keys & {"device", "precision", "compare"}, keys  # the sidebar stays as it was
    assert [e for e, _, _ in run.elements].count("heading") == 0  # so does the title


def test_the_workload_chart_picker_reruns_the_chart_alone(app_url):
    with open_stream(app_url) as ws:
        opened = open_page(ws, "workloads")
        run = change(ws, opened, "wl_chart", string_value="Memory")
    kinds = [e for e, _, _ in run.elements]
    assert run.finished == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
    assert kinds.count("plotly_chart") == 1 and "metric" not in kinds, kinds
    assert "dataframe" not in kinds and "number_input" not in kinds


def test_a_tile_input_reruns_the_tile_section_alone(app_url):
    with open_stream(app_url) as ws:
        opened = open_page(ws, "occupancy", "oc_section=Matmul+tile+quantisation")
        assert "oc_batch" not in opened.widgets  # the batch section's tab is not drawn
        run = change(ws, opened, "oc_m", double_value=8192)
    assert run.finished == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
    kinds, keys = [e for e, _, _ in run.elements], {k for _, k, _ in run.elements}
    # The tile section (its inputs, four numbers, its table, its takeaway); not the sidebar,
    # not the page's notes under the tabs.
    assert {"oc_m", "oc_n", "oc_tile"} <= keys and "device" not in keys
    assert kinds.count("metric") == 4 and kinds.count("dataframe") == 1, kinds
    assert kinds.count("alert") == 1 and not {"plotly_chart", "heading"} & set(kinds), kinds
    assert {f for _, _, f in run.elements} == {opened.widgets["oc_m"][1]}


@pytest.mark.parametrize(
    ("page", "key", "value", "chart"),
    [
        ("generations", "ge_attention_seq", 1024, "ge_chart"),
        ("scale_out", "so_nodes", 4, "so_chart"),
    ],
)
def test_a_one_part_pages_input_reruns_the_page_not_the_sidebar(app_url, page, key, value, chart):
    with open_stream(app_url) as ws:
        opened = open_page(ws, page)
        run = change(ws, opened, key, double_value=value)
    assert run.finished == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
    keys = {k for _, k, _ in run.elements}
    assert {key, chart} <= keys, keys  # the page, with its chart
    assert not keys & {"device", "precision", "compare"}, keys  # the sidebar stays as it was
