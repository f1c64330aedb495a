"""Minor page faults a call takes (clock.faults): a call that maps fresh memory takes them, one
that maps none does not, and what readies its arguments is outside the count; and the heap
settled before the kernels suite: a buffer under 32 MiB from the heap, not mapped.

A fresh 64 MiB buffer is mapped by malloc every call (above its 32 MiB mmap threshold) and
faults on its first write: 16,384 faults in 4 KiB pages, or at least 32 where the kernel backs
it with 2 MiB pages (numpy asks for them).
"""

import subprocess
import sys

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


# In a process of its own (the mmap threshold only rises, and this one's has): a 16 MiB numpy
# buffer, then glibc's count of the chunks it has mapped (mallinfo2's hblks).
HELD = """
import ctypes, ctypes.util, sys
import numpy as np
from perfcore.measure.clock import faults
class Info(ctypes.Structure):
    _fields_ = [(f, ctypes.c_size_t) for f in ("arena ordblks smblks hblks hblkhd usmblks "
        "fsmblks uordblks fordblks keepcost").split()]
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.mallinfo2.restype = Info
before = libc.mallinfo2().hblks
if sys.argv[1] == "settle":
    assert faults.settle_heap()
held = np.ones(16 << 20, np.uint8)
print(libc.mallinfo2().hblks - before)
"""


def _mapped_after(how: str) -> int:
    """Chunks mapped beside the heap once a fresh process holds a 16 MiB buffer."""
    run = subprocess.run([sys.executable, "-c", HELD, how], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return int(run.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc: Linux")
def test_a_settled_heap_serves_a_buffer_under_32_mib_that_malloc_would_have_mapped():
    """Malloc maps a 16 MiB buffer fresh in a process that has freed nothing that large; once
    settle_heap has raised its mmap threshold the heap serves it (each call then reuses its
    pages, where a mapped one faults every page again)."""
    assert _mapped_after("as is") == 1
    assert _mapped_after("settle") == 0
