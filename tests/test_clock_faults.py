"""Minor page faults a call takes (clock.faults): a call that maps fresh memory takes them, one
that maps none does not, and what readies its arguments is outside the count.

A fresh 64 MiB buffer is mapped by malloc every call (above its 32 MiB mmap threshold) and
faults on its first write: 16,384 faults in 4 KiB pages, or at least 32 where the kernel backs
it with 2 MiB pages (numpy asks for them).
"""

import numpy as np
import pytest

from perfcore.measure.clock import faults

FRESH = 64 << 20


def fresh() -> np.ndarray:
    return np.ones(FRESH, np.uint8)


def same(x):
    return x


@pytest.mark.skipif(faults.resource is None, reason="no getrusage on this platform")
def test_a_call_that_maps_fresh_memory_faults_and_one_that_maps_none_does_not():
    assert faults.per_call(fresh, same, 3) >= FRESH // (2 << 20)
    assert faults.per_call(lambda: 1, same, 3) < 8


@pytest.mark.skipif(faults.resource is None, reason="no getrusage on this platform")
def test_what_readies_a_calls_arguments_is_not_counted():
    assert faults.per_call(lambda: 1, same, 3, prepare=fresh) < 8
