"""A complex matmul on its own curve: a host's suite times complex64 square matmuls, each
sized by its real FLOPs (8·M·N·K, as a prediction counts a complex dot), and a program's
complex dot reads that curve, not float32's.

jax tier: one 32² point timed on JAX's CPU backend and a complex product compiled there; no
timing thresholds. Measured here before: a 512² complex64 product took 10.7 ms, predicted
6.0 ms on float32's matmul curve by its real FLOPs (−44 %).
"""

import dataclasses

import jax
import jax.numpy as jnp
import pytest

from perfcore.measure.experiments import kernels as kernel_suite
from perfcore.measure.experiments import runner
from perfcore.measure.experiments.kernels import sweeps as kernel_plan
from perfcore.measure.experiments.suites import SUITES, for_platform
from perfcore.measure.profile.predict import program
from perfcore.model.chip import kernels

SUITE = for_platform(SUITES["kernels"], "cpu")


def test_a_hosts_suite_plans_complex64_square_matmuls_alone_by_their_real_flops():
    assert "complex64" in SUITE.kernel_dtypes
    sweeps = [s for s in kernel_plan.plan(SUITE, "complex64") if s]
    (square,) = sweeps
    assert {(p.kind, p.fn, p.dtype) for p in square} == {("matmul", "matmul", "complex64")}
    assert [p.shapes[0][0] for p in square] == [n for n in SUITE.kernel_sides if n <= 512]
    for p in square:
        (n, k), (k2, m) = p.shapes
        assert n == k == k2 == m
        assert p.model.flops == 8 * n**3  # 4 real multiplies and 4 adds a complex multiply-add
        assert p.model.bytes == 3 * n * n * 8  # three matrices of 8-byte elements


def test_a_complex_point_is_recorded_at_its_real_flops_said_so():
    tiny = dataclasses.replace(SUITE, repeats=3)
    env = runner.Env(jax, jnp, runner.detect({}), tiny, lambda message: None)
    point = kernel_plan.plan(tiny, "complex64")[0][0]
    record = kernel_suite._measure(env, point, 0.2)
    n = point.shapes[0][0]
    assert (record.dtype, record.kernel, record.flops) == ("complex64", "matmul", 8.0 * n**3)
    assert record.flops_source == "model"
    assert "FLOPs a complex matmul's real ones" in record.notes[0]
    looped = kernel_suite._measure_in_loop(env, point, 0.2)  # a scan's step's, as a loop body's
    assert looped.flops == 8.0 * n**3 and looped.flops_source == "model"


def test_a_programs_complex_dot_reads_the_complex_curve_at_its_real_flops():
    a = jnp.ones((64, 64), jnp.complex64)
    points = tuple(
        kernels.Point("matmul", dtype, size, e)
        for dtype, e in (("float32", 0.8), ("complex64", 0.2))
        for size in (1e3, 1e12)
    )
    roofs = (("float32", 1e11), ("complex64", 1e11))
    curves = kernels.Curves("cpu", "2026-12-07", points, roofs, 1e11, "hand")
    got = program.predict(jnp.matmul, a, a, curves=curves)
    (dot,) = [o for o in got.ops if o.kernel == "matmul"]
    assert dot.dtype == "complex64" and dot.flops == pytest.approx(8 * 64**3)
    assert dot.predicted_s == pytest.approx(8 * 64**3 / 1e11 / 0.2)
    assert "matmul complex64" in dot.derived_from and "no complex64 curve" not in dot.derived_from
