"""The wire-format reader gives the events JAX's reader gives (jax.profiler.ProfileData).

Oracle: ProfileData over the same bytes, on a real capture made here on the CPU backend
(stats that refer to stat names, the ops on the host plane, dispatch events) and on written
ones (text stats, several lines and device planes, offsets in fractions of a ns).
"""

import jax
import jax.numpy as jnp
import pytest

from perfcore.measure.profile.read import capture, events, wire, write, xspace
from tests.support.profiledata import profiledata_events

FAKE_PROTO = write.message((1, "jit_f"))


def _ours(data: bytes) -> tuple[list[tuple], list[tuple]]:
    names, _ = xspace.walk(data, "test")
    found, host = events.read_events(data, "test", names)
    return [tuple(e)[:6] for e in found], [tuple(h) for h in host]


def _theirs(data: bytes) -> tuple[list[tuple], list[tuple]]:
    ops, host = profiledata_events(data)
    return [e[:6] for e in ops], host


@pytest.fixture(scope="module")
def cpu_capture(tmp_path_factory) -> bytes:
    """A capture of three steps of a jitted function, traced here on the CPU backend."""
    folder = tmp_path_factory.mktemp("trace")
    f = jax.jit(lambda x, w: jnp.tanh(x @ w).sum(axis=0))
    x, w = jnp.ones((64, 128)), jnp.ones((128, 32))
    jax.block_until_ready(f(x, w))
    with jax.profiler.trace(str(folder)):
        for _ in range(3):
            jax.block_until_ready(f(x, w))
    return capture.find_capture(folder).read_bytes()


def test_a_real_cpu_capture_reads_as_jax_reads_it(cpu_capture):
    ours, theirs = _ours(cpu_capture), _theirs(cpu_capture)
    assert ours[0] and ours[0] == theirs[0]
    assert ours[1] and ours[1] == theirs[1]
    assert len({e[3] for e in ours[0]}) == 3  # three steps, three run ids


def test_written_planes_and_lines_read_as_jax_reads_them():
    """Three planes (two of them devices), two lines, text stats, odd starts and durations."""
    ops = [
        write.OpEvent(f"op.{i % 3}", "jit_f", 3, i // 3, 1000 * i + i % 2, 500 + i)
        for i in range(30)
    ]
    ops += [write.OpEvent("dot.1", "jit_g", 9, 7, 1500, 2, line="Stream #1")]
    first = write.xspace({("jit_f", 3): FAKE_PROTO}, ops, "/device:GPU:0")
    second = write.xspace({}, ops[::-1], "/device:GPU:1", {"device_name": "a device"})
    data = first + write.field(1, xspace.fields(second, "x")[1][1])  # a third plane
    ours, theirs = _ours(data), _theirs(data)
    assert len(ours[0]) == 62 and ours == theirs


def test_a_capture_names_its_device_from_the_plane_stats():
    data = write.xspace(
        {}, [write.OpEvent("a", "jit_f", 1, 1, 0, 5)], "/device:GPU:0", {"device_name": "a device"}
    )
    names, modules = xspace.walk(data, "test")
    assert events.capture(data, "test", names, modules).devices == ("a device",)


def test_fields_of_many_messages_read_as_one_message_at_a_time():
    messages = [write.message((1, 300), (2, "text" * i), (3, 2**63 + i)) for i in range(5)]
    data = b"".join(messages)
    ends = [sum(map(len, messages[: i + 1])) for i in range(5)]
    starts = [0, *ends[:-1]]
    import numpy as np

    table = wire.table(np.frombuffer(data, np.uint8), np.array(starts), np.array(ends), "t")
    for i, (s, e) in enumerate(zip(starts, ends, strict=True)):
        one = wire.spans(data, s, e, "t")
        mine = table.owner == i
        assert table.number[mine].tolist() == one.number.tolist()
        assert table.value[mine].tolist() == one.value.tolist() == [300, 4 * i, 2**63 + i]
        assert table.start[mine].tolist() == one.start.tolist()


def test_a_message_cut_short_is_refused_with_the_reason():
    data = write.message((2, "a long enough text"))
    with pytest.raises(xspace.CaptureError, match="truncated"):
        wire.spans(data, 0, len(data) - 3, "cut.xplane.pb")


def test_long_op_names_read_as_jax_reads_them():
    """Names past the side-by-side width (255 bytes) are told apart one by one."""
    long = ["f" * 300 + str(i % 2) for i in range(6)]
    ops = [write.OpEvent(name, "jit_f", 3, i, 1000 * i, 50) for i, name in enumerate(long)]
    data = write.xspace({}, ops)
    ours, theirs = _ours(data), _theirs(data)
    assert len({e[2] for e in ours[0]}) == 2 and ours == theirs
