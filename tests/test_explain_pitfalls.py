"""The pitfalls page's numbers: printed table 7, priced per device, not published per belief."""

import pytest

from perfcore.errors import NotPublished
from perfcore.explain.chip import pitfalls as view
from perfcore.explain.chip import pitfalls_summary as summary
from perfcore.format import NOT_PUBLISHED
from tests.support.pages import ROUND_H100


def _five(specs, name=ROUND_H100, precision="bf16"):
    """The five sections at the hand calculation's inputs on device `name`."""
    d = specs[name]
    return [
        view.faster_chip(d, precision, 7e9, 1),
        view.batch_one(d, 1),
        view.fp32_path(d, 4096, "fp16"),
        view.copy_in_loop(d, view.DEFAULT_ELEMENTS, "fp16", 1000),
        view.shard_across_nodes(d, 7e9, "bf16", 8, 2),
    ]


def _texts(section):
    """The printed values of a section's quantities, in order."""
    return [q.text for q in section.quantities]


def test_round_faster_chip_is_3_35_3_35_6_70_and_gains_nothing(specs):
    texts = _texts(_five(specs)[0])
    assert texts == ["1.00 FLOP/byte", "3.35 TFLOP/s", "3.35 TFLOP/s", "6.70 TFLOP/s", "0 FLOP/s"]


def test_round_batch_one_uses_0_76_percent_and_idles_131_of_132(specs):
    section = _five(specs)[1]
    assert _texts(section) == ["0.76 %", "131 of 132", "132"]
    assert section.verdict == "You are renting 132 compute units and using 1: 131 sit idle."


def test_round_fp32_path_is_1365_to_990_vs_683_to_67_costing_14_8x(specs):
    section = _five(specs)[2]
    assert _texts(section) == [
        "1365 FLOP/byte",
        "990.0 TFLOP/s",
        "683 FLOP/byte",
        "67.0 TFLOP/s",
        "14.8x",
    ]
    assert section.verdict.startswith("1365 FLOP/byte → 990.0 TFLOP/s vs 683 FLOP/byte → 67.0")


def test_round_copy_in_loop_is_0_52_s_against_0_01_s_52x_further(specs):
    section = _five(specs)[3]
    assert _texts(section) == ["33.6 MB", "33.6 GB", "64 GB/s", "524 ms", "10.0 ms", "52x"]
    assert "0.52 s of pure copying vs 0.01 s over device memory" in section.verdict
    assert "1,000x less traffic" in section.verdict


def test_round_shard_fits_and_costs_1_75_gb_at_50_gb_s_35_ms(specs):
    section = _five(specs)[4]
    assert _texts(section) == ["13.0 GiB", "80.0 GiB", "yes", "1.75 GB", "50 GB/s", "35.0 ms"]
    assert "13.0 GiB fits in 80.0 GiB" in section.verdict
    assert "1.75 GB across the network at 50 GB/s = 35.0 ms per step" in section.verdict


def test_faster_chip_turns_compute_bound_with_a_big_batch(specs):
    section = view.faster_chip(specs[ROUND_H100], "bf16", 7e9, 1024)
    assert "compute-bound" in section.verdict
    assert section.quantities[-1].value == pytest.approx(990e12)


def test_batch_past_a_full_wave_idles_most_of_the_second(specs):
    assert view.batch_one(specs[ROUND_H100], 133).quantities[1].text == "131 of 132"
    assert "none idle" in view.batch_one(specs[ROUND_H100], 264).verdict


def test_bf16_half_path_names_itself(specs):
    section = view.fp32_path(specs[ROUND_H100], 4096, "bf16")
    assert "BF16" in section.belief and section.quantities[0].label.startswith("BF16")


def test_copy_dtype_and_iterations_scale_the_pcie_time(specs):
    base = (
        view.copy_in_loop(specs[ROUND_H100], view.DEFAULT_ELEMENTS, "fp16", 1000)
        .quantities[3]
        .value
    )
    wider = (
        view.copy_in_loop(specs[ROUND_H100], view.DEFAULT_ELEMENTS, "fp32", 2000)
        .quantities[3]
        .value
    )
    assert wider == pytest.approx(4 * base)


def test_a_single_copy_has_nothing_to_hoist(specs):
    assert "Hoisted" not in view.copy_in_loop(specs[ROUND_H100], 4096, "fp16", 1).verdict


def test_tiny_times_keep_their_own_units_rather_than_print_zero(specs):
    assert "0.00" not in view.copy_in_loop(specs[ROUND_H100], 4096, "fp16", 10).verdict


