"""perfcore.jax_bench: device detection (pure), and every experiment on CPU JAX, small sizes."""

import dataclasses
import math
import subprocess
import sys
import threading
import time

import pytest

from perfcore import jax_bench, measure_cli, results
from perfcore.jax_bench import SUITES, DeviceMemoryError
from perfcore.specs import Device

QUICK = SUITES["quick"]


def device(name: str, vendor: str = "NVIDIA") -> Device:
    return Device(name, vendor, 2022)


SPECS = {d.name: d for d in map(device, [
    "NVIDIA H100 SXM", "NVIDIA H100 PCIe", "NVIDIA H100 SXM (seed)", "NVIDIA A100 SXM4 80GB",
    "NVIDIA A100 PCIe 40GB", "NVIDIA A10", "NVIDIA GeForce RTX 4090", "NVIDIA H200 SXM",
])} | {"Google TPU v4": device("Google TPU v4", "Google")}  # fmt: skip


@pytest.mark.parametrize(
    ("device_kind", "expected"),
    [
        ("NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM"),
        ("NVIDIA H100 PCIe", "NVIDIA H100 PCIe"),
        ("NVIDIA A100-SXM4-80GB", "NVIDIA A100 SXM4 80GB"),
        ("NVIDIA A100-PCIE-40GB", "NVIDIA A100 PCIe 40GB"),
        ("NVIDIA A10", "NVIDIA A10"),
        ("NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090"),
        ("NVIDIA H200", "NVIDIA H200 SXM"),
        ("TPU v4", "Google TPU v4"),
    ],
)
def test_match_device_finds_the_specs_row_a_device_kind_names(device_kind, expected):
    assert jax_bench.match_device(device_kind, SPECS).name == expected


@pytest.mark.parametrize("device_kind", ["cpu", "NVIDIA A100-SXM4-40GB", "NVIDIA A100 80GB PCIe"])
def test_match_device_says_unknown_rather_than_guess(device_kind):
    assert jax_bench.match_device(device_kind, SPECS) is None


@pytest.mark.parametrize(
    ("dtype", "platform", "setting", "matmul", "cc", "expected"),
    [
        ("float32", "cpu", None, True, None, "fp32"),
        ("float32", "gpu", None, True, "9.0", "tf32"),
        ("float32", "gpu", None, True, "7.0", "fp32"),
        ("float32", "gpu", "highest", True, "9.0", "fp32"),
        ("float32", "gpu", "bfloat16", True, "9.0", "bf16"),
        ("float32", "gpu", None, False, "9.0", "fp32"),
        ("bfloat16", "gpu", None, True, "9.0", "bf16"),
        ("float32", "tpu", None, True, None, "bf16"),
    ],
)
def test_precision_ran_names_the_roof_the_work_ran_under(
    dtype, platform, setting, matmul, cc, expected
):
    got = jax_bench.precision_ran(dtype, platform, setting, matmul=matmul, compute_capability=cc)
    assert got == expected


def test_reported_cost_reads_dicts_and_lists_and_says_none_when_absent():
    assert jax_bench.reported_cost({"flops": 8.0, "bytes accessed": 12.0}) == (8.0, 12.0)
    assert jax_bench.reported_cost([{"flops": 8.0}]) == (8.0, None)
    assert jax_bench.reported_cost(None) == (None, None)
    assert jax_bench.reported_cost({"flops": -1.0}) == (None, None)


def test_require_fits_refuses_what_free_memory_cannot_hold():
    jax_bench.require_fits(1e9, None, "unknown free memory")
    jax_bench.require_fits(1e9, 2e9, "fits")
    with pytest.raises(DeviceMemoryError, match="refused before allocating"):
        jax_bench.require_fits(1e9, 1.1e9, "matmul 8192")


