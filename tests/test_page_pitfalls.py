"""The pitfalls page in AppTest: the printed numbers, controls move them, links and junk."""

import pytest

from perfcore.format import NOT_PUBLISHED
from tests.support.pages import ROUND_H100, notices, run_page


def metric(at, label: str) -> str:
    """The displayed value called `label`: a headline metric's, or one in a details line."""
    values = [m.value for m in at.metric if m.label == label]
    for m in at.markdown:
        details = m.value.rsplit("\n", 1)[-1].split(" · ")
        values += [d.removeprefix(f"{label}: ") for d in details if d.startswith(f"{label}: ")]
    assert len(values) == 1, (label, values)
    return values[0]


@pytest.fixture(scope="module")
def round_page():
    """The page on the round-figures H100 at its default (the hand calculation's) inputs."""
    return run_page("pitfalls", {"device": ROUND_H100})


@pytest.mark.parametrize(
    ("label", "value"),
    [
        ("today (memory-bound)", "3.35 TFLOP/s"),
        ("2x the arithmetic peak (memory-bound)", "3.35 TFLOP/s"),
        ("2x the memory bandwidth (memory-bound)", "6.70 TFLOP/s"),
        ("gained from 2x the peak", "0 FLOP/s"),
        ("utilisation", "0.76 %"),
        ("compute units idle (last wave)", "131 of 132"),
        ("FP16 tensor path ceiling", "990.0 TFLOP/s"),
        ("FP32 vector path ceiling", "67.0 TFLOP/s"),
        ("ceiling lost", "14.8x"),
        ("one tensor", "33.6 MB"),
        ("copied over 1000 iterations", "33.6 GB"),
        ("PCIe, per direction", "64 GB/s"),
        ("PCIe is further away by", "52x"),
        ("weights (bf16)", "13.0 GiB"),
        ("network bytes per GPU per step", "1.75 GB"),
        ("network time per step", "35.0 ms"),
    ],
)
def test_round_printed_numbers_are_on_the_page(round_page, label, value):
    assert metric(round_page, label) == value


def test_each_belief_shows_one_headline_metric_the_chart_and_formulas_on_demand(round_page):
    assert len(round_page.metric) == 5 and len(round_page.get("plotly_chart")) == 1
    assert not round_page.latex
    at = run_page("pitfalls", {"device": ROUND_H100, "pf_formulas": "true"})
    assert len(at.latex) == 5 and at.toggle(key="pf_formulas").value
    assert [m.value for m in at.metric] == [m.value for m in round_page.metric]


def test_round_verdicts_give_the_printed_sentences(round_page):
    text = " ".join(m.value for m in round_page.markdown)
    assert "1365 FLOP/byte → 990.0 TFLOP/s vs 683 FLOP/byte → 67.0 TFLOP/s" in text
    assert "0.52 s of pure copying vs 0.01 s" in text
    assert "13.0 GiB fits in 80.0 GiB" in text


def test_more_iterations_raise_the_copy_time():
    at = run_page("pitfalls", {"device": ROUND_H100})
    at.number_input(key="pf_iters").set_value(2000).run()
    assert metric(at, "time over PCIe") == "1.05 s"


def test_more_nodes_raise_the_network_time():
    at = run_page("pitfalls", {"device": ROUND_H100})
    at.number_input(key="pf_nodes").set_value(16).run()
    assert metric(at, "network time per step") == "65.6 ms"


def test_a_link_opens_with_its_pitfall_values():
    query = {
        "device": ROUND_H100,
        "pf_decode_batch": "64",
        "pf_half": "bf16",
        "pf_iters": "10",
        "pf_copy_dtype": "fp32",
        "pf_nodes": "4",
    }
    at = run_page("pitfalls", query)
    assert at.number_input(key="pf_decode_batch").value == 64
    assert at.selectbox(key="pf_half").value == "bf16"
    assert metric(at, "copied over 10 iterations") == "671 MB"
    assert metric(at, "BF16 tensor path ceiling") == "990.0 TFLOP/s"
    assert metric(at, "network bytes per GPU per step") == "2.62 GB"
    assert not notices(at)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("pf_iters", "lots"),
        ("pf_half", "fp8"),
        ("pf_nodes", "-3"),
        ("pf_params", "1e999"),
        ("pf_copy_dtype", "<b>"),
        ("pf_elements", "0"),
    ],
)
def test_garbage_link_values_fall_back_with_a_notice(key, value):
    at = run_page("pitfalls", {"device": ROUND_H100, key: value})
    assert not at.exception
    assert any(f"`{key}=" in text for text in notices(at))
    assert metric(at, "network time per step") == "35.0 ms"


def test_a_device_missing_a_figure_shows_not_published_for_that_belief_only():
    at = run_page("pitfalls", {"device": "NVIDIA V100 SXM2"})
    assert not at.exception
    verdicts = [m.value for m in at.markdown if NOT_PUBLISHED in m.value]
    assert len(verdicts) == 2  # (1) at bf16 and (5) without a network figure
    assert metric(at, "utilisation") == "1.2 %"


def test_table_lists_all_five_beliefs(round_page):
    assert sorted(set(round_page.dataframe[0].value["#"])) == [1, 2, 3, 4, 5]


def test_takeaway_sums_up_the_five(round_page):
    text = next(i.value for i in round_page.info if "Read this" in i.value)
    assert "0.76 %" in text and "35.0 ms" in text


def test_a_beliefs_input_reruns_it_and_keeps_the_summary_in_step():
    """16 nodes: belief 5's network time is 65.6 ms (test_more_nodes_raise_the_network_time);
    the run after the change sends belief 5 and the summary alone (AppTest shows that run's
    elements), and the summary's table and takeaway carry the new time."""
    at = run_page("pitfalls", {"device": ROUND_H100})
    at.number_input(key="pf_nodes").set_value(16).run()
    assert [m.label for m in at.metric] == ["network time per step"]
    assert not at.get("plotly_chart")  # belief 1's chart was not sent again
    table = at.dataframe[0].value
    row = table[table["quantity"] == "network time per step"]
    assert row["value"].tolist() == ["65.6 ms"]  # shown in its own unit
    assert "sharding across 16 nodes adds 65.6 ms" in at.info[0].value
