"""The pitfalls page in AppTest: the printed numbers, controls move them, links and junk."""

import functools

import pytest

from perfcore.explain.chip.pitfalls import TITLES
from perfcore.explain.chip.pitfalls_summary import SUMMARY
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


@functools.cache
def belief(n: int, device: str = ROUND_H100, **query: str):
    """The page on belief n's tab (round-figures H100: the hand calculation's inputs)."""
    return run_page("pitfalls", {"device": device, "pf_belief": TITLES[n], **query})


@pytest.fixture(scope="module")
def round_page():
    """The round-figures H100's summary tab: the five at their default inputs."""
    return run_page("pitfalls", {"device": ROUND_H100, "pf_belief": SUMMARY})


@pytest.mark.parametrize(
    ("n", "label", "value"),
    [
        (1, "today (memory-bound)", "3.35 TFLOP/s"),
        (1, "2x the arithmetic peak (memory-bound)", "3.35 TFLOP/s"),
        (1, "2x the memory bandwidth (memory-bound)", "6.70 TFLOP/s"),
        (1, "gained from 2x the peak", "0 FLOP/s"),
        (2, "utilisation", "0.76 %"),
        (2, "compute units idle (last wave)", "131 of 132"),
        (3, "FP16 tensor path ceiling", "990.0 TFLOP/s"),
        (3, "FP32 vector path ceiling", "67.0 TFLOP/s"),
        (3, "ceiling lost", "14.8x"),
        (4, "one tensor", "33.6 MB"),
        (4, "copied over 1000 iterations", "33.6 GB"),
        (4, "PCIe, per direction", "64 GB/s"),
        (4, "PCIe is further away by", "52x"),
        (5, "weights (bf16)", "13.0 GiB"),
        (5, "network bytes per GPU per step", "1.75 GB"),
        (5, "network time per step", "35.0 ms"),
    ],
)
def test_round_printed_numbers_are_on_their_beliefs_tab(n, label, value):
    assert metric(belief(n), label) == value


@pytest.mark.parametrize("n", sorted(TITLES))
def test_each_tab_draws_its_belief_alone_with_one_headline_metric(n):
    at = belief(n)
    assert len(at.metric) == 1 and len(at.get("plotly_chart")) == (n == 1)
    assert not at.latex
    assert [t.label for t in at.tabs] == [*TITLES.values(), SUMMARY]  # drawn: the open one
    assert not at.dataframe
    shown = belief(n, pf_formulas="true")
    assert len(shown.latex) == 1 and shown.toggle(key="pf_formulas").value
    assert [m.value for m in shown.metric] == [m.value for m in at.metric]


def test_round_verdicts_give_the_printed_sentences():
    text = " ".join(m.value for n in (3, 4, 5) for m in belief(n).markdown)
    assert "1365 FLOP/byte → 990.0 TFLOP/s vs 683 FLOP/byte → 67.0 TFLOP/s" in text
    assert "0.52 s of pure copying vs 0.01 s" in text
    assert "13.0 GiB fits in 80.0 GiB" in text


def test_more_iterations_raise_the_copy_time():
    at = run_page("pitfalls", {"device": ROUND_H100, "pf_belief": TITLES[4]})
    at.number_input(key="pf_iters").set_value(2000).run()
    assert metric(at, "time over PCIe") == "1.05 s"


def test_more_nodes_raise_the_network_time():
    at = run_page("pitfalls", {"device": ROUND_H100, "pf_belief": TITLES[5]})
    at.number_input(key="pf_nodes").set_value(16).run()
    assert metric(at, "network time per step") == "65.6 ms"


def test_a_link_opens_with_its_pitfall_values():
    at = belief(1, pf_decode_batch="64")
    assert at.number_input(key="pf_decode_batch").value == 64
    at = belief(3, pf_half="bf16")
    assert at.selectbox(key="pf_half").value == "bf16"
    assert metric(at, "BF16 tensor path ceiling") == "990.0 TFLOP/s"
    assert metric(belief(4, pf_iters="10", pf_copy_dtype="fp32"), "copied over 10 iterations") == (
        "671 MB"
    )
    at = belief(5, pf_nodes="4")
    assert metric(at, "network bytes per GPU per step") == "2.62 GB"
    assert not notices(at)


