"""A weight gradient's convolution priced at its reduced volume (batch x image: the elements
each of its outputs sums), read from the program's own HLO.

A CNN layer's filter gradient, jax.grad of a 3×3 SAME convolution of (16, 32, 32, 32) by
(3, 3, 32, 64) with respect to the filter, on hand-made curves (1e9 FLOP/s): its sweeps at
8,192 (efficiency 0.4) and 16,384 (0.2).
"""

import jax
import jax.numpy as jnp
import pytest

from perfcore.measure.profile.predict import program
from perfcore.model.chip import kernels

NHWC = ("NHWC", "HWIO", "NHWC")


def filter_gradient(x, w):
    def out(w):
        return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=NHWC).sum()

    return jax.grad(out)(w)


def _curves() -> kernels.Curves:
    points = tuple(
        kernels.Point("convolution filter", "float32", s, e, sweep=v)
        for v, e in ((8192, 0.4), (16384, 0.2))
        for s in (1e2, 1e12)
    )
    return kernels.Curves("cpu", "2026-12-05", points, (("float32", 1e9),), 1e9, "hand")


def test_the_filter_gradient_of_a_batch_of_16_32x32_images_reduces_16384_per_output():
    x, w = jnp.ones((16, 32, 32, 32)), jnp.ones((3, 3, 32, 64))
    got = program.predict(filter_gradient, x, w, curves=_curves())
    (op,) = [o for o in got.ops if o.kernel == "convolution filter"]
    assert "reduced volume 16,384, on the 16,384 sweep" in op.derived_from
    assert op.efficiency == pytest.approx(0.2)
