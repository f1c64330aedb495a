"""A profiler capture (XSpace, `*.xplane.pb`) read into op events and the HLO they ran.

An XSpace is planes of lines of timed events; XLA's events carry the stats `hlo_op`,
`hlo_module`, `program_id` and `run_id` (one execution of a program: one step). The
`/host:metadata` plane keeps each program's HloProto as an event metadata stat. The wire
format is walked here first (stdlib only), so a truncated, empty or foreign file is refused
with one line before its events are read (perfcore.measure.profile.read.events); a zipped trace
folder is opened with its sizes checked first, so a zip bomb is refused unread.
"""

from __future__ import annotations

import io
import zipfile
from typing import NamedTuple

from perfcore.errors import FileProblems

UPLOAD_LIMIT_BYTES = 5 * 2**20  # the hosted app's upload limit (.streamlit/config.toml)
CAPTURE_LIMIT_BYTES = 512 * 2**20  # a capture read from disk or unzipped, at most
ZIP_RATIO_LIMIT = 100  # uncompressed / compressed size above which a zip member is refused
METADATA_PLANE = "/host:metadata"
HOST_PLANE = "/host:CPU"
SUFFIX = ".xplane.pb"
HLO_PROTO = "Hlo Proto"  # the metadata plane stat holding a program's HloProto
# XSpace field numbers (tsl/profiler/protobuf/xplane.proto)
SPACE_PLANES, PLANE_NAME, PLANE_LINES, PLANE_EVENT_META, PLANE_STAT_META = 1, 2, 3, 4, 5
META_NAME, META_STATS, STAT_META_ID, STAT_META_NAME = 2, 5, 1, 2
STAT_ID, STAT_UINT, STAT_INT, STAT_STR, STAT_BYTES, PLANE_STATS = 1, 3, 4, 5, 6, 6


class CaptureError(FileProblems):
    """A capture that cannot be read; the message is one line naming the file and why."""

    def __init__(self, label: str, problem: str):
        super().__init__(label, [problem])
        self.problem = problem

    def __str__(self) -> str:
        return f"{self.label}: {self.problem}"


class Event(NamedTuple):
    """One XLA op event: which instruction of which program ran, when, for how long (ns)."""

    module: str
    program_id: int
    op: str
    run_id: int
    start_ns: float
    duration_ns: float
    device: str


class HostEvent(NamedTuple):
    """A host event (a jitted call's dispatch), ns."""

    name: str
    start_ns: float
    duration_ns: float


def varint(data: bytes, i: int, end: int, label: str) -> tuple[int, int]:
    """(value, next index) of the varint at data[i], within data[:end]."""
    byte = data[i] if i < end else 0x80
    if byte < 0x80:  # the common case: one byte
        return byte, i + 1
    value = shift = 0
    while True:
        if i >= end:
            raise CaptureError(label, f"truncated: a field runs past the end at byte {i}")
        byte = data[i]
        value, i, shift = value | (byte & 0x7F) << shift, i + 1, shift + 7
        if byte < 0x80:
            return value, i
        if shift > 63:
            raise CaptureError(label, f"not a protobuf: a varint over 64 bits at byte {i}")


def fields(data: bytes, label: str) -> list[tuple[int, int | bytes]]:
    """The (field number, value) pairs of one protobuf message; CaptureError if malformed."""
    out, i = [], 0
    while i < len(data):
        key, i = varint(data, i, len(data), label)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(data, i, len(data), label)
        elif wire == 2:
            size, i = varint(data, i, len(data), label)
            value, i = data[i : i + size], i + size
        elif wire in (1, 5):
            value, i = data[i : i + (8 if wire == 1 else 4)], i + (8 if wire == 1 else 4)
        else:
            raise CaptureError(label, f"not a protobuf: wire type {wire} at byte {i}")
        if i > len(data) or number == 0:
            raise CaptureError(label, f"truncated or not a protobuf at byte {min(i, len(data))}")
        out.append((number, value))
    return out


def first(pairs: list, number: int, default=b""):
    """The first value of field number among pairs."""
    return next((v for n, v in pairs if n == number), default)


def _stat_names(plane: list, label: str) -> dict[int, str]:
    """Stat metadata id -> stat name of one plane."""
    names = {}
    for entry in (v for n, v in plane if n == PLANE_STAT_META):
        meta = fields(first(fields(entry, label), 2), label)
        names[first(meta, STAT_META_ID, 0)] = first(meta, STAT_META_NAME).decode("utf-8", "replace")
    return names


def signed(n: int) -> int:
    """A 64-bit id (a program's) as the signed integer an int64 column holds, so a module's
    key and its events' program_id agree however the capture wrote the id."""
    return n - 2**64 if n >= 2**63 else n


