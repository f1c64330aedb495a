"""Kernel curves of another host: a prediction says so (clock.host.differs), where
the curves record their host's threads and last-level cache (results versions 5 and 6).

This host stood in by a 2-core one with a 32 MiB L3, except for the prediction's warning (jax
tier: a one-op program compiled on JAX's CPU, against this host's own threads)."""

import dataclasses
import warnings

import jax
import jax.numpy as jnp
import pytest

from perfcore.measure.clock import host
from perfcore.measure.profile.predict import program
from perfcore.model.chip import kernels

MIB = 2**20


@pytest.fixture
def two_cores(monkeypatch):
    """This host said to have 2 cores and a 32 MiB last-level cache."""
    monkeypatch.setattr(host, "threads", lambda: 2)
    monkeypatch.setattr(host, "last_level_cache", lambda cpu=None: 32 * MIB)


def _curves(threads: int, cache_bytes: int) -> kernels.Curves:
    """Curves of no points measured on a host with `threads` and that cache (0: not said)."""
    return kernels.Curves(
        "cpu", "2026-12-07", (), (), 1e10, "t", threads=threads, cache_bytes=cache_bytes
    )


def _differs(curves: kernels.Curves | None) -> str:
    """What the prediction says of the curves' host (nothing for no curves)."""
    return host.differs(curves.threads, curves.cache_bytes) if curves else ""


def test_curves_of_this_host_or_of_no_known_host_say_nothing(two_cores):
    assert _differs(_curves(2, 32 * MIB)) == ""
    assert _differs(_curves(0, 0)) == ""  # another backend's, or an older file's
    assert _differs(_curves(2, 0)) == ""  # a version 5 file: threads alone
    assert _differs(None) == ""


def test_another_hosts_threads_and_cache_are_said_beside_this_ones(two_cores):
    assert _differs(_curves(8, 32 * MIB)) == (
        "measured on a host with 8 threads, where this one has 2 threads"
    )
    assert _differs(_curves(8, 0)) == (
        "measured on a host with 8 threads, where this one has 2 threads"
    )
    assert _differs(_curves(2, 16 * MIB)) == (
        "measured on a host with a 16 MiB last-level cache, where this one has 32 MiB"
    )
    assert _differs(_curves(8, 48 * MIB)) == (
        "measured on a host with 8 threads and a 48 MiB last-level cache, where this one has "
        "2 threads and 32 MiB"
    )


def test_a_prediction_from_another_hosts_curves_warns_and_from_this_ones_does_not():
    fn, x = jax.jit(lambda x: jnp.sin(x) * 2.0), jnp.ones((64, 64))
    here = _curves(host.threads(), host.last_level_cache() or 0)
    with pytest.warns(program.OtherHost, match="measured on a host with"):
        program.predict(fn, x, curves=dataclasses.replace(here, threads=here.threads + 6))
    with warnings.catch_warnings():
        warnings.simplefilter("error", program.OtherHost)
        program.predict(fn, x, curves=here)
