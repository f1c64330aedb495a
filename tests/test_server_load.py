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
