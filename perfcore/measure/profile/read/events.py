"""A capture's XLA op events read from the XSpace wire format into numpy columns (no JAX).

Device planes (`/device:GPU:0`, `/device:TPU:0`) hold a GPU's or TPU's kernels; on the CPU
backend the ops run on the host's XLA client threads (`/host:CPU`). An event is an XLA op
when it carries the `hlo_op` stat; a jitted call's dispatch is a `PjitFunction(...)` host
event (present when the capture traced Python). Only what the join needs is read: an event's
metadata id, start (its line's timestamp_ns plus its offset_ps), duration, and the stats
`hlo_op`, `hlo_module`, `program_id` and `run_id` (text, or a reference to a stat name).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from perfcore.measure.profile.read import planes, wire
from perfcore.measure.profile.read.planes import STAT_META, STAT_REF, STAT_TEXT
from perfcore.measure.profile.read.xspace import (
    HOST_PLANE,
    PLANE_STATS,
    SPACE_PLANES,
    CaptureError,
    Event,
    HostEvent,
    signed,
)

DISPATCH = "PjitFunction("
INSTRUCTION = re.compile(r"^%?([\w.\-]+) = ")  # a TPU op event's name: its instruction's text
MODULE_EVENT = re.compile(r"^([^\s(]+)\((\d+)\)$")  # a TPU module event: `jit_block(653...)`
DEVICE_STATS = ("device_name", "device_type", "gpu_model", "device_type_string")  # naming a device


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


def _op_events(data: bytes, buf: np.ndarray, plane: planes.Plane, on_device: bool) -> dict:
    """The op events of one plane as columns; op and module names as (texts, codes). An op
    event carries the `hlo_op` stat (a GPU's kernels, the CPU's ops), or on a TPU's device
    plane is named by its instruction's text, its program and run those of the module event
    around it (_tpu_ops)."""
    has = np.zeros(len(plane.start_ns), bool)
    coded = {}
    for name in ("hlo_op", "hlo_module"):
        rows = planes.stat_rows(plane, name)
        texts, codes = planes.stat_texts(data, buf, plane, rows)
        column = np.full(len(has), len(texts), np.int64)  # absent: the empty text
        column[rows.owner] = codes
        coded[name] = ([*texts, ""], column)
        has[rows.owner] |= name == "hlo_op"
    found = {
        "op": (coded["hlo_op"][0], coded["hlo_op"][1][has]),
        "module": (coded["hlo_module"][0], coded["hlo_module"][1][has]),
        "program_id": planes.stat_ints(plane, "program_id", has)[has],
        "run_id": planes.stat_ints(plane, "run_id", has)[has],
        "start_ns": plane.start_ns[has],
        "duration_ns": plane.duration_ns[has],
    }
    named = {i: m.group(1) for i, n in plane.metadata.items() if (m := INSTRUCTION.match(n))}
    if not (on_device and named):
        return found
    async_spans = has & np.isin(plane.meta_id, list(named))  # an async op's start to its done
    kept = has & ~async_spans
    found = {
        k: (v[0], v[1][kept[has]]) if isinstance(v, tuple) else v[kept[has]]
        for k, v in found.items()
    }
    return _with(found, _tpu_ops(plane, named, has))


def _tpu_ops(plane: planes.Plane, named: dict[int, str], has: np.ndarray) -> dict:
    """A TPU device plane's op events (XLA Ops: each named by its instruction's text, no
    `hlo_op` stat) in the module events (`jit_block(6534930182662670041)`: the program's
    name and id) they fall in, each with that module event's run_id."""
    modules = {i: m for i, n in plane.metadata.items() if (m := MODULE_EVENT.match(n))}
    around = np.flatnonzero(np.isin(plane.meta_id, list(modules)))
    around = around[np.argsort(plane.start_ns[around], kind="stable")]
    ops = np.flatnonzero(np.isin(plane.meta_id, list(named)) & ~has)
    starts = plane.start_ns[around]
    at = np.searchsorted(starts, plane.start_ns[ops], side="right") - 1
    inside = at >= 0
    inside[inside] = plane.start_ns[ops[inside]] < (starts + plane.duration_ns[around])[at[inside]]
    ops, at = ops[inside], around[at[inside]]
    run_ids = planes.stat_ints(plane, "run_id", np.ones(len(plane.start_ns), bool))
    module_of = plane.meta_id[at].tolist()
    pids = [signed(int(modules[i].group(2))) for i in module_of]
    return {
        "op": _coded_by_name(plane.meta_id[ops].tolist(), named),
        "module": _coded_by_name(module_of, {i: m.group(1) for i, m in modules.items()}),
        "program_id": np.array(pids, np.int64),
        "run_id": run_ids[at],
        "start_ns": plane.start_ns[ops],
        "duration_ns": plane.duration_ns[ops],
    }


def _coded_by_name(meta_ids: list[int], name_of: dict[int, str]) -> tuple[list, np.ndarray]:
    """(the distinct names, each row's index into them) of events by their metadata's name."""
    index: dict[str, int] = {}
    codes = [index.setdefault(name_of[i], len(index)) for i in meta_ids]
    return list(index), np.array(codes, np.int64)


def _with(a: dict, b: dict) -> dict:
    """One plane's two groups of op columns as one: each name list extended, b's codes
    shifted past a's names."""
    out = {}
    for key, value in a.items():
        if isinstance(value, tuple):
            texts, codes = value
            out[key] = ([*texts, *b[key][0]], np.concatenate([codes, b[key][1] + len(texts)]))
        else:
            out[key] = np.concatenate([value, b[key]])
    return out


def _host_events(plane: planes.Plane) -> list[HostEvent]:
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
        used, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        for i in np.argsort(first).tolist():
            index.setdefault(texts[used[i]], len(index))
        mapped = np.array([index[texts[u]] for u in used.tolist()], np.int64)
        out.append(mapped[inverse] if len(codes) else codes)
    return tuple(index), np.concatenate(out) if out else np.zeros(0, np.int64)


def read_events(data: bytes, label: str, names: list[str]) -> tuple[Events, tuple[HostEvent, ...]]:
    """The op events (as columns) and host dispatch events of a serialized XSpace."""
    buf, backend = np.frombuffer(data, np.uint8), _backend(names)
    found = wire.spans(data, 0, len(data), label).of(SPACE_PLANES)
    bounds = zip(found.start.tolist(), found.end.tolist(), strict=True)
    parts, devices, host = [], [], []
    for (s, e), name in zip(bounds, names, strict=True):
        on_device = name.startswith("/device:")
        if not (on_device or name == HOST_PLANE):
            continue
        fields = wire.spans(data, s, e, label)
        plane = planes.read_plane(data, buf, fields, label)
        if on_device or backend == "cpu":
            parts.append(_op_events(data, buf, plane, on_device))
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
    """The Capture of a serialized XSpace already walked by perfcore.measure.profile.read.xspace."""
    events, host = read_events(data, label, names)
    if not len(events):
        raise CaptureError(
            label,
            "no XLA op events: capture a jitted call's execution "
            "(jax.profiler.trace around it, with block_until_ready)",
        )
    used = tuple(dict.fromkeys(events.devices[i] for i in np.unique(events.device).tolist()))
    return Capture(label, events, host, modules, _backend(names), used)
