"""The kernels suite's LAPACK factorizations: the dense linear algebra XLA:CPU hands to LAPACK.

jnp.linalg and jax.scipy.linalg run on a host as custom calls into LAPACK (`lapack_sgetrf_ffi`
and its kin), which XLA's cost model does not price. Each is timed over the suite's
kernel_factorization_sides n, and sized by its textbook FLOPs (perfcore.model.chip.kernel_kinds
.lapack_flops), the count a prediction gives the call it prices: LU (jax.scipy.linalg
.lu_factor: getrf), Cholesky (potrf) and a symmetric eigendecomposition (syevd, with the
eigenvectors) n×n; a triangular solve (trsm) of an n×n triangle against 1, 16 and 256
right-hand sides (its second coordinate); QR (jnp.linalg.qr's `raw` mode: geqrf), its Q formed
from the reflectors (householder_product: orgqr), an SVD with its thin vectors and one of its
values alone (jnp.linalg.svd: gesdd) square and 8n×n (rows per column, their second
coordinate: a least-squares system's shape ran at half a square one's rate here). A matrix as
the routine needs it (positive definite, symmetric, a triangle kept far from singular) is made
before the clock (`prepared`), and the routine asked for on it alone (no symmetrizing in the
step). A point's call still holds the layout change into LAPACK's column-major order (a
transposing copy of its matrix: about 6 % of an LU's call at n = 256-512 here), which a
program's own copy is priced for again.
"""

from __future__ import annotations

import math

from perfcore.measure.experiments.kernels.windows import Planned
from perfcore.measure.experiments.suites import Suite
from perfcore.model.chip import kernel_lapack, ops

DTYPES = ("float32", "float64")  # what LAPACK runs (s and d); no other dtype reaches it
RIGHT_HAND_SIDES = (1, 16, 256)  # a triangular solve's sweeps: a vector, a few, a matrix's
ROWS_PER_COLUMN = (1, 8)  # a QR's, its Q's and an SVD's sweeps: square, and tall (m = 8n)
TALL_ROWS = 2048  # a tall sweep's largest m


def _point(kind: str, dtype: str, b: int, m: int, n: int, k: int = 0) -> Planned:
    """kind on an m×n matrix (a solve's n×n triangle against k right-hand sides), its operands'
    shapes, textbook FLOPs (an SVD's with its thin vectors, as it is asked for here), and
    bytes: its operands read and its result as large as its matrix (a solve's as its
    right-hand sides) written."""
    shapes: tuple[tuple[int, ...], ...] = ((m, n),)
    if kind == "triangular solve":
        shapes = ((n, n), (n, k))
    elif kind == "householder product":
        shapes = ((m, n), (n,))
    flops = kernel_lapack.lapack_flops(kind, shapes, ops.VECTORS_THIN)
    moved = sum(map(math.prod, shapes)) + math.prod(shapes[-1] if k else shapes[0])
    label = f"{kind} {dtype} {m}x{n}" + (f" against {k}" if k else "")
    return Planned(kind, label, dtype, shapes, kind, ops.Cost(flops, moved * b))


def factorizations_of(suite: Suite, dtype: str, b: int) -> list[list[Planned]]:
    """The sweeps of each kind over the suite's kernel_factorization_sides n (none off a host):
    LU, Cholesky and the eigendecomposition n×n; the solve against each of RIGHT_HAND_SIDES
    (up to n); QR, its Q and the SVDs square and ROWS_PER_COLUMN tall (up to TALL_ROWS)."""
    if dtype not in DTYPES:
        return []
    sides = suite.kernel_factorization_sides
    sweeps = [[_point(kind, dtype, b, n, n) for n in sides] for kind in ("lu", "cholesky")]
    solve = "triangular solve"
    sweeps += [
        [_point(solve, dtype, b, n, n, k) for n in sides if n >= k] for k in RIGHT_HAND_SIDES
    ]
    for kind in kernel_lapack.BY_ROWS_PER_COLUMN:
        for a in ROWS_PER_COLUMN:
            tall = [_point(kind, dtype, b, a * n, n) for n in sides if a * n <= TALL_ROWS]
            sweeps.append(tall)
    sweeps.append([_point("eigh", dtype, b, n, n) for n in sides])
    return [s for s in sweeps if s]


def prepared(jnp, fn: str, inputs: tuple) -> tuple:
    """A point's random inputs made what its routine needs, before the clock: positive definite
    for a Cholesky (symmetrized, n added to its diagonal), symmetric for an eigendecomposition,
    a lower triangle with n added to its diagonal for a solve; others as they are."""
    x = inputs[0]
    n = x.shape[0]
    if fn == "cholesky":
        return (x + x.T + n * jnp.eye(n, dtype=x.dtype),)
    if fn == "eigh":
        return (x + x.T,)
    if fn == "triangular solve":
        return (jnp.tril(x) + n * jnp.eye(n, dtype=x.dtype), *inputs[1:])
    return inputs


def functions_of(jax, jnp) -> dict:
    """The jittable function of each kind this module plans, by its Planned.fn: the routine
    alone on inputs `prepared` for it."""
    from jax.scipy import linalg  # jax.scipy is not loaded with jax

    return {
        "lu": linalg.lu_factor,
        "cholesky": lambda a: jax.lax.linalg.cholesky(a, symmetrize_input=False),
        "triangular solve": lambda t, y: linalg.solve_triangular(t, y, lower=True),
        "qr": lambda x: jnp.linalg.qr(x, mode="raw"),
        "householder product": jax.lax.linalg.householder_product,
        "eigh": lambda a: jax.lax.linalg.eigh(a, symmetrize_input=False),
        "svd": lambda x: jnp.linalg.svd(x, full_matrices=False),
        "singular values": lambda x: jnp.linalg.svd(x, compute_uv=False),
    }
