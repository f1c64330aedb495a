"""The scale-out page in AppTest: controls move numbers, links restore views, junk falls back."""

import pytest

from perfcore.format import NOT_PUBLISHED
from tests.support.pages import ROUND_H100, notices, run_page

# ui.number notices a non-integer link value, but Streamlit's binding truncates 2.5 to 2
# instead of showing the default: a ui/widgets.py matter, reported rather than worked around here.


def metric(at, label: str) -> str:
    """The displayed value of the metric called `label`."""
    return next(m.value for m in at.metric if m.label == label)


MARKETED = {"device": ROUND_H100, "so_convention": "as-marketed"}


@pytest.fixture(scope="module")
def round_page():
    """The round-figures H100, as marketed, other inputs at defaults (7e9 bf16, 8 GPUs x 2)."""
    return run_page("scale_out", MARKETED)


def test_the_page_opens_per_direction_and_as_marketed_is_one_click_away():
    at = run_page("scale_out", {"device": ROUND_H100})
    assert at.radio(key="so_convention").value == "per-direction"
    per_direction = [
        metric(at, m) for m in ("Link ratio, up / out", "Share of time on the network")
    ]
    assert per_direction == ["9.0x", "39 %"]
    assert "a minority" in next(i.value for i in at.info if "Read this" in i.value)
    at.radio(key="so_convention").set_value("as-marketed").run()
    assert metric(at, "Share of time on the network") == "56 %"
    assert metric(at, "Link ratio, up / out") == "18x"


def test_round_defaults_show_printed_in_node_and_two_node_numbers(round_page):
    got = [
        metric(round_page, label)
        for label in (
            "In-node leg: bytes per GPU",
            "In-node leg: time",
            "Network leg: bytes per GPU",
            "All-reduce time",
            "Share of time on the network",
        )
    ]
    assert got == ["24.5 GB", "27.2 ms", "1.75 GB", "62.2 ms", "56 %"]


def test_round_table_shows_four_and_sixteen_nodes(round_page):
    assert not round_page.dataframe and round_page.get("plotly_chart")  # the chart's tab
    at = run_page("scale_out", {**MARKETED, "so_view": "Table"})
    assert not at.get("plotly_chart")
    df = at.dataframe[0].value.set_index("nodes")  # shown in GB, ms and %
    columns = ["network bytes per GPU", "all-reduce time", "network share of time"]
    assert [round(v, 1) for v in df.loc[4, columns]] == [2.6, 79.7, 65.9]
    assert [round(v, 1) for v in df.loc[16, columns]] == [3.3, 92.8, 70.7]


def test_more_nodes_raise_the_all_reduce_time_and_network_share():
    at = run_page("scale_out", MARKETED)
    at.number_input(key="so_nodes").set_value(16).run()
    assert (metric(at, "All-reduce time"), metric(at, "Share of time on the network")) == (
        "92.8 ms",
        "71 %",
    )


def test_per_direction_convention_doubles_the_in_node_time():
    at = run_page("scale_out", MARKETED)
    at.radio(key="so_convention").set_value("per-direction").run()
    assert metric(at, "In-node leg: time") == "54.4 ms"
    assert metric(at, "Scale-up, used (per-direction)") == "450 GB/s"


def test_a_link_opens_with_its_scale_out_values():
    query = {
        "device": ROUND_H100,
        "so_nodes": "4",
        "so_gpus": "4",
        "so_dtype": "fp32",
        "so_convention": "per-direction",
        "so_alpha_out_us": "5",
    }
    at = run_page("scale_out", query)
    assert at.number_input(key="so_nodes").value == 4
    assert at.number_input(key="so_gpus").value == 4
    assert at.number_input(key="so_alpha_out_us").value == 5.0
    assert at.selectbox(key="so_dtype").value == "fp32"
    assert at.radio(key="so_convention").value == "per-direction"
    assert metric(at, "Network leg: bytes per GPU") == "10.5 GB"  # 2 x 3/4 x 28 GB / 4
    assert not notices(at)


def test_the_latency_inputs_are_drawn_only_when_counted_and_a_link_that_sets_one_opens_them():
    """Off by default: no latency input is drawn and both hops cost 0 µs. Toggled on: both
    drawn at 0; a link that sets one (?so_alpha_out_us=5) opens them with no ?so_alpha."""
    at = run_page("scale_out", {"device": ROUND_H100})
    assert at.toggle(key="so_alpha").value is False
    assert not [w for w in at.number_input if w.key.startswith("so_alpha")]
    plain = metric(at, "All-reduce time")
    at.toggle(key="so_alpha").set_value(True).run()
    assert [at.number_input(key=k).value for k in ("so_alpha_up_us", "so_alpha_out_us")] == [0, 0]
    assert metric(at, "All-reduce time") == plain
    linked = run_page("scale_out", {"device": ROUND_H100, "so_alpha_out_us": "5"})
    assert linked.toggle(key="so_alpha").value is True
    assert metric(linked, "All-reduce time") != plain


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("so_nodes", "abc"),
        ("so_nodes", "0"),
        ("so_dtype", "fp128"),
        ("so_convention", "sideways"),
        ("so_alpha_up_us", "-1"),
    ],
)
def test_garbage_link_values_fall_back_with_a_notice(key, value):
    at = run_page("scale_out", {"device": ROUND_H100, key: value})
    assert not at.exception
    assert any(f"`{key}=" in text for text in notices(at))
    assert metric(at, "All-reduce time") == "89.4 ms"


@pytest.mark.parametrize("value", ["nan", "lots", "1e999", "0"])
def test_a_parameter_count_that_is_not_one_says_the_field_and_the_range(value):
    """The parameters are typed as a count ('7G', 7e9); one that is not says so, in place."""
    at = run_page("scale_out", {"device": ROUND_H100, "so_params": value})
    assert not at.exception
    (said,) = [e.value for e in at.error]
    assert said.startswith("Parameters (gradients) = ") and "from 1M to 10T" in said
    assert said.endswith("showing 7G.")
    assert metric(at, "All-reduce time") == "89.4 ms"


def test_a_parameter_count_reads_as_typed():
    """'70G' and 7e10 are the same 70 billion parameters: ten times the default's bytes."""
    shown = {
        v: run_page("scale_out", {"device": ROUND_H100, "so_params": v}) for v in ("70G", "7e10")
    }
    assert [at.text_input(key="so_params").value for at in shown.values()] == ["70G", "7e10"]
    assert {metric(at, "In-node leg: bytes per GPU") for at in shown.values()} == {"245 GB"}


def test_a_fractional_count_is_flagged_and_the_notice_names_what_is_shown():
    at = run_page("scale_out", {"device": ROUND_H100, "so_gpus": "2.5"})
    assert any("`so_gpus=2.5` was ignored" in t and "showing 2." in t for t in notices(at))


def test_device_without_a_network_figure_shows_not_published_and_keeps_the_in_node_leg():
    at = run_page("scale_out", {"device": "NVIDIA V100 SXM2"})
    assert not at.exception
    assert metric(at, "Scale-out (one direction)") == NOT_PUBLISHED
    assert metric(at, "Network leg: time") == NOT_PUBLISHED
    assert metric(at, "In-node leg: time") == "163 ms"


def test_takeaway_is_computed_from_the_numbers(round_page):
    text = next(i.value for i in round_page.info if "Read this" in i.value)
    assert "7.1 % of the bytes" in text and "18x slower" in text
