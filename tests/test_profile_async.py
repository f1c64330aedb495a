"""XLA:CPU's asynchronous ops, on a capture built here: a dot run by Eigen is handed to the
thread pool and its trace event ends at the hand-off (measured on this machine's CPU: the
event of an MLP's 1024x1024 weight-gradient dot lasted 2.2 ms while its work ran 11 ms, to
just before the op reading its result started). The join times such an op from its start to
the first start, in its step, of an op that reads its result; where none does, its end was
not traced, and it is marked so (a lower bound, not held against a prediction).

The module (tests/data/profile/cpu_async_dot.hlo): dot.1 is read by tanh_fusion through a
bitcast; dot.2 only by the root tuple (no event reads it).
"""

from pathlib import Path

import pytest

from perfcore.measure.profile import hlo
from perfcore.measure.profile.hlo import xla_private
from perfcore.measure.profile.judge import assess, join, records
from perfcore.measure.profile.read import capture, write

HLO = Path(__file__).parent / "data" / "profile" / "cpu_async_dot.hlo"
US = 1_000  # ns


def _joined(steps: list[list[tuple[str, int, int]]]):
    """A /host:CPU capture of the module: per step, (op, start µs into the step, duration µs)."""
    events = []
    for run, ops in enumerate(steps):
        base = 1_000_000 + run * 100_000 * US
        events += [
            write.OpEvent(op, "jit_step", 3, 50 + run, base + at * US, dur * US)
            for op, at, dur in ops
        ]
    proto = xla_private.module_proto(HLO.read_text())
    data = write.xspace({("jit_step", 3): proto}, events, device_plane="/host:CPU")
    return join.join(capture.parse_capture(data, "cpu.xplane.pb"))


def _times(steps: list[list[tuple[str, int, int]]]) -> dict[str, tuple[float, ...]]:
    return {o.name: o.samples_s for o in _joined(steps).ops}


def test_readers_are_found_through_free_ops():
    module = hlo.parse_module(HLO.read_text())
    found = module.instructions
    assert hlo.readers(module, found["%dot.1"]) == ("%tanh_fusion",)
    assert hlo.readers(module, found["%dot.2"]) == ()
    assert hlo.runs_async_on_cpu(module, found["%dot.1"])
    assert not hlo.runs_async_on_cpu(module, found["%tanh_fusion"])


def test_an_async_dot_runs_until_its_reader_starts():
    """dot.1's event: 100 µs from 0; tanh_fusion (its reader) starts at 3,000 µs, so dot.1
    took 3,000 µs; dot.2 (50 µs, no reader event) and tanh_fusion keep their events'."""
    ops = [("dot.1", 0, 100), ("dot.2", 10, 50), ("tanh_fusion", 3_000, 200)]
    got = _times([ops, ops])
    assert got["dot.1"] == pytest.approx((3_000e-6, 3_000e-6))
    assert got["dot.2"] == pytest.approx((50e-6, 50e-6))
    assert got["tanh_fusion"] == pytest.approx((200e-6, 200e-6))


def test_a_reader_in_a_later_step_does_not_extend_an_op():
    """Step 1 has no tanh_fusion event: its dot.1 keeps its own 100 µs, not the 100 ms to the
    next step's reader; step 2's dot.1 ends at its own step's reader (400 µs)."""
    first = [("dot.1", 0, 100), ("dot.2", 10, 50)]
    second = [("dot.1", 0, 100), ("dot.2", 10, 50), ("tanh_fusion", 400, 200)]
    found = {o.name: o for o in _joined([first, second]).ops}
    assert found["dot.1"].samples_s == pytest.approx((100e-6, 400e-6))
    assert found["dot.1"].open_end  # step 1's end was not traced


def test_a_reader_that_starts_within_the_event_leaves_it_as_it_is():
    """A dot whose event outlasts its reader's start (a synchronous run) keeps its own time."""
    ops = [("dot.1", 0, 900), ("dot.2", 10, 50), ("tanh_fusion", 500, 200)]
    assert _times([ops])["dot.1"] == pytest.approx((900e-6,))


def test_an_async_op_no_op_reads_is_marked_a_lower_bound_and_not_held():
    """dot.2's result is only the program's: its time is the hand-off's, said so by the join,
    its diagnosis and its record, and a prediction is not held against it."""
    ops = [("dot.1", 0, 100), ("dot.2", 10, 50), ("tanh_fusion", 3_000, 200)]
    found = {o.name: o for o in _joined([ops, ops]).ops}
    assert found["dot.2"].open_end and not found["dot.1"].open_end
    assert not found["tanh_fusion"].open_end
    assert assess.assess(found["dot.2"], None).diagnosis == assess.OPEN_END
    written = {r.label: r for r in records.to_records(_joined([ops]), None)}
    assert records.unended(written["dot.2"]) and not records.unended(written["dot.1"])


COPIES = Path(__file__).parent / "data" / "profile" / "cpu_async_copy.hlo"


def test_a_memcpy_in_blocks_runs_until_its_reader_starts_and_a_transpose_keeps_its_event():
    """XLA:CPU's CopyThunk copies a memcpy of more than 1 MiB in blocks (4 MiB here: 4), the
    first on the calling thread, and returns before the pool ends the others. copy.1 (read by
    negate_fusion, which starts at 900 µs) took 900 µs, not its event's 100; copy.3, read by
    no op, is marked unended; copy.2 changes the layout (a transpose, run whole on its
    thread) and keeps its event's time."""
    module = hlo.parse_module(COPIES.read_text())
    found = module.instructions
    assert [hlo.copy_blocks(module, found[f"%copy.{k}"]) for k in (1, 2, 3)] == [4, 1, 4]
    assert not hlo.runs_async_on_cpu(module, found["%copy.2"])
    ops = [("copy.1", 0, 100), ("copy.2", 110, 300), ("copy.3", 420, 80)]
    ops.append(("negate_fusion", 900, 200))
    events = [
        write.OpEvent(op, "jit_copies", 3, 50, 1_000_000 + at * US, dur * US) for op, at, dur in ops
    ]
    proto = xla_private.module_proto(COPIES.read_text())
    data = write.xspace({("jit_copies", 3): proto}, events, device_plane="/host:CPU")
    got = {o.name: o for o in join.join(capture.parse_capture(data, "cpu.xplane.pb")).ops}
    assert got["copy.1"].samples_s == pytest.approx((900e-6,))
    assert got["copy.2"].samples_s == pytest.approx((300e-6,)) and not got["copy.2"].open_end
    assert got["copy.3"].open_end and not got["copy.1"].open_end
