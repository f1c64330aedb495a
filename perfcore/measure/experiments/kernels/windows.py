"""The kernels suite's planned points, and its windowed kernels: convolutions, sorts and the
reduce-window of a cumulative sum; the sum of a product over a shape with a unit dim;
transcendental functions one by one; and batches of matmuls.

Convolutions: 3×3, NHWC, padded by one, over channels (a quarter of each matmul side from 64
to 512), as a forward pass runs them and as a weight gradient does (the input convolved with
the output's gradient: a window as large as the image, the layouts XLA:CPU gives jax.grad of
a convolution), grouped, at 1 input feature a group (a depthwise convolution's) and at 16, and
3×3×3 over volumes. A sort of a vector and a reduce-window of WINDOW along rows (XLA:CPU's scan
of a cumsum), over element counts up to SORT_MAX, their bytes from the kernel model
(perfcore.model.chip.kernel_kinds.sort_bytes, window_bytes) as the prediction sizes them
(kernel_pools plans the max pools). The
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
matmul's FLOPs, as the prediction sizes a batched dot. (The kernels over a table's or a
matrix's rows, gathers, scatters, top-ks, argmaxes and FFTs, are kernel_rows'.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from perfcore.measure.experiments.suites import Suite
from perfcore.model.chip import kernel_kinds, ops
from perfcore.model.chip.kernel_kinds import CONV, CONV_3D

# The filter gradient's batches: one sweep over channels each, reducing batch x image per output
FILTER_BATCHES = (4, 8, 16)
LABELS = ("NHWC", "HWIO", "NHWC")
LABELS_3D = ("NDHWC", "DHWIO", "NDHWC")  # a volume's (video, medical images)
SORT_MAX = 2**20  # the largest sort and reduce-window (a sort of it: 0.25-0.3 s on this CPU)
WINDOW = 16  # the reduce-window's (a cumulative sum's block on XLA:CPU)
CONV_SIDES = (64, 512)  # the matmul sides whose quarter a convolution's channels are
CONV_KIND, GROUPED = "convolution", "grouped convolution"
GROUP_FEATURES = (1, 16)  # input features a group of the grouped convolutions: depthwise, 16
# sized and bounded by the kernel model's bytes (a gather: the rows it reads, not its table)
MODEL_BYTES = ("sort", "reduce-window", "pool", "gather", "top-k")
BATCHED, BATCHED_FN = "batched matmul", "matmul, batched"
BATCH, HEAD_DIM = 16, 64  # the batched matmuls' batch (heads × sequences) and contraction
BATCHED_SIDES = (64, 4096)  # the sides of the matmul sweep the batched one takes
DECODE = (8, 8, 64)  # batch, heads and head dim of the batched matvecs (a decode step's attention)
DECODE_MIN = 16  # their shortest KV cache, tokens


@dataclass(frozen=True)
class Planned:
    """One point of a sweep: kind, label, dtype, input shapes, the function's name, its model."""

    kind: str
    label: str
    dtype: str
    shapes: tuple[tuple[int, ...], ...]
    fn: str
    model: ops.Cost
    in_place: bool = False  # a loop body's point writing its result in place (loops.in_place)


def convolve(jax, x, w):
    """A stride-1 convolution padded by one on each side (a 3×3 or 3×3×3 kernel's SAME) over
    images or, of rank 5, volumes, its input features in groups of the filter's input size
    (one group where they are equal)."""
    pad, spatial = (CONV[2] - 1) // 2, x.ndim - 2
    return jax.lax.conv_general_dilated(
        x,
        w,
        (1,) * spatial,
        ((pad, pad),) * spatial,
        dimension_numbers=LABELS if spatial == 2 else LABELS_3D,
        feature_group_count=x.shape[-1] // w.shape[-2],
    )


def convolutions(suite: Suite, dtype: str, b: int) -> list[list[Planned]]:
    """3×3 convolutions over channels C (a quarter of each matmul side from 64 to 512): the
    forward pass's (batch, image, image, C) ⊛ (3, 3, C, C), and the weight gradient's
    (C, image, image, batch) ⊛ (image, image, batch, C) -> (C, 3, 3, C) at each of
    FILTER_BATCHES (its reduced volume, kernel_kinds.SWEPT: batch x image x image), each with the
    forward's FLOPs at its batch: 2 per tap inside the image (padding left out, as XLA
    counts); grouped ones (grouped) and 3×3×3 ones over volumes (volumes)."""
    n, side, k = CONV
    taps = kernel_kinds.conv_taps(side, 2)  # (tap, output) pairs per image inside the padding
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
            sweep.append(Planned(kind, _label(kind, dtype, shapes), dtype, shapes, kind, model))
        out.append(sweep)
    return [*out, *grouped(dtype, b, channels, taps), volumes(dtype, b, channels)]


