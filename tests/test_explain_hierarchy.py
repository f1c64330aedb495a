"""The hierarchy page's numbers: printed table 1 trips, kinds, per-unit labels, takeaway."""

import pytest

from perfcore.explain.chip import hierarchy as view
from perfcore.model.chip.hierarchy import ESTIMATE, UNKNOWN

PRINTED_FORGONE = [990000, 29700000, 198000000, 495000000, 1980000000, 4950000000]
FORGONE = "FLOPs forgone per trip"


def test_round_flops_forgone_are_the_printed_values(h100):
    df = view.table([view.hierarchy(h100, "fp16")])
    assert list(df[FORGONE][:6]) == pytest.approx(PRINTED_FORGONE)
    assert df.attrs["units"][FORGONE] == "flops"


def test_fp8_doubles_the_device_memory_trip_of_fp16(h100):
    fp16, fp8 = (
        view.hierarchy(h100, p).row("device memory").flops_forgone for p in ("fp16", "fp8")
    )
    assert fp8 == pytest.approx(1979e12 * 500e-9)
    assert fp8 / fp16 == pytest.approx(1979 / 990)


def test_an_unpublished_precision_forgoes_nothing_it_says_not_published(specs):
    h = view.hierarchy(specs["NVIDIA V100 SXM2"], "fp8")
    assert all(r.flops_forgone is None for r in h.rows)
    assert {r.kind("FLOPs forgone") for r in h.rows} == {UNKNOWN}
    assert view.memory_trip(h) == "not published"


def test_a_level_the_device_lacks_forgoes_nothing(specs):
    h = view.hierarchy(specs["NVIDIA GeForce RTX 4090"], "fp16")
    assert h.row("scale-up link").flops_forgone is None
    assert h.row("device memory").flops_forgone == pytest.approx(165.2e12 * 500e-9)


def test_registers_and_shared_memory_are_labelled_per_sm_cu(h100):
    df = view.table([view.hierarchy(h100, "fp16")])
    per = dict(zip(df["level"], df["capacity per"], strict=True))
    assert per["registers"] == per["shared memory/L1"] == "per SM/CU"
    assert per["L2 cache"] == per["device memory"] == "device"
    assert view.hierarchy(h100, "fp16").row("registers").label("capacity").endswith("(per SM/CU)")


def test_a_link_has_no_capacity_not_an_unpublished_one(h100):
    link = view.hierarchy(h100, "fp16").row("scale-up link")
    assert not link.applies("capacity")
    assert link.kind("capacity") == view.NOT_A_STORE
    df = view.table([view.hierarchy(h100, "fp16")]).set_index("level")
    assert df.loc["scale-up link", "capacity per"] == "—"


def test_link_bandwidths_carry_their_convention(h100):
    df = view.table([view.hierarchy(h100, "fp16")]).set_index("level")
    halved = "one direction, half the marketed both-directions figure"
    assert df.loc["scale-up link", "bandwidth convention"] == halved
    assert df.loc["PCIe (host)", "bandwidth convention"] == halved
    assert df.loc["scale-out network", "bandwidth convention"] == "one direction"


def test_latencies_are_always_estimates_and_on_chip_bandwidths_too(h100):
    df = view.table([view.hierarchy(h100, "fp16")]).set_index("level")
    assert set(df["latency kind"]) == {ESTIMATE}
    assert df.loc["L2 cache", "bandwidth kind"] == ESTIMATE
    assert df.loc["device memory", "bandwidth kind"] == "vendor spec"


def test_the_table_stacks_the_compared_device_below(h100, specs):
    views = view.hierarchies(h100, specs["NVIDIA V100 SXM2"], "fp16")
    df = view.table(views)
    assert list(df["device"].unique()) == [h100.name, "NVIDIA V100 SXM2"]
    assert len(df) == 14


def test_capacity_ratio_is_device_memory_over_shared_memory_per_unit(h100):
    assert view.capacity_ratio(view.hierarchy(h100, "fp16")) == 80 * 1024**3 / (228 * 1024)


def test_capacity_ratio_is_none_where_shared_memory_is_unpublished(specs):
    assert view.capacity_ratio(view.hierarchy(specs["Google TPU v4"], "bf16")) is None


def test_takeaway_quotes_the_printed_device_memory_trip(h100):
    text = view.takeaway(view.hierarchy(h100, "fp16"))
    assert "495 MFLOP" in text and "1.98 GFLOP" in text
    assert "228 KiB" in text and "80.0 GiB" in text


def test_takeaway_changes_with_the_precision(h100):
    fp16, fp8 = (view.takeaway(view.hierarchy(h100, p)) for p in ("fp16", "fp8"))
    assert fp16 != fp8 and "990 MFLOP" in fp8


def test_takeaway_says_how_many_fewer_flops_the_compared_device_forgoes(h100, specs):
    views = view.hierarchies(h100, specs["NVIDIA V100 SXM2"], "fp16")
    assert "62.5 MFLOP, 7.9x fewer" in view.takeaway(*views)


def test_takeaway_without_a_peak_says_so(specs):
    text = view.takeaway(view.hierarchy(specs["NVIDIA V100 SXM2"], "fp8"))
    assert "publishes no fp8 peak" in text


def test_headline_has_each_devices_trip_then_the_asymmetry(h100, specs):
    views = view.hierarchies(h100, specs["NVIDIA V100 SXM2"], "fp16")
    values = [value for _, value, _ in view.headline(views)]
    assert values == ["495 MFLOP", "62.5 MFLOP", "367,921x"]
