"""The kernels suite's kernels over a table's or a matrix's rows: gathers and scatters of rows
of a table, the top-k and the argmax of each row, and FFTs of rows and of images.

A gather of rows of `row` floats from a table of TABLE_ROWS (above a CPU's last-level cache,
as an embedding is), at random rows, over the element counts gathered up to a quarter of the
table: an embedding lookup's kernel, whose rows miss the cache where a stream's are
prefetched; a scatter-add of as many rows into it (an embedding gradient's), timed as a loop
body's op into a table the loop carries and as a program into a table donated to it; both
again over rows of SMALL_ROWS elements into a table of SMALL_TABLE rows (a histogram's, a
segment sum's: their second coordinate, the elements a row, kernel_kinds.SWEPT). The k largest
of rows of TOP_K_ROW for each k of
TOP_KS (jax.lax.top_k: a custom call on XLA:CPU, 6.3 ms for the 8 largest of 2048 rows of
1024 floats there, where a reduction of the same bytes takes about 0.3 ms), sized by its input
and outputs' bytes, its second coordinate the heap steps its k and row take
(kernel_kinds.heap_steps: 2,048 rows of 1,024 took 3.6, 7.0 and 25.6 ms for k = 1, 8 and
50 there). The
argmax of rows of ARG_ROW (a reduce of the values and their indices together): on XLA:CPU it
is not vectorized (1.6-1.8 ns per float32 read there, over rows of 256 to 50,000, where a max
of the same rows took 0.1-0.2), sized by its bytes. The real-input FFT of rows of FFT_ROW,
sized by its FLOPs, 8 N log2 N a transform of N points (ops.fft_flops; XLA's count in one
dimension: on XLA:CPU 110-125 GFLOP/s by it for rows of 256 to 65,536 there, where its bytes
ran at 7-14 GB/s); the complex FFT of those rows, and both of FFT_SIDE² images (rfft2, fft2),
each transform's points the image's (XLA counts a 2-D transform's FLOPs with the product of
its lengths' log2s, not their sum: 4.5× at 512×512). By that count, at 4 MiB of input, 256
complex rows of 4,096 ran at 27-52 GFLOP/s there and 16 complex 256×256 images at 34-76.
"""

from __future__ import annotations

import dataclasses
import math

from perfcore.measure.experiments.kernels.windows import Planned
from perfcore.measure.experiments.suites import Suite
from perfcore.model.chip import ops

TABLE_ROWS = 65536  # the gather's table: 64 MiB of float32 rows of 256
# Short rows, swept apart (kernel_kinds.SWEPT: each index's elements): on XLA:CPU an indexed
# row costs about a nanosecond however short, so a histogram's scalar updates ran at 7-18 GB/s
# here where rows of 256 ran at 45-58. Their table is a histogram's bins or a segment sum's
# segments, hit many times over and held in cache: a table of 64 MiB took 5-6 ns an update of
# one element against 0.6-0.7 ns into 4,096 rows (not swept).
SMALL_ROWS = (1, 16)
SMALL_TABLE = 4096
TOP_KS, TOP_K_ROW = (2, 8, 64), 1024  # the top-ks' k and row: a router's k to a sampler's
ARG_ROW = 1024  # the arg reduction's row: each row's argmax
FFT_ROW = 4096  # the fft's row: each row's transform
FFT_SIDE = 256  # the 2-D fft's image side
FFT_DTYPES = ("float32", "float64")  # what jnp.fft.rfft takes
COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}  # its complex transforms' dtype


