"""The kernel kinds: each kind a curve of its own, the unit its size is counted in, the kind an
older results file prices it from, and how a matmul, a sort or a reduce-window gets its kind
and size (perfcore.model.chip.kernels reads the curves by them).

Work-bound kinds are sized by FLOPs, the rest by bytes (SIZE_UNIT). A kind a results file may
lack (one measured since) is priced from its base kind's curve (BASE_KIND). A matmul's kind
is its operand layout's (matmul_kind): a weight gradient's Aᵀ·B and an input gradient's A·Bᵀ
run other library paths than A·B, and Aᵀ·Bᵀ another again (on XLA:CPU a plain dot outside
its matmul library: 27 GFLOP/s there for 64×1024·1024×1024, where A·B ran 190); a skinny one
is a matvec (a dot of several a batched matvec), a dot of several a batched matmul. Eighteen
kinds have a second coordinate (SWEPT) the suite sweeps at fixed values: a matvec's rows (a
batched one's too), a narrow matmul's smallest side (narrow_side, in each of the four
layouts), a filter gradient's reduced volume, a column reduction's kept elements, a strided
transpose's KiB a walk spans, a triangular solve's right-hand sides, a QR's, its Q's and an SVD's
rows per column (kernel_lapack.lapack_coordinate), an FFT's dimensions transformed, a
top-k's heap steps per element (heap_steps), and a gather's or scatter's elements a row (what
each index moves).
"""

from __future__ import annotations

import math

# The kernels suite's convolutions (kernel_windows sweeps them over channels C in = out): the
# batch, image side and kernel side of its 2-D ones, and the batch, volume side and most
# channels of its 3×3×3 ones.
CONV = (8, 32, 3)
CONV_3D = (2, 16, 64)


def conv_taps(side: int, spatial: int) -> int:
    """(tap, output) pairs inside the padding of a CONV-sided kernel over one image (or volume)
    of `side` along each of its `spatial` dimensions, padded to keep its size."""
    k = CONV[2]
    return (side * k - (k - 1)) ** spatial


def conv_sweep_flops(in_features: int, out_features: int, spatial: int) -> float:
    """FLOPs of the suite's forward convolution (CONV's images, or CONV_3D's volumes for 3
    spatial dimensions) at in_features × out_features channels, 2 per tap inside the padding;
    infinite for another rank (none swept). A convolution sits on a host's curve at its FLOPs,
    at most these (an accelerator's keeps its FLOPs: its batch and image fill it). On this CPU
    a convolution's rate followed its channels, not its batch or image (64 → 128 channels at
    stride 2: 89.8, 91.5 and 95.4 GFLOP/s over 4, 8 and 16 images of 64²; the sweep's own 64 →
    64 and 128 → 128 at 8 images of 32²: 72.7 and 134), so a convolution of 16 images of 64² at
    64 → 128 (2.4 GFLOPs) ran at a third less than the sweep's point of those FLOPs, its 128 →
    128."""
    if spatial not in (2, 3):
        return math.inf
    n, side = (CONV_3D[0], CONV_3D[1]) if spatial == 3 else CONV[:2]
    return 2.0 * n * conv_taps(side, spatial) * in_features * out_features


