"""A gather (an embedding's rows read where its indices say) on its own kernel curve.

Pure: a hand-written HLO module (tests/data/profile/gather_kind.hlo: `lookup`, 4,096 rows of 256
gathered from a 65,536-row table; `scale`, the rows doubled, a stream) with a stub cost model
(1e6 bytes an op, less what a gather does not read of its table, never below its result:
join.price), on flat hand-made curves at 1e9 bytes/s: elementwise 0.5, gather 0.1.
"""

from pathlib import Path

import pytest

from perfcore.measure.experiments.kernels import rows as kernel_rows
from perfcore.measure.experiments.suites import SUITES
from perfcore.model.chip import kernel_kinds
from tests.support.kernels import cpu_curves, predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "gather_kind.hlo").read_text("utf-8")
ROWS_BYTES = 4096 * 256 * 4  # the gathered rows


def stub_cost(text: str) -> tuple[float, float, float]:
    return 0.0, 1e6, 0.0


def _ops(with_gather: bool = True) -> dict:
    effs = {"elementwise": 0.5, **({"gather": 0.1} if with_gather else {})}
    return predicted_ops(MODULE, cpu_curves(effs), 2, stub_cost)


def test_an_op_holding_a_gather_is_priced_on_the_gather_curve():
    """The gather moves its 4,096 × 256 floats (4.19 MB: its result; the table's other rows
    unread) at 1e9 bytes/s: over 0.1 on the gather's curve 41.9 ms; the stream beside it, 1e6
    bytes over 0.5: 2 ms."""
    ops = _ops()
    assert (ops["lookup"].kernel, ops["scale"].kernel) == ("gather", "elementwise")
    assert ops["lookup"].predicted_s == pytest.approx(ROWS_BYTES / 1e9 / 0.1)
    assert ops["scale"].predicted_s == pytest.approx(1e-3 / 0.5)


def test_curves_without_it_price_it_as_a_stream_and_say_so():
    lookup = _ops(with_gather=False)["lookup"]
    assert lookup.predicted_s == pytest.approx(ROWS_BYTES / 1e9 / 0.5)
    assert "elementwise (no gather curve measured)" in lookup.derived_from


def test_the_suite_gathers_rows_of_a_table_above_the_cache_up_to_a_quarter_of_it():
    """(65,536, 256) floats (64 MiB) and n / 256 index draws, for the suite's n from 256 to
    a quarter of the table; bytes: the rows read and written, one index a row."""
    suite = SUITES["quick"]
    sweep = kernel_rows.gathers(suite, "float32", 4, 256)
    sizes = [n for n in suite.kernel_elements if 256 <= n <= 65536 * 256 // 4]
    assert sweep and [p.shapes for p in sweep] == [((65536, 256), (n // 256, 1)) for n in sizes]
    assert [p.model.bytes for p in sweep] == [(2 * n + n // 256) * 4 for n in sizes]
    assert kernel_kinds.BASE_KIND["gather"] == "elementwise"
