"""Convolutions, sorts and reduce-windows priced on their own kernel curves.

Pure: a hand-written HLO module (tests/data/profile/windows.hlo: `forward`, a YNNPACK fusion of
a 3×3 convolution of (8, 32, 32, 64) by (3, 3, 64, 64); `filter`, a weight gradient's
convolution of (64, 32, 32, 8) by (32, 32, 8, 64), window 32×32, into (64, 3, 3, 64);
`sort.0`, a sort of 1,024 floats; `sort.1`, 64 rows of 1,024; `window`, a cumulative sum's
reduce-window of 16 over (256, 64, 16)) with a stub cost model (1e6 FLOPs and 1e4 bytes a
convolution, 0 FLOPs otherwise), on hand-made curves (1e9 FLOP/s, 1e9 bytes/s; flat curves:
matmul 0.5, convolution 0.2, convolution filter 0.1, sort 0.01, reduce-window 0.3 up to
1e6 bytes and 0.6 from 1e7, elementwise 0.8, reduction 0.4).
"""

import dataclasses
from pathlib import Path

import pytest

from perfcore.measure.profile import hlo
from perfcore.measure.profile.predict import matmuls
from perfcore.measure.profile.predict import program as predict
from perfcore.measure.profile.predict.op import OpPrediction
from perfcore.model.chip import kernels

MODULE = (Path(__file__).parent / "data" / "profile" / "windows.hlo").read_text("utf-8")
CONV_FLOPS = 1e6


def stub_cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes, transcendentals) of a one-op module."""
    return (CONV_FLOPS, 1e4, 0.0) if " convolution(" in text else (0.0, 1e3, 0.0)


def _flat(kind: str, efficiency: float, lo: float = 1e2, hi: float = 1e10):
    return tuple(kernels.Point(kind, "float32", s, efficiency) for s in (lo, hi))


ALL = {
    "matmul": 0.5,
    "convolution": 0.2,
    "convolution filter": 0.1,
    "sort": 0.01,
    "elementwise": 0.8,
    "reduction": 0.4,
}


def _curves(without: tuple[str, ...] = ()) -> kernels.Curves:
    points = [p for k, e in ALL.items() if k not in without for p in _flat(k, e)]
    if "reduce-window" not in without:
        points += [*_flat("reduce-window", 0.3, 1e2, 1e6), *_flat("reduce-window", 0.6, 1e7)]
    return kernels.Curves(
        "cpu", "2026-12-03", tuple(points), (("float32", 1e9),), 1e9, "hand", threads=2
    )


def _ops(curves: kernels.Curves) -> dict[str, OpPrediction]:
    got = predict.predict_modules([MODULE], "cpu", curves, 7, stub_cost)
    return {o.name: o for o in got.ops}


def test_convolutions_are_classified_by_their_window_against_their_output():
    module = hlo.parse_module(MODULE)
    convs = {i.name.lstrip("%"): i for c in module.computations.values() for i in c}
    assert matmuls.conv_kind(convs["conv"]) == "convolution"  # 3×3 window, 32×32 output
    assert matmuls.conv_kind(convs["conv.1"]) == "convolution filter"  # 32×32 window, 3×3 output
    # 2 · (8·32·32·64 outputs) · 9 taps · 64 input features, padding counted
    assert matmuls.conv_flops(module, convs["conv"]) == 2 * 8 * 32 * 32 * 64 * 9 * 64
    assert matmuls.conv_flops(module, convs["conv.1"]) == 2 * 64 * 3 * 3 * 64 * 32 * 32 * 8


def test_the_kinds_of_convolutions_sorts_and_reduce_windows():
    ops = _ops(_curves())
    got = {n: ops[n].kernel for n in ("forward", "filter", "sort.0", "sort.1", "window")}
    assert got == {
        "forward": "convolution",
        "filter": "convolution filter",
        "sort.0": "sort",
        "sort.1": "sort",
        "window": "reduce-window",
    }


def test_a_convolution_is_priced_on_its_own_curve():
    """Compute-bound (1e6 FLOPs at 1e9 FLOP/s against 1e4 bytes at 1e9 bytes/s): 1 ms over
    0.2 forward, over 0.1 as a weight gradient."""
    ops = _ops(_curves())
    assert ops["forward"].predicted_s == pytest.approx(1e-3 / 0.2)
    assert ops["filter"].predicted_s == pytest.approx(1e-3 / 0.1)
    assert ops["filter"].derived_from.startswith("convolution filter float32 at 1e+06 flops")


def test_a_sort_is_sized_by_its_keys_and_priced_per_row():
    """sort.0: 1,024 keys read and written, 8,192 bytes, at 0.01: 819.2 µs. sort.1: 64 rows
    of 1,024, bound 64 × 8,192 bytes, on the curve at one row's 8,192 bytes."""
    ops = _ops(_curves())
    assert ops["sort.0"].predicted_s == pytest.approx(8192 / 1e9 / 0.01)
    assert ops["sort.1"].predicted_s == pytest.approx(64 * 8192 / 1e9 / 0.01)
    assert "sort float32 at 8.19e+03 bytes" in ops["sort.1"].derived_from


