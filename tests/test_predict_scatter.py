"""A scatter-add (an embedding gradient's rows added into a table) priced by the rows it moves,
on its own curve, timed as a loop body's op into a carried table.

Pure: a hand-written HLO module (tests/data/profile/scatter.hlo: 16 rows of 64 floats added
into a 1,024-row table, as `table.at[ids].add(dy)` compiles on a CPU with the table donated),
with a stub cost model counting what XLA's does (the table read and written whole, the updates
and indices read), on flat hand-made curves at 1e9 bytes/s. XLA counted a 50,000-row table's
51 MB twice for 2,048 rows of updates, so the scatter was priced as a 105 MB stream: 2.0 ms
predicted, 0.56 ms measured; 16,384 rows 2.3 ms against 3.5 (an XLA:CPU scatter runs one
update after another).
"""

from pathlib import Path

import pytest

from perfcore.measure.experiments import kernels
from perfcore.measure.experiments.kernels import rows as kernel_rows
from perfcore.measure.experiments.suites import SUITES
from perfcore.measure.profile import hlo
from perfcore.measure.profile.judge import price
from perfcore.model.chip import kernel_kinds
from perfcore.model.chip import kernels as kernel_model
from tests.support.kernels import predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "scatter.hlo").read_text("utf-8")
TABLE, UPDATES, INDICES = 1024 * 64 * 4, 16 * 64 * 4, 16 * 4
XLA_BYTES = 2 * TABLE + UPDATES + INDICES  # the table read and written whole
MOVED = 3 * UPDATES + INDICES  # the updates read, the rows they hit read and written


def xla_cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes, transcendentals) as XLA's cost model gives a one-op module."""
    return (16 * 64.0, float(XLA_BYTES), 0.0) if "scatter" in text else (16.0, 128.0, 0.0)


def _curves(points) -> kernel_model.Curves:
    return kernel_model.Curves("cpu", "2026-12-05", tuple(points), (("float32", 1e9),), 1e9, "h")


def test_a_scatter_moves_only_the_rows_its_updates_hit():
    module = hlo.parse_module(MODULE)
    p = price.price(module, module.instructions["%wrapped_scatter"], xla_cost)
    assert p.bytes == MOVED
    assert price.untouched_bytes(module, module.instructions["%wrapped_scatter"]) == 2 * (
        TABLE - UPDATES
    )


def test_a_scatter_takes_its_loop_body_curve_where_that_is_all_it_has_else_the_gathers():
    """A file with a scatter timed only as a loop body's op (before stop 58): a program's
    top-level scatter is priced on that curve, said so; an older file's, on the gather's."""
    timed = [kernel_model.Point("scatter", "float32", s, 0.25, loop=True) for s in (1e2, 1e9)]
    op = predicted_ops(MODULE, _curves(timed), 3, xla_cost)["wrapped_scatter"]
    assert op.kernel == "scatter"
    assert op.predicted_s == pytest.approx(MOVED / 1e9 / 0.25)
    assert "scatter as a loop body's op" in op.derived_from
    gather = [kernel_model.Point("gather", "float32", s, 0.5) for s in (1e2, 1e9)]
    older = predicted_ops(MODULE, _curves(gather), 3, xla_cost)["wrapped_scatter"]
    assert older.predicted_s == pytest.approx(MOVED / 1e9 / 0.5)
    assert "gather (no scatter curve measured)" in older.derived_from
    assert kernel_kinds.BASE_KIND["scatter"] == "gather"


def test_a_host_suite_plans_its_scatters_apart_from_the_other_sweeps():
    """kernels.run times them in a loop and as donated programs (test_measure_kernels); no
    dtype's plan holds one, so no other path times one with its table copied first."""
    suite = SUITES["quick"]
    sweep = kernels._carried(suite)[0]  # rows of 256 (the short rows: test_predict_indexed_rows)
    gathers = kernel_rows.gathers(suite, "float32", 4, 256)
    rows = [p.shapes[1][0] for p in gathers]  # as many rows as the gathers take
    assert [p.shapes for p in sweep] == [((65536, 256), (r, 256)) for r in rows]
    assert [p.model.bytes for p in sweep] == [(3 * r * 256 + r) * 4 for r in rows]
    assert {p.kind for p in sweep} == set(kernels.CARRIED) == {"scatter"}
    planned = [p for d in suite.kernel_dtypes for s in kernels.plan(suite, d) for p in s]
    assert not [p for p in planned if p.kind == "scatter"]
