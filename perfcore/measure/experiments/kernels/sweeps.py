"""The kernels suite's sweeps: the points each dtype's kinds are measured at (kernels times them;
kernel_windows plans the windowed kinds and holds Planned).

Per dtype: matmuls square, skinny (M rows, on to weights of SKINNY_WEIGHT_MAX), tall (M = 4N),
transposed (Xᵀ·dY, K = N/4), rhs-transposed (dY·Wᵀ) and both-transposed (Aᵀ·Bᵀ, square), and
narrow ones in each of those four layouts (an MLP's batch of r rows: its forward X·W with M = r,
its weight gradient Xᵀ·dY with K = r, its input gradient dY·Wᵀ with M = r, Aᵀ·Bᵀ with M = r; the
other sides NARROW_SPAN times r); causal attention forward and backward over sequence length per
head dim; the stream kinds over element counts; two rank-4 permuted copies (a KV cache's layout
change, attention's head split); a strided transpose (a fusion holding a broadcast that moves
its minor dimension: XLA:CPU reads its elements one by one); column reductions keeping each of
COLUMN_WIDTHS; kernel_windows' convolutions and windowed kinds, kernel_pools' max pools; and on
a host kernel_factorizations' LAPACK routines. A float8 dtype runs matmuls alone, an int8 one
(int32 accumulation) those of a forward pass alone: square, skinny and tall; a complex one
square matmuls alone (COMPLEX).
"""

from __future__ import annotations

import dataclasses
import math

from perfcore.measure.experiments.kernels import factorizations as kernel_factorizations
from perfcore.measure.experiments.kernels import pools as kernel_pools
from perfcore.measure.experiments.kernels import rows as kernel_rows
from perfcore.measure.experiments.kernels import windows as kernel_windows
from perfcore.measure.experiments.kernels.windows import Planned
from perfcore.measure.experiments.suites import Suite
from perfcore.model.chip import kernel_kinds, ops
from perfcore.model.chip.kernel_kinds import ITEMSIZE

HEADS = 4
ROW = 256  # row length of the reduction and the copy
CACHE = (8, 8, 64)  # batch, heads, head dim of the rank-4 transpose; seq = elements / their product
# (batch, seq, heads, head dim) -> (batch, heads, head dim, seq): a KV cache's layout change;
# -> (batch, heads, seq, head dim): attention's head split, rows of head dim moved whole
TRANSPOSES = {"transpose": (0, 2, 3, 1), "row transpose": (0, 2, 1, 3)}
# The strided transpose's square walks, (B, S, S) per S: a walk of S rows spanning S² elements
# (its KiB, kernel_kinds.SWEPT: 16, 256 and 4,096 in float32).
STRIDED_SIDES = (64, 256, 1024)
MATMUL_ONLY = ("float8_e4m3fn", "int8", "complex64")  # dtypes timed in their matmuls alone
# A complex dtype runs square matmuls alone (on a host, Eigen's complex GEMM: a 512² complex64
# product took 10.7 ms here, where its real FLOPs at float32's rate of that size give 6.0),
# sized by its real FLOPs, 8·M·N·K (a complex multiply-add's, as hlo.complex_dot_flops counts).
COMPLEX = ("complex64",)
COMPLEX_FLOPS = 4  # a complex matmul's real FLOPs over a real one's 2·M·N·K
# Its largest side: 116 GFLOP/s there at 512², 120 at 1,024² (whose 71 ms calls took 8.6 s of
# a 240 s suite, and 2,048²'s 15.6 s); a larger product reads the 512 point, said so.
COMPLEX_MAX = 512
# Dtypes a quantized forward pass alone multiplies in (int32 accumulation): square, skinny and
# tall matmuls, no gradients' layouts, its skinny ones up to the square sweep's largest side.
FORWARD_ONLY = ("int8",)
# Each stream point is timed again as a loop body's op (kernel_loops).
STREAMS = ("elementwise", "transcendental", "reduction", "copy", "transpose")
# A skinny sweep runs on past the square ones' largest side, to weights of this many bytes:
# a decode step's weights stream from memory (an LM head of 32,000 x 512 floats is 65 MB), and
# a matvec of 256 MiB takes milliseconds where a square matmul of that side takes a second.
SKINNY_WEIGHT_MAX = 2**28
LOOP_MATMUL_MAX = 256  # square matmuls up to this side are timed as loop bodies' ops too
SKINNY_OFF = kernel_kinds.SKINNY + 1  # a side matmul_kind never calls skinny: the kind by layout
COLUMN_WIDTHS = (256, 4096, 65536)  # what a column reduction keeps: kernel_kinds.SWEPT
COLUMN_MAX = 2**24  # its largest operand, elements (keeping 65536: 80 ms a call here)
NARROW_SPAN = (kernel_kinds.NARROW_ASPECT, 4 * kernel_kinds.NARROW_ASPECT)  # a narrow sweep's n / r


