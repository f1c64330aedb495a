"""The kernels suite plans only what JAX can trace: every planned point's function lowers in
its dtype (on JAX's CPU backend, abstract inputs: nothing runs). A point that raises as it
traces ends the whole suite (the runner catches only what a backend refuses to compile): a
bfloat16 rfft did, on a TPU v5e's suite (JAX's rfft takes float32 or float64 alone)."""

import jax
import jax.numpy as jnp
import pytest

from perfcore.measure.experiments import kernels as kernel_suite
from perfcore.measure.experiments.kernels import rows as kernel_rows
from perfcore.measure.experiments.kernels import sweeps as kernel_plan
from perfcore.measure.experiments.suites import SUITES


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_every_planned_kernel_traces_in_its_dtype(dtype):
    """The first point of each sweep of the default suite (an accelerator's dtypes start with
    these two), lowered as the suite compiles it."""
    sweeps = [s for s in kernel_plan.plan(SUITES["default"], dtype) if s]
    assert sweeps
    for sweep in sweeps:
        p = sweep[0]
        args = [jax.ShapeDtypeStruct(shape, dtype) for shape in p.shapes]
        jax.jit(kernel_suite._function(jax, jnp, p.fn)).lower(*args)


def test_the_fft_is_planned_only_where_rfft_takes_its_input():
    kinds = {
        d: {s[0].kind for s in kernel_plan.plan(SUITES["default"], d) if s}
        for d in ("float32", "bfloat16")
    }
    assert "fft" in kinds["float32"] and "fft" not in kinds["bfloat16"]
    assert kernel_rows.ffts(SUITES["default"], "float16", 2) == []
    with pytest.raises(ValueError, match="RFFT input must be float32 or float64"):
        jax.jit(jnp.fft.rfft).lower(jax.ShapeDtypeStruct((4, 4096), "bfloat16"))