def test_a_model_too_big_for_one_device_must_be_sharded(specs):
    section = view.shard_across_nodes(specs[ROUND_H100], 70e9, "fp32", 8, 4)
    assert section.quantities[2].text == "no"
    assert "does not fit in 80.0 GiB, so it must be sharded" in section.verdict


def test_one_node_moves_nothing_over_the_network(specs):
    section = view.shard_across_nodes(specs[ROUND_H100], 7e9, "bf16", 8, 1)
    assert section.quantities[-1].value == 0
    assert "nothing crosses the network" in section.verdict


def test_missing_figure_marks_only_that_belief_not_published(specs):
    sections = _five(specs, "NVIDIA V100 SXM2")
    assert [s.published for s in sections] == [False, True, True, True, False]
    assert sections[0].verdict == f"{NOT_PUBLISHED}: NVIDIA V100 SXM2 does not publish a bf16 peak."
    assert "scale-out (network) bandwidth" in sections[4].verdict


def test_table_has_every_quantity_with_si_values_and_units(specs):
    df = summary.table(_five(specs))
    assert list(df.columns) == ["#", "belief", "quantity", "value", "kind"]
    assert df.attrs["row_units"] == {"value": "kind"}
    assert len(df) == 5 + 3 + 5 + 6 + 6
    row = df[df["quantity"] == "network time per step"].iloc[0]
    assert (row["value"], row["kind"]) == (pytest.approx(0.035), "seconds")
    assert df["value"].dtype == float


def test_table_marks_an_unpublished_belief_in_one_row(specs):
    df = summary.table(_five(specs, "Google TPU v4"))
    unpublished = df[df["#"] == 4]["value"]
    assert len(unpublished) == 1 and unpublished.isna().all()


def test_takeaway_prices_all_five_on_the_round_h100(specs):
    text = summary.takeaway(_five(specs), specs[ROUND_H100])
    for part in ("gains 0 FLOP/s", "0.76 %", "14.8x", "52x", "35.0 ms"):
        assert part in text


def test_takeaway_changes_with_device_and_names_missing_beliefs(specs):
    round_h100 = summary.takeaway(_five(specs), specs[ROUND_H100])
    tpu = summary.takeaway(_five(specs, "Google TPU v4"), specs["Google TPU v4"])
    assert round_h100 != tpu and "(3, 4, 5: not published" in tpu


@pytest.mark.parametrize(
    "precision", ["fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4"]
)
def test_every_device_and_precision_prices_or_says_not_published(specs, precision):
    for d in specs.values():
        for s in _five(specs, d.name, precision):
            assert s.published or s.verdict.startswith(NOT_PUBLISHED)
            assert all("nan" not in q.text for q in s.quantities)


def test_takeaway_changes_with_the_inputs(specs):
    five = _five(specs)
    more = [
        *five[:3],
        view.copy_in_loop(specs[ROUND_H100], view.DEFAULT_ELEMENTS, "fp16", 5000),
        five[4],
    ]
    assert summary.takeaway(more, specs[ROUND_H100]) != summary.takeaway(five, specs[ROUND_H100])


def test_headline_and_details_show_every_quantity_once(specs):
    for s in _five(specs):
        labels = [q.label for q in s.headline] + s.details.split(" · ")
        assert len(s.headline) == 1 and len(labels) == len(s.quantities)
        assert all(
            d.startswith(q.label) for d, q in zip(s.details.split(" · "), _rest(s), strict=True)
        )
    four = _five(specs)[3]
    assert [q.label for q in four.headline] == ["PCIe is further away by"]
    assert four.details.startswith("one tensor: 33.6 MB · copied over 1000 iterations: 33.6 GB")
    assert _five(specs, "Google TPU v4")[3].headline == ()


def _rest(s: view.Section) -> list:
    """The quantities not in the headline, in order."""
    return [q for q in s.quantities if q not in s.headline]


def test_the_missing_figure_is_read_from_the_errors_field_not_its_text(specs):
    """The old guard took the message's last word as the field: a message that goes on after
    the field ("... for the copy") named 'copy' as the missing figure."""
    device = specs["NVIDIA L4"]

    def price():
        raise NotPublished(device.name, ("pcie_bytes_per_s",), "PCIe bandwidth", "for the copy")

    section = view._guard(4, "It's only a copy.", device, price)
    assert section.verdict == f"{NOT_PUBLISHED}: NVIDIA L4 does not publish a PCIe bandwidth."


def test_the_summary_prices_the_five_at_the_hand_calculations_inputs(specs):
    """The page's summary tab (the defaults its inputs open on) is the hand calculation."""
    assert summary.at_defaults(specs[ROUND_H100], "bf16") == _five(specs)
