"""Version 1 results rows read as version 2: the note's regime and the matmul sides typed.

Version 1 wrote a sweep record's regime into its free-text `note` ("regime: utilisation
(spec roof)") and kept no size; version 2 has `regime`, `notes`, `size` and `size_kind`.
upgrade() rewrites one raw row (JSON values or CSV text) before it is parsed.
"""

from __future__ import annotations

from perfcore.measure.results.parsers import shapes

REGIME_V1 = "regime: "  # how version 1 wrote a sweep record's regime into its note
SIDE_V1 = ("sweep", "dispatch")  # version 1 experiments whose sized matmuls had no size


def upgrade(row: dict) -> dict:
    """A version 1 row as version 2: note split into regime and notes, matmul sides as size."""
    if not isinstance(row, dict):
        return row
    new = {k: v for k, v in row.items() if k != "note"}
    note = row.get("note") if isinstance(row.get("note"), str) else ""
    if note.startswith(REGIME_V1):
        new["regime"] = note.removeprefix(REGIME_V1).split(" (")[0]
    else:
        new["notes"] = note.splitlines()
    if row.get("experiment") in SIDE_V1 and row.get("flops") not in (None, ""):
        new |= _side(row.get("shapes"))
    return new


def _side(value) -> dict:
    """{'size': n, 'size_kind': 'side'} from an (n x n) first shape; {} when there is none."""
    try:
        first = shapes(value)[:1]
    except ValueError:
        return {}
    return {"size": first[0][0], "size_kind": "side"} if first and first[0] else {}
