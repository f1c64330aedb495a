"""The Profile page's tables and takeaways: ops by time, time by category, before vs after.

Everything here reads results records of experiment `profile` (perfcore.measure.
profile_records), so a capture joined here and a file profiled elsewhere read alike. Two
profiles are compared op by op, an op matched by its name and source line; an op in one
and not the other is "only before" / "only after".
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from perfcore import format as fmt
from perfcore.measure.clock.devices import match_device
from perfcore.measure.profile.judge.assess import Roofs, assess
from perfcore.measure.profile.judge.joined import Profile
from perfcore.measure.profile.judge.records import (
    op_of,
    profile_records,
    rediagnosed,
    step_records,
    to_records,
    what,
)
from perfcore.measure.results import Record
from perfcore.model.chip.specs import Device

INTRO = (
    "Which ops take the time, what bounds each, how far below its roof it is, and what to "
    "change. Each op is an HLO instruction of a captured program: its device time per step "
    "(measured, median over the profiled steps) beside its FLOPs and bytes from XLA's cost "
    "model, placed on the roofline of the device it ran on."
)
CAPTURE_HOW = (
    "Capture your own: `with jax.profiler.trace('trace'):` around a few synchronized calls "
    "of a jitted step, then upload `trace/plugins/profile/*/*.xplane.pb` (or zip the folder); "
    "or run `python -m perfcore profile --trace trace` and upload its results file."
)
MEASURED_ROOFS = "measured roofline"
OP_UNITS = {
    "time / step": "seconds",
    "predicted / step": "seconds",
    "total time": "seconds",
    "share": "percent",
    "FLOPs / step": "flops",
    "bytes / step": "traffic",
    "intensity": "intensity",
    "FLOP/s": "flops_per_s",
    "bytes/s": "bytes_per_s",
    "roof there": "flops_per_s",
    "fraction of roof": "percent",
}
OP_COLUMNS = (
    "op",
    "XLA name",
    "category",
    "source",
    "runs / step",
    *list(OP_UNITS)[:9],
    "bound by",
    *list(OP_UNITS)[9:],
    "predicted from",
    "diagnosis",
)
PREDICTED = ("predicted / step", "predicted from")  # shown where some op was predicted
TOP_SHARE = 0.8  # the ops making up this share of the time are "the ops that matter"
NAMED = 6  # the chart names at most this many ops


def _nan(value: float | None) -> float:
    """value, or NaN for none (an empty cell)."""
    return math.nan if value is None else value


def _judged(r: Record, roofs: Roofs | None) -> dict:
    """The op's bounding roof (compute or memory), that roof at its intensity, the fraction."""
    a = assess(op_of(r), roofs)
    return {
        "bound by": a.bound,
        "roof there": _nan(a.roof_flops_per_s),
        "fraction of roof": _nan(a.fraction),
    }


def op_rows(records: tuple[Record, ...], roofs: Roofs | None = None) -> list[dict]:
    """One row per profiled op, slowest first: its share of the op time, costs, rates, roof."""
    ops = profile_records(records)
    total = sum(r.measurement.median for r in ops) or 1.0
    return [
        {
            "op": what(r),
            "XLA name": r.label,
            "category": r.category,
            "source": short_source(r.source),
            "runs / step": r.occurrences,
            "time / step": r.measurement.median,
            "predicted / step": _nan(r.predicted_s),
            "total time": sum(r.measurement.samples),
            "share": r.measurement.median / total,
            "FLOPs / step": _nan(r.flops),
            "bytes / step": _nan(r.bytes),
            "intensity": r.flops / r.bytes if r.flops is not None and r.bytes else math.nan,
            "FLOP/s": _nan(r.flops_per_s),
            "bytes/s": _nan(r.bytes_per_s),
            **_judged(r, roofs),
            "predicted from": r.predicted_from,
            "diagnosis": r.diagnosis,
        }
        for r in ops
    ]


def op_table(records: tuple[Record, ...], roofs: Roofs | None = None) -> pd.DataFrame:
    """The op table: every op by time per step (and predicted, where it was), its costs,
    rates, roof and diagnosis."""
    df = pd.DataFrame(op_rows(records, roofs), columns=list(OP_COLUMNS))
    if df["predicted / step"].isna().all():
        df = df.drop(columns=list(PREDICTED))
    df.attrs["units"] = {k: v for k, v in OP_UNITS.items() if k in df.columns}
    return df


def category_times(records: tuple[Record, ...]) -> dict[str, float]:
    """Time per step (s) of each op category, largest first."""
    times: dict[str, float] = {}
    for r in profile_records(records):
        times[r.category] = times.get(r.category, 0.0) + r.measurement.median
    return dict(sorted(times.items(), key=lambda kv: -kv[1]))


def top_ops(records: tuple[Record, ...], share: float = TOP_SHARE) -> tuple[Record, ...]:
    """The slowest ops that together make up `share` of the op time per step."""
    ops, running, out = profile_records(records), 0.0, []
    total = sum(r.measurement.median for r in ops)
    for r in ops:
        if running >= share * total:
            break
        out.append(r)
        running += r.measurement.median
    return tuple(out)