# Kernel kinds and the unit of their size: work-bound kinds by FLOPs, the rest by bytes.
SIZE_UNIT = {
    "matmul": "flops",
    "matmul transposed": "flops",  # A contracted on its rows: a backward pass's weight gradient
    "matmul rhs transposed": "flops",  # B contracted on its last dim: an input gradient dY·Wᵀ
    "matmul both transposed": "flops",  # Aᵀ·Bᵀ: XLA:CPU runs it outside its library (an einsum's)
    "batched matmul": "flops",  # one of its matmuls' FLOPs: attention's per-head Q·Kᵀ and P·V
    "matvec": "bytes",
    "batched matvec": "bytes",  # several in one dot: attention's one query a head against its cache
    "attention": "flops",
    "attention backward": "flops",
    "elementwise": "bytes",
    "transcendental": "bytes",
    "reduction": "bytes",
    "column reduction": "bytes",  # its operand's minor dimension kept: each output summed down
    "copy": "bytes",  # a 2-D transpose's: a copy into another layout, or a slice, pad, concat
    "plain copy": "bytes",  # a copy keeping its layout: a buffer duplicated (a memcpy)
    "transpose": "bytes",  # a copy into a permuted layout, rank 3 or more (a KV cache's)
    "row transpose": "bytes",  # a permuted copy moving whole rows: its minor dimension kept
    "strided transpose": "bytes",  # a fusion holding a broadcast that writes its input reordered
    "collective": "bytes",
    "convolution": "flops",  # a window smaller than its output: a forward or input gradient
    "convolution filter": "flops",  # a window spanning its input: a weight gradient
    "grouped convolution": "flops",  # input features in groups, each its own filters
    "sort": "bytes",  # its keys read and written once (sort_bytes), per row sorted
    "reduce-window": "bytes",  # as its windows read it (window_bytes): a cumulative sum's
    "pool": "bytes",  # a reduce-window whose windows do not overlap: a pooling layer's
    "windowed arg reduction": "bytes",  # a reduce-window of values and their indices together
    "unit-dim product sum": "bytes",  # a sum of a product over a shape with a size-1 dim
    "gather": "bytes",  # rows read from a table where indices say (an embedding's), and written
    "scatter": "bytes",  # rows added into a table where indices say: updates read, rows rewritten
    "sine": "bytes",  # sin, cos, tan: one evaluation per element, each read and written once
    "power": "bytes",  # x ** y of non-integer y
    "rsqrt": "bytes",  # 1 / sqrt(x)
    "rounding": "bytes",  # a float32 result rounded to bfloat16 inside an op, then widened
    "top-k": "bytes",  # the k largest of each row: its input read, values and indices written
    "arg reduction": "bytes",  # argmax, argmin: a reduce of values and their indices together
    "fft": "flops",  # a fast Fourier transform, 8 N log2 N a transform of N points
    # LAPACK's dense linear algebra, by their textbook FLOPs (kernel_lapack.lapack_flops)
    "lu": "flops",  # LU with partial pivoting (getrf): a solve's, an inverse's, a determinant's
    "cholesky": "flops",  # potrf: a positive definite matrix's factor
    "triangular solve": "flops",  # trsm: a factor's triangle against right-hand sides
    "qr": "flops",  # Householder QR (geqrf): R and the reflectors
    "householder product": "flops",  # QR's Q formed from its reflectors (orgqr)
    "eigh": "flops",  # a symmetric matrix's eigenvalues and eigenvectors (syevd)
    "svd": "flops",  # singular values and vectors (gesdd)
    "singular values": "flops",  # singular values alone (gesdd without its vectors)
}
KINDS = tuple(SIZE_UNIT)
ITEMSIZE = {
    "float64": 8,
    "float32": 4,
    "bfloat16": 2,
    "float16": 2,
    "float8_e4m3fn": 1,
    "int8": 1,
    "complex64": 8,
}
# A kind measured on its own whose curve an older file may lack: priced from its base kind's.
BASE_KIND = {
    "matmul transposed": "matmul",
    "matmul rhs transposed": "matmul",
    "matmul both transposed": "matmul transposed",
    "batched matmul": "matmul",
    "batched matvec": "matvec",
    "transpose": "copy",
    "row transpose": "transpose",
    "strided transpose": "transpose",
    "plain copy": "copy",
    "convolution": "matmul",
    "convolution filter": "convolution",
    "grouped convolution": "convolution",
    "sort": "elementwise",
    "reduce-window": "reduction",
    "pool": "reduce-window",
    "windowed arg reduction": "arg reduction",
    "unit-dim product sum": "reduction",
    "column reduction": "reduction",
    "gather": "elementwise",
    "scatter": "gather",  # rows where indices say, as a gather's
    "sine": "transcendental",
    "power": "transcendental",
    "rsqrt": "transcendental",
    "rounding": "elementwise",  # an older file: no cost beyond the stream
    "top-k": "reduction",  # one pass over each row
    "arg reduction": "reduction",
}
# Transcendental functions measured one by one: on XLA:CPU these ran 4-17× the exp·tanh chain's
# cost per evaluation (4M floats: rsqrt 5.7 ms, sin 15.7 ms, x**1.5 18.0 ms; exp 1.6, tanh 1.1).
FUNCTIONS = ("sine", "power", "rsqrt")
SKINNY = 16  # a matmul with M or N at most this is a matvec (decode's GEMV-like shapes)
NARROW_ASPECT = 8  # a matmul whose largest side is this many times its smallest is narrow
# Kinds swept at fixed values of a second coordinate, and what it is.
SWEPT = {
    "matvec": "rows",  # its M (or N) per matmul, 1-16: a decode batch's, or one query a head
    "batched matvec": "rows",  # per matmul: one query a head, or a KV head's group of queries
    "matmul": "smallest side",  # a narrow matmul's (narrow_side)
    "matmul transposed": "smallest side",
    "matmul rhs transposed": "smallest side",
    "matmul both transposed": "smallest side",
    "convolution": "spatial dimensions",  # an image's 2, a volume's 3
    "convolution filter": "reduced volume",  # the elements each output sums: batch x image
    "grouped convolution": "features a group",  # each group's input features: depthwise's 1
    "column reduction": "kept elements",  # its output's: the width of the columns summed
    "strided transpose": "KiB a walk spans",  # before its read comes back to a line (strided_span)
    "triangular solve": "right-hand sides",  # per matrix: a vector's 1, a matrix's columns
    "qr": "rows per column",  # m / n: a least-squares system's tall matrix, a square one
    "householder product": "rows per column",
    "svd": "rows per column",
    "singular values": "rows per column",
    "fft": "dimensions transformed",  # 1: each row's; 2: each image's (fft2, rfft2)
    "top-k": "heap steps per 1,000 elements",  # heap_steps: what a row's k and length cost
    "gather": "elements a row",  # each index's slice: a lookup of scalars' 1, an embedding's width
    "scatter": "elements a row",  # each index's update: a histogram's 1, a segment sum's features
}
# The transcendental curve's kernel, exp(-x)·tanh(x), evaluates this many per element, reading
# and writing each element once: n evaluations cost that kernel over n / 2 elements.
CHAIN_TRANSCENDENTALS = 2
# The rounding curve's kernel rounds each float32 element to bfloat16 and widens it back this
# many times (as XLA:CPU computes bfloat16 math: each op in float32, its result rounded; a
# tanh GELU of 1.6M bfloat16 elements took 3.1 ms there against 0.8 ms in float32).
ROUNDINGS = 8
# Evaluations per element of each evaluation curve's kernel (the FUNCTIONS kinds: one).
PER_ELEMENT = {"transcendental": CHAIN_TRANSCENDENTALS, "rounding": ROUNDINGS}