def _indexed(suite: Suite, row: int) -> list[tuple[int, int]]:
    """(elements n, table rows) of the indexed sweeps over rows of `row`: an embedding's rows
    (ROW) into TABLE_ROWS of them, n up to a quarter of the table; a short row (SMALL_ROWS)
    into SMALL_TABLE rows hit many times over, at every other element count from a quarter of
    the table."""
    if row not in SMALL_ROWS:
        return [(n, TABLE_ROWS) for n in suite.kernel_elements if row <= n <= TABLE_ROWS * row // 4]
    sizes = [n for n in suite.kernel_elements if n >= SMALL_TABLE * row // 4][::2]
    return [(n, SMALL_TABLE) for n in sizes]


def gathers(suite: Suite, dtype: str, b: int, row: int) -> list[Planned]:
    """n / row random rows of a table (_indexed), for the suite's element counts n: the rows
    read (each of the table's once at most) and written, their indices (drawn in the step from
    a second input) read."""
    return [
        Planned(
            "gather",
            f"gather {dtype} {n // row} of {table} rows of {row}",
            dtype,
            ((table, row), (n // row, 1)),
            "gather",
            ops.Cost(0, (n + min(n, table * row) + n // row) * b),
        )
        for n, table in _indexed(suite, row)
    ]


def scatters(suite: Suite, dtype: str, b: int, row: int) -> list[list[Planned]]:
    """n / row rows added into a table at random rows (_indexed), for the gather's element
    counts n: the updates read, the rows they hit read and written (each of the table's once at
    most: a table hit many times over stays in cache), their indices (drawn in the step from
    the updates' first column) read, as judge.price counts a program's scatter. Timed on a host
    alone, as a loop body's op into a table the loop carries (kernel_loops.carried) and as a
    program of its own into a table it is donated (kernels._in_place)."""
    points = [
        Planned(
            "scatter",
            f"scatter-add {dtype} {n // row} rows into {table} rows of {row}",
            dtype,
            ((table, row), (n // row, row)),
            "scatter",
            ops.Cost(0, (n + 2 * min(n, table * row) + n // row) * b),
        )
        for n, table in _indexed(suite, row)
    ]
    return [points] if points else []


def _rows(
    suite: Suite, dtype: str, kind: str, row: int, name: str, cost, more: tuple = ()
) -> list[Planned]:
    """kind over rows of `row`, at every other element count n from one row: labelled `name`
    and its rows, costed cost(n, rows), its further operands' shapes `more`."""
    sizes = [n for n in suite.kernel_elements if n >= row][::2]
    return [
        Planned(
            kind,
            f"{name} {n // row} rows of {row}",
            dtype,
            ((n // row, row), *more),
            kind,
            cost(n, n // row),
        )
        for n in sizes
    ]


def top_ks(suite: Suite, dtype: str, b: int) -> list[list[Planned]]:
    """The k largest of each row of TOP_K_ROW for each k of TOP_KS, at every other element
    count: the rows read, the values written and their int32 indices. Its k rides as its
    second operand's length (the record's shapes then say it: kernel_kinds.heap_steps)."""
    return [
        _rows(
            suite,
            dtype,
            "top-k",
            TOP_K_ROW,
            f"top-{k} {dtype}",
            lambda n, r, k=k: ops.Cost(0, n * b + r * k * (b + 4)),
            ((k,),),
        )
        for k in TOP_KS
    ]


def arg_reductions(suite: Suite, dtype: str, b: int) -> list[Planned]:
    """The argmax of each row of ARG_ROW, at every other element count: the rows read, an
    int32 index written per row (its values, reduced beside the indices, are not written)."""
    name = f"argmax {dtype}"
    return _rows(
        suite, dtype, "arg reduction", ARG_ROW, name, lambda n, r: ops.Cost(0, n * b + r * 4)
    )


def _fft_cost(lengths: tuple[int, ...], real: bool, b: int):
    """cost(n, batch) of batch transforms of `lengths` over n elements in all, input elements
    of b bytes: ops.fft_flops (XLA's count in one dimension), the input read and the output
    written (a real input's last length halved plus one, complex of 2b bytes)."""
    kept = math.prod(lengths[:-1]) * (lengths[-1] // 2 + 1 if real else lengths[-1])
    out_b = 2 * b if real else b

    def cost(n: int, batch: int) -> ops.Cost:
        return ops.Cost(ops.fft_flops(lengths, batch), n * b + batch * kept * out_b)

    return cost


def ffts(suite: Suite, dtype: str, b: int) -> list[list[Planned]]:
    """FFTs at every other element count, sized by ops.fft_flops (_fft_cost): of each
    row of FFT_ROW and of each FFT_SIDE² image, real-input (rfft, rfft2) and complex (fft,
    fft2 of COMPLEX_OF[dtype]: a program's complex transforms). Only in FFT_DTYPES: JAX's rfft
    refuses any other input (a bfloat16 one raised ValueError as it traced, and ended a TPU's
    suite), so no program runs one."""
    if dtype not in FFT_DTYPES:
        return []
    wide = COMPLEX_OF[dtype]
    sweeps = []
    for fn, name, of, width in (
        ("fft", "rfft", dtype, b),
        ("complex fft", "fft", wide, 2 * b),
    ):
        real = fn == "fft"
        rows = _rows(suite, of, "fft", FFT_ROW, f"{name} {of}", _fft_cost((FFT_ROW,), real, width))
        sweeps.append([dataclasses.replace(p, fn=fn) for p in rows])
        square = (FFT_SIDE, FFT_SIDE)
        cost = _fft_cost(square, real, width)
        images = [n // FFT_SIDE**2 for n in suite.kernel_elements if n >= FFT_SIDE**2][::2]
        sweeps.append(
            [
                Planned(
                    "fft",
                    f"{name}2 {of} {k} images of {FFT_SIDE}x{FFT_SIDE}",
                    of,
                    ((k, *square),),
                    f"{fn}2",
                    cost(k * FFT_SIDE**2, k),
                )
                for k in images
            ]
        )
    return [s for s in sweeps if s]


def rows(suite: Suite, dtype: str, b: int, row: int) -> list[list[Planned]]:
    """The gathers (of rows of `row` and of SMALL_ROWS), top-ks, argmaxes and FFTs of dtype (the
    scatters are timed apart, as loop bodies' ops: kernels.CARRIED)."""
    sweeps = (
        *(gathers(suite, dtype, b, r) for r in (row, *SMALL_ROWS)),
        *top_ks(suite, dtype, b),
        arg_reductions(suite, dtype, b),
    )
    return [*(s for s in sweeps if s), *ffts(suite, dtype, b)]


def _at(jnp, table, u):
    """Random rows of table, one per row of u, drawn in the step from u's first column."""
    return (jnp.abs(u[:, 0]) * 1e6).astype("int32") % table.shape[0]


def functions_of(jax, jnp) -> dict:
    """The jittable function of each kind this module plans, by its Planned.fn: the gather and
    the scatter-add (their rows' indices drawn in the step from their second input: `_at`),
    the top-k (its k its second operand's length), the argmax and the FFTs (real-input and
    complex, of rows and of images)."""
    return {
        "gather": lambda t, u: t[_at(jnp, t, u)],
        "scatter": lambda t, u: t.at[_at(jnp, t, u)].add(u),
        "top-k": lambda x, k: jax.lax.top_k(x, k.shape[0]),
        "arg reduction": lambda x: jnp.argmax(x, axis=-1),
        "fft": lambda x: jnp.fft.rfft(x, axis=-1),
        "fft2": jnp.fft.rfft2,
        "complex fft": lambda x: jnp.fft.fft(x, axis=-1),
        "complex fft2": jnp.fft.fft2,
    }
