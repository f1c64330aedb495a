"""A matvec read along the suite's skinny sweeps at its own rows (M or N, 1-16).

Pure: a hand-written HLO module (tests/data/profile/decode_dots.hlo: a decode step's
projection of 8 rows through a 512² weight, and attention's scores, one query a head of 8
sequences × 8 heads against a 1,024-token cache, whose result's last two dims (8, 1,024) are a
batch dim and the cache) with a stub cost model (its operands' and result's bytes), on
hand-made matvec curves at 1e9 bytes/s (and 1e12 FLOP/s): the 1-row sweep at 0.8, the 4-row
at 0.6, the 16-row at 0.2. Measured here over 16 MiB of weights: 36-37 GB/s at 1 and 4 rows,
14 at 16, so a cache read one query a head was predicted 2.6-3× slow from a curve mixing the
sweeps.
"""

import dataclasses
import math
from pathlib import Path

import pytest

from perfcore.measure.experiments.kernels import sweeps as kernel_plan
from perfcore.measure.experiments.suites import SUITES, for_platform
from perfcore.measure.profile import hlo
from perfcore.measure.profile.predict import matmuls
from perfcore.model.chip import kernels
from tests.support.kernels import predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "decode_dots.hlo").read_text("utf-8")
PROJ = (8 * 512 + 512 * 512 + 8 * 512) * 4.0
SCORES = (8 * 8 * 64 + 8 * 8 * 1024 * 64 + 8 * 8 * 1024) * 4.0
SWEEPS = {1: 0.8, 4: 0.6, 16: 0.2}


def stub_cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes, transcendentals) of a one-op module, by which dot it holds."""
    return (
        (2.0 * 8 * 512 * 512, PROJ, 0.0) if "%proj" in text else (2.0 * 64 * 1024 * 64, SCORES, 0.0)
    )


def _curves(swept: bool = True) -> kernels.Curves:
    points = tuple(
        kernels.Point("matvec", "float32", size, e if swept else 0.5, sweep=rows if swept else 0)
        for rows, e in SWEEPS.items()
        for size in (1e2, 1e9)
    )
    return kernels.Curves("cpu", "2026-12-06", points, (("float32", 1e12),), 1e9, "hand")


def test_a_matvecs_rows_are_its_free_dims_not_its_results_last_two():
    module = hlo.parse_module(MODULE)
    dots = module.instructions
    assert matmuls.skinny_side(module, dots["%proj"]) == 8
    assert matmuls.skinny_side(module, dots["%scores"]) == 1  # its result's last two: 8, 1,024
    assert matmuls.second_coordinate(module, dots["%scores"]) == 1


def test_one_query_a_head_reads_the_1_row_sweep_and_8_rows_lie_between_4_and_16():
    ops = predicted_ops(MODULE, _curves(), 4, stub_cost)
    # the scores: 1 query a head, a dot of several (a batched matvec), on the matvec's sweeps
    assert (ops["scores"].kernel, ops["proj"].kernel) == ("batched matvec", "matvec")
    assert ops["scores"].predicted_s == pytest.approx(SCORES / 1e9 / 0.8)
    assert "rows 1, on the 1 sweep" in ops["scores"].derived_from
    half = (math.log(8) - math.log(4)) / (math.log(16) - math.log(4))  # 0.5: halfway in log rows
    assert ops["proj"].predicted_s == pytest.approx(PROJ / 1e9 / (0.6 + half * (0.2 - 0.6)))
    assert "rows 8, between the 4 sweep and the 16 sweep" in ops["proj"].derived_from


def test_curves_without_rows_price_every_matvec_on_the_one_curve():
    ops = predicted_ops(MODULE, _curves(swept=False), 4, stub_cost)
    assert ops["scores"].predicted_s == pytest.approx(SCORES / 1e9 / 0.5)
    assert ops["proj"].predicted_s == pytest.approx(PROJ / 1e9 / 0.5)


def test_the_skinny_sweeps_run_on_to_weights_of_256_mib():
    """Past the square sweeps' widest side (2,048 on a CPU) to 4,096² and 8,192² float32 weights
    (64 and 256 MiB); on a suite whose widest side is 8,192, 16,384² float32 (1 GiB) is past it."""
    cpu = for_platform(SUITES["kernels"], "cpu")
    assert max(cpu.kernel_sides) == 2048
    for sweep in _skinny(cpu):
        assert [p.shapes[1][1] for p in sweep][-3:] == [2048, 4096, 8192]
        assert sweep[-1].shapes[1][0] ** 2 * 4 == kernel_plan.SKINNY_WEIGHT_MAX
    wide = dataclasses.replace(cpu, kernel_sides=(4096, 8192))
    assert {p.shapes[1][1] for s in _skinny(wide) for p in s} == {4096, 8192}


def _skinny(suite) -> list:
    """The suite's float32 matvec sweeps."""
    return [s for s in kernel_plan.plan(suite, "float32") if s and s[0].kind == "matvec"]
