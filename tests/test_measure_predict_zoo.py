"""bench/predict_zoo.py's programs: each one's optimized HLO priced op by op, before it runs.

The bench times them against their predictions; here (no timing) every program must be
predicted from the bundled example's curves with every launched op given a kernel kind and a
time from those curves (or, where they hold no curve of its kind in its dtype, as the bundled
float32 suite holds no bfloat16 batched matmul, from the published runs, said so), and the
kinds the programs were chosen for must be the ones found.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from bench.predict_zoo import PROGRAMS
from perfcore.explain.measure.profile_example import BUNDLED
from perfcore.measure.profile.predict import program
from perfcore.measure.results import curves, load_results
from perfcore.model.chip import kernel_kinds, kernels

# The kind each program exists to exercise: found among its ops' kinds.
EXERCISES = {
    "conv_forward": "convolution",
    "conv_wgrad": "convolution filter",
    "cnn_train": "convolution filter",
    "sort": "sort",
    "cumsum": "reduce-window",
    "transpose_matmul": "matmul transposed",
    "einsum_attention": "batched matmul",
    "elementwise": "transcendental",
    "reductions": "reduction",
    "gather_rows": "gather",
    "block_swiglu_batched": "strided transpose",
    "block_ln_batched": "strided transpose",
    "decode_lm_head": "matvec",
    "gp_posterior": "cholesky",
    "least_squares": "householder product",
    "pca": "eigh",
    "newton_solve": "lu",
    "spectral_norm": "singular values",
    "depthwise_conv": "grouped convolution",
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
        assert op.kernel in kernel_kinds.KINDS, (name, op.name, op.kernel)
        assert op.predicted_s is not None and op.predicted_s > 0, (name, op.name)
        if bundled.label not in op.derived_from:  # no curve of its kind or base kind in its dtype
            kinds = (op.kernel, kernel_kinds.BASE_KIND.get(op.kernel, op.kernel))
            assert not any(bundled.curve(k, op.dtype) for k in kinds), (name, op.name)
            assert "published" in op.derived_from, (name, op.name, op.derived_from)
    assert predicted.step_s > predicted.dispatch_s > 0
    if name in EXERCISES:
        assert EXERCISES[name] in {op.kernel for op in predicted.ops}, name


def _corpus() -> dict:
    """JAX programs of every shape a user's may take: loops, branches, transforms, FFTs,
    LAPACK calls, scatters, random numbers, mixed and integer dtypes (tiny sizes)."""
    x, v = jnp.ones((32, 32)), jnp.ones((32,))
    i = jnp.arange(32) % 7
    nhwc = ("NHWC", "HWIO", "NHWC")
    return {
        "fori": (lambda x: jax.lax.fori_loop(0, 10, lambda j, a: a @ x * 0.01, x), (x,)),
        "while": (lambda x: jax.lax.while_loop(lambda a: a.sum() < 1e6, lambda a: a * 2, x), (x,)),
        "cond": (lambda x: jax.lax.cond(x.sum() > 0, lambda a: a @ a, lambda a: a.T, x), (x,)),
        "vmap": (jax.vmap(lambda a: a @ a), (jnp.stack([x] * 4),)),
        "remat": (jax.grad(lambda x: jax.checkpoint(lambda a: jnp.tanh(a @ a).sum())(x)), (x,)),
        "fft": (lambda x: jnp.abs(jnp.fft.rfft2(x)), (x,)),
        "solve": (lambda x, v: jnp.linalg.solve(x + 10 * jnp.eye(32), v), (x, v)),
        "eigh": (lambda x: jnp.linalg.eigh(x + x.T)[0], (x,)),
        "top_k": (lambda x: (jnp.argmax(x, -1), jax.lax.top_k(x, 5)[0]), (x,)),
        "segment_sum": (lambda v, i: jax.ops.segment_sum(v, i, 7), (v, i)),
        "scatter_add": (lambda x, i: x.at[i].add(1.0), (x, i)),
        "dynamic_slice": (lambda x, s: jax.lax.dynamic_slice(x, (s, 0), (8, 32)), (x, 3)),
        "pad_concat": (lambda x: jnp.pad(jnp.concatenate([x, x.T]), 2), (x,)),
        "conv_transpose": (
            lambda a, w: jax.lax.conv_transpose(a, w, (2, 2), "SAME", dimension_numbers=nhwc),
            (jnp.ones((2, 8, 8, 4)), jnp.ones((3, 3, 4, 4))),
        ),
        "bf16_f16_int": (
            lambda x, i: (
                x.astype(jnp.bfloat16) @ x.astype(jnp.bfloat16),
                jnp.exp(x.astype("f2")),
                i * 3 % 5,
            ),
            (x, i),
        ),
        "complex": (lambda x: jnp.abs(x * (1 + 2j)), (x,)),
        "scans": (lambda x: jnp.cumprod(x, 0) + jax.lax.cumlogsumexp(x, 1), (x,)),
        "scan_carry": (lambda x: jax.lax.scan(lambda c, r: (c + r, c * r), v, x), (x,)),
        "random": (
            lambda k: jax.random.normal(k, (8, 8)) + jax.random.uniform(k, (8, 8)),
            (jax.random.key(0),),
        ),
        "logsumexp_grad": (jax.grad(lambda x: jax.nn.logsumexp(x)), (x,)),
        "host_callbacks": (
            lambda x: jax.pure_callback(
                lambda a: a * 2, jax.ShapeDtypeStruct(x.shape, x.dtype), x @ x
            ),
            (x,),
        ),
        "svd_qr": (lambda x: jnp.linalg.svd(x)[1] + jnp.linalg.qr(x)[1].sum(), (x,)),
        "grouped_conv_3d": (
            lambda a, b: (
                jax.lax.conv_general_dilated(
                    a,
                    jnp.ones((3, 3, 1, 4)),
                    (1, 1),
                    "SAME",
                    dimension_numbers=nhwc,
                    feature_group_count=4,
                ),
                jax.lax.conv_general_dilated(
                    b,
                    jnp.ones((3, 3, 3, 2, 2)),
                    (1, 1, 1),
                    "SAME",
                    dimension_numbers=("NDHWC", "DHWIO", "NDHWC"),
                ),
            ),
            (jnp.ones((2, 8, 8, 4)), jnp.ones((1, 4, 4, 4, 2))),
        ),
        "int8_dot": (
            lambda i8: jax.lax.dot(i8, i8, preferred_element_type=jnp.int32),
            (jnp.ones((32, 32), jnp.int8),),
        ),
        "donated_static": (jax.jit(lambda x, n: x * n, donate_argnums=0, static_argnums=1), (x, 3)),
    }


CORPUS = _corpus()


@pytest.mark.parametrize("name", list(CORPUS))
def test_any_program_is_predicted_and_an_op_with_no_cost_model_says_so(bundled, name):
    fn, args = CORPUS[name]
    predicted = program.predict(fn, *args, curves=bundled)
    assert predicted.step_s > 0 and predicted.ops, name
    for op in predicted.ops:
        priced = op.predicted_s is not None and op.predicted_s >= 0
        assert priced or op.derived_from == "not predicted: no cost model", (name, op.name)
