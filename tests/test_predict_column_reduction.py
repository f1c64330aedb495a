"""A reduction that keeps its operand's minor dimension (x.sum(0) of a row-major matrix: a
bias gradient's sum over the batch) on the column reductions' curve, by what it keeps.

On hand-made curves at 1e9 bytes/s: the row reduction flat at 0.8; the column reduction's
sweeps keeping 256 (flat 0.6) and 4,096 (flat 0.3).
"""

import math

import jax.numpy as jnp
import pytest

from perfcore.measure.experiments.kernels import sweeps as kernel_plan
from perfcore.measure.experiments.suites import SUITES
from perfcore.measure.profile.predict import program
from perfcore.model.chip import kernels

COLUMN = "column reduction"


def _curves(swept: bool = True) -> kernels.Curves:
    rows = [kernels.Point("reduction", "float32", s, 0.8) for s in (1e2, 1e10)]
    columns = [
        kernels.Point(COLUMN, "float32", s, e, sweep=w)
        for w, e in ((256, 0.6), (4096, 0.3))
        for s in (1e2, 1e10)
    ]
    points = tuple(rows + (columns if swept else []))
    return kernels.Curves("cpu", "2026-12-05", points, (("float32", 1e9),), 1e9, "hand")


def _ops(fn, *args, swept: bool = True) -> list:
    return list(program.predict(fn, *args, curves=_curves(swept)).ops)


@pytest.mark.parametrize(
    "fn, kind",
    [
        (lambda x: x.sum(0), COLUMN),  # down the columns: keeps the minor dimension
        (lambda x: (x * x).mean(0), COLUMN),  # fused with what it reduces
        (lambda x: x.sum(-1), "reduction"),  # along the rows
        (lambda x: x.sum(), "reduction"),  # everything
    ],
)
def test_a_reduction_keeping_the_minor_dimension_is_a_column_reduction(fn, kind):
    kinds = {o.kernel for o in _ops(fn, jnp.ones((64, 1024)))}
    assert kind in kinds and ({COLUMN, "reduction"} - {kind}).isdisjoint(kinds)


def test_it_is_read_between_the_sweeps_around_what_it_keeps():
    """Keeping 1,024: log(1024/256) / log(4096/256) = 0.5 of the way from 0.6 to 0.3."""
    (op,) = [o for o in _ops(lambda x: x.sum(0), jnp.ones((64, 1024))) if o.kernel == COLUMN]
    t = math.log(1024 / 256) / math.log(4096 / 256)
    assert op.efficiency == pytest.approx(0.6 - t * 0.3)
    assert "kept elements 1,024, between the 256 sweep and the 4,096 sweep" in op.derived_from


def test_curves_without_it_price_it_as_a_row_reduction_and_say_so():
    ops = _ops(lambda x: x.sum(0), jnp.ones((64, 1024)), swept=False)
    (op,) = [o for o in ops if o.kernel == COLUMN]
    assert op.efficiency == pytest.approx(0.8)
    assert "reduction (no column reduction curve measured)" in op.derived_from


def test_the_suite_sweeps_each_kept_width_from_4_times_it_to_2_to_the_24():
    sweeps = kernel_plan.plan(SUITES["default"], "float32")
    columns = [s for s in sweeps if s and s[0].kind == COLUMN]
    assert [s[0].shapes[0][-1] for s in columns] == list(kernel_plan.COLUMN_WIDTHS)
    for sweep in columns:
        w = sweep[0].shapes[0][-1]
        sizes = [math.prod(p.shapes[0]) for p in sweep]
        assert {p.shapes[0][-1] for p in sweep} == {w} and min(sizes) >= 4 * w
        assert max(sizes) <= kernel_plan.COLUMN_MAX
