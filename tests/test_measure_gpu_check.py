"""scripts/gpu_check.py on the CPU: exit 2 without a GPU or TPU, --tiny runs it, no dashboard
imports."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from perfcore.measure.results import load_results

ROOT = Path(__file__).resolve().parent.parent
# Runs the script as `python3 scripts/gpu_check.py` would, then says which heavy modules it
# imported: a TPU machine has jax and numpy alone (no pandas, streamlit or plotly).
WRAPPER = """
import runpy, sys
sys.argv = ["scripts/gpu_check.py", *sys.argv[1:]]
try:
    runpy.run_path("scripts/gpu_check.py", run_name="__main__")
except SystemExit as done:
    heavy = ("pandas", "streamlit", "plotly")
    print("dashboard modules:", sorted(m for m in heavy if m in sys.modules))
    raise
"""


def gpu_check(*args, xla_flags=""):
    """The script's completed process, run from the repository root with PYTHONPATH=."""
    env = os.environ | {"PYTHONPATH": ".", "XLA_FLAGS": xla_flags, "JAX_PLATFORMS": "cpu"}
    cmd = [sys.executable, "-c", WRAPPER, *args]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_without_a_gpu_it_exits_2_and_says_why():
    done = gpu_check()
    assert done.returncode == 2
    assert "no GPU or TPU to check" in done.stderr and "'cpu'" in done.stderr
    assert "dashboard modules: []" in done.stdout


def test_tiny_runs_on_the_cpu_and_writes_the_results_file(tmp_path):
    out = tmp_path / "check.json"
    args = ("--tiny", "--experiment", "fusion", "--experiment", "collectives", "--out", str(out))
    done = gpu_check(*args, xla_flags="--xla_force_host_platform_device_count=8")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "dashboard modules: []" in done.stdout
    assert "busbw" in done.stdout and "alpha-beta fit" in done.stdout
    assert "fusion fused, k=8: saving predicted 88% (bytes)" in done.stdout
    assert "fusion unfused, k=8: host round trip" in done.stdout
    assert {r.experiment for r in load_results(out)} == {"fusion", "collectives"}


def test_tiny_prints_the_bandwidth_sweeps_overhead_per_pass_and_its_path(tmp_path):
    args = (
        "--tiny",
        "--experiment",
        "roofline",
        "--experiment",
        "collectives",
        "--out",
        str(tmp_path / "check.json"),
    )
    done = gpu_check(*args, xla_flags="--xla_force_host_platform_device_count=2")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "overhead per pass" in done.stdout and "(scale, loop: slope of" in done.stdout
    assert "path: loop, one pass per lax.fori_loop iteration" in done.stdout
    assert "18 records, 0 overhead-bound (not levels)" in done.stdout  # 9 sizes x 2 kernels


def test_the_results_file_is_written_before_the_reports_that_can_fail(tmp_path, monkeypatch):
    """The TPU run of stop 35 lost its file to a crash in a report after the suite: the file
    is now written as soon as the suite ends."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "scripts" / "gpu_check.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)

    def fails(records, spec_row):
        raise RuntimeError("a report failed")

    monkeypatch.setattr(script, "table", fails)
    out = tmp_path / "check.json"
    with pytest.raises(RuntimeError, match="a report failed"):
        script.main(["--tiny", "--experiment", "fusion", "--out", str(out)])
    assert {r.experiment for r in load_results(out)} == {"fusion"}
