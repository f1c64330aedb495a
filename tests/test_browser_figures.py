"""bench/figures.py end to end: every chart drawn by Plotly.js in Chromium at its own width
with the margins it was built with, none grown by Plotly after the first draw."""

import subprocess
import sys
from pathlib import Path

from tests.support.figures import BUILDERS

ROOT = Path(__file__).resolve().parent.parent


def test_every_chart_draws_once_at_its_width_and_the_bench_reports_it():
    run = subprocess.run(
        [sys.executable, "-m", "bench.figures", "--n", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    rows = [line.split() for line in run.stdout.splitlines() if line.strip()]
    rows = [r for r in rows if r[0].endswith("_figure")]
    assert [r[0] for r in rows] == list(BUILDERS), run.stdout
    assert all(float(r[2]) > 0 for r in rows), run.stdout


def test_an_unknown_builder_is_named_in_the_error():
    run = subprocess.run(
        [sys.executable, "-m", "bench.figures", "no_such_figure"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2 and "no builder no_such_figure" in run.stderr, run.stderr