def headline(records: tuple[Record, ...]) -> str:
    """The takeaway: the step's time, how few ops take most of it, and what the top one needs."""
    ops, top = profile_records(records), top_ops(records)
    if not ops:
        return "No profiled ops in these records."
    total = sum(r.measurement.median for r in ops)
    first = top[0]
    return (
        f"{len(top)} of {len(ops)} ops take {fmt.percent(TOP_SHARE)} of the "
        f"{fmt.seconds(total)} of op time per step. The slowest, {what(first)} "
        f"({first.category}, {short_source(first.source) or 'no source line'}): "
        f"{first.diagnosis or 'not diagnosed'}."
    )


def step_lines(records: tuple[Record, ...]) -> list[str]:
    """One line per profiled program: its device time per step, its notes, its diagnosis."""
    return [
        f"{r.label}: device span {fmt.seconds(r.measurement.median)} per step "
        f"(measured, median of {r.measurement.n}); {'; '.join(r.notes)}. "
        f"{r.diagnosis[:1].upper()}{r.diagnosis[1:]}."
        for r in step_records(records)
    ]


def short_source(source: str, root: Path | None = None) -> str:
    """A source `file:line` relative to root (default: the working directory) when under it."""
    path, _, line = source.rpartition(":")
    try:
        shown = Path(path).relative_to(root or Path.cwd())
    except ValueError:
        return source
    return f"{shown}:{line}"


def diagnoses(records: tuple[Record, ...]) -> list[str]:
    """The top ops' diagnoses, one line each, in order of time."""
    return [
        f"{what(r)} ({fmt.seconds(r.measurement.median)} per step): {r.diagnosis}"
        for r in top_ops(records)
    ]


def _key(r: Record) -> tuple[str, str]:
    """How an op is matched across two profiles: its name and source line."""
    return (r.label, r.source)


def compare(before: tuple[Record, ...], after: tuple[Record, ...]) -> pd.DataFrame:
    """Per-op time per step before and after, the change (s and fraction), totals first."""
    a = {_key(r): r.measurement.median for r in profile_records(before)}
    b = {_key(r): r.measurement.median for r in profile_records(after)}
    rows = [{"op": "all ops", "source": "", "before": sum(a.values()), "after": sum(b.values())}]
    for key in sorted(a.keys() | b.keys(), key=lambda k: -max(a.get(k, 0), b.get(k, 0))):
        rows.append(
            {
                "op": key[0],
                "source": key[1],
                "before": a.get(key, math.nan),
                "after": b.get(key, math.nan),
            }
        )
    df = pd.DataFrame(rows, columns=["op", "source", "before", "after"])
    df["change"] = df["after"] - df["before"]
    df["change %"] = df["change"] / df["before"]
    df["status"] = [
        "only after" if math.isnan(x) else "only before" if math.isnan(y) else ""
        for x, y in zip(df["before"], df["after"], strict=True)
    ]
    df.attrs["units"] = {
        "before": "seconds",
        "after": "seconds",
        "change": "seconds",
        "change %": "percent",
    }
    return df


def compare_headline(table: pd.DataFrame) -> str:
    """The before/after takeaway: the total change and the op that moved most."""
    total = table.iloc[0]
    ops = table.iloc[1:].dropna(subset=["change"])
    moved = ops.loc[ops["change"].abs().idxmax()] if len(ops) else None
    text = (
        f"Op time per step {fmt.seconds(total['before'])} before, "
        f"{fmt.seconds(total['after'])} after ({fmt.percent(total['change %'])})."
    )
    if moved is not None:
        text += f" The largest change: {moved['op']}, {fmt.seconds(moved['change'])}."
    return text


def device_of(item: Profile | tuple[Record, ...]) -> str:
    """The device a profile or its records ran on."""
    if isinstance(item, Profile):
        return item.devices[0] if item.devices else item.backend
    ops = profile_records(item)
    return ops[0].device if ops else ""


def roof_options(specs: dict[str, Device]) -> list[str]:
    """The roofs a profile can be judged against: the measured roofline, or a specs row."""
    return [MEASURED_ROOFS, *specs]


def default_roofs(device: str, specs: dict[str, Device]) -> str:
    """The specs row the device names, else the measured roofline."""
    row = match_device(device, specs)
    return row.name if row else MEASURED_ROOFS


def as_records(item: Profile | tuple[Record, ...], judged: Roofs | None) -> tuple[Record, ...]:
    """A profile's records, or a results file's, each op diagnosed against `judged`."""
    return to_records(item, judged) if isinstance(item, Profile) else rediagnosed(item, judged)


def roofs_line(judged: Roofs | None) -> str:
    """Which roofs the points and diagnoses are held to."""
    if judged is None:
        return (
            "No roof for this device: measure its roofline on the Measure page, or pick "
            "a specs row. Points are measured; diagnoses name no fraction."
        )
    return f"Roofs (points and diagnoses): {judged.label} ({judged.source})."
