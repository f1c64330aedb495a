"""One XSpace plane's events and their stats, read from the wire format into numpy columns.

A plane holds lines of events; an event's start is its line's timestamp_ns plus its
offset_ps, its stats (metadata id and value) are rows of one table, and a text stat is its
own text or a reference to a stat name (what XLA's tracers write for `hlo_op`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from perfcore.measure.profile.read import wire
from perfcore.measure.profile.read.xspace import PLANE_EVENT_META, PLANE_LINES, PLANE_STAT_META

LINE_TIMESTAMP_NS, LINE_EVENTS = 3, 4

EVENT_META, EVENT_OFFSET_PS, EVENT_DURATION_PS, EVENT_STATS = 1, 2, 3, 4

STAT_META, STAT_UINT, STAT_INT, STAT_TEXT, STAT_REF = 1, 3, 4, 5, 7
SIDE_BY_SIDE = 255  # texts shorter than this are told apart as fixed-width keys


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


def metadata_names(
    data: bytes, buf: np.ndarray, entries: wire.Fields, label: str
) -> dict[int, str]:
    """id -> name of a plane's metadata map entries (XEventMetadata or XStatMetadata)."""
    values = wire.table(buf, entries.start, entries.end, label).of(2)
    meta = wire.table(buf, values.start, values.end, label)
    ids = columns(meta, len(values.owner), (1,))[0]
    texts = [""] * len(values.owner)
    found = meta.of(2)
    for i, s, e in zip(found.owner.tolist(), found.start.tolist(), found.end.tolist(), strict=True):
        texts[i] = data[s:e].decode("utf-8", "replace")
    return dict(zip(ids.tolist(), texts, strict=True))


def read_plane(data: bytes, buf: np.ndarray, fields: wire.Fields, label: str) -> Plane:
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
    column = columns(table, len(bounds[0]), (EVENT_META, EVENT_OFFSET_PS, EVENT_DURATION_PS))
    stats_of = table.of(EVENT_STATS)
    stats = wire.table(buf, stats_of.start, stats_of.end, label)
    stat_meta = columns(stats, len(stats_of.owner), (STAT_META,))[0]
    values = wire.Fields(*(c[stats.number != STAT_META] for c in stats))
    stat_id = stat_meta[values.owner]
    values = values._replace(owner=stats_of.owner[values.owner])
    stamp = np.concatenate(stamps or [np.zeros(0, np.int64)])
    return Plane(
        metadata_names(data, buf, fields.of(PLANE_STAT_META), label),
        metadata_names(data, buf, fields.of(PLANE_EVENT_META), label),
        stamp + column[1] / 1000,
        column[2] / 1000,
        column[0],
        values,
        stat_id,
    )


def columns(table: wire.Fields, rows: int, numbers: tuple[int, ...]) -> list[np.ndarray]:
    """One int64 column per varint field number, a row per message (0 where absent)."""
    out = []
    for number in numbers:
        column, found = np.zeros(rows, np.int64), table.of(number)
        column[found.owner] = found.value.view(np.int64)
        out.append(column)
    return out


def stat_rows(plane: Plane, name: str) -> wire.Fields:
    """The value rows of the stat called name (owner: the event it belongs to)."""
    ids = [i for i, n in plane.names.items() if n == name]
    return wire.Fields(*(c[np.isin(plane.stat_id, ids)] for c in plane.stats))


def stat_texts(
    data: bytes, buf: np.ndarray, plane: Plane, rows: wire.Fields
) -> tuple[list, np.ndarray]:
    """(the distinct texts of text stat rows, each row's index into them): a row's own text,
    or the stat name it refers to."""
    texts, codes = [], np.zeros(len(rows.owner), np.int64)
    ref, own = rows.number == STAT_REF, rows.number == STAT_TEXT
    refs, codes[ref] = np.unique(rows.value[ref], return_inverse=True)
    texts += [plane.names.get(i, "") for i in refs.tolist()]
    if own.any():
        start, end = rows.start[own], rows.end[own]
        first, inverse = _same_bytes(data, buf, start, end)
        codes[own] = len(texts) + inverse
        bounds = zip(start[first].tolist(), end[first].tolist(), strict=True)
        texts += [data[a:b].decode("utf-8", "replace") for a, b in bounds]
    rest = ~(ref | own)
    codes[rest] = len(texts) + np.arange(int(rest.sum()))
    texts += [str(v) for v in rows.value[rest].tolist()]
    return texts, codes


def _same_bytes(
    data: bytes, buf: np.ndarray, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(a row of each distinct text, each row's index among them) of texts buf[start:end]:
    short ones side by side as fixed-width keys with their length, longer ones by Python."""
    size = end - start
    width = int(size.max()) + 1
    if width > SIDE_BY_SIDE:
        index: dict[bytes, int] = {}
        bounds = zip(start.tolist(), end.tolist(), strict=True)
        inverse = np.array([index.setdefault(data[a:b], len(index)) for a, b in bounds])
        return np.unique(inverse, return_index=True)[1], inverse
    side = np.zeros((len(start), width), np.uint8)
    for k in range(width - 1):
        side[:, k] = np.where(k < size, buf[np.minimum(start + k, len(buf) - 1)], 0)
    side[:, -1] = size  # the length, so b"a" and b"a\0" differ
    keys = side.view(np.dtype((np.void, width))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return first, inverse


def stat_ints(plane: Plane, name: str, has: np.ndarray) -> np.ndarray:
    """The integer stat called name of each event (0 where absent)."""
    column, rows = np.zeros(len(has), np.int64), stat_rows(plane, name)
    counted = np.isin(rows.number, (STAT_UINT, STAT_INT))
    column[rows.owner[counted]] = rows.value[counted].view(np.int64)
    return column
