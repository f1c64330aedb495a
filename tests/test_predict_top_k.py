"""A top-k (jax.lax.top_k: XLA:CPU's `TopK` custom call) priced by its bytes on its own curve.

Pure: a hand-written HLO module (tests/data/profile/top_k.hlo: the 8 largest of each of 16
rows of 1,024 floats, as jax.lax.top_k compiles on a CPU), on flat hand-made curves at 1e9
bytes/s: top-k 0.1, reduction 0.5. Before, a custom call had no cost model, and a step of
2,048 rows of 1,024 (6.3 ms of top-k here) was predicted at 0.06 ms.
"""

from pathlib import Path

import pytest

from perfcore.measure.experiments.kernels import rows as kernel_rows
from perfcore.measure.experiments.suites import SUITES
from perfcore.measure.profile import hlo
from perfcore.measure.profile.judge import price
from perfcore.model.chip import kernel_kinds
from tests.support.kernels import cpu_curves, predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "top_k.hlo").read_text("utf-8")
BYTES = 16 * 1024 * 4 + 16 * 8 * (4 + 4)  # its rows read; the values and int32 indices written


def no_cost(text: str) -> tuple[float, float, float]:
    raise AssertionError("a custom call is priced from its shapes, not XLA's cost model")


def test_a_top_k_is_priced_from_its_shapes_with_no_flops():
    module = hlo.parse_module(MODULE)
    p = price.price(module, module.instructions["%custom-call"], no_cost)
    assert (p.flops, p.bytes, p.cost_source) == (0.0, BYTES, price.TOP_K)


def test_a_top_k_takes_its_own_curve_else_the_reductions_said_so():
    ops = predicted_ops(MODULE, cpu_curves({"top-k": 0.1, "reduction": 0.5}), 1, no_cost)
    top = ops["custom-call"]
    assert top.kernel == "top-k"
    assert top.predicted_s == pytest.approx(BYTES / 1e9 / 0.1)
    older = predicted_ops(MODULE, cpu_curves({"reduction": 0.5}), 1, no_cost)["custom-call"]
    assert older.predicted_s == pytest.approx(BYTES / 1e9 / 0.5)
    assert "reduction (no top-k curve measured)" in older.derived_from


def test_the_suite_takes_the_8_largest_of_rows_of_1024_at_every_other_element_count():
    suite = SUITES["quick"]
    sweep = kernel_rows.top_ks(suite, "float32", 4)
    sizes = [n for n in suite.kernel_elements if n >= 1024][::2]
    assert sweep and [p.shapes for p in sweep] == [((n // 1024, 1024),) for n in sizes]
    assert [p.model.bytes for p in sweep] == [n * 4 + n // 1024 * 8 * 8 for n in sizes]
    assert [p.model.flops for p in sweep] == [0] * len(sizes)
    assert kernel_kinds.BASE_KIND["top-k"] == "reduction"