def hlo_modules(plane: list, label: str) -> dict[tuple[str, int], bytes]:
    """(module name, program id) -> HloModuleProto bytes, from the metadata plane's stats."""
    names, modules = _stat_names(plane, label), {}
    for entry in (v for n, v in plane if n == PLANE_EVENT_META):
        meta = fields(first(fields(entry, label), 2), label)
        stats = {
            names.get(first(s, STAT_ID, 0)): s
            for s in (fields(v, label) for n, v in meta if n == META_STATS)
        }
        proto = first(stats.get(HLO_PROTO, []), STAT_BYTES)
        if proto:
            module = fields(proto, label)  # an HloProto: field 1 is its HloModuleProto
            program = stats.get("program_id", [])
            pid = first(program, STAT_UINT, None) or first(program, STAT_INT, 0)
            name = first(meta, META_NAME).decode("utf-8", "replace").rsplit("(", 1)[0]
            modules[(name, signed(int(pid)))] = first(module, 1)
    return modules


def plane_stats(plane: list, label: str) -> dict[str, str]:
    """A plane's own text stats by name (e.g. the metadata plane's `jax_version`)."""
    names, out = _stat_names(plane, label), {}
    for stat in (fields(v, label) for n, v in plane if n == PLANE_STATS):
        text = first(stat, STAT_STR, None)
        if isinstance(text, bytes):
            out[names.get(first(stat, STAT_ID, 0), "")] = text.decode("utf-8", "replace")
    return out


def walk(data: bytes, label: str) -> tuple[list[str], dict[tuple[str, int], bytes]]:
    """The plane names and embedded HLO modules of a serialized XSpace; CaptureError if none."""
    planes = [fields(v, label) for n, v in fields(data, label) if n == SPACE_PLANES]
    if not planes:
        raise CaptureError(label, "not a profiler capture: no planes (expected an .xplane.pb)")
    names = [first(p, PLANE_NAME).decode("utf-8", "replace") for p in planes]
    for plane in planes:
        for n, v in plane:
            if n in (PLANE_LINES, PLANE_EVENT_META, PLANE_STAT_META) and not isinstance(v, bytes):
                raise CaptureError(label, "not a profiler capture: a plane field of the wrong type")
    meta = [p for p, name in zip(planes, names, strict=True) if name == METADATA_PLANE]
    return names, hlo_modules(meta[0], label) if meta else {}


def check_kind(data: bytes, label: str) -> None:
    """CaptureError for a file that is plainly not a capture (empty, gzip, JSON, text)."""
    if not data:
        raise CaptureError(label, "empty file: expected a profiler capture (.xplane.pb)")
    if data[:2] == b"\x1f\x8b":
        raise CaptureError(
            label,
            "a gzip file (a trace.json.gz?): expected the .xplane.pb "
            "beside it, or the trace folder zipped",
        )
    if data.lstrip()[:1] in (b"{", b"["):
        raise CaptureError(label, "a JSON file: expected a profiler capture (.xplane.pb)")
    if data[:1] != b"\x0a":  # every XSpace opens with field 1 (planes), length-delimited
        raise CaptureError(label, "not a profiler capture: expected an XSpace (.xplane.pb)")


def unzip(data: bytes, label: str, limit: int = CAPTURE_LIMIT_BYTES) -> tuple[bytes, str]:
    """The newest .xplane.pb inside a zipped trace folder, its sizes checked before reading."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = [m for m in archive.infolist() if m.filename.endswith(SUFFIX)]
    except (zipfile.BadZipFile, ValueError) as error:
        raise CaptureError(label, f"not a readable zip ({error})") from None
    if not members:
        raise CaptureError(label, f"the zip holds no {SUFFIX} file (zip the trace folder)")
    member = max(members, key=lambda m: (m.date_time, m.filename))
    ratio = member.file_size / max(member.compress_size, 1)
    if member.file_size > limit or ratio > ZIP_RATIO_LIMIT:
        raise CaptureError(
            label,
            f"{member.filename} unzips to {member.file_size} bytes "
            f"({ratio:.0f}x its size): refused as a possible zip bomb",
        )
    with archive.open(member) as handle:
        inner = handle.read(limit + 1)
    if len(inner) > limit:
        raise CaptureError(label, f"{member.filename} unzips past {limit} bytes: refused")
    return inner, f"{label}:{member.filename}"


def capture_bytes(data: bytes, label: str, limit: int = CAPTURE_LIMIT_BYTES) -> tuple[bytes, str]:
    """The XSpace bytes of an upload (an .xplane.pb or a zipped trace folder), size-checked."""
    if len(data) > limit:
        raise CaptureError(label, f"{len(data)} bytes is over the limit of {limit} bytes")
    if data[:4] == b"PK\x03\x04":
        data, label = unzip(data, label, CAPTURE_LIMIT_BYTES)
    check_kind(data, label)
    return data, label