def volumes(dtype: str, b: int, channels: list[int]) -> list[Planned]:
    """3×3×3 convolutions over (batch, side, side, side, C) volumes (CONV_3D), channels C up
    to its most (kernel_kinds.SWEPT: a convolution's spatial dimensions, 3 here, 2 for the
    images; XLA:CPU ran a 2×16×32×32×32 one at a quarter of the rate the 2-D curve gave it)."""
    n, side, most = CONV_3D
    k = CONV[2]
    out = []
    for c in (c for c in channels if c <= most):
        shapes = ((n, side, side, side, c), (k, k, k, c, c))
        moved = (2 * math.prod(shapes[0]) + math.prod(shapes[1])) * b
        model = ops.Cost(kernel_kinds.conv_sweep_flops(c, c, 3), moved)
        out.append(
            Planned(CONV_KIND, _label(CONV_KIND, dtype, shapes), dtype, shapes, CONV_KIND, model)
        )
    return out


def _label(kind: str, dtype: str, shapes: tuple) -> str:
    """A convolution point's label: its kind, dtype and input and filter shapes."""
    return f"{kind} {dtype} {'x'.join(map(str, shapes[0]))} * {'x'.join(map(str, shapes[1]))}"


def grouped(dtype: str, b: int, channels: list[int], taps: int) -> list[list[Planned]]:
    """Grouped 3×3 convolutions, (batch, image, image, C) ⊛ (3, 3, g, C) in C / g groups, over
    channels C at each of GROUP_FEATURES g (kernel_kinds.SWEPT: features a group; 1 is a
    depthwise convolution's, which XLA:CPU ran at 0.5-0.6 GFLOP/s against 15 at 16 a group)."""
    n, side, k = CONV
    out = []
    for g in GROUP_FEATURES:
        sweep = []
        for c in (c for c in channels if c >= 2 * g):
            shapes = ((n, side, side, c), (k, k, g, c))
            moved = (math.prod(shapes[0]) + math.prod(shapes[1]) + n * side * side * c) * b
            label = f"{GROUPED} {dtype} {'x'.join(map(str, shapes[0]))} in {c // g} groups"
            model = ops.Cost(2.0 * n * taps * c * g, moved)
            sweep.append(Planned(GROUPED, label, dtype, shapes, GROUPED, model))
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


def batched_matvecs(suite: Suite, dtype: str, b: int) -> list[Planned]:
    """A decode step's attention scores over a KV cache of t tokens (DECODE's batch, heads
    and head dim), (B, H, 1, D)·(B, H, D, t), in the layout XLA:CPU gives jnp.einsum's (each
    head's keys as rows of t), over the cache's element counts from DECODE_MIN tokens; sized
    by its bytes (a matvec's unit), every instance's. The values' dot, (B, H, D, t)·(B, H, t,
    1), reads the same cache and is priced on it: alone it ran 0.74-1.0× the scores' here (387
    against 523 µs over 1,024 tokens, 1.8 against 2.1 ms over 4,096)."""
    batch, heads, dim = DECODE
    per_token = batch * heads * dim
    tokens = [n // per_token for n in suite.kernel_elements if n >= DECODE_MIN * per_token]
    return [
        Planned(
            "batched matvec",
            f"batched matvec {dtype} scores {batch}x{heads} heads of {dim} over {t} tokens",
            dtype,
            ((batch, heads, 1, dim), (batch, heads, dim, t)),
            BATCHED_FN,
            ops.Cost(2 * per_token * t, (per_token * t + batch * heads * (t + dim)) * b),
        )
        for t in tokens
    ]


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
    """The sorts, reduce-windows, product sums, transcendental functions, batched matmuls
    and batched matvecs of dtype."""
    products = product_sums(suite, dtype, b, row)
    sweeps = [*scans(suite, dtype, b, row), products, *functions(suite, dtype, b, row)]
    return [*sweeps, batched(suite, dtype, b), batched_matvecs(suite, dtype, b)]


def functions_of(jax, jnp) -> dict:
    """The jittable function of each kind this module plans, by its Planned.fn: the
    convolutions, the sort, the reduce-window of WINDOW (a cumsum's), the product sum, the
    kernel_kinds.FUNCTIONS kinds (of x + 1, rsqrt and power of |x| + 1: one FLOP per element beside
    the function, as the model counts), the rounding chain and the batched matmul."""
    return {
        "convolution": lambda x, w: convolve(jax, x, w),
        "convolution filter": lambda x, w: convolve(jax, x, w),
        GROUPED: lambda x, w: convolve(jax, x, w),
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
    }
