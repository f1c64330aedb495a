"""The scale-out page's numbers: printed table 6 ladder, conventions, legs, algbw and busbw."""

import math

import pytest

from perfcore import format as fmt
from perfcore.explain.llm import scale_out as view
from perfcore.explain.llm import scale_out_metrics as metrics
from perfcore.format import NOT_PUBLISHED
from tests.support.pages import ROUND_H100

# The published hand calculation (the two-node all-reduce) uses the scale-up figure as marketed:
# its golden tests below pass that convention explicitly. Every other test takes the default, per
# direction (a ring sends and receives at once, at half the both-directions figure).
PUBLISHED = {"convention": "as-marketed"}
HAND_SETUP = view.setup(7e9, "bf16", 8, 2, **PUBLISHED)
PRINTED = 0.005  # the published table prints 3 significant figures: half a unit in the last


def _at(specs, name=ROUND_H100, **changes):
    """The all-reduce on device `name` of 7B bf16 gradients over 8 GPUs x 2 nodes, changed."""
    args = {"params": 7e9, "precision": "bf16", "gpus_per_node": 8, "nodes": 2, **changes}
    return view.allreduce(specs[name], view.setup(**args))


def test_the_default_convention_is_per_direction(specs):
    """No ring reaches the both-directions figure: the explain layer defaults to half of it."""
    assert view.setup(7e9, "bf16", 8, 2).convention == "per-direction"
    assert _at(specs).intra.bytes_per_s == 450e9


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
    shown = _values(metrics.leg_metrics(_at(specs, nodes=nodes, **PUBLISHED)))
    whole = _values(metrics.whole_metrics(_at(specs, nodes=nodes, **PUBLISHED)))
    assert shown["Network leg: bytes per GPU"] == net_bytes
    assert whole["Share of time on the network"] == share
    assert whole["All-reduce time"] == total


def test_round_one_node_is_24_5_gb_in_27_2_ms_over_the_scale_up_link(specs):
    shown = _values(metrics.leg_metrics(_at(specs, nodes=1, **PUBLISHED)))
    assert (shown["In-node leg: bytes per GPU"], shown["In-node leg: time"]) == (
        "24.5 GB",
        "27.2 ms",
    )
    assert shown["Network leg: time"] == "none"


def test_table_holds_the_printed_rows(specs):
    df = view.table(view.sweep(specs[ROUND_H100], HAND_SETUP), 2).set_index("nodes")
    columns = ["GPUs", "network bytes per GPU", "all-reduce time", "network share of time"]
    got = {n: tuple(df.loc[n, columns]) for n in (1, 2, 4, 16)}
    want = {  # the published table: time in ms to 3 figures, the share to a whole percent
        1: (8, 0, 0.0272, 0),
        2: (16, 1.75e9, 0.0622, 0.56),
        4: (32, 2.62e9, 0.0797, 0.66),
        16: (128, 3.28e9, 0.0928, 0.71),
    }
    for n, (gpus, net, seconds, share) in want.items():
        assert got[n][:3] == pytest.approx((gpus, net, seconds), rel=PRINTED)
        assert got[n][3] == pytest.approx(share, abs=PRINTED)  # 0.56 is "56%": +-0.5 points


def test_legs_with_latency_by_hand(specs):
    """14 GB over 8 GPUs x 4 nodes, per direction (450 GB/s in the node, 50 GB/s across):
    in the node 2 x 7/8 x 14e9 = 24.5e9 bytes / 450e9 = 54.444 ms + 14 hops x 2 µs;
    across 2 x 3/4 x 14e9/8 = 2.625e9 bytes / 50e9 = 52.5 ms + 6 hops x 5 µs;
    network share 52.53 / (54.472 + 52.53) = 49.09 %."""
    ar = _at(specs, nodes=4, scaleup_alpha_us=2, scaleout_alpha_us=5)
    assert ar.intra.seconds == pytest.approx(24.5e9 / 450e9 + 28e-6, rel=1e-9)
    assert ar.inter.seconds == pytest.approx(52.5e-3 + 30e-6, rel=1e-9)
    assert ar.network_share == pytest.approx(0.490925, rel=1e-5)


def test_per_direction_halves_the_scale_up_link_and_doubles_the_in_node_time(specs):
    marketed, per_dir = _at(specs, **PUBLISHED), _at(specs)
    assert per_dir.intra.bytes_per_s == 450e9
    assert per_dir.intra.seconds == pytest.approx(2 * marketed.intra.seconds)
    assert per_dir.inter.seconds == marketed.inter.seconds


def test_link_metrics_show_marketed_used_scale_out_and_ratio(specs):
    shown = metrics.link_metrics(_at(specs, convention="per-direction"))
    assert [m.value for m in shown] == ["900 GB/s", "450 GB/s", "50 GB/s", "9.0x"]


