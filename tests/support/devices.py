"""A few devices that stand for every row of data/specs.csv, for the fast tier's sweeps.

Per vendor, the row publishing the fewest figures (it takes the "not published" paths), and
the row publishing the most (every roof drawn). The full sweep over every row runs in the slow
tier (tests/test_sweep_*.py).
"""

from __future__ import annotations

import dataclasses


def unpublished(device) -> int:
    """How many of the device's fields are not published (None)."""
    return sum(getattr(device, f.name) is None for f in dataclasses.fields(device))


def representative(specs: dict) -> list:
    """The sparsest row of each vendor, then the fullest row of all, in specs' order."""
    vendors = {d.vendor for d in specs.values()}
    chosen = {max((d for d in specs.values() if d.vendor == v), key=unpublished) for v in vendors}
    chosen.add(min(specs.values(), key=unpublished))
    return [d for d in specs.values() if d in chosen]
