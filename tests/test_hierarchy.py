"""The hierarchy: on the device nearest first, then its links; every figure labelled as spec,
estimate or not published."""

import pytest

from perfcore.model.chip.hierarchy import ESTIMATE, SPEC, UNKNOWN, flops_forgone, levels


def test_levels_run_from_registers_out_to_pcie(h100):
    assert [lv.name for lv in levels(h100)] == [
        "registers",
        "shared memory/L1",
        "L2 cache",
        "device memory",
        "scale-up link",
        "scale-out network",
        "PCIe (host)",
    ]


def test_latency_grows_down_the_chain_to_the_network(h100):
    lat = [lv.latency_s for lv in levels(h100)][:6]
    assert lat == sorted(lat)


def test_missing_figures_are_not_published_not_zero(specs):
    rtx = {lv.name: lv for lv in levels(specs["NVIDIA GeForce RTX 4090"])}
    assert rtx["scale-out network"].bytes_per_s is None
    assert rtx["scale-out network"].bandwidth_kind == UNKNOWN
    assert rtx["registers"].bandwidth_kind == UNKNOWN


def test_kinds_say_spec_or_estimate(h100):
    got = {lv.name: lv for lv in levels(h100)}
    assert got["device memory"].capacity_kind == SPEC
    assert got["L2 cache"].bandwidth_kind == ESTIMATE
    assert got["registers"].per_unit and not got["L2 cache"].per_unit


def test_flops_forgone_is_peak_times_latency():
    """By hand: 1 PFLOP/s for a 500 ns round trip forgoes 1e15 x 5e-7 = 500 million FLOPs."""
    assert flops_forgone(1e15, 500e-9) == pytest.approx(5e8, rel=1e-12)


def test_links_are_per_direction_by_default(h100):
    """The round-figure H100 row: NVLink 900 GB/s and PCIe 128 GB/s marketed both directions
    are 450 and 64 GB/s one way; InfiniBand NDR's 50 GB/s is already one direction."""
    got = {lv.name: lv.bytes_per_s for lv in levels(h100)}
    assert (got["scale-up link"], got["PCIe (host)"]) == (450e9, 64e9)
    assert got["scale-out network"] == 50e9