@pytest.mark.parametrize(("key", "n"), [("pf_batch", 2), ("pf_iters", 4), ("pf_nodes", 5)])
def test_a_link_made_before_the_tabs_opens_on_the_belief_it_set(key, n):
    at = run_page("pitfalls", {"device": ROUND_H100, key: "3"})
    assert at.tabs[0].label == TITLES[1]
    assert [m.label for m in at.metric] == [m.label for m in belief(n).metric]
    assert not notices(at)


def test_a_link_naming_no_tab_falls_back_to_the_first_with_a_notice():
    at = run_page("pitfalls", {"device": ROUND_H100, "pf_belief": "Belief six"})
    assert any("`pf_belief=Belief six`" in text for text in notices(at))
    assert [m.label for m in at.metric] == [m.label for m in belief(1).metric]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("pf_iters", "lots"),
        ("pf_half", "fp8"),
        ("pf_nodes", "-3"),
        ("pf_copy_dtype", "<b>"),
        ("pf_elements", "0"),
    ],
)
def test_garbage_link_values_fall_back_with_a_notice(key, value):
    at = run_page("pitfalls", {"device": ROUND_H100, key: value})  # opens on the belief
    assert not at.exception
    assert any(f"`{key}=" in text for text in notices(at))
    n = {"pf_iters": 4, "pf_half": 3, "pf_nodes": 5}.get(key, 4)
    assert [m.value for m in at.metric] == [m.value for m in belief(n).metric]  # its default


def test_a_device_missing_a_figure_shows_not_published_for_that_belief_only():
    device = "NVIDIA V100 SXM2"
    unpublished = [
        n for n in TITLES if any(NOT_PUBLISHED in m.value for m in belief(n, device).markdown)
    ]
    assert unpublished == [1, 5]  # (1) at bf16 and (5) without a network figure
    assert metric(belief(2, device), "utilisation") == "1.2 %"
    summary = run_page("pitfalls", {"device": device, "pf_belief": SUMMARY})
    assert "(1, 5: not published for this device.)" in summary.info[0].value


def test_table_lists_all_five_beliefs(round_page):
    assert sorted(set(round_page.dataframe[0].value["#"])) == [1, 2, 3, 4, 5]


def test_takeaway_sums_up_the_five(round_page):
    text = next(i.value for i in round_page.info if "Read this" in i.value)
    assert "0.76 %" in text and "35.0 ms" in text


def test_a_beliefs_input_reruns_that_belief_alone():
    """16 nodes: belief 5's network time is 65.6 ms (test_more_nodes_raise_the_network_time);
    the run after the change sends belief 5 alone (AppTest shows that run's elements), not
    the summary, which prices the defaults (2 nodes: 35.0 ms)."""
    at = run_page("pitfalls", {"device": ROUND_H100, "pf_belief": TITLES[5]})
    at.number_input(key="pf_nodes").set_value(16).run()
    assert [(m.label, m.value) for m in at.metric] == [("network time per step", "65.6 ms")]
    assert not at.dataframe and not at.info
    query = {"device": ROUND_H100, "pf_nodes": "16", "pf_belief": SUMMARY}
    summary = run_page("pitfalls", query)  # at the defaults, whatever belief 5's input
    assert "sharding across 2 nodes adds 35.0 ms" in summary.info[0].value


def test_a_parameter_count_that_is_not_one_says_the_field_and_prices_the_default():
    """Belief 1's parameters are typed as a count ('7G'); '1e999' says so in place."""
    at = run_page("pitfalls", {"device": ROUND_H100, "pf_params": "1e999"})  # opens on belief 1
    assert not at.exception
    (said,) = [e.value for e in at.error]
    assert said.startswith("Decode params = '1e999' is not usable") and said.endswith("7G.")
    assert [m.value for m in at.metric] == [m.value for m in belief(1).metric]
