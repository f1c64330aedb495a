"""The kernels suite plans only what JAX can trace: every planned point's function lowers in
its dtype (on JAX's CPU backend, abstract inputs: nothing runs). A point that raises as it
traces ends the whole suite (the runner catches only what a backend refuses to compile): a
bfloat16 rfft did, on a TPU v5e's suite (JAX's rfft takes float32 or float64 alone)."""

import jax
import jax.numpy as jnp
import pytest

from perfcore.measure.experiments.kernels import functions as kernel_functions
from perfcore.measure.experiments.kernels import rows as kernel_rows
from perfcore.measure.experiments.kernels import sweeps as kernel_plan
from perfcore.measure.experiments.suites import SUITES, for_platform


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int8", "complex64"])
def test_every_planned_kernel_traces_in_its_dtype(dtype):
    """The first point of each sweep of the default suite (an accelerator's dtypes start with
    these two; int8 is a host's too), lowered as the suite compiles it, in the point's own
    dtype (a float32 plan's complex FFTs: complex64)."""
    sweeps = [s for s in kernel_plan.plan(SUITES["default"], dtype) if s]
    assert sweeps
    for sweep in sweeps:
        p = sweep[0]
        args = [jax.ShapeDtypeStruct(shape, p.dtype) for shape in p.shapes]
        jax.jit(kernel_functions.function(jax, jnp, p.fn)).lower(*args)


def test_int8_runs_a_forward_passs_matmuls_alone_accumulated_in_int32():
    """A quantized layer's X·W (square, skinny, tall), on a host as on an accelerator; no
    gradient's layouts, no other kind, no skinny weights wider than its squares; its product
    an int32 one, as preferred_element_type asks (an int8 result would be another kernel)."""
    sweeps = [s for s in kernel_plan.plan(SUITES["default"], "int8") if s]
    assert {p.fn for s in sweeps for p in s} == {"matmul"}
    assert {p.kind for s in sweeps for p in s} == {"matmul", "matvec"}
    widest = max(p.shapes[1][1] for s in sweeps for p in s if p.kind == "matvec")
    assert widest == max(SUITES["default"].kernel_sides)  # no weights wider than the squares
    assert "int8" in for_platform(SUITES["kernels"], "cpu").kernel_dtypes
    assert "int8" in for_platform(SUITES["kernels"], "gpu").kernel_dtypes
    p = sweeps[0][0]
    args = [jax.ShapeDtypeStruct(shape, "int8") for shape in p.shapes]
    text = jax.jit(kernel_functions.function(jax, jnp, p.fn)).lower(*args).as_text()
    assert "-> tensor<32x32xi32>" in text and "i8" in text


def test_the_fft_is_planned_only_where_rfft_takes_its_input():
    kinds = {
        d: {s[0].kind for s in kernel_plan.plan(SUITES["default"], d) if s}
        for d in ("float32", "bfloat16")
    }
    assert "fft" in kinds["float32"] and "fft" not in kinds["bfloat16"]
    assert kernel_rows.ffts(SUITES["default"], "float16", 2) == []
    with pytest.raises(ValueError, match="RFFT input must be float32 or float64"):
        jax.jit(jnp.fft.rfft).lower(jax.ShapeDtypeStruct((4, 4096), "bfloat16"))
