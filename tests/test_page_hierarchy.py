"""The hierarchy page: the printed trips on screen, numbers move with inputs, links restore it."""

import json

from tests.support.pages import ROUND_H100, notices, run_page, table_text

ROUND_FP16 = {"device": ROUND_H100, "precision": "fp16"}
TABLE = {**ROUND_FP16, "hi_tab": "Table"}


def _trip(at) -> str:
    """The first metric: one device-memory trip on the chosen device."""
    return at.metric[0].value


def _y_title(at) -> str:
    return json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["yaxis"]["title"]["text"]


def test_the_hand_calculations_flops_forgone_are_in_the_table():
    at = run_page("hierarchy", TABLE)
    shown = table_text(at)["FLOPs forgone per trip (MFLOP)"]
    assert list(shown[:6]) == ["0.99", "29.70", "198.00", "495.00", "1,980.00", "4,950.00"]
    assert _trip(at) == "495 MFLOP"


def test_a_narrower_precision_raises_the_flops_one_trip_forgoes():
    at = run_page("hierarchy", ROUND_FP16)
    at.selectbox(key="precision").set_value("fp8").run()
    assert _trip(at) == "990 MFLOP"
    at.selectbox(key="precision").set_value("fp32").run()
    assert _trip(at) == "33.5 MFLOP"


def test_the_metric_control_changes_what_the_chart_plots():
    at = run_page("hierarchy", ROUND_FP16)
    assert _y_title(at).startswith("FLOPs forgone")
    at.radio(key="hi_metric").set_value("bandwidth").run()
    assert _y_title(at) == "bandwidth (bytes/s)"


def test_a_compared_device_gets_its_own_trip_and_rows():
    at = run_page("hierarchy", {**TABLE, "compare": "NVIDIA V100 SXM2"})
    assert [m.value for m in at.metric][:2] == ["495 MFLOP", "62.5 MFLOP"]
    assert len(at.dataframe[0].value) == 14
    assert "7.9x fewer" in at.info[0].value


def test_an_unpublished_precision_shows_not_published():
    at = run_page("hierarchy", {"device": "NVIDIA V100 SXM2", "precision": "fp8"})
    assert not at.exception
    assert _trip(at) == "not published"


def test_a_link_opens_the_page_on_its_metric():
    at = run_page("hierarchy", {**ROUND_FP16, "hi_metric": "latency"})
    assert at.radio(key="hi_metric").value == "latency"
    assert _y_title(at) == "latency (s, order-of-magnitude estimate)"
    assert not notices(at)


def test_a_garbage_metric_falls_back_with_a_notice():
    at = run_page("hierarchy", {"hi_metric": "<img src=x>"})
    assert not at.exception
    assert at.radio(key="hi_metric").value == "FLOPs forgone"
    assert any("`hi_metric=" in text for text in notices(at))


def test_the_chart_opens_first_and_the_table_is_a_tab():
    """Only the open tab is drawn: the chart and its metric at first, the table from its link."""
    first = run_page("hierarchy", ROUND_FP16)
    assert [c.key for c in first.get("plotly_chart")] == ["hi_chart"] and not first.dataframe
    tabled = run_page("hierarchy", TABLE)
    assert not tabled.get("plotly_chart") and not tabled.radio and len(tabled.dataframe) == 1
