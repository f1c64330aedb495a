"""The scale-out page's numbers: printed table 6 ladder, conventions, legs, algbw and busbw."""

import math

import pytest

from perfcore.explain import scale_out as view
from perfcore.format import NOT_PUBLISHED
from perfcore.model.comm import hierarchical_allreduce, ring_allreduce_bytes
from tests.support.pages import ROUND_H100

HAND_SETUP = view.setup(7e9, "bf16", 8, 2)


def _at(specs, name=ROUND_H100, **changes):
    """The all-reduce on device `name` at the hand calculation's setup with some inputs changed."""
    args = {"params": 7e9, "precision": "bf16", "gpus_per_node": 8, "nodes": 2, **changes}
    return view.allreduce(specs[name], view.setup(**args))


def _values(metrics):
    """label -> value of a metric list."""
    return {m.label: m.value for m in metrics}


@pytest.mark.parametrize(
    ("nodes", "net_bytes", "total", "share"),
    [
        (2, "1.75 GB", "62.2 ms", "56 %"),
        (4, "2.62 GB", "79.7 ms", "66 %"),
        (16, "3.28 GB", "92.8 ms", "71 %"),
    ],
)
def test_printed_rows_are_shown_as_printed(specs, nodes, net_bytes, total, share):
    shown = _values(view.leg_metrics(_at(specs, nodes=nodes)))
    whole = _values(view.whole_metrics(_at(specs, nodes=nodes)))
    assert shown["Network leg: bytes per GPU"] == net_bytes
    assert whole["Share of time on the network"] == share
    assert whole["All-reduce time"] == total


def test_round_one_node_is_24_5_gb_in_27_2_ms_over_the_scale_up_link(specs):
    shown = _values(view.leg_metrics(_at(specs, nodes=1)))
    assert (shown["In-node leg: bytes per GPU"], shown["In-node leg: time"]) == (
        "24.5 GB",
        "27.2 ms",
    )
    assert shown["Network leg: time"] == "none"


def test_table_holds_the_printed_rows(specs):
    df = view.table(view.sweep(specs[ROUND_H100], HAND_SETUP), 2).set_index("nodes")
    columns = ["GPUs", "network bytes per GPU", "all-reduce time", "network share of time"]
    got = {n: tuple(df.loc[n, columns]) for n in (1, 2, 4, 16)}
    want = {
        1: (8, 0, 0.0272, 0),
        2: (16, 1.75e9, 0.0622, 0.56),
        4: (32, 2.62e9, 0.0797, 0.66),
        16: (128, 3.28e9, 0.0928, 0.71),
    }
    for n, row in want.items():
        assert got[n] == pytest.approx(row, rel=0.01, abs=0.005)


def test_legs_agree_with_comm_hierarchical_allreduce(specs):
    d = specs[ROUND_H100]
    ar = _at(specs, nodes=4, scaleup_alpha_us=2, scaleout_alpha_us=5)
    ref = hierarchical_allreduce(
        14e9, 8, 4, d.scaleup_bytes_per_s, d.scaleout_bytes_per_s, 2e-6, 5e-6
    )
    assert ar.intra.seconds == pytest.approx(ref.intra.seconds)
    assert ar.inter.seconds == pytest.approx(ref.inter.seconds)
    assert ar.network_share == pytest.approx(ref.network_share)


def test_per_direction_halves_the_scale_up_link_and_doubles_the_in_node_time(specs):
    marketed, per_dir = _at(specs), _at(specs, convention="per-direction")
    assert per_dir.intra.bytes_per_s == 450e9
    assert per_dir.intra.seconds == pytest.approx(2 * marketed.intra.seconds)
    assert per_dir.inter.seconds == marketed.inter.seconds


def test_link_metrics_show_marketed_used_scale_out_and_ratio(specs):
    shown = view.link_metrics(_at(specs, convention="per-direction"))
    assert [m.value for m in shown] == ["900 GB/s", "450 GB/s", "50 GB/s", "9.0x"]


def test_alpha_adds_two_n_minus_one_hops_per_leg(specs):
    base, slow = _at(specs, nodes=4), _at(specs, nodes=4, scaleup_alpha_us=2, scaleout_alpha_us=5)
    assert slow.intra.seconds - base.intra.seconds == pytest.approx(14 * 2e-6)
    assert slow.inter.seconds - base.inter.seconds == pytest.approx(6 * 5e-6)


