"""A dot of several matmuls (its batch dimensions: attention's per head) on its own curve.

Pure: a hand-written HLO module (tests/data/profile/batched_dots.hlo: `batched`, 16 matmuls of
256×64·64×256 in one dot; `single`, one of them; `decode`, 16 of 1×64·64×256) with a stub cost
model (2 FLOPs per multiply-add from the shapes, 1e3 bytes an op), on flat hand-made curves
at 1e9 FLOP/s and bytes/s: matmul 0.5, batched matmul 0.1, matvec 0.3.
"""

from pathlib import Path

import pytest

from perfcore.measure.experiments.kernels import windows as kernel_windows
from perfcore.measure.experiments.suites import SUITES
from perfcore.model.chip import kernel_kinds, kernels
from tests.support.kernels import cpu_curves, predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "batched_dots.hlo").read_text("utf-8")
BATCHED = "batched matmul"
ONE = 2 * 256 * 64 * 256  # FLOPs of one 256×64·64×256 matmul: 8,388,608


def stub_cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes, transcendentals) of a one-op module, by which dot it holds."""
    flops = 16 * ONE if "batched" in text else ONE if "single" in text else 16 * 2 * 64 * 256
    return float(flops), 1e3, 0.0


def _curves(with_batched: bool = True) -> kernels.Curves:
    return cpu_curves({"matmul": 0.5, "matvec": 0.3, **({BATCHED: 0.1} if with_batched else {})})


def _ops(curves: kernels.Curves) -> dict:
    return predicted_ops(MODULE, curves, 5, stub_cost)


def test_a_batched_dot_is_priced_on_its_own_curve_at_one_of_its_matmuls():
    """16 × 8.39e6 FLOPs at 1e9 FLOP/s: a 134 ms bound, over 0.1 on the batched curve (at
    8.39e6 FLOPs, one matmul's) 1.34 s; the single matmul 8.39 ms over 0.5: 16.8 ms."""
    ops = _ops(_curves())
    assert ops["batched"].kernel == BATCHED
    assert ops["batched"].predicted_s == pytest.approx(16 * ONE / 1e9 / 0.1)
    assert ops["batched"].derived_from.startswith(f"{BATCHED} float32 at 8.39e+06 flops")
    assert ops["single"].kernel == "matmul"
    assert ops["single"].predicted_s == pytest.approx(ONE / 1e9 / 0.5)


def test_a_batch_of_matvecs_is_a_batched_matvec_priced_on_the_matvec_curve_without_its_own():
    """Not a batched matmul: by bytes, on the matvec's curve where the curves hold no batched
    matvec (tests/test_predict_batched_matvec.py prices it on its own)."""
    decode = _ops(_curves())["decode"]
    assert decode.kernel == "batched matvec" and decode.efficiency == pytest.approx(0.3)
    assert "matvec (no batched matvec curve measured)" in decode.derived_from


def test_curves_without_it_price_it_as_a_matmul_and_say_so():
    ops = _ops(_curves(with_batched=False))
    assert ops["batched"].predicted_s == pytest.approx(16 * ONE / 1e9 / 0.5)
    assert f"matmul (no {BATCHED} curve measured)" in ops["batched"].derived_from


def test_the_suite_sweeps_16_matmuls_of_attention_scores_sized_by_one():
    """(16, s, 64)·(16, 64, s) for the suite's matmul sides from 64; FLOPs 16 × 2·s·s·64;
    one call runs 16 matmuls (its record's size is one's FLOPs)."""
    suite = SUITES["quick"]
    sweep = kernel_windows.batched(suite, "float32", 4)
    sides = [s for s in suite.kernel_sides if s >= 64]
    assert [p.shapes for p in sweep] == [((16, s, 64), (16, 64, s)) for s in sides]
    assert [p.model.flops for p in sweep] == [16 * 2 * s * s * 64 for s in sides]
    assert {kernel_windows.instances(p) for p in sweep} == {16}
    assert {p.kind for p in sweep} == {BATCHED} and kernel_kinds.SIZE_UNIT[BATCHED] == "flops"
