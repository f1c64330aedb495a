"""The occupancy page's numbers: printed table 5 ladder, presets, tiles, the takeaway."""

import pytest

from perfcore.explain.chip import occupancy as view
from tests.support.hand_tables import WAVE_ROWS


def _takeaway(device, batch, per_seq=1):
    return view.takeaway(view.occupancy(device, batch, per_seq), device)


def test_the_ladder_is_the_hand_calculations_table(h100):
    df = view.table(view.ladder(h100, 1), 1)
    got = [
        (b, w, f"{u * 100:.1f}", i)
        for b, w, u, i in zip(
            df["batch (sequences)"],
            df["waves"],
            df["utilisation"],
            df["idle units (last wave)"],
            strict=True,
        )
    ]
    assert got == WAVE_ROWS
    assert list(df["blocks"]) == list(df["batch (sequences)"])


def test_the_ladder_adds_and_marks_the_chosen_batch(h100):
    df = view.table(view.ladder(h100, 200), 200)
    assert 200 in list(df["batch (sequences)"])
    assert list(df[df["your batch"]]["batch (sequences)"]) == [200]


def test_the_presets_stand_for_the_printed_batches_on_this_device(h100, specs):
    assert view.preset_captions(132)[5:8] == ["132", "133", "264"]
    assert [view.batch_for(p, 7, 132) for p in view.PRESETS] == [
        7,
        1,
        8,
        32,
        64,
        132,
        133,
        264,
        512,
    ]
    assert view.batch_for("units + 1", 7, 108) == 109


def test_blocks_per_sequence_multiplies_the_blocks(h100):
    o = view.occupancy(h100, 33, 4)
    assert (o.blocks, o.waves, o.idle_units) == (132, 1, 0)
    assert view.occupancy(h100, 34, 4).waves == 2


def test_the_metrics_state_blocks_waves_utilisation_and_idle_units(h100):
    assert dict(view.metrics(view.occupancy(h100, 133))) == {
        "compute units (spec)": "132",
        "blocks": "133",
        "waves": "2",
        "utilisation": "50.4 %",
        "idle units (last wave)": "131 of 132",
    }


def test_batch_one_leaves_131_units_idle_and_132_would_ride_free(h100):
    text = _takeaway(h100, 1)
    assert "1 wave at 0.758 % utilisation, 131 of 132 units idle" in text
    assert "needs 131 more blocks: 131 more sequences ride free (batch 132)" in text


def test_one_block_past_a_full_wave_says_one_fewer_saves_a_wave(h100):
    text = _takeaway(h100, 133)
    assert "2 waves at 50.4 % utilisation" in text
    assert "1 block fewer would save a whole wave" in text


def test_a_full_wave_prices_one_more_block(h100):
    assert "every unit busy; one block more costs a whole extra wave (50.4 %)" in _takeaway(
        h100, 132
    )


def test_the_next_full_wave_counts_sequences_of_several_blocks(h100):
    o = view.occupancy(h100, 10, 4)
    assert (o.idle_units, o.free_sequences) == (92, 23)
    assert "23 more sequences ride free (batch 33)" in _takeaway(h100, 10, 4)


def test_the_takeaway_changes_with_the_batch(h100):
    assert _takeaway(h100, 64) != _takeaway(h100, 512)


def test_a_device_without_a_unit_count_is_not_published(h100):
    blind = h100.replace(compute_units=None)
    assert view.occupancy(blind, 8) is None and view.ladder(blind, 8) == []
    assert view.metrics(None) == [("compute units", "not published")]
    assert view.tiles_compared(4096, 4096, blind) == {}
    assert view.tile_metrics({}, "128x128") == [("compute units", "not published")]
    assert "not published" in view.takeaway(None, blind)
    assert "not published" in view.tile_takeaway({}, "128x128", blind)
    assert view.preset_captions(None)[5] == "not published"
    assert view.batch_for("units + 1", 7, None) == 7
    assert len(view.table([], 8)) == len(view.tile_table({})) == 0


def test_tile_shapes_parse_as_rows_by_columns():
    assert [view.tile_shape(t) for t in view.TILES] == [
        (64, 64),
        (128, 128),
        (128, 256),
        (256, 128),
    ]


def test_the_tile_table_counts_edge_tiles_and_waves(h100):
    """By hand for 4097 x 4096 in 128 x 128 tiles on 132 units: 33 x 32 = 1056 tiles, 8 full
    waves; 8 x 132 x 128^2 = 17,301,504 cells paid for, 4097 x 4096 = 16,781,312 used: 96.993 %."""
    df = view.tile_table(view.tiles_compared(4097, 4096, h100)).set_index("tile shape")
    row = df.loc["128x128"]
    assert (row["tiles"], row["waves"]) == (33 * 32, 8)
    assert row[view.TILE_EFFICIENCY] == pytest.approx(4097 / (33 * 128))
    assert row["efficiency"] == pytest.approx(0.969933, rel=1e-6)
    assert df.attrs["units"]["efficiency"] == "percent"


def test_the_tile_sentence_names_a_better_shape_when_there_is_one(h100):
    compared = view.tiles_compared(3000, 5000, h100)
    text = view.tile_takeaway(compared, "128x256", h100)
    assert "in 128x256 tiles is 480 tiles in 4 waves: 86.7 % efficient" in text
    assert "64x64 would reach 95.7 %" in text
    assert "the best of the offered shapes" in view.tile_takeaway(compared, "64x64", h100)


def test_the_tile_metrics_follow_the_chosen_shape(h100):
    metrics = dict(view.tile_metrics(view.tiles_compared(3000, 5000, h100), "64x64"))
    assert metrics == {
        "tiles": "3713",
        "waves": "29",
        "tile efficiency": "98.6 %",
        "overall efficiency": "95.7 %",
    }


def test_one_unit_means_every_block_is_its_own_wave(specs):
    tpu = specs["Google TPU v5e"]
    assert tpu.compute_units == 1
    assert "every block is a wave of its own" in _takeaway(tpu, 5)


def test_the_tile_takeaway_counts_tiles_and_waves_by_hand(h100):
    """4096 x 4096 in 128 x 128 tiles: 32 x 32 = 1,024 tiles over 132 units, ceil(1024 / 132)
    = 8 waves, 1,024 / (8 x 132) = 97.0 % of the slots; no edge padding. Every offered shape
    lands at 97.0 % (4,096 tiles in 32 waves, 512 in 4), so 128 x 128 is the best of them."""
    text = view.tile_takeaway(view.tiles_compared(4096, 4096, h100), "128x128", h100)
    assert text.startswith("A 4096x4096 output in 128x128 tiles is 1024 tiles in 8 waves")
    assert "the best of the offered shapes" in text