def test_algbw_is_buffer_over_time_and_busbw_scales_it_by_two_n_minus_one_over_n(specs):
    ar = _at(specs)
    assert ar.algbw == pytest.approx(14e9 / ar.seconds)
    assert ar.busbw == pytest.approx(ar.algbw * 2 * 15 / 16)


def test_busbw_on_one_node_equals_the_scale_up_link(specs):
    assert _at(specs, nodes=1).busbw == pytest.approx(900e9)


def test_network_leg_carries_the_one_over_g_shard(specs):
    ar = _at(specs, nodes=2)
    assert ar.inter.bytes_per_gpu == ring_allreduce_bytes(14e9 / 8, 2)
    assert f"{ar.byte_share * 100:.1f}" == "7.1"


def test_dtype_sets_the_buffer(specs):
    assert _at(specs, precision="fp32").setup.buffer_bytes == 28e9
    assert _at(specs, precision="fp8").intra.bytes_per_gpu == pytest.approx(24.5e9 / 2)


def test_missing_scale_out_keeps_bytes_and_says_not_published(specs):
    ar = _at(specs, "NVIDIA V100 SXM2")
    shown = _values(view.leg_metrics(ar))
    assert shown["Network leg: bytes per GPU"] == "1.75 GB"
    assert shown["Network leg: time"] == NOT_PUBLISHED
    assert ar.seconds is None
    assert {m.value for m in view.whole_metrics(ar)} == {NOT_PUBLISHED}


def test_missing_scale_out_still_prices_a_single_node(specs):
    ar = _at(specs, "NVIDIA V100 SXM2", nodes=1)
    assert ar.seconds == pytest.approx(ring_allreduce_bytes(14e9, 8) / 300e9)


def test_device_with_no_links_shows_not_published_for_both(specs):
    shown = view.link_metrics(_at(specs, "NVIDIA L4"))
    assert [m.value for m in shown] == [NOT_PUBLISHED] * 4


def test_table_has_si_columns_and_not_published_cells(specs):
    df = view.table(view.sweep(specs["NVIDIA V100 SXM2"], HAND_SETUP), 2)
    assert list(df["nodes"]) == list(view.LADDER)
    assert df.loc[1, "network bytes per GPU"] == pytest.approx(1.75e9)
    assert math.isnan(df.loc[1, "all-reduce time"])
    assert df.loc[0, "all-reduce time"] == pytest.approx(24.5e9 / 300e9)
    assert df.attrs["units"]["all-reduce time"] == "seconds"


def test_table_adds_the_chosen_node_count(specs):
    df = view.table(view.sweep(specs[ROUND_H100], view.setup(7e9, "bf16", 8, 100)), 100)
    assert list(df["nodes"])[-1] == 100


def test_takeaway_gives_the_printed_byte_share_time_share_and_link_ratio(specs):
    text = view.takeaway(_at(specs))
    assert "7.1 % of the bytes" in text and "56 % of the time" in text and "18x slower" in text


def test_takeaway_changes_with_the_node_count_and_convention(specs):
    texts = {
        view.takeaway(_at(specs, nodes=n, convention=c))
        for n in (1, 2, 16)
        for c in ("as-marketed", "per-direction")
    }
    assert len(texts) == 6


def test_takeaway_names_the_missing_link(specs):
    assert "publishes no scale-out (network) link" in view.takeaway(_at(specs, "NVIDIA V100 SXM2"))


def test_one_gpu_has_nothing_to_reduce(specs):
    ar = _at(specs, gpus_per_node=1, nodes=1)
    assert "nothing to all-reduce" in view.takeaway(ar)
    assert [m.value for m in view.whole_metrics(ar)][1:] == ["none (1 GPU)"] * 3


@pytest.mark.parametrize("name", ["NVIDIA L4", "Google TPU v4", "NVIDIA GeForce RTX 3090"])
def test_every_metric_is_a_number_or_says_why_not(specs, name):
    for nodes in (1, 2):
        ar = _at(specs, name, nodes=nodes)
        for m in view.link_metrics(ar) + view.leg_metrics(ar) + view.whole_metrics(ar):
            assert "nan" not in m.value.lower() and m.value not in ("0", "")


def test_a_leg_with_one_rank_shows_none_and_its_help_says_why(specs):
    shown = {m.label: m for m in view.leg_metrics(_at(specs, gpus_per_node=1))}
    leg = shown["In-node leg: time"]
    assert (leg.value, leg.help) == ("none", "One GPU per node: this leg has nothing to reduce.")
