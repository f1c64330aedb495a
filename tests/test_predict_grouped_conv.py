"""Grouped convolutions priced on a curve of their own (stop 52): XLA:CPU ran a depthwise 3×3
convolution (one input feature a group) at 0.5-0.6 GFLOP/s and one of 16 features a group at
about 15, where a dense one of the same shapes runs at 30-100; priced on the dense
convolution's curve, a MobileNet-style depthwise layer of 8×64×64×128 was predicted at 2.4 ms
and took 131 ms.

Pure: a hand-written module (tests/data/profile/grouped_conv.hlo: a depthwise, a 4-group and a
dense 3×3 convolution of 8×32×32×64 as XLA:CPU hands them to YNNPACK), on flat hand-made
curves at 1e9 FLOP/s and 1e9 bytes/s.
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
from perfcore.model.chip import kernel_kinds, kernels
from tests.support.kernel_records import record
from tests.support.kernels import convolutions, cpu_curves, predicted_ops, with_sweeps

MODULE = (Path(__file__).parent / "data" / "profile" / "grouped_conv.hlo").read_text("utf-8")
OUT = 8 * 32 * 32 * 64  # each convolution's output elements


def stub_cost(text: str) -> tuple[float, float, float]:
    """Each convolution's FLOPs as XLA counts them (2 per output per tap per input feature of
    its group) and no bytes."""
    group = 1 if "feature_group_count=64" in text else 16 if "feature_group_count=4" in text else 64
    return 2.0 * OUT * 9 * group, 0.0, 0.0


def _ops(curves) -> dict:
    return predicted_ops(MODULE, curves, 4, stub_cost)


def _swept(points: dict[int, float], dense: float) -> kernels.Curves:
    """Flat curves with grouped convolutions at `points` (features a group -> efficiency)
    and the dense convolution at `dense`."""
    return with_sweeps(cpu_curves({"convolution": dense}), "grouped convolution", points)


def test_a_grouped_convolution_is_its_own_kind_with_its_features_a_group():
    module = hlo.parse_module(MODULE)
    convs = convolutions(module)
    kinds = {n: matmuls.conv_kind(c) for n, c in convs.items()}
    assert kinds == {
        "conv_general_dilated.0": "grouped convolution",
        "conv_general_dilated.1": "grouped convolution",
        "conv_general_dilated.2": "convolution",
    }
    features = {n: matmuls.second_coordinate(module, c) for n, c in convs.items()}
    assert features == {
        "conv_general_dilated.0": 1,
        "conv_general_dilated.1": 16,
        "conv_general_dilated.2": 2,  # a dense one's: its spatial dimensions
    }


def test_its_flops_count_a_groups_input_features_only():
    """2 per output per tap per input feature of its group: 9 taps, 1, 16 and 64 features."""
    module = hlo.parse_module(MODULE)
    flops = {n: matmuls.conv_flops(module, c) for n, c in convolutions(module).items()}
    assert flops["conv_general_dilated.0"] == 2 * OUT * 9 * 1
    assert flops["conv_general_dilated.1"] == 2 * OUT * 9 * 16
    assert flops["conv_general_dilated.2"] == 2 * OUT * 9 * 64


def test_the_depthwise_and_grouped_ones_read_their_sweeps_and_the_dense_one_its_curve():
    """At 1 feature a group 0.001 of the roof, at 16 0.02, dense 0.1: each op's FLOPs over
    1e9 FLOP/s over its efficiency; between two sweeps, linear in log features (4: half way
    from 1 to 16 in log, so 0.0105)."""
    ops = _ops(_swept({1: 0.001, 16: 0.02}, dense=0.1))
    assert ops["depthwise"].kernel == "grouped convolution"
    assert ops["depthwise"].predicted_s == pytest.approx(2 * OUT * 9 / 1e9 / 0.001)
    assert ops["grouped"].predicted_s == pytest.approx(2 * OUT * 9 * 16 / 1e9 / 0.02)
    assert ops["dense"].predicted_s == pytest.approx(2 * OUT * 9 * 64 / 1e9 / 0.1)
    between = kernels.efficiency(
        _swept({1: 0.001, 16: 0.02}, 0.1),
        "grouped convolution",
        "float32",
        1e6,
        kernels.Efficiency(0.5, kernels.PUBLISHED, "runs"),
        at=4,
    )
    assert between.value == pytest.approx(0.0105)


def test_an_older_file_prices_it_on_the_convolution_curve_said_so():
    ops = _ops(cpu_curves({"convolution": 0.1}))
    assert kernel_kinds.BASE_KIND["grouped convolution"] == "convolution"
    assert ops["depthwise"].efficiency == pytest.approx(0.1)
    assert "(no grouped convolution curve measured)" in ops["depthwise"].derived_from


def test_the_suite_sweeps_depthwise_and_16_a_group_and_compiles_them_grouped():
    """One sweep per GROUP_FEATURES over the convolutions' channels (at least two groups
    each), 2 FLOPs per tap inside the padding per output per feature of a group; the
    planned function compiles to a convolution of C / g groups; a record's second coordinate
    is its filter's input features."""
    suite = SUITES["default"]
    sweeps = [s for s in kernel_windows.convolutions(suite, "float32", 4) if s]
    grouped = [s for s in sweeps if s[0].kind == "grouped convolution"]
    assert [{p.shapes[1][2] for p in s} for s in grouped] == [{1}, {16}]
    n, side, k = kernel_windows.CONV
    taps = (side * k - (k - 1)) ** 2
    for s in grouped:
        for p in s:
            c, g = p.shapes[0][-1], p.shapes[1][2]
            assert c >= 2 * g and p.model.flops == 2.0 * n * taps * c * g
    p = grouped[1][0]
    args = [jax.ShapeDtypeStruct(s, p.dtype) for s in p.shapes]
    text = jax.jit(kernel_functions.function(jax, jnp, p.fn)).lower(*args).compile().as_text()
    assert f"feature_group_count={p.shapes[0][-1] // 16}" in text
    r = record(p.kind, p.label, [1e-2], shapes=p.shapes)
    assert curves_of._sweep(r) == 16
