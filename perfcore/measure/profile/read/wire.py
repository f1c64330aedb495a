"""The protobuf wire format read many messages at a time, into numpy columns.

A message is a run of fields, each a varint key (field number << 3 | wire type) and a value:
a varint (wire type 0), 8 or 4 fixed bytes (1, 5), or a varint length and that many bytes
(2). `spans` walks one message field by field (a line's events: a long run of one field);
`table` reads the fields of many small messages together, one field of each per step, so
the Python loop runs as many times as the longest message has fields, not once a field.
"""

from __future__ import annotations

from array import array
from typing import NamedTuple

import numpy as np

from perfcore.measure.profile.read.xspace import CaptureError, varint

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5
MAX_VARINT = 10  # bytes of the longest varint (64 bits)


class Fields(NamedTuple):
    """The fields of many messages, one row each: the message it belongs to (its index among
    the messages read), field number, a varint's value or a length-delimited value's bounds."""

    owner: np.ndarray
    number: np.ndarray
    value: np.ndarray  # uint64: a varint's value; for wire type 2, the length
    start: np.ndarray  # the value's first byte
    end: np.ndarray  # one past its last byte

    def of(self, number: int) -> Fields:
        """The rows of field `number`."""
        return Fields(*(column[self.number == number] for column in self))


def varints(buf: np.ndarray, at: np.ndarray, label: str) -> tuple[np.ndarray, np.ndarray]:
    """(values as uint64, index past each) of the varints that start at buf[at]."""
    _inside(buf, at, label)
    byte = buf[at]
    values, ends = (byte & 0x7F).astype(np.uint64), at + 1
    going = np.flatnonzero(byte >= 0x80)
    for k in range(1, MAX_VARINT):
        if not len(going):
            return values, ends
        where = at[going] + k
        _inside(buf, where, label)
        byte = buf[where]
        values[going] |= (byte & 0x7F).astype(np.uint64) << np.uint64(7 * k)
        ends[going] += 1
        going = going[byte >= 0x80]
    if len(going):
        raise CaptureError(label, f"not a protobuf: a varint over 64 bits at byte {at[going][0]}")
    return values, ends


def _inside(buf: np.ndarray, at: np.ndarray, label: str) -> None:
    """CaptureError where an index runs past the end of buf."""
    if len(at) and at.max() >= len(buf):
        raise CaptureError(label, f"truncated: a field runs past the end at byte {len(buf)}")


def table(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, label: str) -> Fields:
    """Every field of the messages buf[starts[i]:ends[i]], read one field of each per step."""
    owner = np.arange(len(starts))
    cursor, stop = np.asarray(starts, np.int64), np.asarray(ends, np.int64)
    rows = []
    while len(owner):
        live = cursor < stop
        owner, cursor, stop = owner[live], cursor[live], stop[live]
        if not len(owner):
            break
        key, after = varints(buf, cursor, label)
        wire, number = key & np.uint64(7), (key >> np.uint64(3)).astype(np.int64)
        if np.any((wire == 3) | (wire == 4) | (wire > FIXED32)) or np.any(number == 0):
            raise CaptureError(label, f"not a protobuf: a bad field key near byte {int(after[0])}")
        value, past = np.zeros(len(owner), np.uint64), after.copy()
        head = (wire == VARINT) | (wire == LENGTH)
        value[head], past[head] = varints(buf, after[head], label)
        length = wire == LENGTH
        start = np.where(length, past, after)
        fixed = np.where(wire == FIXED64, 8, 4)
        end = np.where(length, past + value.astype(np.int64), np.where(head, past, after + fixed))
        if np.any(end > stop):
            raise CaptureError(
                label, f"truncated: a field runs past its message near byte {int(end.max())}"
            )
        rows.append((owner, number, value, start, end))
        cursor = end
    if not rows:
        empty = np.zeros(0, np.int64)
        return Fields(empty, empty, empty.astype(np.uint64), empty, empty)
    return Fields(*(np.concatenate(column) for column in zip(*rows, strict=True)))


def spans(data: bytes, start: int, end: int, label: str) -> Fields:
    """The fields of the one message data[start:end], walked in order (a field with a
    one-byte key and a length under 2**14, as every event of a line has, read inline)."""
    return _columns(_walk(data, start, end, label))


def _columns(rows: array) -> Fields:
    """Fields of one message from its (number, value, start, end) rows, flattened."""
    number, value, start, end = np.frombuffer(rows, np.uint64).reshape(-1, 4).T
    at = (c.astype(np.int64) for c in (number, start, end))
    return Fields(np.zeros(len(number), np.int64), next(at), value.copy(), *at)


def _walk(data: bytes, start: int, end: int, label: str) -> array:
    """(field number, varint value or length, value start, value end) of each field, flat."""
    out, i = array("Q"), start
    extend = out.extend
    while i < end:
        key = data[i]
        if key & 7 == LENGTH and 8 <= key < 0x80 and i + 2 < end:
            size = data[i + 1]
            if size < 0x80:
                i += 2
            else:
                size, i = (size & 0x7F) | data[i + 2] << 7, i + 3
                if size >= 1 << 14:
                    size, i = varint(data, i - 2, end, label)
            extend((key >> 3, size, i, i + size))
            i += size
            if i > end:
                raise CaptureError(label, f"truncated or not a protobuf at byte {end}")
            continue
        i = _field(data, i, end, label, out)
    return out


def _field(data: bytes, i: int, end: int, label: str, out: array) -> int:
    """The index past the field at data[i], its row appended to out."""
    key, i = varint(data, i, end, label)
    number, wire = key >> 3, key & 7
    if wire == VARINT:
        value, after = varint(data, i, end, label)
        out.extend((number, value, i, after))
        return after
    if wire == LENGTH:
        value, i = varint(data, i, end, label)
    elif wire in (FIXED64, FIXED32):
        value = 8 if wire == FIXED64 else 4
    else:
        raise CaptureError(label, f"not a protobuf: wire type {wire} at byte {i}")
    if i + value > end or number == 0:
        raise CaptureError(label, f"truncated or not a protobuf at byte {min(i, end)}")
    out.extend((number, value, i, i + value))
    return i + value
