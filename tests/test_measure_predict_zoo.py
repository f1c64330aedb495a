"""bench/predict_zoo.py's programs: each one's optimized HLO priced op by op, before it runs.

The bench times them against their predictions; here (no timing) every program must be
predicted from the bundled example's curves with every launched op given a kernel kind and a
time from those curves, and the kinds the programs were chosen for must be the ones found.
"""

from __future__ import annotations

import pytest

from bench.predict_zoo import PROGRAMS
from perfcore.explain.measure.profile_example import BUNDLED
from perfcore.measure.profile.predict import program
from perfcore.measure.results import curves, load_results
from perfcore.model.chip import kernels

# The kind each program exists to exercise: found among its ops' kinds.
EXERCISES = {
    "conv_forward": "convolution",
    "conv_wgrad": "convolution filter",
    "cnn_train": "convolution filter",
    "sort": "sort",
    "cumsum": "reduce-window",
    "transpose_matmul": "matmul transposed",
    "einsum_attention": "matmul rhs transposed",
    "elementwise": "transcendental",
    "reductions": "reduction",
}


@pytest.fixture(scope="module")
def bundled() -> kernels.Curves:
    return curves.curves(load_results(BUNDLED))


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_every_op_of_a_zoo_program_is_priced_from_the_curves(bundled, name):
    fn, args = PROGRAMS[name]()
    predicted = program.predict(fn, *args, curves=bundled)
    assert predicted.ops, name
    for op in predicted.ops:
        assert op.kernel in kernels.KINDS, (name, op.name, op.kernel)
        assert op.predicted_s is not None and op.predicted_s > 0, (name, op.name)
        assert bundled.label in op.derived_from, (name, op.name, op.derived_from)
    assert predicted.step_s > predicted.dispatch_s > 0
    if name in EXERCISES:
        assert EXERCISES[name] in {op.kernel for op in predicted.ops}, name
