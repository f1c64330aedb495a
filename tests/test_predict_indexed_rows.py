"""A gather's and a scatter's rows: each read at the elements its index moves (their second
coordinate), and a scatter whose updates outnumber its table sized by every update's row.

Pure: a hand-written HLO module (tests/data/profile/segment_sum.hlo, as XLA:CPU compiles
jax.ops.segment_sum of 4,096 rows of 16 into 64 segments, jnp.bincount of 4,096 values into
256 bins, and a lookup of 64 scalars), a stub cost model counting what XLA's does (a scatter's
table read and written whole, its updates and indices read), on flat hand-made curves at 1e9
bytes/s. Measured on this CPU before, on the one curve of rows of 256 into a 64 MiB table: a
segment sum of 65,536 rows of 64 into 1,024 segments predicted 0.30 ms, fastest call 0.45-1.06 ms
(in-process modes); a bincount of 1,048,576 values 0.10 ms for its scatter, which took about 0.7.
"""

import math
from pathlib import Path

import pytest

from perfcore.measure.experiments import kernels
from perfcore.measure.experiments.kernels import rows as kernel_rows
from perfcore.measure.experiments.suites import SUITES
from perfcore.measure.profile import hlo
from perfcore.measure.profile.predict import indexed
from perfcore.measure.results import curves as curves_of
from perfcore.model.chip import kernel_kinds
from perfcore.model.chip import kernels as kernel_model
from tests.support.kernel_records import record
from tests.support.kernels import predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "segment_sum.hlo").read_text("utf-8")
SEGMENTS, ROWS = 64 * 16 * 4, 4096 * 16 * 4  # the segment sum's table and updates, bytes
BINS, COUNTS = 256 * 4, 4096 * 4  # the bincount's table and its updates of one element
INDICES = 4096 * 4
NAMES = ("wrapped_scatter", "wrapped_count", "wrapped_gather")
GATHER = ((65536, 256), (16, 1))  # an older file's gather: rows of 256 alone
EFFICIENCY = {1: 0.1, 16: 0.4, 256: 0.8}  # the hand-made scatter curve's, by elements a row


def xla_cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes, transcendentals) as XLA's cost model gives a one-op module: a scatter's
    table read and written whole, its updates and indices read."""
    if "update_window_dims={1,2}" in text:
        return 4096 * 16.0, float(2 * SEGMENTS + ROWS + INDICES), 0.0
    if "update_window_dims={1}" in text:
        return 4096.0, float(2 * BINS + COUNTS + INDICES), 0.0
    if "gather(" in text:
        return 0.0, 1000 * 4 + 64 * 4 + 64 * 4.0, 0.0
    return 0.0, 64 * 16 * 4.0, 0.0


def _curves() -> kernel_model.Curves:
    points = [
        kernel_model.Point(kind, "float32", size, e, loop=kind == "scatter", sweep=row)
        for kind in ("scatter", "gather")
        for row, e in EFFICIENCY.items()
        for size in (1e2, 1e9)
    ]
    return kernel_model.Curves("cpu", "2026-12-07", tuple(points), (("float32", 1e9),), 1e9, "h")


def test_the_elements_each_index_moves_are_read_from_the_hlo():
    module = hlo.parse_module(MODULE)
    at = {n: indexed.row_elements(module, module.instructions[f"%{n}"]) for n in NAMES}
    assert at == {"wrapped_scatter": 16, "wrapped_count": 1, "wrapped_gather": 1}
    assert indexed.row_elements(module, module.instructions["%wrapped_broadcast"]) == 0


def test_a_segment_sum_and_a_bincount_are_priced_at_their_rows_on_their_own_sweeps():
    """The segment sum's rows of 16 on the 16 sweep, the bincount's single elements on the 1
    sweep, the lookup's on the gathers' 1 sweep: each at the bytes priced (a table hit many
    times over read and written once), as the suite's points are sized."""
    ops = predicted_ops(MODULE, _curves(), 5, xla_cost)
    segments, counts = ops["wrapped_scatter"], ops["wrapped_count"]
    assert segments.predicted_s == pytest.approx((2 * SEGMENTS + ROWS + INDICES) / 1e9 / 0.4)
    assert counts.predicted_s == pytest.approx((2 * BINS + COUNTS + INDICES) / 1e9 / 0.1)
    assert "elements a row 16, on the 16 sweep" in segments.derived_from
    assert "elements a row 1, on the 1 sweep" in counts.derived_from
    assert ops["wrapped_gather"].efficiency == pytest.approx(EFFICIENCY[1])


def test_rows_between_the_sweeps_read_between_them_in_log_elements():
    """A scatter of rows of 64 (the zoo's segment sum's) lies between the 16 and 256 sweeps,
    a third of the way from 16 in log elements."""
    curve = _curves().curve("scatter", "float32", loop=True)
    read = kernel_model.swept_efficiency(curve, 1e6, 64)
    t = math.log(64 / 16) / math.log(256 / 16)
    assert read.value == pytest.approx(0.4 + t * (0.8 - 0.4))


def test_the_suite_sweeps_short_rows_into_a_small_table_and_a_record_says_its_row():
    suite = SUITES["quick"]  # elements 4,096, 65,536 and 1,048,576
    carried = kernels._carried(suite)
    assert [[p.shapes for p in s] for s in carried] == [
        [((65536, 256), (16, 256)), ((65536, 256), (256, 256)), ((65536, 256), (4096, 256))],
        [((4096, 1), (4096, 1)), ((4096, 1), (1048576, 1))],
        [((4096, 16), (4096, 16))],
    ]
    # the updates and indices read, the rows hit read and written: each of the 4,096 once at most
    assert [p.model.bytes for p in carried[1]] == [(4096 * 4) * 4, (2 * 1048576 + 2 * 4096) * 4]
    assert [p.model.bytes for p in carried[2]] == [(4096 * 16 * 3 + 4096) * 4]
    assert [p.model.bytes for p in carried[0]] == [(3 * r * 256 + r) * 4 for r in (16, 256, 4096)]
    gathers = [s for s in kernel_rows.rows(suite, "float32", 4, 256) if s[0].kind == "gather"]
    assert [s[0].shapes[0] for s in gathers] == [(65536, 256), (4096, 1), (4096, 16)]
    assert [p.model.bytes for p in gathers[1]] == [(4096 * 3) * 4, (2 * 1048576 + 4096) * 4]
    assert kernel_rows.SMALL_ROWS == (1, 16)
    assert kernel_kinds.SWEPT["scatter"] == kernel_kinds.SWEPT["gather"] == "elements a row"
    label = "scatter-add float32 4096 rows into 4096 rows of 1"
    r = record("scatter", label, [1e-3], shapes=((4096, 1), (4096, 1)))
    older = record("gather", "gather float32 16 of 65536 rows of 256", [1e-3], shapes=GATHER)
    assert (curves_of._sweep(r), curves_of._sweep(older)) == (1, 256)
