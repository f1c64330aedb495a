"""An argmax (a reduce of the values and their indices together) priced on its own curve.

Pure: a hand-written HLO module (tests/data/profile/argmax.hlo: the argmax of each of 16 rows
of 1,000 floats, as jnp.argmax compiles on a CPU), with a stub cost model, on flat hand-made
curves at 1e9 bytes/s: arg reduction 0.1, reduction 0.5. XLA:CPU does not vectorize such a
reduce: 1.6-1.8 ns per float read there, 10-15× a max over the same rows, so a step taking the
argmax of 1,024 rows of 1,000 logits was predicted at 0.12 ms on the reduction's curve and
took 1.6 ms.
"""

from pathlib import Path

import pytest

from perfcore.measure.experiments.kernels import rows as kernel_rows
from perfcore.measure.experiments.suites import SUITES
from perfcore.measure.profile import hlo
from perfcore.measure.profile.predict import kinds
from perfcore.model.chip import kernel_kinds
from tests.support.kernels import cpu_curves, predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "argmax.hlo").read_text("utf-8")
BYTES = 16 * 1000 * 4 + 16 * 4  # its rows read, an int32 index written per row
MAX = """HloModule jit_max, is_scheduled=true

%region_0.1 (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %m = f32[] maximum(%a, %b)
}

ENTRY %main (x.1: f32[16,1000]) -> f32[16] {
  %x.1 = f32[16,1000]{1,0} parameter(0)
  %c = f32[] constant(-inf)
  ROOT %reduce.1 = f32[16]{0} reduce(%x.1, %c), dimensions={1}, to_apply=%region_0.1
}
"""


def stub_cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes, transcendentals) of a one-op module: the rows read, an index written."""
    return 16 * 1000.0, float(BYTES), 0.0


def test_an_argmax_is_an_arg_reduction_and_a_max_is_not():
    module = hlo.parse_module(MODULE)
    assert kinds.arg_reduce(module, module.instructions["%iota_reduce_fusion"])
    plain = hlo.parse_module(MAX)
    assert not kinds.arg_reduce(plain, plain.instructions["%reduce.1"])
    assert predicted_ops(MAX, cpu_curves({"reduction": 0.5}), 1, stub_cost)["reduce.1"].kernel == (
        "reduction"
    )


def test_an_argmax_takes_its_own_curve_else_the_reductions_said_so():
    op = predicted_ops(MODULE, cpu_curves({"arg reduction": 0.1, "reduction": 0.5}), 1, stub_cost)
    arg = op["iota_reduce_fusion"]
    assert arg.kernel == "arg reduction"
    assert arg.predicted_s == pytest.approx(BYTES / 1e9 / 0.1)
    older = predicted_ops(MODULE, cpu_curves({"reduction": 0.5}), 1, stub_cost)
    assert older["iota_reduce_fusion"].predicted_s == pytest.approx(BYTES / 1e9 / 0.5)
    assert "reduction (no arg reduction curve measured)" in older["iota_reduce_fusion"].derived_from


def test_the_suite_takes_the_argmax_of_rows_of_1024_at_every_other_element_count():
    suite = SUITES["quick"]
    sweep = kernel_rows.arg_reductions(suite, "float32", 4)
    sizes = [n for n in suite.kernel_elements if n >= 1024][::2]
    assert sweep and [p.shapes for p in sweep] == [((n // 1024, 1024),) for n in sizes]
    assert [p.model.bytes for p in sweep] == [n * 4 + n // 1024 * 4 for n in sizes]
    assert {p.fn for p in sweep} == {"arg reduction"}
    assert kernel_kinds.BASE_KIND["arg reduction"] == "reduction"
