"""A convolution's spatial dimensions are its second coordinate (stop 52): XLA:CPU ran a
3×3×3 convolution of 2×16×32×32×32 in 56 ms where the 2-D convolutions' curve put it at 13
(−77 %); the kernels suite now times 3×3×3 ones over 2×16³ volumes beside its 3×3 images.

Pure: a hand-written module (tests/data/profile/conv_volume.hlo: a 3×3×3 convolution of
2×16³×32 and a 3×3 one of 8×32²×32), XLA's FLOPs stubbed, flat hand-made curves at 1e9
FLOP/s.
"""

from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from perfcore.measure.experiments.kernels import functions as kernel_functions
from perfcore.measure.experiments.kernels import windows as kernel_windows
from perfcore.measure.experiments.suites import SUITES
from perfcore.measure.profile import hlo
from perfcore.measure.profile.predict import matmuls
from perfcore.measure.results import curves as curves_of
from perfcore.model.chip import kernels
from tests.support.kernel_records import record
from tests.support.kernels import convolutions, cpu_curves, predicted_ops, with_sweeps

MODULE = (Path(__file__).parent / "data" / "profile" / "conv_volume.hlo").read_text("utf-8")
VOLUME = 2.0 * (2 * 16**3 * 32) * 27 * 32  # 2 a tap per output per input feature
IMAGE = 2.0 * (8 * 32**2 * 32) * 9 * 32


def xla_count(text: str) -> tuple[float, float, float]:
    """Each convolution's FLOPs as XLA counts them; no bytes."""
    return (VOLUME if "3x3x3" in text else IMAGE), 0.0, 0.0


def _curves(by_dimensions: dict[int, float]) -> kernels.Curves:
    """Flat curves with convolutions at each spatial dimensions' efficiency."""
    return with_sweeps(cpu_curves({"elementwise": 0.5}), "convolution", by_dimensions)


def test_a_convolutions_second_coordinate_is_its_spatial_dimensions():
    module = hlo.parse_module(MODULE)
    convs = convolutions(module)
    assert {n: matmuls.second_coordinate(module, c) for n, c in convs.items()} == {
        "volume": 3,
        "image": 2,
    }


def test_a_volume_reads_its_own_sweep_and_an_image_its_own():
    ops = predicted_ops(MODULE, _curves({2: 0.5, 3: 0.1}), 4, xla_count)
    assert ops["volume"].predicted_s == pytest.approx(VOLUME / 1e9 / 0.1)
    assert ops["image"].predicted_s == pytest.approx(IMAGE / 1e9 / 0.5)
    assert "spatial dimensions 3, on the 3 sweep" in ops["volume"].derived_from


def test_an_older_file_of_images_alone_prices_a_volume_on_them_said_so():
    ops = predicted_ops(MODULE, _curves({2: 0.5}), 4, xla_count)
    assert ops["volume"].efficiency == pytest.approx(0.5)
    assert "(spatial dimensions outside the swept 2-2)" in ops["volume"].derived_from


def test_the_suite_times_3x3x3_convolutions_over_volumes():
    """Channels up to CONV_3D's most, each 2 FLOPs per tap inside the padding per output per
    feature; compiled to a convolution of three spatial dimensions; a record's second
    coordinate is its input's rank less two."""
    sweeps = [s for s in kernel_windows.convolutions(SUITES["default"], "float32", 4) if s]
    volumes = next(s for s in sweeps if len(s[0].shapes[0]) == 5)
    n, side, most = kernel_windows.CONV_3D
    taps = (side * 3 - 2) ** 3
    assert all(p.kind == "convolution" and p.shapes[0][-1] <= most for p in volumes)
    assert [p.model.flops for p in volumes] == [
        2.0 * n * taps * p.shapes[0][-1] ** 2 for p in volumes
    ]
    p = volumes[0]
    args = [jax.ShapeDtypeStruct(s, p.dtype) for s in p.shapes]
    text = jax.jit(kernel_functions.function(jax, jnp, p.fn)).lower(*args).compile().as_text()
    assert "dim_labels=b012f_012io->b012f" in text
    assert curves_of._sweep(record(p.kind, p.label, [1e-2], shapes=p.shapes)) == 3


CUDNN = (Path(__file__).parent / "data" / "profile" / "cudnn_conv.hlo").read_text("utf-8")


def test_a_cudnn_convolution_reads_its_images_sweep_not_a_mix_of_both():
    """A GPU's convolution is a cuDNN call with no HLO convolution inside: its spatial
    dimensions come from its own dim_labels (2), so it reads the images' sweep alone."""
    module = hlo.parse_module(CUDNN)
    call = module.instructions["%cudnn-conv.1"]
    assert matmuls.is_convolution(call) and matmuls.second_coordinate(module, call) == 2
    ops = predicted_ops(CUDNN, _curves({2: 0.5, 3: 0.1}), 2, lambda text: (1e9, 0.0, 0.0))
    assert ops["cudnn-conv.1"].kernel == "convolution"
    assert ops["cudnn-conv.1"].efficiency == pytest.approx(0.5)
