"""The kernels suite's kernels over a table's or a matrix's rows: gathers and scatters of rows
of a table, the top-k, the argmax and the real FFT of each row.

A gather of rows of `row` floats from a table of TABLE_ROWS (above a CPU's last-level cache,
as an embedding is), at random rows, over the element counts gathered up to a quarter of the
table: an embedding lookup's kernel, whose rows miss the cache where a stream's are
prefetched; a scatter-add of as many rows into it (an embedding gradient's), timed as a loop
body's op into a table the loop carries. The TOP_K largest of rows of TOP_K_ROW
(jax.lax.top_k: a custom call on XLA:CPU, 6.3 ms for 2048 rows of 1024 floats there, where a
reduction of the same bytes takes about 0.3 ms), sized by its input and outputs' bytes. The
argmax of rows of ARG_ROW (a reduce of the values and their indices together): on XLA:CPU it
is not vectorized (1.6-1.8 ns per float32 read there, over rows of 256 to 50,000, where a max
of the same rows took 0.1-0.2), sized by its bytes. The real-input FFT of rows of FFT_ROW,
sized by the FLOPs XLA counts for it (8 n log2 n a row: on XLA:CPU 110-125 GFLOP/s by that
count for rows of 256 to 65,536 there, where its bytes ran at 7-14 GB/s).
"""

from __future__ import annotations

import math

from perfcore.measure.experiments.kernels.windows import Planned
from perfcore.measure.experiments.suites import Suite
from perfcore.model.chip import ops

TABLE_ROWS = 65536  # the gather's table: 64 MiB of float32 rows of 256
TOP_K, TOP_K_ROW = 8, 1024  # the top-k's k and row: an MoE router's or a sampler's shape
ARG_ROW = 1024  # the arg reduction's row: each row's argmax
FFT_ROW = 4096  # the fft's row: each row's real-input transform
FFT_DTYPES = ("float32", "float64")  # what jnp.fft.rfft takes


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
    n / 2 + 1 complex outputs written. Only in FFT_DTYPES: JAX's rfft refuses any other input
    (a bfloat16 one raised ValueError as it traced, and ended a TPU's suite), so no program
    runs one."""
    if dtype not in FFT_DTYPES:
        return []
    per_row, out = 8 * FFT_ROW * math.log2(FFT_ROW), (FFT_ROW // 2 + 1) * 2 * b

    def cost(n: int, rows: int) -> ops.Cost:
        return ops.Cost(rows * per_row, n * b + rows * out)

    return _rows(suite, dtype, "fft", FFT_ROW, f"rfft {dtype}", cost)


def rows(suite: Suite, dtype: str, b: int, row: int) -> list[list[Planned]]:
    """The gathers, top-ks, argmaxes and FFTs of dtype (the scatters are timed apart, as loop
    bodies' ops: kernels.CARRIED)."""
    sweeps = (
        gathers(suite, dtype, b, row),
        top_ks(suite, dtype, b),
        arg_reductions(suite, dtype, b),
        ffts(suite, dtype, b),
    )
    return [s for s in sweeps if s]


def _at(jnp, table, u):
    """Random rows of table, one per row of u, drawn in the step from u's first column."""
    return (jnp.abs(u[:, 0]) * 1e6).astype("int32") % table.shape[0]


def functions_of(jax, jnp) -> dict:
    """The jittable function of each kind this module plans, by its Planned.fn: the gather and
    the scatter-add (their rows' indices drawn in the step from their second input: `_at`),
    the top-k, the argmax and the real FFT."""
    return {
        "gather": lambda t, u: t[_at(jnp, t, u)],
        "scatter": lambda t, u: t.at[_at(jnp, t, u)].add(u),
        "top-k": lambda x: jax.lax.top_k(x, TOP_K),
        "arg reduction": lambda x: jnp.argmax(x, axis=-1),
        "fft": lambda x: jnp.fft.rfft(x, axis=-1),
    }
