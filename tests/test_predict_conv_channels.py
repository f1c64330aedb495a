"""A convolution sits on a host's curve at its FLOPs, at most the suite's forward
convolution's at its channels (stop 57): on this CPU a convolution's rate followed its input ×
output channels, not its batch or image, and the suite sweeps channels at one batch and image
(8 of 32²). A stride-2 convolution of 16 images of 64² from 64 to 128 channels (2.4 GFLOPs)
ran at 95 GFLOP/s, where the sweep's point of those FLOPs (128 → 128) ran at 134-155; sized at
the sweep's 64 × 128 (1.16 GFLOPs) it reads between the 64 → 64 and 128 → 128 points. An
accelerator's curves keep a convolution's FLOPs (its batch and image are what fill it).

Pure: a hand-written module (tests/data/profile/conv_channels.hlo: that stride-2 convolution,
and one of 4 images of 32² at 16 → 16 channels, below its cap), XLA's FLOPs stubbed, hand-made
curves; the sweep's own FLOPs read from the suite's plan."""

import dataclasses
import math
from pathlib import Path

import pytest

from perfcore.measure.experiments.kernels import windows as kernel_windows
from perfcore.measure.experiments.suites import SUITES
from perfcore.model.chip import kernel_kinds, kernels
from tests.support.kernels import cpu_curves, predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "conv_channels.hlo").read_text("utf-8")
STRIDED = 2.0 * (16 * 32 * 32 * 128) * 9 * 64  # 2 a tap per output per input feature
SMALL = 2.0 * (4 * 32 * 32 * 16) * 9 * 16
CAP = 2.0 * 8 * (32 * 3 - 2) ** 2 * 64 * 128  # the sweep's 8 images of 32², taps inside padding


def xla_count(text: str) -> tuple[float, float, float]:
    """Each convolution's FLOPs as the stub counts them; no bytes."""
    return (STRIDED if "stride=2x2" in text else SMALL), 0.0, 0.0


def test_the_cap_is_the_suites_own_forward_convolution_at_those_channels():
    """Each planned forward point (images and volumes) has the FLOPs the cap gives its
    channels; a rank the suite does not sweep is not capped."""
    sweeps = kernel_windows.convolutions(SUITES["default"], "float32", 4)
    forward = [p for s in sweeps for p in s if p.kind == "convolution"]
    assert len({len(p.shapes[0]) for p in forward}) == 2  # images and volumes both planned
    for p in forward:
        c = p.shapes[0][-1]
        assert kernel_kinds.conv_sweep_flops(c, c, len(p.shapes[0]) - 2) == p.model.flops
    assert kernel_kinds.conv_sweep_flops(64, 128, 2) == CAP
    assert kernel_kinds.conv_sweep_flops(64, 128, 1) == math.inf


def _curves(threads: int = 2) -> kernels.Curves:
    """Flat curves of a host of `threads` (0: an accelerator's, no host threads) at 1e9
    FLOP/s, but the convolutions: 0.3 up to CAP, 0.9 from STRIDED."""
    base = cpu_curves({"elementwise": 0.5})
    conv = tuple(
        kernels.Point("convolution", "float32", size, e, sweep=2)
        for size, e in ((1e2, 0.3), (CAP, 0.3), (STRIDED, 0.9), (1e12, 0.9))
    )
    return dataclasses.replace(base, points=base.points + conv, threads=threads)


def test_a_convolution_with_more_images_than_the_sweeps_reads_it_at_its_channels():
    ops = predicted_ops(MODULE, _curves(), 4, xla_count)
    assert ops["strided"].predicted_s == pytest.approx(STRIDED / 1e9 / 0.3)
    assert "at 1.16e+09 flops" in ops["strided"].derived_from
    assert "sized at the suite's convolution of its channels" in ops["strided"].derived_from


def test_a_convolution_below_its_cap_sits_at_its_own_flops():
    ops = predicted_ops(MODULE, _curves(), 4, xla_count)
    assert ops["small"].predicted_s == pytest.approx(SMALL / 1e9 / 0.3)
    assert f"at {SMALL:.3g} flops" in ops["small"].derived_from
    assert "sized at the suite's" not in ops["small"].derived_from


def test_an_accelerators_curves_keep_a_convolutions_flops():
    """An accelerator needs the batch and image to fill it: no cap without host threads."""
    ops = predicted_ops(MODULE, _curves(threads=0), 4, xla_count)
    assert ops["strided"].predicted_s == pytest.approx(STRIDED / 1e9 / 0.9)
    assert "sized at the suite's" not in ops["strided"].derived_from
