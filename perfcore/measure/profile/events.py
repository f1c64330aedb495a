"""A capture's XLA op events read from the XSpace wire format into numpy columns (no JAX).

Device planes (`/device:GPU:0`, `/device:TPU:0`) hold a GPU's or TPU's kernels; on the CPU
backend the ops run on the host's XLA client threads (`/host:CPU`). An event is an XLA op
when it carries the `hlo_op` stat; a jitted call's dispatch is a `PjitFunction(...)` host
event (present when the capture traced Python). Only what the join needs is read: an event's
metadata id, start (its line's timestamp_ns plus its offset_ps), duration, and the stats
`hlo_op`, `hlo_module`, `program_id` and `run_id` (text, or a reference to a stat name).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from perfcore.measure.profile import wire
from perfcore.measure.profile.xspace import (
    HOST_PLANE,
    PLANE_EVENT_META,
    PLANE_LINES,
    PLANE_STAT_META,
    PLANE_STATS,
    SPACE_PLANES,
    CaptureError,
    Event,
    HostEvent,
)

DISPATCH = "PjitFunction("
DEVICE_STATS = ("device_name", "device_type", "gpu_model")  # the plane stats naming a device
OP_STATS = ("hlo_op", "hlo_module", "program_id", "run_id")
LINE_TIMESTAMP_NS, LINE_EVENTS = 3, 4
EVENT_META, EVENT_OFFSET_PS, EVENT_DURATION_PS, EVENT_STATS = 1, 2, 3, 4
STAT_META, STAT_UINT, STAT_INT, STAT_TEXT, STAT_REF = 1, 3, 4, 5, 7


@dataclass(frozen=True, eq=False)
class Events:
    """Op events as columns, one row an event; names held once, rows point to them by index."""

    modules: tuple[str, ...]
    module: np.ndarray
    program_id: np.ndarray
    ops: tuple[str, ...]
    op: np.ndarray
    run_id: np.ndarray
    start_ns: np.ndarray
    duration_ns: np.ndarray
    devices: tuple[str, ...]
    device: np.ndarray

    def __len__(self) -> int:
        return len(self.op)

    def __iter__(self) -> Iterator[Event]:
        """Each event as an Event, in the capture's order."""
        columns = (self.module, self.program_id, self.op, self.run_id)
        names = (self.modules, None, self.ops, None)
        lists = [
            [n[i] for i in c.tolist()] if n is not None else c.tolist()
            for c, n in zip(columns, names, strict=True)
        ]
        device = [self.devices[i] for i in self.device.tolist()]
        rows = zip(*lists, self.start_ns.tolist(), self.duration_ns.tolist(), device, strict=True)
        return (Event._make(row) for row in rows)


@dataclass(frozen=True)
class Capture:
    """What a capture holds: op events, host dispatch events, each program's HloModuleProto."""

    label: str
    events: Events
    host: tuple[HostEvent, ...]
    modules: dict[tuple[str, int], bytes]
    backend: str
    devices: tuple[str, ...]
    jax_version: str = ""  # the JAX that made the capture, where its metadata says


@dataclass(frozen=True)
class Plane:
    """One plane's events: start and duration (ns), metadata id, and their stats as rows."""

    names: dict[int, str]  # stat metadata id -> stat name
    metadata: dict[int, str]  # event metadata id -> event name
    start_ns: np.ndarray
    duration_ns: np.ndarray
    meta_id: np.ndarray
    stats: wire.Fields  # owner: the event; number: the value's field; value, start, end
    stat_id: np.ndarray  # each stat row's stat metadata id


def _names(data: bytes, buf: np.ndarray, entries: wire.Fields, label: str) -> dict[int, str]:
    """id -> name of a plane's metadata map entries (XEventMetadata or XStatMetadata)."""
    values = wire.table(buf, entries.start, entries.end, label).of(2)
    meta = wire.table(buf, values.start, values.end, label)
    ids = _columns(meta, len(values.owner), (1,))[0]
    texts = [""] * len(values.owner)
    found = meta.of(2)
    for i, s, e in zip(found.owner.tolist(), found.start.tolist(), found.end.tolist(), strict=True):
        texts[i] = data[s:e].decode("utf-8", "replace")
    return dict(zip(ids.tolist(), texts, strict=True))