def test_alpha_adds_two_n_minus_one_hops_per_leg(specs):
    base, slow = _at(specs, nodes=4), _at(specs, nodes=4, scaleup_alpha_us=2, scaleout_alpha_us=5)
    assert slow.intra.seconds - base.intra.seconds == pytest.approx(14 * 2e-6)
    assert slow.inter.seconds - base.inter.seconds == pytest.approx(6 * 5e-6)


def test_algbw_is_buffer_over_time_and_busbw_scales_it_by_two_n_minus_one_over_n(specs):
    ar = _at(specs)
    assert ar.algbw == pytest.approx(14e9 / ar.seconds)
    assert ar.busbw == pytest.approx(ar.algbw * 2 * 15 / 16)


def test_busbw_on_one_node_equals_the_scale_up_link_per_direction(specs):
    """nccl-tests' busbw of a ring on one node is the link's one-direction rate: 450 GB/s."""
    assert _at(specs, nodes=1).busbw == pytest.approx(450e9)
    assert _at(specs, nodes=1, **PUBLISHED).busbw == pytest.approx(900e9)  # the what-if


def test_network_leg_carries_the_one_over_g_shard(specs):
    ar = _at(specs, nodes=2)
    assert ar.inter.bytes_per_gpu == pytest.approx(1.75e9)  # 2 x 1/2 x 14e9 / 8
    assert f"{ar.byte_share * 100:.1f}" == "7.1"


def test_dtype_sets_the_buffer(specs):
    assert _at(specs, precision="fp32").setup.buffer_bytes == 28e9
    assert _at(specs, precision="fp8").intra.bytes_per_gpu == pytest.approx(24.5e9 / 2)


def test_missing_scale_out_keeps_bytes_and_says_not_published(specs):
    ar = _at(specs, "NVIDIA V100 SXM2")
    shown = _values(metrics.leg_metrics(ar))
    assert shown["Network leg: bytes per GPU"] == "1.75 GB"
    assert shown["Network leg: time"] == NOT_PUBLISHED
    assert ar.seconds is None
    assert {m.value for m in metrics.whole_metrics(ar)} == {NOT_PUBLISHED}


def test_missing_scale_out_still_prices_a_single_node(specs):
    ar = _at(specs, "NVIDIA V100 SXM2", nodes=1)
    assert ar.seconds == pytest.approx(24.5e9 / 150e9)  # NVLink 2: 300 GB/s both directions


def test_device_with_no_links_shows_not_published_for_both(specs):
    shown = metrics.link_metrics(_at(specs, "NVIDIA L4"))
    assert [m.value for m in shown] == [NOT_PUBLISHED] * 4


def test_table_has_si_columns_and_not_published_cells(specs):
    df = view.table(view.sweep(specs["NVIDIA V100 SXM2"], view.setup(7e9, "bf16", 8, 2)), 2)
    assert list(df["nodes"]) == list(view.LADDER)
    assert df.loc[1, "network bytes per GPU"] == pytest.approx(1.75e9)
    assert math.isnan(df.loc[1, "all-reduce time"])
    assert df.loc[0, "all-reduce time"] == pytest.approx(24.5e9 / 150e9)
    assert df.attrs["units"]["all-reduce time"] == "seconds"


def test_table_adds_the_chosen_node_count(specs):
    df = view.table(view.sweep(specs[ROUND_H100], view.setup(7e9, "bf16", 8, 100)), 100)
    assert list(df["nodes"])[-1] == 100


def test_takeaway_gives_the_printed_byte_share_time_share_and_link_ratio(specs):
    text = view.takeaway(_at(specs, **PUBLISHED))
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
    assert [m.value for m in metrics.whole_metrics(ar)][1:] == ["none (1 GPU)"] * 4


@pytest.mark.parametrize("name", ["NVIDIA L4", "Google TPU v4", "NVIDIA GeForce RTX 3090"])
def test_every_metric_is_a_number_or_says_why_not(specs, name):
    for nodes in (1, 2):
        ar = _at(specs, name, nodes=nodes)
        for m in metrics.link_metrics(ar) + metrics.leg_metrics(ar) + metrics.whole_metrics(ar):
            assert "nan" not in m.value.lower() and m.value not in ("0", "")


def test_a_leg_with_one_rank_shows_none_and_its_help_says_why(specs):
    shown = {m.label: m for m in metrics.leg_metrics(_at(specs, gpus_per_node=1))}
    leg = shown["In-node leg: time"]
    assert (leg.value, leg.help) == ("none", "One GPU per node: this leg has nothing to reduce.")


def test_the_pipelined_time_is_the_slower_leg_beside_the_sum(specs):
    """Two nodes: the pipelined figure is the slower leg plus the other's latency, under the
    legs in turn (no latencies here, so it is the slower leg's time)."""
    ar = _at(specs, nodes=2)
    shown = _values(metrics.whole_metrics(ar))
    assert ar.pipelined_s == pytest.approx(max(ar.intra.seconds, ar.inter.seconds))
    assert ar.pipelined_s < ar.seconds
    assert shown["Pipelined time (NCCL)"] == fmt.seconds(ar.pipelined_s)
