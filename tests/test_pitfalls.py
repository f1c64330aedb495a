"""The five pitfalls on devices that lack a figure: a clear NotPublished, never a crash."""

import pytest

from perfcore.model.chip import ops
from perfcore.model.chip.pitfalls import (
    NotPublished,
    batch_one,
    copy_in_loop,
    faster_chip,
    shard_across_nodes,
)


def test_a_device_without_a_network_figure_says_so(specs):
    with pytest.raises(NotPublished) as caught:
        shard_across_nodes(specs["NVIDIA GeForce RTX 4090"], 7e9)
    error = caught.value  # the device and the field travel as values, not inside the text
    assert (error.device, error.fields) == ("NVIDIA GeForce RTX 4090", ("scaleout_bytes_per_s",))
    assert str(error) == "NVIDIA GeForce RTX 4090 publishes no scale-out (network) bandwidth"


def test_a_device_without_an_fp8_peak_says_so(specs):
    with pytest.raises(NotPublished) as caught:
        faster_chip(specs["NVIDIA V100 SXM2"], "fp8", ops.decode_step(7e9, 1))
    assert caught.value.fields == ("fp8_flops_per_s",)


def test_batch_size_fills_the_machine(h100):
    assert batch_one(h100, 132).utilisation == 1.0
    assert batch_one(h100, 1).idle_units == 131


def test_copy_in_loop_scales_with_iterations(h100):
    one, many = copy_in_loop(h100, 1e6, 1), copy_in_loop(h100, 1e6, 1000)
    assert many.pcie_s == pytest.approx(1000 * one.pcie_s)
    assert many.distance == pytest.approx(one.distance)


def test_a_model_too_big_for_one_device_does_not_fit(h100):
    assert not shard_across_nodes(h100, 70e9).fits