def _plane(data: bytes, buf: np.ndarray, fields: wire.Fields, label: str) -> Plane:
    """A plane's events and their stats, read from its fields."""
    starts, stamps = [], []
    for s, e in zip(*(c.tolist() for c in fields.of(PLANE_LINES)[3:]), strict=True):
        line = wire.spans(data, s, e, label)
        stamp = line.of(LINE_TIMESTAMP_NS).value.view(np.int64)
        starts.append(line.of(LINE_EVENTS))
        stamps.append(np.full(len(starts[-1].owner), stamp[-1] if len(stamp) else 0, np.int64))
    bounds = [np.concatenate([f.start for f in starts] or [[]]).astype(np.int64)]
    bounds.append(np.concatenate([f.end for f in starts] or [[]]).astype(np.int64))
    table = wire.table(buf, *bounds, label)
    column = _columns(table, len(bounds[0]), (EVENT_META, EVENT_OFFSET_PS, EVENT_DURATION_PS))
    stats_of = table.of(EVENT_STATS)
    stats = wire.table(buf, stats_of.start, stats_of.end, label)
    stat_meta = _columns(stats, len(stats_of.owner), (STAT_META,))[0]
    values = wire.Fields(*(c[stats.number != STAT_META] for c in stats))
    stat_id = stat_meta[values.owner]
    values = values._replace(owner=stats_of.owner[values.owner])
    stamp = np.concatenate(stamps or [np.zeros(0, np.int64)])
    return Plane(
        _names(data, buf, fields.of(PLANE_STAT_META), label),
        _names(data, buf, fields.of(PLANE_EVENT_META), label),
        stamp + column[1] / 1000,
        column[2] / 1000,
        column[0],
        values,
        stat_id,
    )


def _columns(table: wire.Fields, rows: int, numbers: tuple[int, ...]) -> list[np.ndarray]:
    """One int64 column per varint field number, a row per message (0 where absent)."""
    out = []
    for number in numbers:
        column, found = np.zeros(rows, np.int64), table.of(number)
        column[found.owner] = found.value.view(np.int64)
        out.append(column)
    return out


def _rows(plane: Plane, name: str) -> wire.Fields:
    """The value rows of the stat called name (owner: the event it belongs to)."""
    ids = [i for i, n in plane.names.items() if n == name]
    return wire.Fields(*(c[np.isin(plane.stat_id, ids)] for c in plane.stats))


def _texts(
    data: bytes, buf: np.ndarray, plane: Plane, rows: wire.Fields
) -> tuple[list, np.ndarray]:
    """(the distinct texts of text stat rows, each row's index into them): a row's own text,
    or the stat name it refers to; equal texts found at once by their bytes side by side."""
    texts, codes = [], np.zeros(len(rows.owner), np.int64)
    ref, own = rows.number == STAT_REF, rows.number == STAT_TEXT
    refs, codes[ref] = np.unique(rows.value[ref], return_inverse=True)
    texts += [plane.names.get(i, "") for i in refs.tolist()]
    if own.any():
        start, end = rows.start[own], rows.end[own]
        width = int((end - start).max()) + 1
        at = np.minimum(start[:, None] + np.arange(width), len(buf) - 1)
        side = np.where(at < end[:, None], buf[at], 0).astype(np.uint8)
        side[:, -1] = np.minimum(end - start, 255)  # the length, so b"a" and b"a\0" differ
        keys = np.ascontiguousarray(side).view(np.dtype((np.void, width))).ravel()
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        codes[own] = len(texts) + inverse
        bounds = zip(start[first].tolist(), end[first].tolist(), strict=True)
        texts += [data[a:b].decode("utf-8", "replace") for a, b in bounds]
    rest = ~(ref | own)
    codes[rest] = len(texts) + np.arange(int(rest.sum()))
    texts += [str(v) for v in rows.value[rest].tolist()]
    return texts, codes


def _ints(plane: Plane, name: str, has: np.ndarray) -> np.ndarray:
    """The integer stat called name of each event (0 where absent)."""
    column, rows = np.zeros(len(has), np.int64), _rows(plane, name)
    counted = np.isin(rows.number, (STAT_UINT, STAT_INT))
    column[rows.owner[counted]] = rows.value[counted].view(np.int64)
    return column


def _op_events(data: bytes, buf: np.ndarray, plane: Plane) -> dict:
    """The op events of one plane as columns; op and module names as (texts, codes)."""
    has = np.zeros(len(plane.start_ns), bool)
    coded = {}
    for name in ("hlo_op", "hlo_module"):
        rows = _rows(plane, name)
        texts, codes = _texts(data, buf, plane, rows)
        column = np.full(len(has), len(texts), np.int64)  # absent: the empty text
        column[rows.owner] = codes
        coded[name] = ([*texts, ""], column)
        has[rows.owner] |= name == "hlo_op"
    return {
        "op": (coded["hlo_op"][0], coded["hlo_op"][1][has]),
        "module": (coded["hlo_module"][0], coded["hlo_module"][1][has]),
        "program_id": _ints(plane, "program_id", has)[has],
        "run_id": _ints(plane, "run_id", has)[has],
        "start_ns": plane.start_ns[has],
        "duration_ns": plane.duration_ns[has],
    }


