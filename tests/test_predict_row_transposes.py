"""A permuted copy that moves whole rows (its minor-most dimension kept: attention's head split,
(batch, seq, heads, dim) -> (batch, heads, seq, dim)) on its own curve; one that moves the
minor dimension (a KV cache's (batch, seq, heads, dim) -> (batch, heads, dim, seq)) stays a
`transpose`. On this CPU the head split of a 16 MiB cache took 730 µs and the cache's layout
change 1,424 µs (isolated calls, fastest).

Pure: a hand-written HLO module (tests/data/profile/row_transposes.hlo, the fusions XLA:CPU
wrote for bench/predict_heldout.py's decode_gqa and bench/predict.py's decode step: `heads`,
a transpose keeping the minor dimension then a copy into row-major; `cache`, a transpose
whose copy into row-major moves it; `split`, a bare transpose keeping it) with a stub cost
model (1e6 bytes an op), on flat hand-made curves at 1e9 bytes/s: transpose 0.1, row
transpose 0.4.
"""

from pathlib import Path

import pytest

from perfcore.measure.experiments.kernels import sweeps as kernel_plan
from tests.support.kernels import cpu_curves, predicted_ops, swept_beside

MODULE = (Path(__file__).parent / "data" / "profile" / "row_transposes.hlo").read_text("utf-8")
ROWS = "row transpose"


def stub_cost(text: str) -> tuple[float, float, float]:
    return 0.0, 1e6, 0.0


def _ops(with_rows: bool = True) -> dict:
    curves = cpu_curves({"copy": 0.05, "transpose": 0.1, **({ROWS: 0.4} if with_rows else {})})
    return predicted_ops(MODULE, curves, 2, stub_cost)


def test_a_reorder_keeping_the_minor_dimension_is_a_row_transpose_and_one_moving_it_not():
    """1e6 bytes at 1e9 bytes/s: a 1 ms bound; over 0.4 on the row transpose's curve 2.5 ms,
    over 0.1 on the transpose's 10 ms."""
    ops = _ops()
    assert {n: ops[n].kernel for n in ("heads", "cache", "split")} == {
        "heads": ROWS,
        "cache": "transpose",
        "split": ROWS,
    }
    assert ops["heads"].predicted_s == pytest.approx(1e-3 / 0.4)
    assert ops["cache"].predicted_s == pytest.approx(1e-3 / 0.1)


def test_curves_without_it_price_it_as_a_transpose_and_say_so():
    ops = _ops(with_rows=False)
    assert ops["heads"].predicted_s == pytest.approx(1e-3 / 0.1)
    assert f"transpose (no {ROWS} curve measured)" in ops["heads"].derived_from


def test_the_suite_sweeps_it_over_the_transposes_shapes_and_bytes():
    rows = swept_beside(ROWS, "transpose")
    assert kernel_plan.TRANSPOSES[ROWS][-1] == len(rows[0].shapes[0]) - 1  # minor dim kept
