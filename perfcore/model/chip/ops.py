"""FLOPs and bytes for the operations we care about: one cost model per operation.

FLOPs, not MACs: a (B x C) @ (C x D) matmul is 2·B·C·D FLOPs. Bytes are the ideal
traffic to device memory: each input read once, each output written once, everything
else kept on chip. Real kernels move more, so intensities here are optimistic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Cost:
    """What one operation asks of the machine: FLOPs and bytes moved."""

    flops: float
    bytes: float
    name: str = ""

    @property
    def intensity(self) -> float:
        """Arithmetic intensity in FLOP/byte."""
        return self.flops / self.bytes


def elementwise(
    n: int,
    n_inputs: int = 2,
    n_outputs: int = 1,
    flops_per_element: float = 1,
    dtype_bytes: float = 2,
    name: str = "",
) -> Cost:
    """Cost of an n-element elementwise op: every byte touched once."""
    label = name or f"element-wise, {n_inputs} in / {n_outputs} out, n={n}"
    return Cost(flops_per_element * n, (n_inputs + n_outputs) * n * dtype_bytes, label)


def elementwise_add(n: int, dtype_bytes: float = 2) -> Cost:
    """c = a + b: read two arrays, write one, one FLOP per element."""
    return elementwise(n, 2, 1, 1, dtype_bytes, f"element-wise add, n={n}")


def matvec(n: int, dtype_bytes: float = 2, rows: int | None = None) -> Cost:
    """y = A @ x with A (rows x n): the matrix is read once, each element used once."""
    m = n if rows is None else rows
    return Cost(2 * m * n, (m * n + n + m) * dtype_bytes, f"mat-vec {m}x{n}")


def matmul(m: int, n: int, k: int, dtype_bytes: float = 2) -> Cost:
    """C(m x n) = A(m x k) @ B(k x n): 2mnk FLOPs, three matrices moved once."""
    n_bytes = (m * k + k * n + m * n) * dtype_bytes
    return Cost(2 * m * n * k, n_bytes, f"mat-mul {m}x{n}x{k}")


def linear(batch: int, d_in: int, d_out: int, dtype_bytes: float = 2) -> Cost:
    """X(batch x d_in) @ W(d_in x d_out); intensity ≈ 2·batch/dtype_bytes when batch ≪ d."""
    cost = matmul(batch, d_out, d_in, dtype_bytes)
    return Cost(cost.flops, cost.bytes, f"linear X({batch}x{d_in})·W({d_in}x{d_out})")


def attention(seq: int, d_head: int, dtype_bytes: float = 2, fused: bool = True) -> Cost:
    """One attention head: QKᵀ and weights·V, 4·s²·d FLOPs (softmax FLOPs ignored).

    Fused (FlashAttention accounting): Q, K, V in and O out, the s x s scores stay on
    chip. Unfused: the scores are written, read and rewritten by the softmax, and read
    back for weights·V: four s x s round trips on top of the four (s x d) tensors.
    """
    flops = 4 * seq * seq * d_head
    elements = 4 * seq * d_head + (0 if fused else 4 * seq * seq)
    kind = "" if fused else " (unfused)"
    return Cost(flops, elements * dtype_bytes, f"attention{kind}, seq={seq}, d_head={d_head}")


def _billions(params: float) -> str:
    """A parameter count in billions for a label: 7e9 -> '7', 4e8 -> '0.4'."""
    return f"{round(params / 1e9, 3):g}"


def decode_step(
    params: float, batch: int, dtype_bytes: float = 2, kv_cache_bytes: float = 0
) -> Cost:
    """One decode token per sequence: every weight read once, 2 FLOPs per weight per token."""
    kv = f", KV cache {kv_cache_bytes / 1e9:.1f} GB" if kv_cache_bytes else ""
    name = f"decode step, {_billions(params)}B params, batch={batch}{kv}"
    return Cost(2 * params * batch, params * dtype_bytes + kv_cache_bytes, name)


def prefill(params: float, tokens: int, dtype_bytes: float = 2) -> Cost:
    """A prompt of `tokens` in one pass: the weights read once, 2 FLOPs per weight per token."""
    name = f"prefill, {_billions(params)}B params, {tokens} tokens"
    return Cost(2 * params * tokens, params * dtype_bytes, name)


def fft_flops(lengths: tuple[int, ...], transforms: int = 1) -> float:
    """`transforms` FFTs of `lengths` (one per dimension transformed): 8 N log2 N each, N the
    points of one (the product of its lengths). XLA counts 8 n log2 n for a transform of n
    points in one dimension; in several it multiplies the lengths' log2s (a 512×512 fft2: 8 N
    × 81, where 8 N log2 N is 8 N × 18), so a 2-D transform's rate by XLA's count grows with
    its size as no work does."""
    points = math.prod(lengths)
    return 8.0 * transforms * points * math.log2(points) if points > 1 else 0.0


# LAPACK's dense linear algebra, FLOPs for one matrix: the textbook counts, the leading terms of
# additions plus multiplications (LAPACK Working Note 41, Blackford and Dongarra: LU, Cholesky,
# a triangular solve, QR and its Q; Golub and Van Loan, Matrix Computations, 4th ed.: the
# symmetric eigendecomposition, §8.3, the symmetric QR algorithm with its eigenvector matrix
# accumulated, and the SVD, §8.6, the Golub-Kahan-Reinsch counts). Divide and conquer (syevd,
# gesdd) deflates and so does less on many matrices; a measured curve's efficiency holds that.
# An SVD's job letter (LAPACK's, JAX's `mode`): the values alone, the thin vectors, all of them.
VALUES_ONLY, VECTORS_THIN, VECTORS_FULL = "N", "S", "A"


def lu_flops(m: int, n: int) -> float:
    """An m×n LU factorization with partial pivoting (getrf): mn² − n³/3 for m ≥ n."""
    big, small = max(m, n), min(m, n)
    return big * small**2 - small**3 / 3


def cholesky_flops(n: int) -> float:
    """An n×n Cholesky factorization (potrf): n³/3."""
    return n**3 / 3


def triangular_solve_flops(n: int, k: int) -> float:
    """A solve of an n×n triangle against k right-hand sides (trsm): n²k."""
    return n * n * k


def qr_flops(m: int, n: int) -> float:
    """An m×n Householder QR (geqrf): 2mn² − 2n³/3 for m ≥ n (the roles swap for m < n)."""
    big, small = max(m, n), min(m, n)
    return 2 * big * small**2 - 2 * small**3 / 3


def q_from_reflectors_flops(m: int, n: int, k: int) -> float:
    """The m×n Q formed from k Householder reflectors (orgqr): 4mnk − 2(m + n)k² + 4k³/3."""
    return 4 * m * n * k - 2 * (m + n) * k * k + 4 * k**3 / 3


def eigh_flops(n: int, vectors: bool = True) -> float:
    """An n×n symmetric eigendecomposition (syevd): 9n³ with its eigenvectors, 4n³/3 without."""
    return 9 * n**3 if vectors else 4 * n**3 / 3


def svd_flops(m: int, n: int, job: str = VECTORS_FULL) -> float:
    """An m×n singular value decomposition (gesdd), by the vectors it computes (m ≥ n): the
    values alone 4mn² − 4n³/3, the thin U and V 14mn² + 8n³, the full ones 4m²n + 8mn² + 9n³."""
    big, small = max(m, n), min(m, n)
    if job == VALUES_ONLY:
        return 4 * big * small**2 - 4 * small**3 / 3
    if job == VECTORS_THIN:
        return 14 * big * small**2 + 8 * small**3
    return 4 * big**2 * small + 8 * big * small**2 + 9 * small**3


SIDE_MAX = 2**24  # one matrix side or sequence: 16.8M
ELEMENTS_MAX = 2**40  # one tensor's elements
PARAMS_RANGE = (1e6, 1e13)  # model parameters: 1M to 10T


@dataclass(frozen=True)
class Param:
    """One size input of a catalog operation: name, default, help, integer or not, range.

    lo is at least 1 where a zero would divide; hi keeps every cost finite and readable.
    """

    name: str
    default: float
    help: str
    integer: bool = True
    lo: float = 1
    hi: float = SIDE_MAX


def attention_unfused(seq: int, d_head: int, dtype_bytes: float = 2) -> Cost:
    """attention() with the s x s scores written to and read back from device memory."""
    return attention(seq, d_head, dtype_bytes, fused=False)


_N = Param("n", 2**26, "elements", hi=ELEMENTS_MAX)
_ATTENTION = (
    Param("seq", 4096, "sequence length"),
    Param("d_head", 128, "head dimension", hi=2**16),
)
_PARAMS = Param("params", 7e9, "model parameters", False, *PARAMS_RANGE)

# The operation catalog shared by the command line and the dashboard: op -> (cost model, sizes).
CATALOG: dict[str, tuple] = {
    "elementwise": (
        elementwise,
        (
            _N,
            Param("n_inputs", 2, "input arrays", hi=64),
            Param("n_outputs", 1, "output arrays", hi=64),
            Param("flops_per_element", 1, "FLOPs per element", False, 0, 1e6),
        ),
    ),
    "add": (elementwise_add, (_N,)),
    "matvec": (matvec, (Param("n", 4096, "columns (and rows)"),)),
    "matmul": (
        matmul,
        (
            Param("m", 4096, "rows of A and C"),
            Param("n", 4096, "columns of B and C"),
            Param("k", 4096, "inner dimension"),
        ),
    ),
    "linear": (
        linear,
        (
            Param("batch", 32, "rows of X (batch size)"),
            Param("d_in", 4096, "input features"),
            Param("d_out", 4096, "output features"),
        ),
    ),
    "attention": (attention, _ATTENTION),
    "attention-unfused": (attention_unfused, _ATTENTION),
    "decode": (
        decode_step,
        (
            _PARAMS,
            Param("batch", 1, "sequences decoded together", hi=2**20),
            Param("kv_cache_bytes", 0, "KV-cache bytes read per step", False, 0, 1e15),
        ),
    ),
    "prefill": (prefill, (_PARAMS, Param("tokens", 2048, "prompt tokens"))),
}


def build(op: str, dtype_bytes: float, **sizes: float) -> Cost:
    """The Cost of catalog operation `op` at `dtype_bytes`; missing sizes take defaults."""
    fn, params = CATALOG[op]
    unknown = set(sizes) - {p.name for p in params}
    if unknown:
        raise ValueError(f"{op} takes no {sorted(unknown)}; it takes {[p.name for p in params]}")
    kind = {True: int, False: float}
    args = {p.name: kind[p.integer](sizes.get(p.name, p.default)) for p in params}
    return fn(**args, dtype_bytes=dtype_bytes)
