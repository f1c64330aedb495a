"""The kernels suite's planned points, and its windowed kernels: convolutions, sorts and the
reduce-window of a cumulative sum; the sum of a product over a shape with a unit dim; and
batches of matmuls.

Convolutions: 3×3, NHWC, padded by one, over channels (a quarter of each matmul side from 64
to 512), as a forward pass runs them and as a weight gradient does (the input convolved with
the output's gradient: a window as large as the image, the layouts XLA:CPU gives jax.grad of
a convolution). A sort of a vector and a reduce-window of WINDOW along rows (XLA:CPU's scan
of a cumsum), over element counts up to SORT_MAX, their bytes from the kernel model
(perfcore.model.chip.kernel_kinds.sort_bytes, window_bytes) as the prediction sizes them. The
product sum, (a·b).sum(-1) over (1, elements / row, row), is a kind of its own: on XLA:CPU a
sum whose input is the product of two different operands, over a shape with a size-1
dimension, ran 4-14× slower than the same sum without it (1.4-1.7 ms against 0.16-0.18 ms
for 393,216 floats), where a plain sum, a unary prologue or a max over the same shape did not.
The transcendental functions kernel_kinds.FUNCTIONS names (sin, x ** 1.5, rsqrt, each of x + 1 or
|x| + 1) over (elements / row, row), at every other element count: one evaluation per element;
in float32, the same of kernel_kinds.ROUNDINGS roundings to bfloat16 (`rounded`), as XLA:CPU
computes bfloat16 math.
A batch of BATCH matmuls of attention's scores, (s × HEAD_DIM)·(HEAD_DIM × s) each, over s (a
dot's batch runs at its own rate, not its matmuls' alone: on XLA:CPU 16 of 1024×64·64×1024
took 2.5× sixteen such matmuls launched one by one, 16 of 256×64·64×256 0.56×); sized by one
matmul's FLOPs, as the prediction sizes a batched dot. A gather of rows of ROW floats from a
table of TABLE_ROWS (above a CPU's last-level cache, as an embedding is), at random rows, over
the element counts gathered up to a quarter of the table: an embedding lookup's kernel, whose
rows miss the cache where a stream's are prefetched; a scatter-add of as many rows into it
(an embedding gradient's), timed as a loop body's op into a table the loop carries. The
TOP_K largest of rows of TOP_K_ROW (jax.lax.top_k: a custom call on XLA:CPU, 6.3 ms for 2048
rows of 1024 floats there, where a reduction of the same bytes takes about 0.3 ms), sized by
its input and outputs' bytes. The argmax of rows of ARG_ROW (a reduce of the values and their
indices together): on XLA:CPU it is not vectorized (1.6-1.8 ns per float32 read there, over
rows of 256 to 50,000, where a max of the same rows took 0.1-0.2), sized by its bytes. The
real-input FFT of rows of FFT_ROW, sized by the FLOPs XLA counts for it (8 n log2 n a row: on
XLA:CPU 110-125 GFLOP/s by that count for rows of 256 to 65,536 there, where its bytes ran at
7-14 GB/s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from perfcore.measure.experiments.suites import Suite
from perfcore.model.chip import kernel_kinds, ops

CONV = (8, 32, 3)  # batch, image side, kernel side of the convolutions; channels = side / 4
# The filter gradient's batches: one sweep over channels each, reducing batch x image per output
FILTER_BATCHES = (4, 8, 16)
LABELS = ("NHWC", "HWIO", "NHWC")
SORT_MAX = 2**20  # the largest sort and reduce-window (a sort of it: 0.25-0.3 s on this CPU)
WINDOW = 16  # the reduce-window's (a cumulative sum's block on XLA:CPU)
CONV_SIDES = (64, 512)  # the matmul sides whose quarter a convolution's channels are
# sized and bounded by the kernel model's bytes (a gather: the rows it reads, not its table)
MODEL_BYTES = ("sort", "reduce-window", "gather", "top-k")
BATCHED, BATCHED_FN = "batched matmul", "matmul, batched"
BATCH, HEAD_DIM = 16, 64  # the batched matmuls' batch (heads × sequences) and contraction
BATCHED_SIDES = (64, 4096)  # the sides of the matmul sweep the batched one takes
TABLE_ROWS = 65536  # the gather's table: 64 MiB of float32 rows of 256
TOP_K, TOP_K_ROW = 8, 1024  # the top-k's k and row: an MoE router's or a sampler's shape
ARG_ROW = 1024  # the arg reduction's row: each row's argmax
FFT_ROW = 4096  # the fft's row: each row's real-input transform


@dataclass(frozen=True)
class Planned:
    """One point of a sweep: kind, label, dtype, input shapes, the function's name, its model."""

    kind: str
    label: str
    dtype: str
    shapes: tuple[tuple[int, ...], ...]
    fn: str
    model: ops.Cost


