"""Fourteen programs written at stop 52 to look for ops no kernel curve prices, before
anything was built for them: a depthwise, a strided, a transposed and a 3-D convolution, a
complex matmul, a scatter-add and a segment sum, a GRU's scan, normal draws inside a step, a
fori_loop of slices, a while loop, an associative scan, a bilinear resize and a bincount.
Measured then (curves of that day, fastest of 2 rounds of 30 calls, quiet): depthwise −98 %
(its own kind since, +1 %), complex matmul −79 % (8 FLOPs a multiply-add since, −49 %), 3-D
convolution −77 %, strided −36 %, fori_loop of slices +270 %, while loop +105 %; the rest
within 45 % (docs/profile.md, "Ops no curve priced"). bench/predict_zoo.py times them
(`--only NAME`).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from bench.zoo_batched import draw

NHWC = ("NHWC", "HWIO", "NHWC")


def _conv(strides, labels=NHWC, **options):
    """jax.lax.conv_general_dilated at `strides`, SAME padding, jitted."""
    conv = jax.lax.conv_general_dilated
    return jax.jit(
        functools.partial(
            conv, window_strides=strides, padding="SAME", dimension_numbers=labels, **options
        )
    )


def depthwise_conv():
    """A depthwise 3×3 convolution (one filter a channel) over 8 images of 64×64×128."""
    x, w = draw(1, 8, 64, 64, 128, scale=1.0), draw(2, 3, 3, 1, 128, scale=0.3)
    return _conv((1, 1), feature_group_count=128), (x, w)


def strided_conv():
    """A 3×3 convolution of stride 2 from 64 to 128 channels over 16 images of 64×64."""
    x, w = draw(3, 16, 64, 64, 64, scale=1.0), draw(4, 3, 3, 64, 128, scale=0.05)
    return _conv((2, 2)), (x, w)


def conv_transpose():
    """A transposed 3×3 convolution of stride 2 (an upsampling layer), 64 channels, 8 images
    of 32×32 to 64×64."""
    x, w = draw(5, 8, 32, 32, 64, scale=1.0), draw(6, 3, 3, 64, 64, scale=0.05)
    up = functools.partial(
        jax.lax.conv_transpose, strides=(2, 2), padding="SAME", dimension_numbers=NHWC
    )
    return jax.jit(up), (x, w)


def conv3d():
    """A 3×3×3 convolution of 32 channels over 2 volumes of 16×32×32."""
    x, w = draw(7, 2, 16, 32, 32, 32, scale=1.0), draw(8, 3, 3, 3, 32, 32, scale=0.05)
    return _conv((1, 1, 1), ("NDHWC", "DHWIO", "NDHWC")), (x, w)


def complex_matmul():
    """A 512 × 512 complex64 matrix product."""
    a = (draw(9, 512, 512, scale=1.0) + 1j * draw(10, 512, 512, scale=1.0)).astype(jnp.complex64)
    b = (draw(11, 512, 512, scale=1.0) + 1j * draw(12, 512, 512, scale=1.0)).astype(jnp.complex64)
    return jax.jit(jnp.matmul), (a, b)


def scatter_add():
    """An embedding table's gradient: 16,384 rows of width 512 added into 32,000 rows."""
    rows = jax.random.randint(jax.random.key(13), (16384,), 0, 32000)
    grads = draw(14, 16384, 512, scale=1.0)

    @jax.jit
    def scatter(rows, grads):
        return jnp.zeros((32000, 512)).at[rows].add(grads)

    return scatter, (rows, grads)


def segment_sum():
    """65,536 rows of width 64 summed into 1,024 sorted segments."""
    ids = jnp.sort(jax.random.randint(jax.random.key(15), (65536,), 0, 1024))
    x = draw(16, 65536, 64, scale=1.0)

    @jax.jit
    def segments(ids, x):
        return jax.ops.segment_sum(x, ids, 1024)

    return segments, (ids, x)


def gru_scan():
    """A GRU over 64 steps (lax.scan), batch 32, width 256."""
    w, u, xs = draw(17, 256, 768, scale=0.05), draw(18, 256, 768, scale=0.05), draw(19, 64, 32, 256)

    @jax.jit
    def gru(w, u, xs):
        def cell(h, x):
            a, b = x @ w, h @ u
            z = jax.nn.sigmoid(a[:, :256] + b[:, :256])
            r = jax.nn.sigmoid(a[:, 256:512] + b[:, 256:512])
            n = jnp.tanh(a[:, 512:] + r * b[:, 512:])
            h = (1 - z) * n + z * h
            return h, h

        return jax.lax.scan(cell, jnp.zeros((32, 256)), xs)[1]

    return gru, (w, u, xs)


def rng_inside():
    """Normal noise drawn inside the step (threefry) and added to a 2,048 × 2,048 array."""
    x = draw(20, 2048, 2048, scale=1.0)

    @jax.jit
    def noisy(x):
        return x + jax.random.normal(jax.random.key(0), x.shape)

    return noisy, (x,)


def fori_slices():
    """A fori_loop of 64 trips, each adding a 64 × 256 slice of a 4,096 × 256 array."""
    x = draw(21, 4096, 256, scale=1.0)

    @jax.jit
    def total(x):
        def add(i, acc):
            return acc + jax.lax.dynamic_slice(x, (i * 64, 0), (64, 256))

        return jax.lax.fori_loop(0, 64, add, jnp.zeros((64, 256)))

    return total, (x,)


def while_newton():
    """Square roots of 1,048,576 numbers by 20 Newton steps in a while loop."""
    x = jnp.abs(draw(22, 1048576, scale=1.0)) + 1.0

    @jax.jit
    def roots(x):
        def step(c):
            return 0.5 * (c[0] + x / c[0]), c[1] + 1

        return jax.lax.while_loop(lambda c: c[1] < 20, step, (x, 0))[0]

    return roots, (x,)


def assoc_scan():
    """A linear recurrence h = a h + b over 2,048 steps by an associative scan (a state-space
    layer's), 16 sequences of width 256."""
    a = jax.nn.sigmoid(draw(23, 16, 2048, 256, scale=1.0))
    b = draw(24, 16, 2048, 256, scale=1.0)

    @jax.jit
    def scan(a, b):
        def combine(left, right):
            return left[0] * right[0], right[0] * left[1] + right[1]

        return jax.lax.associative_scan(combine, (a, b), axis=1)[1]

    return scan, (a, b)


def resize():
    """A bilinear resize of 8 images of 64×64×32 to 128×128."""
    x = draw(25, 8, 64, 64, 32, scale=1.0)

    @jax.jit
    def up(x):
        return jax.image.resize(x, (8, 128, 128, 32), "bilinear")

    return up, (x,)


def bincount():
    """Counts of 1,048,576 integers in 4,096 bins."""
    values = jax.random.randint(jax.random.key(26), (1048576,), 0, 4096)

    @jax.jit
    def count(values):
        return jnp.bincount(values, length=4096)

    return count, (values,)


KINDS = (
    depthwise_conv,
    strided_conv,
    conv_transpose,
    conv3d,
    complex_matmul,
    scatter_add,
    segment_sum,
    gru_scan,
    rng_inside,
    fori_slices,
    while_newton,
    assoc_scan,
    resize,
    bincount,
)