def _matmuls(suite: Suite, dtype: str, b: int) -> list[list[Planned]]:
    """Square, skinny (M rows), tall (M = 4N), transposed, rhs-transposed and both-transposed
    matmul sweeps, and the narrow sweeps of each of those four layouts."""

    def point(m: int, n: int, k: int, transposed: bool = False, rhs: bool = False) -> Planned:
        kind = kernel_kinds.matmul_kind(m, n, transposed, rhs)
        fn = kernel_kinds.matmul_kind(SKINNY_OFF, SKINNY_OFF, transposed, rhs)  # by layout alone
        a = (k, m) if transposed else (m, k)
        shapes = (a, (n, k) if rhs else (k, n))
        return Planned(kind, f"{fn} {dtype} {m}x{k}x{n}", dtype, shapes, fn, ops.matmul(m, n, k, b))

    sides = suite.kernel_sides
    square = [point(n, n, n) for n in sides]
    if dtype in COMPLEX:
        small = [p for p in square if p.shapes[0][0] <= COMPLEX_MAX]
        return [[dataclasses.replace(p, model=_complex(p.model)) for p in small]]
    wide = [w for w in (2 * max(sides), 4 * max(sides)) if w * w * b <= SKINNY_WEIGHT_MAX]
    if dtype in FORWARD_ONLY:  # its weights drawn up to the square sweep's side (drawing
        wide = []  # 64 MiB of int8 weights three times took 6 of the suite's 120 s)
    skinny = [[point(m, n, n) for n in (*sides, *wide) if n >= 256] for m in suite.kernel_rows]
    tall = [point(4 * n, n, n) for n in sides if n >= 128]
    if dtype in FORWARD_ONLY:
        return [square, *skinny, tall]
    grads = [point(n, n, n // 4, transposed=True) for n in sides if n >= 128]  # Xᵀ·dY
    inputs = [point(n, n, n, rhs=True) for n in sides if n >= 64]  # dY·Wᵀ
    both = [point(n, n, n, transposed=True, rhs=True) for n in sides if n >= 64]  # Aᵀ·Bᵀ
    narrow = []
    for r in suite.kernel_narrow:
        across = [n for n in sides if NARROW_SPAN[0] * r <= n <= NARROW_SPAN[1] * r]
        narrow.append([point(r, n, n) for n in across])  # X·W over a batch of r rows
        narrow.append([point(n, n, r, transposed=True) for n in across])  # Xᵀ·dY
        narrow.append([point(r, n, n, rhs=True) for n in across])  # dY·Wᵀ
        narrow.append([point(r, n, n, transposed=True, rhs=True) for n in across])  # Aᵀ·Bᵀ
    return [square, *skinny, tall, grads, inputs, both, *narrow]


def _complex(real: ops.Cost) -> ops.Cost:
    """A complex matmul's cost from its real counterpart's: COMPLEX_FLOPS × its FLOPs, its
    bytes (already counted at the complex itemsize) as they are."""
    return dataclasses.replace(real, flops=COMPLEX_FLOPS * real.flops)


def _attentions(suite: Suite, dtype: str, b: int) -> list[list[Planned]]:
    """Causal attention forward and backward sweeps over sequence length, per head dim."""
    out = []
    for name in ("attention", "attention backward"):
        for d in suite.kernel_head_dims:
            sweep = []
            for s in suite.kernel_seqs:
                fwd = ops.attention(s, d, b)
                times = 1 if name == "attention" else 3  # the gradient reruns the forward
                model = ops.Cost(HEADS * times * fwd.flops, HEADS * fwd.bytes * (1 + times) / 2)
                label = f"{name} {dtype} seq {s} head dim {d}"
                sweep.append(Planned(name, label, dtype, ((1, s, HEADS, d),) * 3, name, model))
            out.append(sweep)
    return out


def _streams(suite: Suite, dtype: str, b: int) -> list[list[Planned]]:
    """Elementwise, transcendental, reduction and copy sweeps over element counts."""
    sizes = [n for n in suite.kernel_elements if n >= ROW]
    models = {
        "elementwise": lambda n: ops.elementwise(n, 2, 1, 4, b),
        "transcendental": lambda n: ops.elementwise(n, 1, 1, 2, b),  # exp, tanh: not FLOPs
        "reduction": lambda n: ops.Cost(n, (n + n // ROW) * b),
        "copy": lambda n: ops.Cost(0, 2 * n * b),
        "plain copy": lambda n: ops.Cost(0, 2 * n * b),
    }
    inputs = {"elementwise": 2, "transcendental": 1, "reduction": 1, "copy": 1, "plain copy": 1}
    sweeps = [
        [
            Planned(
                kind,
                f"{kind} {dtype} {n} elements",
                dtype,
                ((n // ROW, ROW),) * inputs[kind],
                kind,
                model(n),
            )
            for n in sizes
        ]
        for kind, model in models.items()
    ]
    return sweeps


def _column_reductions(suite: Suite, dtype: str, b: int) -> list[list[Planned]]:
    """x.sum(0) of (elements / w, w), each width w of COLUMN_WIDTHS over the element counts
    from 4w to COLUMN_MAX: its operand read once and w sums written."""
    out = []
    for w in COLUMN_WIDTHS:
        sizes = [n for n in suite.kernel_elements if 4 * w <= n <= COLUMN_MAX]
        kind = "column reduction"
        out.append(
            [
                Planned(
                    kind,
                    f"{kind} {dtype} {n} elements keeping {w}",
                    dtype,
                    ((n // w, w),),
                    kind,
                    ops.Cost(n, (n + w) * b),
                )
                for n in sizes
            ]
        )
    return out


def _transposes(suite: Suite, dtype: str, b: int) -> list[list[Planned]]:
    """Rank-4 permuted copies over element counts: a KV cache's layout change (0,2,3,1), its
    head dim moved off the minor end, and attention's head split (0,2,1,3), rows of head dim
    moved whole (TRANSPOSES)."""
    rows = math.prod(CACHE)
    shapes = [(CACHE[0], n // rows, *CACHE[1:]) for n in suite.kernel_elements if n >= rows]
    return [
        [
            Planned(
                kind,
                f"{kind} {dtype} {'x'.join(map(str, s))} ({','.join(map(str, order))})",
                dtype,
                (s,),
                kind,
                ops.Cost(0, 2 * math.prod(s) * b),
            )
            for s in shapes
        ]
        for kind, order in TRANSPOSES.items()
    ]


def _strided_transposes(suite: Suite, dtype: str, b: int) -> list[list[Planned]]:
    """(x + 1)ᵀ of each of B (S, S) matrices for each S of STRIDED_SIDES (a walk of S rows
    spanning S² elements: an attention head's, a weight gradient's tokens by width) over the
    element counts n from one matrix, B = n / S², read and written once: a fusion holding a
    broadcast that moves its minor dimension (permutes.strided_transpose), as a weight
    gradient's activations are moved with their derivative's chain."""
    kind = "strided transpose"
    out = []
    for side in STRIDED_SIDES:
        shapes = [(n // side**2, side, side) for n in suite.kernel_elements if n >= side**2]
        sweep = [
            Planned(
                kind,
                f"{kind} {dtype} {'x'.join(map(str, s))} plus one",
                dtype,
                (s,),
                kind,
                ops.Cost(math.prod(s), 2 * math.prod(s) * b),
            )
            for s in shapes
        ]
        out += [sweep] if sweep else []
    return out


def plan(suite: Suite, dtype: str) -> list[list[Planned]]:
    """Every sweep of dtype, each smallest first."""
    b = ITEMSIZE.get(dtype, 4)
    sweeps = _matmuls(suite, dtype, b)
    if dtype in MATMUL_ONLY:
        return sweeps
    others = [*kernel_windows.others(suite, dtype, b, ROW), *kernel_pools.pools(suite, dtype, b)]
    others += kernel_rows.rows(suite, dtype, b, ROW)
    others += kernel_factorizations.factorizations_of(suite, dtype, b)
    transposes = [*_transposes(suite, dtype, b), *_strided_transposes(suite, dtype, b)]
    streams = [*_streams(suite, dtype, b), *transposes, *others]
    streams += _column_reductions(suite, dtype, b)
    convolutions = kernel_windows.convolutions(suite, dtype, b)
    return [*sweeps, *convolutions, *_attentions(suite, dtype, b), *streams]


def in_loop(sweeps: list[list[Planned]]) -> list[list[Planned]]:
    """The stream sweeps among sweeps, twice (tied to the last result, and writing the result
    in place: Planned.in_place), and the square matmuls up to LOOP_MATMUL_MAX (a scan's
    step's), timed again as loop bodies' ops."""
    streams = [s for s in sweeps if s and s[0].kind in STREAMS]
    squares = [
        p
        for s in sweeps
        for p in s
        if p.fn == "matmul" and p.kind == "matmul" and len(set(p.shapes[0] + p.shapes[1])) == 1
    ]
    placed = [[dataclasses.replace(p, in_place=True) for p in s] for s in streams]
    return [*streams, *placed, [p for p in squares if p.shapes[0][0] <= LOOP_MATMUL_MAX]]