def test_a_reduce_window_is_sized_by_what_its_windows_read():
    """On a host's curves, 256·64·16 = 262,144 outputs each reading 16 and written once:
    262,144 · 17 · 4 = 17,825,792 bytes, where the curve is 0.6."""
    ops = _ops(_curves())
    moved = 262_144 * 17 * 4
    assert ops["window"].bound_s == pytest.approx(moved / 1e9)
    assert ops["window"].predicted_s == pytest.approx(moved / 1e9 / 0.6)
    # curves of no host (an accelerator's, whose reduce-window is no loop over each window):
    # by the 1e3 bytes its cost model counts, on the curve's 0.3 there; a sort's rows as before
    device = _ops(dataclasses.replace(_curves(), threads=0))
    assert device["window"].bound_s == pytest.approx(1e3 / 1e9)
    assert device["window"].predicted_s == pytest.approx(1e3 / 1e9 / 0.3)
    assert device["sort.1"].predicted_s == ops["sort.1"].predicted_s


def test_curves_without_the_new_kinds_price_them_from_their_base_kinds_and_say_so():
    """A file measured before these kinds: a convolution on the matmul curve (0.5), a weight
    gradient's too (through convolution), a sort on the elementwise (0.8), a reduce-window on
    the reduction (0.4), each said as such."""
    ops = _ops(_curves(without=("convolution", "convolution filter", "sort", "reduce-window")))
    assert ops["forward"].predicted_s == pytest.approx(1e-3 / 0.5)
    assert ops["filter"].predicted_s == pytest.approx(1e-3 / 0.5)
    assert "matmul (no convolution filter curve measured)" in ops["filter"].derived_from
    assert ops["sort.0"].predicted_s == pytest.approx(8192 / 1e9 / 0.8)
    assert "elementwise (no sort curve measured)" in ops["sort.0"].derived_from
    assert ops["window"].predicted_s == pytest.approx(262_144 * 17 * 4 / 1e9 / 0.4)
    assert "reduction (no reduce-window curve measured)" in ops["window"].derived_from
    assert all(o.efficiency_source == kernels.MEASURED for o in ops.values() if o.kernel)


def test_a_committed_kernels_file_from_before_the_new_kinds_still_prices_them_and_says_so():
    """tests/data/profile/kernels_before_windows.json (the bundled example's kernels records,
    measured before these kinds): its curves load; a convolution is priced from the matmul
    curve, a sort from the elementwise, a reduce-window from the reduction, each said so."""
    from perfcore.measure.results import curves, load_results

    root = Path(__file__).parent.parent
    old = curves.curves(
        load_results(root / "tests" / "data" / "profile" / "kernels_before_windows.json")
    )
    assert not {p.kind for p in old.points} & {"convolution", "sort", "reduce-window"}
    got = predict.predict_modules([MODULE], old.device, old, 7, stub_cost)
    ops = {o.name: o for o in got.ops}
    said = {
        "forward": "matmul (no convolution curve measured)",
        "filter": "matmul (no convolution filter curve measured)",
        "sort.1": "elementwise (no sort curve measured)",
        "window": "reduction (no reduce-window curve measured)",
    }
    for name, words in said.items():
        assert ops[name].predicted_s > 0 and words in ops[name].derived_from
