"""perfcore.measure.experiments.runner and classic: every classic experiment on CPU JAX at small
sizes, the lock, the CLI."""

import dataclasses
import math
import subprocess
import sys
import threading
import time

import jax  # a hard dependency: without it this module fails to import, it does not skip
import pytest

from perfcore.cli import main
from perfcore.explain.measure import measure_clock as clock
from perfcore.measure import results
from perfcore.measure.clock import devices, lock
from perfcore.measure.experiments import classic, registry, runner
from perfcore.measure.experiments.suites import SUITES, DeviceMemoryError

QUICK = SUITES["quick"]
# The experiments this module runs (others register their own, tested in their own files).
OWN = tuple(n for n, e in registry.EXPERIMENTS.items() if e.runner.__module__ == classic.__name__)


def test_importing_perfcore_does_not_import_jax():
    code = (
        "import sys, perfcore, perfcore.measure.experiments.runner, perfcore.measure.results, "
        "perfcore.measure.experiments.registry, "
        "perfcore.cli, perfcore.measure.clock.devices, perfcore.measure.experiments.suites, "
        "perfcore.measure.results.points; sys.exit('jax' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


@pytest.fixture(scope="module")
def quick_run():
    """Every experiment once with the quick suite, and the progress it reported."""
    reported = []
    records = runner.run_suite(
        "quick", experiments=OWN, progress=lambda f, m: reported.append((f, m))
    )
    return records, reported


def test_every_experiment_returns_sane_measurements(quick_run):
    records, _ = quick_run
    assert {r.experiment for r in records} == set(OWN) and len(OWN) == 9
    for r in records:
        m = r.measurement
        assert all(math.isfinite(s) and s > 0 for s in m.samples), r.label
        assert m.min <= m.median <= m.max
        assert (r.backend, r.device, r.spec_name) == ("cpu", "cpu", "")


def test_matmul_flops_from_cost_analysis_agree_with_the_model(quick_run):
    matmuls = [r for r in quick_run[0] if "matmul" in r.label]
    assert len(matmuls) >= len(QUICK.matmul_sizes)
    for r in matmuls:
        assert r.flops_source == "cost_analysis"
        assert devices.crosscheck(r.flops, r.flops_model), r.label
        assert r.precision == "fp32"


def test_the_sweep_marks_a_regime_for_every_size(quick_run):
    sized = [r for r in quick_run[0] if r.experiment == "sweep" and r.label != "empty call"]
    assert [r.label for r in sized] == [f"matmul {n}" for n in QUICK.matmul_sizes]
    assert all(r.regime in ("overhead", "utilisation", "compute roof") for r in sized)
    assert [r.size for r in sized] == list(QUICK.matmul_sizes)


def test_methods_are_recorded_as_the_timing_lessons_describe(quick_run):
    by_label = {(r.experiment, r.label): r.measurement for r in quick_run[0]}
    assert not by_label["timer", "naive timer"].synced
    assert by_label["timer", "synchronized"].synced
    assert by_label["blocking", "block every call"].calls_per_sample == QUICK.loop_calls
    assert by_label["compile", "first call"].warmup == 0


def test_the_compile_note_gives_the_ratio_the_page_shows(quick_run):
    """One statistic per record (min of isolated first calls, mean of the steady loop): the
    record's note and the Measure page's compile pair divide the same two numbers."""
    (pair,) = [p for p in clock.pairs(quick_run[0]) if p.title == "compile vs steady state"]
    first = next(r for r in quick_run[0] if (r.experiment, r.label) == ("compile", "first call"))
    assert pair.b_s == first.measurement.min
    assert f"first call / steady step = {pair.b_s / pair.a_s:.0f} (min of" in first.note


def test_progress_runs_from_zero_to_one_without_going_back(quick_run):
    fractions = [f for f, _ in quick_run[1]]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    assert fractions == sorted(fractions)


def test_real_records_round_trip_through_the_results_file(quick_run, tmp_path):
    for suffix in (".json", ".csv"):
        path = results.save_results(quick_run[0], tmp_path / f"quick{suffix}")
        assert results.load_results(path) == quick_run[0]


def test_unblocked_timer_sees_dispatch_blocked_timer_sees_the_matmul():
    suite = dataclasses.replace(QUICK, dispatch_sizes=(512,), repeats=10)
    naive, blocked = runner.run_suite(suite, experiments=("dispatch",))
    assert naive.label == "dispatch 512" and blocked.label == "compute 512"
    assert naive.size == blocked.size == 512
    assert naive.measurement.min * 5 < blocked.measurement.min


def test_an_oversized_matmul_is_refused_before_allocating():
    huge = dataclasses.replace(QUICK, matmul_sizes=(300_000,))  # 3 x 360 GB of float32
    start = time.perf_counter()
    with pytest.raises(DeviceMemoryError, match="matmul 300000x300000x300000 float32"):
        runner.run_suite(huge, experiments=("sweep",))
    assert time.perf_counter() - start < 10
    assert not any(a.size > 10**8 for a in jax.live_arrays())


def test_the_lock_serializes_two_concurrent_runs():
    a_started, b_waiting = threading.Event(), threading.Event()
    spans, waits = {}, []

    def run(name: str) -> None:
        stamps = []

        def progress(fraction: float, message: str) -> None:
            stamps.append(time.perf_counter())
            if name == "a" and len(stamps) == 1:
                a_started.set()
                assert b_waiting.wait(10)  # hold the lock until b is queued behind it

        def waiting(message: str) -> None:
            waits.append((name, message))
            b_waiting.set()

        runner.run_suite(
            "quick", experiments=("blocking",), progress=progress, wait_callback=waiting
        )
        spans[name] = (stamps[0], stamps[-1])

    first = threading.Thread(target=run, args=("a",))
    first.start()
    assert a_started.wait(30)
    second = threading.Thread(target=run, args=("b",))
    second.start()
    first.join(60)
    second.join(60)
    assert waits == [("b", lock.WAITING)]
    assert spans["a"][1] <= spans["b"][0]
    assert not lock.measurement_in_progress()


def test_measure_command_writes_a_loadable_results_file(tmp_path, capsys):
    out = tmp_path / "timer.csv"
    code = main(["measure", "--suite", "quick", "--experiment", "timer", "--out", str(out)])
    assert code == 0
    assert [r.label for r in results.load_results(out)] == ["naive timer", "synchronized"]
    captured = capsys.readouterr()
    assert "100%" in captured.err and "synchronized" in captured.out


def test_measure_command_refuses_bad_arguments_before_measuring(tmp_path, capsys):
    assert main(["measure", "--out", str(tmp_path / "r.txt")]) == 2
    assert main(["measure", "--suite", "huge", "--out", str(tmp_path / "r.json")]) == 2
    assert main(["measure", "--list"]) == 0
    assert "quick" in capsys.readouterr().out


def _fail(env):
    """A registered experiment that raises inside the run (a fault in the middle of a run)."""
    env.tick("about to fail")
    raise RuntimeError("injected fault")


def test_an_exception_inside_a_run_releases_the_lock(monkeypatch):
    broken = registry.Experiment("broken", "fails", _fail, lambda s: 1)
    monkeypatch.setitem(registry.EXPERIMENTS, "broken", broken)
    with pytest.raises(RuntimeError, match="injected fault"):
        runner.run_suite("quick", experiments=("timer", "broken"))
    assert not lock.measurement_in_progress()
    assert len(runner.run_suite("quick", experiments=("timer",))) == 2  # the next run works


def test_a_run_stopped_mid_way_releases_the_lock():
    def stop(fraction: float, message: str) -> None:
        if fraction > 0.3:
            raise KeyboardInterrupt  # how a stopped script run unwinds (Streamlit's StopException)

    with pytest.raises(KeyboardInterrupt):
        runner.run_suite("quick", experiments=("timer", "blocking"), progress=stop)
    assert not lock.measurement_in_progress()


def test_a_backend_that_fails_to_start_releases_the_lock(monkeypatch):
    def gone(specs=None):
        raise RuntimeError("Unable to initialize backend 'cuda'")

    monkeypatch.setattr(runner, "detect", gone)
    with pytest.raises(RuntimeError, match="initialize backend"):
        runner.run_suite("quick", experiments=("timer",))
    assert not lock.measurement_in_progress()


def test_a_run_that_fails_while_another_waits_lets_the_other_finish(monkeypatch):
    broken = registry.Experiment("broken", "fails", _fail, lambda s: 1)
    monkeypatch.setitem(registry.EXPERIMENTS, "broken", broken)
    queued, finished = threading.Event(), []

    def failing() -> None:
        def hold(fraction: float, message: str) -> None:
            assert queued.wait(10)  # fail only once the other run is waiting for the lock

        with pytest.raises(RuntimeError, match="injected fault"):
            runner.run_suite("quick", experiments=("broken",), progress=hold)

    first = threading.Thread(target=failing)
    first.start()
    while not lock.measurement_in_progress():
        time.sleep(0.01)
    waiting = lambda message: queued.set()  # noqa: E731
    finished += runner.run_suite("quick", experiments=("timer",), wait_callback=waiting)
    first.join(30)
    assert queued.is_set() and [r.label for r in finished] == ["naive timer", "synchronized"]
    assert not lock.measurement_in_progress()
