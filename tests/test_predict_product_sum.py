"""A sum of a product over a shape with a size-1 dimension, priced on its own kernel curve.

Pure: a hand-written HLO module (tests/data/profile/product_sums.hlo: `unit`, the attention
backward's sum over (1, 1, 6, 256, 256) of a · broadcast(c) · b; `plain`, (a · b).sum(-1)
over (1536, 256); `square`, (a · a).sum(-1) over (1, 1536, 256); `most`, (a · b).max(-1)
over it) with a stub cost model (1e7 bytes an op: more than any of their reduces consumes,
as a cost model counts an op's operands), on flat hand-made curves at 1e9 bytes/s:
reduction 0.4, unit-dim product sum 0.04, elementwise 0.8.
"""

from pathlib import Path

import pytest

from perfcore.measure.experiments.kernels import windows as kernel_windows
from perfcore.measure.experiments.suites import SUITES
from perfcore.measure.profile import hlo
from perfcore.measure.profile.predict import kinds
from perfcore.model.chip import kernel_kinds, kernels
from tests.support.kernels import cpu_curves, predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "product_sums.hlo").read_text("utf-8")
PRODUCT = "unit-dim product sum"


def stub_cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes, transcendentals) of a one-op module: 1e7 bytes, nothing else."""
    return 0.0, 1e7, 0.0


def _curves(with_product: bool = True) -> kernels.Curves:
    return cpu_curves(
        {"reduction": 0.4, "elementwise": 0.8, **({PRODUCT: 0.04} if with_product else {})}
    )


def _ops(curves: kernels.Curves) -> dict:
    return predicted_ops(MODULE, curves, 7, stub_cost)


def test_only_a_sum_of_two_operands_product_over_a_unit_dimension_is_the_kind():
    """A product of two different operands summed over a shape with a size-1 dim; not the
    same sum without the unit dim, not a square (one operand), not a max."""
    module = hlo.parse_module(MODULE)
    fusions = {i.name.lstrip("%"): i for i in module.computations["%main"]}
    got = {n: kinds.product_sum(module, fusions[n]) for n in ("unit", "plain", "square", "most")}
    assert got == {"unit": True, "plain": False, "square": False, "most": False}


def test_a_unit_dim_product_sum_is_priced_on_its_own_curve():
    """1e7 bytes at 1e9 bytes/s: 10 ms bound; over 0.04 on its curve, 0.4 as a reduction."""
    ops = _ops(_curves())
    assert ops["unit"].kernel == PRODUCT
    assert ops["unit"].predicted_s == pytest.approx(1e-2 / 0.04)
    assert ops["unit"].derived_from.startswith(f"{PRODUCT} float32 at 1e+07 bytes")
    for name in ("plain", "square", "most"):
        assert ops[name].kernel == "reduction"
        assert ops[name].predicted_s == pytest.approx(1e-2 / 0.4)


def test_curves_without_it_price_it_as_a_reduction_and_say_so():
    ops = _ops(_curves(with_product=False))
    assert ops["unit"].predicted_s == pytest.approx(1e-2 / 0.4)
    assert f"reduction (no {PRODUCT} curve measured)" in ops["unit"].derived_from


def test_the_suite_sweeps_it_over_a_leading_unit_dimension_reading_both_inputs():
    """(1, n / 256, 256) twice, n from 256 to 2^20 of the suite's element counts; bytes: both
    inputs read and one float per row written."""
    suite = SUITES["quick"]
    sweep = kernel_windows.product_sums(suite, "float32", 4, 256)
    sizes = [n for n in suite.kernel_elements if 256 <= n <= kernel_windows.SORT_MAX]
    assert [p.shapes for p in sweep] == [((1, n // 256, 256),) * 2 for n in sizes]
    assert [p.model.bytes for p in sweep] == [(2 * n + n // 256) * 4 for n in sizes]
    assert {p.kind for p in sweep} == {PRODUCT} and PRODUCT in kernel_kinds.SIZE_UNIT
