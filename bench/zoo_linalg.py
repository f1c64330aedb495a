"""Five programs that call LAPACK through jnp.linalg (stop 50), written before they were run and
not tuned against: a Gaussian process's posterior (a Cholesky and two triangular solves), least
squares by QR, principal components by a symmetric eigendecomposition, a Newton step's linear
solve (LU), and a weight matrix's spectral norm (its singular values alone). On a host each
factorization is a LAPACK custom call, priced by its textbook FLOPs on its own curve
(perfcore.model.chip.kernel_lapack.lapack_flops); bench/predict_zoo.py times them (`--only NAME`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.scipy import linalg

from bench.zoo_batched import draw


def gp_posterior():
    """A Gaussian process's posterior mean and variance at 256 test points, from 1,024
    training points in 8 dimensions (an RBF kernel, noise 0.1)."""
    x, t, y = draw(1, 1024, 8, scale=1.0), draw(2, 256, 8, scale=1.0), draw(3, 1024, scale=1.0)

    def rbf(a, b):
        d = (a * a).sum(-1)[:, None] + (b * b).sum(-1)[None, :] - 2 * a @ b.T
        return jnp.exp(-0.5 * d)

    @jax.jit
    def posterior(x, t, y):
        factor = jnp.linalg.cholesky(rbf(x, x) + 0.1 * jnp.eye(x.shape[0]))
        alpha = linalg.cho_solve((factor, True), y)
        cross = rbf(t, x)
        v = linalg.solve_triangular(factor, cross.T, lower=True)
        return cross @ alpha, 1.0 - (v * v).sum(0)

    return posterior, (x, t, y)


def least_squares():
    """Least squares of a 2,048 × 256 system with 16 right-hand sides, by QR."""
    a, b = draw(4, 2048, 256, scale=1.0), draw(5, 2048, 16, scale=1.0)

    @jax.jit
    def solve(a, b):
        q, r = jnp.linalg.qr(a)
        return linalg.solve_triangular(r, q.T @ b)

    return solve, (a, b)


def pca():
    """The top 16 principal components of 4,096 samples of 512 features, and the samples
    projected onto them."""
    x = draw(6, 4096, 512, scale=1.0)

    @jax.jit
    def components(x):
        centred = x - x.mean(0)
        values, vectors = jnp.linalg.eigh(centred.T @ centred / x.shape[0])
        top = vectors[:, -16:]
        return values[-16:], centred @ top

    return components, (x,)


def newton_solve():
    """A Newton step on a 768-dimensional quadratic-plus-quartic loss: its Hessian by
    jax.hessian, the step by jnp.linalg.solve (LU)."""
    a, w = draw(7, 768, 768), draw(8, 768, scale=1.0)

    def loss(w, a):
        return 0.5 * w @ (a @ a.T + jnp.eye(768)) @ w + 0.25 * (w**4).sum()

    @jax.jit
    def step(w, a):
        g = jax.grad(loss)(w, a)
        return w - jnp.linalg.solve(jax.hessian(loss)(w, a), g)

    return step, (w, a)


def spectral_norm():
    """The largest singular value of each of 4 weight matrices of 512 × 512 (their singular
    values alone)."""
    w = draw(9, 4, 512, 512, scale=1.0)

    @jax.jit
    def norms(w):
        return jnp.linalg.svd(w, compute_uv=False)[:, 0]

    return norms, (w,)


LINALG = (gp_posterior, least_squares, pca, newton_solve, spectral_norm)