def test_named_suites_are_capped_on_a_cpu_and_unchanged_elsewhere():
    default = SUITES["default"]
    on_cpu = jax_bench.resolve_suite("default", "cpu")
    assert max(on_cpu.matmul_sizes) <= jax_bench.CPU_MAX_MATMUL < max(default.matmul_sizes)
    assert on_cpu.matmul_dtype == "float32"
    assert jax_bench.resolve_suite("default", "gpu") == default
    custom = dataclasses.replace(QUICK, matmul_sizes=(10**6,))
    assert jax_bench.resolve_suite(custom, "cpu") is custom
    with pytest.raises(ValueError, match="unknown suite"):
        jax_bench.resolve_suite("huge", "cpu")


def test_importing_perfcore_does_not_import_jax():
    code = ("import sys, perfcore, perfcore.jax_bench, perfcore.results, perfcore.measure_cli; "
            "sys.exit('jax' in sys.modules)")  # fmt: skip
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


jax = pytest.importorskip("jax")


@pytest.fixture(scope="module")
def quick_run():
    """Every experiment once with the quick suite, and the progress it reported."""
    reported = []
    records = jax_bench.run_suite("quick", progress=lambda f, m: reported.append((f, m)))
    return records, reported


def test_every_experiment_returns_sane_measurements(quick_run):
    records, _ = quick_run
    assert {r.experiment for r in records} == set(jax_bench.EXPERIMENTS)
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
        assert jax_bench.crosscheck(r.flops, r.flops_model), r.label
        assert r.precision == "fp32"


def test_the_sweep_marks_a_regime_for_every_size(quick_run):
    sized = [r for r in quick_run[0] if r.experiment == "sweep" and r.label != "empty call"]
    assert [r.label for r in sized] == [f"matmul {n}" for n in QUICK.matmul_sizes]
    assert all(r.note.startswith("regime: ") for r in sized)


def test_methods_are_recorded_as_the_seeds_describe(quick_run):
    by_label = {(r.experiment, r.label): r.measurement for r in quick_run[0]}
    assert not by_label["timer", "naive timer"].synced
    assert by_label["timer", "synchronized"].synced
    assert by_label["blocking", "block every call"].calls_per_sample == QUICK.loop_calls
    assert by_label["compile", "first call"].warmup == 0


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
    naive, blocked = jax_bench.run_suite(suite, experiments=("dispatch",))
    assert naive.label == "dispatch 512" and blocked.label == "compute 512"
    assert naive.measurement.min * 5 < blocked.measurement.min


def test_an_oversized_matmul_is_refused_before_allocating():
    huge = dataclasses.replace(QUICK, matmul_sizes=(300_000,))  # 3 x 360 GB of float32
    start = time.perf_counter()
    with pytest.raises(DeviceMemoryError, match="matmul 300000x300000x300000 float32"):
        jax_bench.run_suite(huge, experiments=("sweep",))
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

        jax_bench.run_suite("quick", experiments=("blocking",), progress=progress,
                            wait_callback=waiting)  # fmt: skip
        spans[name] = (stamps[0], stamps[-1])

    first = threading.Thread(target=run, args=("a",))
    first.start()
    assert a_started.wait(30)
    second = threading.Thread(target=run, args=("b",))
    second.start()
    first.join(60)
    second.join(60)
    assert waits == [("b", jax_bench.WAITING)]
    assert spans["a"][1] <= spans["b"][0]
    assert not jax_bench.measurement_in_progress()


def test_measure_command_writes_a_loadable_results_file(tmp_path, capsys):
    out = tmp_path / "timer.csv"
    code = measure_cli.main(["--suite", "quick", "--experiment", "timer", "--out", str(out)])
    assert code == 0
    assert [r.label for r in results.load_results(out)] == ["naive timer", "synchronized"]
    captured = capsys.readouterr()
    assert "100%" in captured.err and "synchronized" in captured.out


def test_measure_command_refuses_bad_arguments_before_measuring(tmp_path, capsys):
    assert measure_cli.main(["--out", str(tmp_path / "r.txt")]) == 2
    assert measure_cli.main(["--suite", "huge", "--out", str(tmp_path / "r.json")]) == 2
    assert measure_cli.main(["--list"]) == 0
    assert "quick" in capsys.readouterr().out