def span_kib(span_bytes: float) -> int:
    """A strided transpose's second coordinate from the bytes its walk spans: KiB, rounded up,
    at least 1."""
    return max(1, math.ceil(span_bytes / 1024))


def matmul_kind(
    m: int, n: int, transposed: bool = False, rhs_transposed: bool = False, instances: int = 1
) -> str:
    """The kernel kind of an M×N matmul by its operand layout: `matvec` for a skinny one (M or
    N at most SKINNY), `batched matvec` for one of several a dot runs (its batch dimensions:
    a decode step's one query a head against its KV cache); else `batched matmul` for one of
    several a dot runs (its batch
    dimensions: attention's per head), `matmul transposed` where A is contracted on its rows
    (Aᵀ·B, a weight gradient), `matmul rhs transposed` where B is contracted on its last dim
    (A·Bᵀ, an input gradient), `matmul both transposed` where both are (Aᵀ·Bᵀ), else `matmul`."""
    if min(m, n) <= SKINNY:
        return "batched matvec" if instances > 1 else "matvec"
    if instances > 1:
        return "batched matmul"
    if transposed and rhs_transposed:
        return "matmul both transposed"
    if transposed:
        return "matmul transposed"
    return "matmul rhs transposed" if rhs_transposed else "matmul"


def heap_steps(n: int, k: int) -> int:
    """A top-k's second coordinate: its heap's expected sift steps per 1,000 elements of a row
    of n, at least 1. XLA:CPU's top-k is std::partial_sort over each row (a heap of the k
    largest so far, every element compared with its top); on random data the i-th element
    enters it with probability k / i, about k (1 + ln(n / k)) times a row, each a sift of
    log2 k steps. Measured here, each element read cost 1.7-2.6 ns and each step 8-12 ns:
    the 8 largest of rows of 1,024 (137 steps per 1,000) ran at 1.2 GB/s, the 50 largest of
    32,000 (66) at 1.8."""
    if n <= k or k < 1:
        return 1
    steps = k * (1 + math.log(n / k)) * math.log2(max(k, 2))
    return max(1, round(1000 * steps / n))


def narrow_side(*sides: int) -> int:
    """The smallest side of a matmul (its M, N and K, in any order and any repeated) where it
    is narrow (its largest side at least NARROW_ASPECT times it, and more than SKINNY: a
    matvec is its own kind), else 0."""
    small = min(sides)
    return small if small > SKINNY and max(sides) >= NARROW_ASPECT * small else 0


def sort_bytes(elements: int, itemsize: int) -> float:
    """The bytes a sort of `elements` keys is sized and bounded by: each key read and written
    once (further operands, such as an argsort's indices, ride along uncounted: measured
    here, an argsort of 262,144 floats took 1.17 times their sort)."""
    return 2.0 * elements * itemsize


def window_bytes(outputs: int, window: int, itemsize: int) -> float:
    """The bytes a reduce-window is sized and bounded by: every output reads its whole
    window and is written once (XLA:CPU loops over each output's window: measured here, a
    1024×1024 window sum took 0.09-0.17 ns per element read for windows of 2, 4 and 16)."""
    return float(outputs) * (window + 1) * itemsize
