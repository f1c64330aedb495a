"""A capture read from a file, a folder or an upload: checked by the wire walk, then read.

The walk (xspace) refuses a bad file in one line before its events are read (events);
this module is the one place a file, a folder or an upload becomes a Capture.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from perfcore.measure.profile.read import events, xspace


def find_capture(path: str | Path) -> Path:
    """The capture file at path: the file itself, or the newest .xplane.pb under a folder."""
    path = Path(path)
    if path.is_dir():
        found = sorted(path.rglob(f"*{xspace.SUFFIX}"), key=lambda p: (p.stat().st_mtime, str(p)))
        if not found:
            raise events.CaptureError(str(path), f"no {xspace.SUFFIX} file under this folder")
        return found[-1]
    if not path.exists():
        raise events.CaptureError(str(path), "no such file or folder")
    return path


def read_capture(path: str | Path) -> events.Capture:
    """A Capture from an .xplane.pb file, a trace folder, or a zipped trace folder."""
    found = find_capture(path)
    if found.stat().st_size > xspace.CAPTURE_LIMIT_BYTES:
        raise events.CaptureError(
            str(found), f"over the limit of {xspace.CAPTURE_LIMIT_BYTES} bytes"
        )
    return parse_capture(found.read_bytes(), str(found))


def parse_capture(
    data: bytes, label: str, limit: int = xspace.CAPTURE_LIMIT_BYTES
) -> events.Capture:
    """A Capture from the bytes of an .xplane.pb or a zipped trace folder; CaptureError if bad."""
    data, label = xspace.capture_bytes(data, label, limit)
    names, modules = xspace.walk(data, label)
    found = events.capture(data, label, names, modules)
    return dataclasses.replace(found, jax_version=_jax_version(data, label))


def _jax_version(data: bytes, label: str) -> str:
    """The `jax_version` stat of the capture's metadata plane; empty when absent."""
    for n, v in xspace.fields(data, label):
        plane = xspace.fields(v, label) if n == xspace.SPACE_PLANES else []
        if plane and xspace.first(plane, xspace.PLANE_NAME) == xspace.METADATA_PLANE.encode():
            return xspace.plane_stats(plane, label).get("jax_version", "")
    return ""