def convolve(jax, x, w):
    """A stride-1 convolution padded by one on each side (a 3×3 kernel's SAME)."""
    pad = (CONV[2] - 1) // 2
    return jax.lax.conv_general_dilated(
        x, w, (1, 1), ((pad, pad), (pad, pad)), dimension_numbers=LABELS
    )


def convolutions(suite: Suite, dtype: str, b: int) -> list[list[Planned]]:
    """3×3 convolutions over channels C (a quarter of each matmul side from 64 to 512): the
    forward pass's (batch, image, image, C) ⊛ (3, 3, C, C), and the weight gradient's
    (C, image, image, batch) ⊛ (image, image, batch, C) -> (C, 3, 3, C) at each of
    FILTER_BATCHES (its reduced volume, kernel_kinds.SWEPT: batch x image x image), each with the
    forward's FLOPs at its batch: 2 per tap inside the image (padding left out, as XLA
    counts)."""
    n, side, k = CONV
    taps = (side * k - (k - 1)) ** 2  # (tap, output) pairs per image plane inside the padding
    channels = [s // 4 for s in suite.kernel_sides if CONV_SIDES[0] <= s <= CONV_SIDES[1]]
    out = []
    for kind, batch in [("convolution", n)] + [("convolution filter", m) for m in FILTER_BATCHES]:
        sweep = []
        for c in channels:
            fwd = kind == "convolution"
            shapes = (
                ((batch, side, side, c), (k, k, c, c))
                if fwd
                else ((c, side, side, batch), (side, side, batch, c))
            )
            moved = (math.prod(shapes[0]) + math.prod(shapes[1]) + batch * side * side * c) * b
            model = ops.Cost(2.0 * batch * taps * c * c, moved)
            label = (
                f"{kind} {dtype} {'x'.join(map(str, shapes[0]))} * {'x'.join(map(str, shapes[1]))}"
            )
            sweep.append(Planned(kind, label, dtype, shapes, kind, model))
        out.append(sweep)
    return out


def scans(suite: Suite, dtype: str, b: int, row: int) -> list[list[Planned]]:
    """A sort of a vector and a cumulative sum's reduce-window over (elements / row, row),
    over element counts up to SORT_MAX."""
    sizes = [n for n in suite.kernel_elements if row <= n <= SORT_MAX]
    sorts = [
        Planned(
            "sort",
            f"sort {dtype} {n} elements",
            dtype,
            ((n,),),
            "sort",
            ops.Cost(n * math.log2(n), kernel_kinds.sort_bytes(n, b)),
        )
        for n in sizes
    ]
    windows = [
        Planned(
            "reduce-window",
            f"reduce-window {dtype} {n} elements window {WINDOW}",
            dtype,
            ((n // row, row),),
            "reduce-window",
            ops.Cost(n * (WINDOW - 1), kernel_kinds.window_bytes(n, WINDOW, b)),
        )
        for n in sizes
    ]
    return [sorts, windows]


def product_sums(suite: Suite, dtype: str, b: int, row: int) -> list[Planned]:
    """(a·b).sum(-1) over (1, elements / row, row): two inputs read, a row's sum written."""
    return [
        Planned(
            "unit-dim product sum",
            f"unit-dim product sum {dtype} {n} elements",
            dtype,
            ((1, n // row, row),) * 2,
            "unit-dim product sum",
            ops.Cost(2 * n, (2 * n + n // row) * b),
        )
        for n in suite.kernel_elements
        if row <= n <= SORT_MAX
    ]


def batched(suite: Suite, dtype: str, b: int) -> list[Planned]:
    """BATCH matmuls of (s × HEAD_DIM)·(HEAD_DIM × s) in one dot, over the matmul sides s
    (its function a matmul's: timed with their repeats, and again in the second pass)."""
    lo, hi = BATCHED_SIDES
    points = []
    for s in (s for s in suite.kernel_sides if lo <= s <= hi):
        one = ops.matmul(s, s, HEAD_DIM, b)
        label = f"{BATCHED} {dtype} {BATCH}x{s}x{HEAD_DIM}x{s}"
        shapes = ((BATCH, s, HEAD_DIM), (BATCH, HEAD_DIM, s))
        cost = ops.Cost(BATCH * one.flops, BATCH * one.bytes)
        points.append(Planned(BATCHED, label, dtype, shapes, BATCHED_FN, cost))
    return points


def gathers(suite: Suite, dtype: str, b: int, row: int) -> list[Planned]:
    """n / row random rows of a (TABLE_ROWS, row) table, for the suite's element counts n up
    to a quarter of it: the rows read and written, their indices (drawn in the step from a
    second input) read."""
    return [
        Planned(
            "gather",
            f"gather {dtype} {n // row} of {TABLE_ROWS} rows of {row}",
            dtype,
            ((TABLE_ROWS, row), (n // row, 1)),
            "gather",
            ops.Cost(0, (2 * n + n // row) * b),
        )
        for n in suite.kernel_elements
        if row <= n <= TABLE_ROWS * row // 4
    ]


def scatters(suite: Suite, dtype: str, b: int, row: int) -> list[list[Planned]]:
    """n / row rows added into a (TABLE_ROWS, row) table at random rows, for the gather's
    element counts n: the updates read, those rows of the table read and written, their
    indices (drawn in the step from the updates' first column) read. Timed only on a host, as
    a loop body's op into a table the loop carries (kernel_loops.carried)."""
    points = [
        Planned(
            "scatter",
            f"scatter-add {dtype} {n // row} rows into {TABLE_ROWS} rows of {row}",
            dtype,
            ((TABLE_ROWS, row), (n // row, row)),
            "scatter",
            ops.Cost(0, (3 * n + n // row) * b),
        )
        for n in suite.kernel_elements
        if row <= n <= TABLE_ROWS * row // 4
    ]
    return [points] if points else []


def _rows(suite: Suite, dtype: str, kind: str, row: int, name: str, cost) -> list[Planned]:
    """kind over rows of `row`, at every other element count n from one row: labelled `name`
    and its rows, costed cost(n, rows)."""
    sizes = [n for n in suite.kernel_elements if n >= row][::2]
    return [
        Planned(
            kind,
            f"{name} {n // row} rows of {row}",
            dtype,
            ((n // row, row),),
            kind,
            cost(n, n // row),
        )
        for n in sizes
    ]


def top_ks(suite: Suite, dtype: str, b: int) -> list[Planned]:
    """The TOP_K largest of each row of TOP_K_ROW, at every other element count: the rows
    read, the values written and their int32 indices."""
    name = f"top-{TOP_K} {dtype}"
    return _rows(
        suite,
        dtype,
        "top-k",
        TOP_K_ROW,
        name,
        lambda n, r: ops.Cost(0, n * b + r * TOP_K * (b + 4)),
    )


def arg_reductions(suite: Suite, dtype: str, b: int) -> list[Planned]:
    """The argmax of each row of ARG_ROW, at every other element count: the rows read, an
    int32 index written per row (its values, reduced beside the indices, are not written)."""
    name = f"argmax {dtype}"
    return _rows(
        suite, dtype, "arg reduction", ARG_ROW, name, lambda n, r: ops.Cost(0, n * b + r * 4)
    )


def ffts(suite: Suite, dtype: str, b: int) -> list[Planned]:
    """The real-input FFT of each row of FFT_ROW, at every other element count: sized by the
    FLOPs XLA counts (its cost analysis: 8 n log2 n a row of n), the rows read and their
    n / 2 + 1 complex outputs written."""
    per_row, out = 8 * FFT_ROW * math.log2(FFT_ROW), (FFT_ROW // 2 + 1) * 2 * b

    def cost(n: int, rows: int) -> ops.Cost:
        return ops.Cost(rows * per_row, n * b + rows * out)

    return _rows(suite, dtype, "fft", FFT_ROW, f"rfft {dtype}", cost)


def instances(p: Planned) -> int:
    """How many matmuls a point's one call runs (its size is one's FLOPs)."""
    return p.shapes[0][0] if p.kind == BATCHED else 1


def functions(suite: Suite, dtype: str, b: int, row: int) -> list[list[Planned]]:
    """One sweep per kernel_kinds.FUNCTIONS kind, and in float32 the rounding's: x read, f(x)
    written, every other element count."""
    sizes = [n for n in suite.kernel_elements if n >= row][::2]
    flops = {"rounding": kernel_kinds.ROUNDINGS}  # its multiplies; the functions' one x + 1
    kinds = (*kernel_kinds.FUNCTIONS, *(["rounding"] if dtype == "float32" else []))
    return [
        [
            Planned(
                kind,
                f"{kind} {dtype} {n} elements",
                dtype,
                ((n // row, row),),
                kind,
                ops.elementwise(n, 1, 1, flops.get(kind, 1), b),
            )
            for n in sizes
        ]
        for kind in kinds
    ]


def rounded(jnp, x):
    """x rounded to bfloat16 and widened back kernel_kinds.ROUNDINGS times, each after a multiply
    (two roundings in a row would be one: XLA folds the widening and narrowing between)."""
    for _ in range(kernel_kinds.ROUNDINGS):
        x = (x * 1.001).astype(jnp.bfloat16).astype(x.dtype)
    return x


def others(suite: Suite, dtype: str, b: int, row: int) -> list[list[Planned]]:
    """The sorts, reduce-windows, product sums, transcendental functions, batched matmuls,
    gathers, top-ks, arg reductions and FFTs of dtype."""
    products = product_sums(suite, dtype, b, row)
    sweeps = [*scans(suite, dtype, b, row), products, *functions(suite, dtype, b, row)]
    return [
        *sweeps,
        batched(suite, dtype, b),
        gathers(suite, dtype, b, row),
        top_ks(suite, dtype, b),
        arg_reductions(suite, dtype, b),
        ffts(suite, dtype, b),
    ]


def _at(jnp, table, u):
    """Random rows of table, one per row of u, drawn in the step from u's first column."""
    return (jnp.abs(u[:, 0]) * 1e6).astype("int32") % table.shape[0]


def functions_of(jax, jnp) -> dict:
    """The jittable function of each kind this module plans, by its Planned.fn: the
    convolutions, the sort, the reduce-window of WINDOW (a cumsum's), the product sum, the
    kernel_kinds.FUNCTIONS kinds (of x + 1, rsqrt and power of |x| + 1: one FLOP per element beside
    the function, as the model counts), the rounding chain, the batched matmul, the gather
    and the scatter-add (their rows' indices drawn in the step from their second input: `_at`),
    the top-k, the argmax and the real FFT."""
    return {
        "convolution": lambda x, w: convolve(jax, x, w),
        "convolution filter": lambda x, w: convolve(jax, x, w),
        "sort": jnp.sort,
        "reduce-window": lambda x: jax.lax.reduce_window(
            x, 0.0, jax.lax.add, (1, WINDOW), (1, 1), ((0, 0), (WINDOW - 1, 0))
        ),
        "unit-dim product sum": lambda x, y: (x * y).sum(axis=-1),
        "sine": lambda x: jnp.sin(x + 1.0),
        "power": lambda x: (jnp.abs(x) + 1.0) ** 1.5,
        "rsqrt": lambda x: jax.lax.rsqrt(jnp.abs(x) + 1.0),
        "rounding": lambda x: rounded(jnp, x),
        BATCHED_FN: jnp.matmul,
        "gather": lambda t, u: t[_at(jnp, t, u)],
        "scatter": lambda t, u: t.at[_at(jnp, t, u)].add(u),
        "top-k": lambda x: jax.lax.top_k(x, TOP_K),
        "arg reduction": lambda x: jnp.argmax(x, axis=-1),
        "fft": lambda x: jnp.fft.rfft(x, axis=-1),
    }
