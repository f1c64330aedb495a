"""The kernels suite's LAPACK points on this CPU's JAX: the matrix each routine needs, made
before the clock (perfcore.measure.experiments.kernels.factorizations.prepared), and each
routine's function compiling to the one LAPACK call it times."""

import numpy as np
import pytest

from perfcore.measure.experiments.kernels import factorizations as kernel_factorizations
from perfcore.measure.profile import hlo

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


def test_a_routine_gets_the_matrix_it_needs_made_before_the_clock():
    x = jnp.asarray(np.random.default_rng(0).standard_normal((64, 64)), "float32")
    (spd,) = kernel_factorizations.prepared(jnp, "cholesky", (x,))
    assert float(np.linalg.eigvalsh(np.asarray(spd)).min()) > 0  # positive definite
    (sym,) = kernel_factorizations.prepared(jnp, "eigh", (x,))
    assert np.array_equal(np.asarray(sym), np.asarray(sym).T)
    tri, rhs = kernel_factorizations.prepared(jnp, "triangular solve", (x, x))
    assert np.array_equal(np.asarray(tri), np.tril(np.asarray(tri))) and rhs is x
    assert float(np.abs(np.diag(np.asarray(tri))).min()) > 50  # far from singular
    assert kernel_factorizations.prepared(jnp, "lu", (x,))[0] is x  # as drawn


def test_each_point_runs_its_own_lapack_routine_alone():
    functions = kernel_factorizations.functions_of(jax, jnp)
    wanted = {"lu": "getrf", "cholesky": "potrf", "triangular solve": "trsm", "qr": "geqrf"}
    wanted |= {"householder product": "orgqr", "eigh": "syevd", "svd": "gesdd"}
    wanted |= {"singular values": "gesdd"}
    for kind, routine in wanted.items():
        shapes = (64, 64), *(((64, 64),) if kind == "triangular solve" else ())
        shapes += ((64,),) if kind == "householder product" else ()
        args = kernel_factorizations.prepared(jnp, kind, tuple(jnp.ones(s) for s in shapes))
        text = jax.jit(functions[kind]).lower(*args).compile().as_text()
        module = hlo.parse_module(text)
        calls = [i for i in module.instructions.values() if hlo.factorization(i)]
        assert [hlo.factorization(i) for i in calls] == [routine], kind
        assert hlo.factorization_kind(module, calls[0])[0] == kind  # its job letters' kind
