"""FLOPs of the dense linear-algebra routines a program calls from LAPACK: the textbook counts,
so a measured curve and the op it prices are sized the same way.

Each count is the leading terms of the routine's additions plus multiplications, for one
matrix (a batch multiplies it):
- LU with partial pivoting (getrf) of an m×n matrix: mn² − n³/3 for m ≥ n, nm² − m³/3 else
  (LAPACK Working Note 41, Blackford and Dongarra, Table: 2n³/3 for a square one);
- Cholesky (potrf) of an n×n matrix: n³/3 (LAWN 41);
- a triangular solve (trsm) against k right-hand sides of an n×n triangle: n²k (LAWN 41);
- a Householder QR (geqrf) of an m×n matrix, m ≥ n: 2mn² − 2n³/3 (LAWN 41; the roles swap for
  m < n), and forming its Q (orgqr, m×n from k reflectors): 4mnk − 2(m + n)k² + 4k³/3;
- a symmetric eigendecomposition with its eigenvectors (syevd, as JAX always asks for them):
  9n³, without them 4n³/3 (Golub and Van Loan, Matrix Computations, 4th ed., §8.3: the
  symmetric QR algorithm with the eigenvector matrix accumulated);
- a singular value decomposition of an m×n matrix, m ≥ n (gesdd; Golub and Van Loan §8.6,
  the Golub-Kahan-Reinsch counts): the values alone 4mn² − 4n³/3, with the thin U and V
  14mn² + 8n³, with the full U and V 4m²n + 8mn² + 9n³.

Divide and conquer (syevd, gesdd) deflates and so does less than these on many matrices; the
curves' measured efficiency holds that, as it holds the panel factorizations' slower rate. An
SVD of the values alone is a kind of its own (`singular values`): without its vectors gesdd
took about half the time of one with its thin vectors here (18.1 against 35.7 ms at 512×512),
where the counts say an eighth. A rate also depends on the matrix's shape beyond its FLOPs: a
QR of 2,048×256 ran at 18 GFLOP/s here, one of 512×512 at 35; a solve against one right-hand side
reads its triangle for n² FLOPs. So those kinds have a second coordinate (`coordinate`): a
solve's right-hand sides, and a QR's, its Q's and an SVD's rows per column (m/n, m ≥ n).
"""

from __future__ import annotations

import math

# What a factorization leaves to a program: its kernel kind, by the routine's LAPACK name.
KINDS = {
    "getrf": "lu",
    "potrf": "cholesky",
    "trsm": "triangular solve",
    "geqrf": "qr",
    "orgqr": "householder product",
    "syevd": "eigh",
    "gesdd": "svd",
}
# The vectors a decomposition computes, by LAPACK's job letter (JAX's `mode`): none, the thin
# ones (an SVD's U of m×n), all of them.
VALUES_ONLY, VECTORS_THIN, VECTORS_FULL = "N", "S", "A"
# Every kind a LAPACK call is priced as, and those swept by rows per column.
KERNELS = (*dict.fromkeys(KINDS.values()), "singular values")
ASPECT = ("qr", "householder product", "svd", "singular values")


def kind(routine: str, job: str = VECTORS_FULL) -> str:
    """A routine's kernel kind; an SVD asked for its values alone, `singular values`."""
    if routine == "gesdd" and job == VALUES_ONLY:
        return "singular values"
    return KINDS[routine]


def coordinate(kind: str, shapes: tuple[tuple[int, ...], ...]) -> int:
    """A call's second coordinate from its operands' shapes (its matrix first, the dims
    before its last two a batch): a triangular solve's right-hand sides per matrix, a QR's,
    its Q's and an SVD's rows per column (the longer side over the shorter, rounded down);
    0 for the rest."""
    if not shapes or len(shapes[0]) < 2:
        return 0
    *batch, m, n = shapes[0]
    if kind == "triangular solve" and len(shapes) > 1:
        return math.prod(shapes[1][len(batch) :]) // max(n, 1)
    if kind in ASPECT:
        return max(m, n) // max(min(m, n), 1)
    return 0


def flops(kind: str, shapes: tuple[tuple[int, ...], ...], job: str = VECTORS_FULL) -> float:
    """A call's FLOPs from its kind, its operands' shapes (its matrix first, the dims before its
    last two a batch: its count a matrix times the matrices) and its job letter (an SVD's
    vectors, an eigendecomposition's or none: VALUES_ONLY); 0 for shapes it cannot read."""
    if not shapes or len(shapes[0]) < 2:
        return 0.0
    *batch, m, n = shapes[0]
    if kind == "lu":
        each = lu(m, n)
    elif kind == "cholesky":
        each = cholesky(n)
    elif kind == "triangular solve":
        each = triangular_solve(n, coordinate(kind, shapes))
    elif kind == "qr":
        each = qr(m, n)
    elif kind == "householder product":  # the reflectors, then their scalars
        each = q_from_reflectors(m, n, shapes[1][-1] if len(shapes) > 1 and shapes[1] else n)
    elif kind == "eigh":
        each = eigh(n, vectors=job != VALUES_ONLY)
    elif kind in ("svd", "singular values"):
        each = svd(m, n, VALUES_ONLY if kind == "singular values" else job)
    else:
        return 0.0
    return float(each * math.prod(batch))


def lu(m: int, n: int) -> float:
    """An m×n LU factorization with partial pivoting (getrf), FLOPs."""
    big, small = max(m, n), min(m, n)
    return big * small**2 - small**3 / 3


def cholesky(n: int) -> float:
    """An n×n Cholesky factorization (potrf), FLOPs."""
    return n**3 / 3


def triangular_solve(n: int, k: int) -> float:
    """A solve of an n×n triangle against k right-hand sides (trsm), FLOPs."""
    return n * n * k


def qr(m: int, n: int) -> float:
    """An m×n Householder QR (geqrf), FLOPs."""
    big, small = max(m, n), min(m, n)
    return 2 * big * small**2 - 2 * small**3 / 3


def q_from_reflectors(m: int, n: int, k: int) -> float:
    """The m×n Q formed from k Householder reflectors (orgqr), FLOPs."""
    return 4 * m * n * k - 2 * (m + n) * k * k + 4 * k**3 / 3


def eigh(n: int, vectors: bool = True) -> float:
    """An n×n symmetric eigendecomposition (syevd), FLOPs: with its eigenvectors or not."""
    return 9 * n**3 if vectors else 4 * n**3 / 3


def svd(m: int, n: int, job: str = VECTORS_FULL) -> float:
    """An m×n singular value decomposition (gesdd), FLOPs, by the vectors it computes (job:
    VALUES_ONLY, VECTORS_THIN or VECTORS_FULL)."""
    big, small = max(m, n), min(m, n)
    if job == VALUES_ONLY:
        return 4 * big * small**2 - 4 * small**3 / 3
    if job == VECTORS_THIN:
        return 14 * big * small**2 + 8 * small**3
    return 4 * big**2 * small + 8 * big * small**2 + 9 * small**3
