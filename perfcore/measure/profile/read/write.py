"""Write an XSpace (`*.xplane.pb`): a capture built from op events and HLO modules.

The inverse of perfcore.measure.profile.read.xspace, for captures a test or a benchmark needs
that no machine here can make (a GPU's, or one of 100,000 op events): a metadata plane holding
each program's HloProto, and one device plane whose op events carry `hlo_op`, `hlo_module`,
`program_id` and `run_id`, as XLA's tracers write them (tsl/profiler/protobuf/xplane.proto).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from perfcore.measure.profile.read.xspace import HLO_PROTO, METADATA_PLANE

OP_STATS = ("hlo_op", "hlo_module", "program_id", "run_id")


class OpEvent(NamedTuple):
    """One op event to write: which instruction of which program, when (ns), which line."""

    op: str
    module: str
    program_id: int
    run_id: int
    start_ns: int
    duration_ns: int
    line: str = "Stream #0"


def _varint(n: int) -> bytes:
    """n as a protobuf varint (n >= 0)."""
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number: int, value: int | str | bytes) -> bytes:
    """One field: an int as a varint, text or bytes length-delimited."""
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    data = value.encode() if isinstance(value, str) else value
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def message(*pairs: tuple[int, int | str | bytes]) -> bytes:
    """A message of (field number, value) pairs, in order."""
    return b"".join(field(n, v) for n, v in pairs)


def _stat(stat_id: int, value: int | str | bytes) -> bytes:
    """An XStat: uint64 (3), text (5) or bytes (6) by value type."""
    kind = 3 if isinstance(value, int) else 5 if isinstance(value, str) else 6
    return message((1, stat_id), (kind, value))


def _entry(key: int, value: bytes) -> bytes:
    """One entry of a protobuf map<int64, message>."""
    return message((1, key), (2, value))


def _metadata_plane(modules: dict[tuple[str, int], bytes]) -> bytes:
    """The `/host:metadata` plane: one event metadata per program with its HloProto."""
    names = (HLO_PROTO, "program_id")
    pairs = [(2, METADATA_PLANE)]
    pairs += [(5, _entry(i + 1, message((1, i + 1), (2, s)))) for i, s in enumerate(names)]
    for i, ((name, pid), proto) in enumerate(modules.items(), start=1):
        meta = message(
            (1, i), (2, f"{name}({pid})"), (5, _stat(1, message((1, proto)))), (5, _stat(2, pid))
        )
        pairs.append((4, _entry(i, meta)))
    return message(*pairs)


def _device_plane(name: str, stats: dict[str, str], events: Iterable[OpEvent]) -> bytes:
    """A device plane: its op events on their lines, with their stats."""
    stat_names = [*OP_STATS, *stats]
    pairs: list = [(1, 1), (2, name)]
    pairs += [(5, _entry(i + 1, message((1, i + 1), (2, s)))) for i, s in enumerate(stat_names)]
    pairs += [(6, _stat(len(OP_STATS) + i + 1, v)) for i, v in enumerate(stats.values())]
    ops: dict[str, int] = {}
    lines: dict[str, list[bytes]] = {}
    for e in events:
        op_id = ops.setdefault(e.op, len(ops) + 1)
        values = (e.op, e.module, e.program_id, e.run_id)
        stat_bytes = [(4, _stat(i + 1, v)) for i, v in enumerate(values)]
        event = message((1, op_id), (2, e.start_ns * 1000), (3, e.duration_ns * 1000), *stat_bytes)
        lines.setdefault(e.line, []).append(event)
    pairs += [(4, _entry(i, message((1, i), (2, op)))) for op, i in ops.items()]
    for i, (line, encoded) in enumerate(lines.items(), start=1):
        pairs.append((3, message((1, i), (2, line), (3, 0), *((4, e) for e in encoded))))
    return message(*pairs)


def xspace(
    modules: dict[tuple[str, int], bytes],
    events: Iterable[OpEvent],
    device_plane: str = "/device:GPU:0",
    device_stats: dict[str, str] | None = None,
) -> bytes:
    """A serialized XSpace: the metadata plane with modules, one device plane with events."""
    device = _device_plane(device_plane, device_stats or {}, events)
    return message((1, _metadata_plane(modules)), (1, device))
