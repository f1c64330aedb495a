"""measure.experiments.kernel_traced: kernels timed by the profiler, on CPU JAX standing in for
an accelerator (jax tier). No timing thresholds: each call's device time lies inside the
call's own wall, and the suite's accelerator branch gives every kernel point those times."""

import dataclasses
import shutil

import jax
import jax.numpy as jnp
import pytest

from perfcore.measure.clock import harness
from perfcore.measure.experiments import kernels as kernel_suite
from perfcore.measure.experiments.env import Env, detect
from perfcore.measure.experiments.kernels import launches as kernel_launches
from perfcore.measure.experiments.kernels import sweeps as kernel_plan
from perfcore.measure.experiments.kernels import traced as kernel_traced
from perfcore.measure.experiments.suites import SUITES
from perfcore.measure.results import curves

SUITE = dataclasses.replace(SUITES["quick"], kernel_dtypes=("float32",), repeats=5)


def env_on(backend: str) -> Env:
    """JAX on its default device (the CPU here), said to be `backend`."""
    return Env(jax, jnp, dataclasses.replace(detect(), backend=backend), SUITE, lambda _: None)


def points(names: tuple[str, ...]) -> list[list]:
    """The float32 sweeps of SUITE whose function is one of names, each cut to its smallest."""
    return [s[:1] for s in kernel_plan.plan(SUITE, "float32") if s and s[0].fn in names]


def test_each_call_under_the_trace_becomes_its_device_time_inside_its_wall():
    env = env_on("cpu")
    with kernel_traced.Trace(jax) as trace:
        walled = [kernel_suite._measure(env, p, 0.2, trace) for (p,) in points(("matmul", "copy"))]
    profiled = trace.profiled(walled)
    assert [r.label for r in profiled] == [r.label for r in walled]
    for wall, device in zip(walled, profiled, strict=True):
        assert wall.measurement.method == harness.ISOLATED
        assert device.measurement.method == harness.PROFILED
        assert device.measurement.warmup == wall.measurement.warmup
        # one sample per timed call, the warm-up calls left out: each inside its call's wall
        inside, outside = device.measurement.samples, wall.measurement.samples
        assert len(inside) == len(outside)
        assert all(0 < i <= o for i, o in zip(inside, outside, strict=True))
    assert len(set(trace.programs.values())) == len(walled)  # a program of its own each


def test_a_point_the_trace_does_not_hold_keeps_its_wall_and_says_so():
    env = env_on("cpu")
    (point,) = points(("copy",))[0]
    record = kernel_suite._measure(env, point, 0.1)
    kept = kernel_traced.profiled(record, None)
    assert kept.measurement == record.measurement
    assert kept.notes[-1] == kernel_traced.UNTRACED


def test_on_an_accelerator_the_suite_profiles_every_kernel_point(monkeypatch):
    chosen = points(("matmul", "elementwise"))
    monkeypatch.setattr(kernel_suite, "plan", lambda suite, dtype: chosen)
    compile_case = kernel_suite.compile_case

    def own_count(*args, **kw):  # a compiler that counts bytes its own way (XLA:TPU's)
        case = compile_case(*args, **kw)
        return dataclasses.replace(case, bytes=3 * case.bytes)

    monkeypatch.setattr(kernel_suite, "compile_case", own_count)
    monkeypatch.setattr(kernel_launches, "LARGE_RESULTS_MIB", (1, 2))  # small, on this host
    records = kernel_suite.run(env_on("gpu"))
    methods = {r.kernel: r.measurement.method for r in records}
    launches = ("dispatch", curves.DISPATCH_RESULTS)
    assert {*launches, "matmul", "elementwise"} <= set(methods)
    for launch in launches:  # a launch is the host's wall
        assert methods.pop(launch) == harness.ISOLATED
    # a large result's launch twice: its wall, and under the trace its device time alone
    del methods[curves.DISPATCH_BYTES]
    large = [r for r in records if r.kernel == curves.DISPATCH_BYTES]
    assert sorted((r.bytes, r.measurement.method) for r in large) == [
        (2.0**20, harness.PROFILED),
        (2.0**20, harness.ISOLATED),
        (2.0**21, harness.PROFILED),
        (2.0**21, harness.ISOLATED),
    ]
    added = curves.dispatch_bytes_fit(tuple(records), curves.dispatch_fit(tuple(records))[0])
    assert [b for b, _ in added] == [2.0**20, 2.0**21] and all(s >= 0 for _, s in added)
    assert set(methods.values()) == {harness.PROFILED}
    assert {(r.threads, r.cache_bytes) for r in records} == {(None, None)}  # no host's columns
    # a profiled point paid no launch: its fastest call is its kernel time as it is
    timed = [r for r in records if r.kernel not in (*launches, curves.DISPATCH_BYTES)]
    fit = curves.dispatch_fit(tuple(records))
    for r in timed:
        assert curves.kernel_seconds(r, fit) == pytest.approx(r.measurement.min)
        # its bytes as a prediction counts an op's (its operands and result: the model's),
        # not as the compiler counts them
        assert r.bytes == r.bytes_model


def test_a_hosts_lapack_point_is_its_custom_calls_time_alone(tmp_path):
    """A Cholesky and a triangular solve timed under one trace, read with their custom calls'
    events alone (as the suite's host branch reads them) and, from a copy of the same trace,
    with every op's: each program holds ops around its LAPACK call (a copy into column-major
    order, a select over the result), so each call's routine alone takes more than 0 and less
    than all of its ops; a program's own copies and selects are priced as ops of their own."""
    env = env_on("cpu")
    chosen = [
        s[0]
        for s in kernel_plan.plan(SUITE, "float32")
        if s and s[0].fn in ("cholesky", "triangular solve")
    ][:2]
    assert {p.fn for p in chosen} == {"cholesky", "triangular solve"}
    with kernel_traced.Trace(jax) as trace:
        walled = [kernel_suite._measure(env, p, 0.2, trace) for p in chosen]
    modules = [trace.programs[r.label] for r in walled]
    assert set(modules) == trace.calls_only
    every = kernel_traced.Trace(jax)
    every.folder = str(tmp_path / "copy")
    shutil.copytree(trace.folder, every.folder)
    alone, whole = trace.device_times(), every.device_times()
    for module in modules:
        assert len(alone[module]) == len(whole[module]) > 0
        assert all(0 < a < w for a, w in zip(alone[module], whole[module], strict=True))
    for record, module in zip(walled, modules, strict=True):
        profiled = kernel_traced.profiled(record, alone[module])
        assert profiled.measurement.method == harness.PROFILED
        assert profiled.measurement.samples == tuple(alone[module][record.measurement.warmup :])
