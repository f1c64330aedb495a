"""The occupancy page: the 133-block cliff one click away, numbers move, links restore it."""

import pytest

from tests.support.pages import ROUND_H100, notices, run_page

TILES = {"device": ROUND_H100, "oc_section": "Matmul tile quantisation"}


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_the_round_h100_opens_on_batch_one_with_131_units_idle():
    at = run_page("occupancy", {"device": ROUND_H100})
    assert _metric(at, "utilisation") == "0.758 %"
    assert _metric(at, "idle units (last wave)") == "131 of 132"
    ladder = at.dataframe[0].value
    assert list(ladder["batch (sequences)"]) == [1, 8, 32, 64, 132, 133, 264, 512]


def test_one_click_shows_the_133_block_cliff():
    at = run_page("occupancy", {"device": ROUND_H100})
    at.radio(key="oc_preset").set_value("units").run()
    assert _metric(at, "utilisation") == "100 %"
    at.radio(key="oc_preset").set_value("units + 1").run()
    assert (_metric(at, "waves"), _metric(at, "utilisation")) == ("2", "50.4 %")
    assert "1 block fewer would save a whole wave" in at.info[0].value


def test_a_bigger_batch_raises_utilisation_within_a_wave():
    at = run_page("occupancy", {"device": ROUND_H100})
    at.number_input(key="oc_batch").set_value(64).run()
    assert _metric(at, "utilisation") == "48.5 %"
    at.number_input(key="oc_batch").set_value(512).run()
    assert (_metric(at, "waves"), _metric(at, "utilisation")) == ("4", "97.0 %")


def test_more_blocks_per_sequence_raise_the_blocks():
    at = run_page("occupancy", {"device": ROUND_H100, "oc_batch": "33"})
    at.number_input(key="oc_per_seq").set_value(4).run()
    assert (_metric(at, "blocks"), _metric(at, "utilisation")) == ("132", "100 %")


def test_a_larger_matrix_needs_more_tiles():
    at = run_page("occupancy", TILES)
    before = int(_metric(at, "tiles"))
    at.number_input(key="oc_m").set_value(8192).run()
    assert int(_metric(at, "tiles")) == 2 * before


def test_a_link_opens_the_page_on_the_cliff_or_its_tile():
    at = run_page("occupancy", {"device": ROUND_H100, "oc_preset": "units + 1"})
    assert at.radio(key="oc_preset").value == "units + 1"
    assert _metric(at, "utilisation") == "50.4 %"
    at = run_page("occupancy", {**TILES, "oc_tile": "256x128", "oc_m": "3000"})
    assert at.selectbox(key="oc_tile").value == "256x128"
    assert at.number_input(key="oc_m").value == 3000
    assert _metric(at, "tiles") == "384"  # ceil(3000 / 256) x ceil(4096 / 128) = 12 x 32
    assert not notices(at)


def test_a_link_made_before_the_tabs_opens_on_the_section_it_set():
    at = run_page("occupancy", {"device": ROUND_H100, "oc_n": "8192"})
    assert at.number_input(key="oc_n").value == 8192 and not at.radio
    assert "A 4096x8192 output in 128x128 tiles" in at.info[0].value


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("oc_preset", "999"),
        ("oc_tile", "3x3"),
        ("oc_batch", "-1"),
        ("oc_per_seq", "lots"),
        ("oc_n", "0"),
        ("oc_section", "Everything"),
    ],
)
def test_garbage_link_values_fall_back_with_a_notice(key, value):
    at = run_page("occupancy", {"device": ROUND_H100, key: value})
    assert not at.exception
    assert any(f"`{key}=" in text for text in notices(at))
    # the section the link set, at its defaults: 32 x 32 tiles of 128 x 128, or batch 1
    label, default = ("tiles", "1024") if key in ("oc_tile", "oc_n") else ("utilisation", "0.758 %")
    assert _metric(at, label) == default


def test_the_compared_device_is_named_in_the_spec_captions():
    at = run_page("occupancy", {"device": ROUND_H100, "compare": "NVIDIA A100 SXM4 80GB"})
    assert not at.exception
    assert any("NVIDIA A100 SXM4 80GB" in c.value for c in at.caption)


def test_a_sections_input_reruns_that_section_alone():
    """A tile input reruns the tile section (AppTest shows that run's elements): the tile
    numbers, table and takeaway, nothing of the page around them."""
    at = run_page("occupancy", TILES)
    before = int(_metric(at, "tiles"))
    assert at.caption  # the page's notes, under the tabs
    at.number_input(key="oc_m").set_value(8192).run()
    assert [m.label for m in at.metric] == [
        "tiles",
        "waves",
        "tile efficiency",
        "overall efficiency",
    ]
    assert not at.caption and len(at.dataframe) == 1
    assert "A 8192x4096 output in 128x128 tiles" in at.info[0].value
    at.number_input(key="oc_n").set_value(8192).run()  # the section's own inputs stay live
    assert int(_metric(at, "tiles")) == 4 * before