def _host_events(plane: Plane) -> list[HostEvent]:
    """The jitted-call dispatch events of the host plane."""
    ids = [i for i, n in plane.metadata.items() if n.startswith(DISPATCH)]
    at = np.flatnonzero(np.isin(plane.meta_id, ids))
    rows = zip(
        *(c[at].tolist() for c in (plane.meta_id, plane.start_ns, plane.duration_ns)), strict=True
    )
    return [HostEvent(plane.metadata[i], s, d) for i, s, d in rows]


def _device(data: bytes, fields: wire.Fields, names: dict[int, str], plane: str, label) -> str:
    """A device plane's device kind from its text stats, else the plane's name."""
    stats = {}
    for s, e in zip(*(c.tolist() for c in fields.of(PLANE_STATS)[3:]), strict=True):
        stat = wire.spans(data, s, e, label)
        key = names.get(int(stat.of(STAT_META).value[-1]) if len(stat.of(STAT_META).owner) else 0)
        text, ref = stat.of(STAT_TEXT), stat.of(STAT_REF)
        if len(text.owner):
            stats[key] = data[int(text.start[-1]) : int(text.end[-1])].decode("utf-8", "replace")
        elif len(ref.owner):
            stats[key] = names.get(int(ref.value[-1]), "")
    return next((stats[k] for k in DEVICE_STATS if stats.get(k)), plane)


def _backend(names: list[str]) -> str:
    """`gpu` or `tpu` for a capture with such device planes, else `cpu`."""
    kinds = {n.split(":")[1].lower() for n in names if n.startswith("/device:") and ":" in n[8:]}
    return next((k for k in ("gpu", "tpu") if k in kinds), "cpu")


def _coded(parts: list[tuple[list, np.ndarray]]) -> tuple[tuple[str, ...], np.ndarray]:
    """Each part's (texts, codes) as one: each distinct text once, in order of first
    appearance among the rows, and each row's index into them."""
    index: dict[str, int] = {}
    out = []
    for texts, codes in parts:
        used, inverse = np.unique(codes, return_inverse=True)
        order = np.argsort(np.unique(inverse, return_index=True)[1], kind="stable")
        for i in order.tolist():
            index.setdefault(texts[used[i]], len(index))
        mapped = np.array([index[texts[u]] for u in used.tolist()], np.int64)
        out.append(mapped[inverse] if len(codes) else codes)
    return tuple(index), np.concatenate(out) if out else np.zeros(0, np.int64)


def read_events(data: bytes, label: str, names: list[str]) -> tuple[Events, tuple[HostEvent, ...]]:
    """The op events (as columns) and host dispatch events of a serialized XSpace."""
    buf, backend = np.frombuffer(data, np.uint8), _backend(names)
    planes = wire.spans(data, 0, len(data), label).of(SPACE_PLANES)
    planes = zip(planes.start.tolist(), planes.end.tolist(), strict=True)
    parts, devices, host = [], [], []
    for (s, e), name in zip(planes, names, strict=True):
        on_device = name.startswith("/device:")
        if not (on_device or name == HOST_PLANE):
            continue
        fields = wire.spans(data, s, e, label)
        plane = _plane(data, buf, fields, label)
        if on_device or backend == "cpu":
            parts.append(_op_events(data, buf, plane))
            devices.append(_device(data, fields, plane.names, name, label) if on_device else "cpu")
        if name == HOST_PLANE:
            host += _host_events(plane)
    return _joined(parts, devices), tuple(host)


def _joined(parts: list[dict], devices: list[str]) -> Events:
    """One Events of the planes' op events, in plane order."""

    def cat(key):
        return np.concatenate([p[key] for p in parts]) if parts else np.zeros(0)

    modules, module = _coded([p["module"] for p in parts])
    ops, op = _coded([p["op"] for p in parts])
    names = tuple(dict.fromkeys(devices))
    sizes = [len(p["op"][1]) for p in parts]
    device = np.repeat([names.index(d) for d in devices], sizes).astype(np.int64)
    return Events(
        modules,
        module,
        cat("program_id").astype(np.int64),
        ops,
        op,
        cat("run_id").astype(np.int64),
        cat("start_ns").astype(np.float64),
        cat("duration_ns").astype(np.float64),
        names,
        device,
    )


def capture(data: bytes, label: str, names: list[str], modules: dict) -> Capture:
    """The Capture of a serialized XSpace already walked by perfcore.measure.profile.xspace."""
    events, host = read_events(data, label, names)
    if not len(events):
        raise CaptureError(
            label,
            "no XLA op events: capture a jitted call's execution "
            "(jax.profiler.trace around it, with block_until_ready)",
        )
    used = tuple(dict.fromkeys(events.devices[i] for i in np.unique(events.device).tolist()))
    return Capture(label, events, host, modules, _backend(names), used)
