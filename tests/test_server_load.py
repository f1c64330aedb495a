"""A short bench/load.py: five sessions opening pages by link for 10 s, not one error."""

import time

import pytest

from bench import load
from perfcore import load_specs


def test_the_load_links_name_real_devices_and_precisions():
    specs = load_specs()
    pairs = zip(load.DEVICES, load.PRECISIONS, strict=True)
    assert all(d in specs and specs[d].peak_flops(p) for d, p in pairs)


@pytest.fixture(scope="module")
def server():
    with load.serve("app.py") as running:
        yield running


def test_five_sessions_for_ten_seconds_get_every_run_without_an_error(server):
    deadline = time.monotonic() + 10
    phase = load.run_phase(server, 5, lambda p: time.monotonic() > deadline)
    assert phase.errors == []
    assert len(phase.latencies_ms) >= 5, "every session finished at least one run"


def test_each_phase_reads_as_a_ratio_to_the_reference_under_the_same_sessions():
    """App: 10 runs in 2 s (5/s), latencies 1..10 ms, so p95 (nearest rank: the 10th of 10)
    is 10 ms; reference: 20 runs in 2 s (10/s), 5 ms each. Ratios 0.5x and 2.0x."""
    app = load.Phase(5, seconds=2.0, latencies_ms=[float(ms) for ms in range(1, 11)])
    app.reference = load.Phase(5, seconds=2.0, latencies_ms=[5.0] * 20)
    cells = app.row().split()
    assert cells[:4] == ["5", "10", "5.0", "0.50x"] and cells[5:7] == ["10", "2.00x"]
    assert cells[-2:] == ["10.0", "5"]  # the reference's own runs/s and p95


def test_a_short_run_pairs_every_phase_with_the_reference(capsys):
    assert load.main(["--sessions", "2", "--seconds", "3", "--total", "0"]) == 0
    out = capsys.readouterr().out
    (row,) = [line for line in out.splitlines() if line.split()[:1] == ["2"]]
    ratio = float(row.split()[3].rstrip("x"))
    assert 0 < ratio < 10, row  # a rate was measured on both servers
