"""measure.experiments.kernel_rounds: a second pass's samples join the first's (on a CPU every
point's, the matmuls first), a sweep the backend refuses is dropped and named (no JAX)."""

import time
from types import SimpleNamespace

import pytest

from perfcore.measure.experiments import kernels as kernel_suite
from perfcore.measure.experiments.kernels import rounds as kernel_rounds
from tests.support.kernel_records import record


def test_the_chosen_points_second_pass_samples_join_the_first_and_others_keep_one_pass():
    def measure(env, point, share):
        return record(point, f"{point} again", [1e-3, 2e-3])

    first = [
        ("matmul", record("matmul", "matmul", [5e-3, 6e-3])),
        ("copy", record("copy", "copy", [5e-3])),
    ]
    deadline = time.perf_counter() + 60.0
    out = kernel_rounds.again(None, first, deadline, measure, lambda p: p == "matmul")
    assert out[0].measurement.samples == (5e-3, 6e-3, 1e-3, 2e-3)
    assert out[0].measurement.min == 1e-3 and out[0].notes == ("samples of two passes",)
    assert out[1] == first[1][1]


def test_a_cpus_second_pass_takes_every_point_the_matmuls_first(monkeypatch):
    measured = []

    def measure(env, point, share):
        measured.append(point.fn)
        return record(point.kind, f"{point.fn} again", [1e-3])

    monkeypatch.setattr(kernel_suite, "_measure", measure)
    points = [SimpleNamespace(fn=f, kind=k) for f, k in (("copy", "copy"), ("matmul", "matmul"))]
    first = [(p, record(p.kind, p.fn, [5e-3])) for p in points]
    out = kernel_suite._second_pass(None, first, time.perf_counter() + 60.0)
    assert measured == ["matmul", "copy"]
    assert [r.measurement.samples for r in out] == [(5e-3, 1e-3)] * 2
    assert [r.label for r in out] == ["copy", "matmul"]  # in the first pass's order


def test_a_point_whose_calls_would_not_fit_the_time_left_keeps_its_one_pass():
    slow = record("matmul", "matmul", [5.0, 5.0])
    out = kernel_rounds.again(None, [("matmul", slow)], time.perf_counter() + 1.0, None, bool)
    assert out == [slow]


class RuntimeFailure(Exception):
    """A stand-in for jax.errors.JaxRuntimeError: its runtime code as JAX gives it."""

    def __init__(self, code: str):
        super().__init__(f"{code}: Dot algorithm ALG_DOT_F16_F16_F32 is not supported.")
        self.error_code_string = code


def fake_env() -> SimpleNamespace:
    """What sweep reads of an Env: JAX's runtime error type and the suite's longest call."""
    jax = SimpleNamespace(errors=SimpleNamespace(JaxRuntimeError=RuntimeFailure))
    return SimpleNamespace(jax=jax, suite=SimpleNamespace(kernels_call_s=1.0))


def point(kind: str, dtype: str, side: int) -> SimpleNamespace:
    return SimpleNamespace(kind=kind, dtype=dtype, side=side)


def test_a_sweep_the_backend_will_not_compile_is_dropped_and_named_the_others_measured():
    def measure(env, p, share):
        if p.dtype == "float16" and p.kind == "attention":
            raise RuntimeFailure("UNIMPLEMENTED")
        return record(p.kind, f"{p.kind} {p.side}", [1e-4])

    attention = [point("attention", "float16", n) for n in (128, 256)]
    matmul = [point("matmul", "float16", n) for n in (64, 128)]
    refused = []
    deadline = time.perf_counter() + 60.0
    done = kernel_rounds.sweep(fake_env(), [attention, matmul], deadline, measure, refused)
    assert [r.label for _, r in done] == ["matmul 64", "matmul 128"]
    assert refused == ["attention in float16 (UNIMPLEMENTED)"]


def test_a_runtime_failure_that_is_not_a_refusal_stops_the_run():
    def measure(env, p, share):
        raise RuntimeFailure("RESOURCE_EXHAUSTED")

    deadline = time.perf_counter() + 60.0
    with pytest.raises(RuntimeFailure):
        kernel_rounds.sweep(fake_env(), [[point("matmul", "float32", 64)]], deadline, measure, [])


def test_a_sweep_is_measured_ends_first_then_the_middles_between():
    assert kernel_rounds.spread(0) == [] and kernel_rounds.spread(2) == [0, 1]
    assert kernel_rounds.spread(5) == [0, 4, 2, 1, 3]
    assert kernel_rounds.spread(9) == [0, 8, 4, 2, 6, 1, 3, 5, 7]
    assert sorted(kernel_rounds.spread(11)) == list(range(11))


def test_a_budget_cut_leaves_a_kind_measured_at_both_ends_and_the_result_smallest_first():
    sides = (64, 128, 256, 512, 1024)
    now, measured = [0.0], []

    def measure(env, p, share):
        measured.append(p.side)
        now[0] += 1.0  # each point takes a second of the budget
        return record(p.kind, f"{p.kind} {p.side}", [1e-4])

    sweeps = [[point("matmul", "float32", n) for n in sides]]
    real = kernel_rounds.time.perf_counter
    kernel_rounds.time.perf_counter = lambda: now[0]
    try:
        done = kernel_rounds.sweep(fake_env(), sweeps, 2.5, measure, [])
    finally:
        kernel_rounds.time.perf_counter = real
    assert measured == [64, 1024, 256]  # the budget ran out before the quarters
    assert [p.side for p, _ in done] == [64, 256, 1024]


def test_a_call_too_long_drops_the_larger_points_not_yet_measured_and_keeps_the_smaller():
    def measure(env, p, share):
        return record(p.kind, f"{p.kind} {p.side}", [2.0 if p.side >= 256 else 1e-4])

    sweeps = [[point("matmul", "float32", n) for n in (64, 128, 256, 512, 1024)]]
    done = kernel_rounds.sweep(fake_env(), sweeps, time.perf_counter() + 60, measure, [])
    # 64, then 1024 (too long, nothing larger left), 256 (too long: 512 dropped), then 128
    assert [p.side for p, _ in done] == [64, 128, 256, 1024]


def test_the_first_pass_leaves_the_loop_bodies_their_share_of_the_time_by_points():
    """Three points, then one timed as a loop body: the first pass ends three quarters of the
    way to the deadline (at 420 points it had taken all 120 s and the loop bodies none)."""
    start = time.perf_counter()
    ends = kernel_suite._by_points(start + 100.0, [["a", "b"], ["c"]], [["d"]])
    assert ends - start == pytest.approx(75.0, abs=0.05)
    assert kernel_suite._by_points(start + 100.0, [["a"]], []) - start == pytest.approx(
        100.0, abs=0.05
    )
