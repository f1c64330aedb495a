"""The pitfalls page's summary: the five beliefs priced together at their default inputs
(pitfalls.DEFAULTS), their numbers in one table and what they say together."""

from __future__ import annotations

import math

import pandas as pd

from perfcore.explain.chip.pitfalls import (
    DEFAULTS,
    Quantity,
    Section,
    batch_one,
    copy_in_loop,
    faster_chip,
    fp32_path,
    shard_across_nodes,
)
from perfcore.model.chip.specs import Device

SUMMARY = "The five at their default inputs"  # the page's tab of all five


def at_defaults(device: Device, precision: str) -> list[Section]:
    """The five beliefs priced at their default inputs (DEFAULTS), in order."""
    d = DEFAULTS
    return [
        faster_chip(device, precision, **d[1]),
        batch_one(device, **d[2]),
        fp32_path(device, **d[3]),
        copy_in_loop(device, **d[4]),
        shard_across_nodes(device, **d[5]),
    ]


def table(sections: list[Section]) -> pd.DataFrame:
    """Every priced number of the five beliefs, one row each: its SI value (NaN where not
    published) and its kind; attrs["row_units"] says column "kind" holds each value's kind."""
    rows = [
        (s.number, s.belief, q.label, float(q.value), q.kind)
        for s in sections
        for q in (s.quantities or (Quantity("priced", math.nan, "", ""),))
    ]
    df = pd.DataFrame(rows, columns=["#", "belief", "quantity", "value", "kind"])
    df.attrs["row_units"] = {"value": "kind"}
    return df


def takeaway(sections: list[Section], device: Device) -> str:
    """The page's 'read this': what each published belief costs on this device."""
    priced = [s.summary for s in sections if s.published]
    missing = [str(s.number) for s in sections if not s.published]
    if not priced:
        return f"{device.name} publishes none of the figures these beliefs need."
    gaps = f" ({', '.join(missing)}: not published for this device.)" if missing else ""
    return (
        f"On {device.name}: {'; '.join(priced)}.{gaps} All of them are the same mistake: "
        "reasoning about the arithmetic and forgetting the trips. Count bytes first."
    )
