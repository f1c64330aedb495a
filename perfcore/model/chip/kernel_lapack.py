"""The LAPACK routines' kernel kinds (the routines jnp.linalg calls on a host): a routine's
kind, the second coordinate five of them are swept at, and a call's textbook FLOPs
(perfcore.model.chip.kernel_kinds holds every other kind).
"""

from __future__ import annotations

import math

from perfcore.model.chip.ops import (
    VALUES_ONLY,
    VECTORS_FULL,
    cholesky_flops,
    eigh_flops,
    lu_flops,
    q_from_reflectors_flops,
    qr_flops,
    svd_flops,
    triangular_solve_flops,
)

# A LAPACK routine's kernel kind, by its name (a real one: s or d). An SVD of the values alone
# is a kind of its own (`singular values`): without its vectors gesdd took about half the time
# of one with its thin vectors here (18.1 against 35.7 ms at 512×512), where the counts say an
# eighth. A rate also depends on the matrix's shape beyond its FLOPs (a QR of 2,048×256 ran at
# 18 GFLOP/s here, one of 512×512 at 35; a solve against one right-hand side reads its triangle
# for n² FLOPs), so five kinds have a second coordinate (lapack_coordinate, SWEPT).
LAPACK_KINDS = {
    "getrf": "lu",
    "potrf": "cholesky",
    "trsm": "triangular solve",
    "geqrf": "qr",
    "orgqr": "householder product",
    "syevd": "eigh",
    "gesdd": "svd",
}
FACTORIZATIONS = (*dict.fromkeys(LAPACK_KINDS.values()), "singular values")
BY_ROWS_PER_COLUMN = ("qr", "householder product", "svd", "singular values")


def lapack_kind(routine: str, job: str = VECTORS_FULL) -> str:
    """A routine's kernel kind; an SVD asked for its values alone, `singular values`."""
    if routine == "gesdd" and job == VALUES_ONLY:
        return "singular values"
    return LAPACK_KINDS[routine]


def lapack_coordinate(kind: str, shapes: tuple[tuple[int, ...], ...]) -> int:
    """A LAPACK call's second coordinate from its operands' shapes (its matrix first, the dims
    before its last two a batch): a triangular solve's right-hand sides per matrix, a QR's, its
    Q's and an SVD's rows per column (the longer side over the shorter, rounded down); 0 for
    the rest."""
    if not shapes or len(shapes[0]) < 2:
        return 0
    *batch, m, n = shapes[0]
    if kind == "triangular solve" and len(shapes) > 1:
        return math.prod(shapes[1][len(batch) :]) // max(n, 1)
    if kind in BY_ROWS_PER_COLUMN:
        return max(m, n) // max(min(m, n), 1)
    return 0


def lapack_flops(kind: str, shapes: tuple[tuple[int, ...], ...], job: str = VECTORS_FULL) -> float:
    """A LAPACK call's FLOPs (perfcore.model.chip.ops' textbook counts) from its kind, its
    operands' shapes (its matrix first, the dims before its last two a batch: its count a
    matrix times the matrices) and its job letter (an SVD's vectors, an eigendecomposition's
    or none: VALUES_ONLY); 0 for shapes it cannot read."""
    if not shapes or len(shapes[0]) < 2:
        return 0.0
    *batch, m, n = shapes[0]
    if kind == "lu":
        each = lu_flops(m, n)
    elif kind == "cholesky":
        each = cholesky_flops(n)
    elif kind == "triangular solve":
        each = triangular_solve_flops(n, lapack_coordinate(kind, shapes))
    elif kind == "qr":
        each = qr_flops(m, n)
    elif kind == "householder product":  # the reflectors, then their scalars
        k = shapes[1][-1] if len(shapes) > 1 and shapes[1] else n
        each = q_from_reflectors_flops(m, n, k)
    elif kind == "eigh":
        each = eigh_flops(n, vectors=job != VALUES_ONLY)
    elif kind in ("svd", "singular values"):
        each = svd_flops(m, n, VALUES_ONLY if kind == "singular values" else job)
    else:
        return 0.0
    return float(each * math.prod(batch))
