"""measure.experiments.suites: suites sized per platform, sizes refused before allocating."""

import dataclasses

import pytest

from perfcore.measure.experiments import suites
from perfcore.measure.experiments.suites import SUITES, DeviceMemoryError


def test_require_fits_refuses_what_free_memory_cannot_hold():
    suites.require_fits(1e9, None, "unknown free memory")
    suites.require_fits(1e9, 2e9, "fits")
    with pytest.raises(DeviceMemoryError, match="refused before allocating"):
        suites.require_fits(1e9, 1.1e9, "matmul 8192")


def test_a_refusal_is_a_value_error_naming_what_was_refused():
    with pytest.raises(ValueError, match="matmul 8192 needs 1e\\+09 bytes"):
        suites.require_fits(1e9, 1e8, "matmul 8192")


def test_named_suites_are_capped_on_a_cpu_and_given_more_kernels_time_elsewhere():
    default = SUITES["default"]
    on_cpu = suites.resolve_suite("default", "cpu")
    assert max(on_cpu.matmul_sizes) <= suites.CPU_MAX_MATMUL < max(default.matmul_sizes)
    assert on_cpu.matmul_dtype == "float32"
    assert on_cpu.kernels_budget_s == default.kernels_budget_s == 120.0
    on_gpu = suites.resolve_suite("default", "gpu")
    assert on_gpu.kernels_budget_s == 240.0  # each point is a program of its own there
    on_tpu = suites.resolve_suite("default", "tpu")  # whose compiles take about a second
    assert on_tpu.kernels_budget_s == 480.0
    assert on_gpu.kernel_factorization_sides == ()  # cuSOLVER is not what XLA:CPU's LAPACK is
    assert on_cpu.kernel_factorization_sides == default.kernel_factorization_sides
    back = dataclasses.replace(on_gpu, kernels_budget_s=120.0, kernel_factorization_sides=(64,))
    assert back == dataclasses.replace(default, kernel_factorization_sides=(64,))  # nothing else
    custom = dataclasses.replace(SUITES["quick"], matmul_sizes=(10**6,))
    assert suites.resolve_suite(custom, "cpu") is custom
    with pytest.raises(ValueError, match="unknown suite"):
        suites.resolve_suite("huge", "cpu")


def test_every_cpu_cap_holds_on_a_cpu():
    on_cpu = suites.for_platform(SUITES["default"], "cpu")
    for field, cap in suites.CPU_CAPS.items():
        assert getattr(on_cpu, field) <= cap, field


def test_the_quick_suite_is_smaller_than_the_default_everywhere():
    quick, default = SUITES["quick"], SUITES["default"]
    assert max(quick.matmul_sizes) < min(default.matmul_sizes)
    assert quick.repeats < default.repeats and quick.budget_s < default.budget_s
