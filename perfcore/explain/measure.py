"""The measure page: which device ran, which spec row it is, the records as a table, takeaways.

Records come from a live run (perfcore.measure.jax_bench) or an uploaded results file; the rows of
the charts come from explain.measure_sweep and explain.measure_clock. Every time names its
method and spread, every spec figure its row, every derived number what it came from.
"""

from __future__ import annotations

import pandas as pd

from perfcore import format as fmt
from perfcore.explain.measure_clock import spread
from perfcore.explain.measure_sweep import RATE_BASIS, ceilings, regime_of, sweep
from perfcore.measure.devices import Detected, match_device
from perfcore.measure.jax_bench import EXPERIMENTS
from perfcore.measure.points import MeasuredPoint, measured_points
from perfcore.measure.results import Record
from perfcore.measure.suites import CPU_MAX_MATMUL, Suite
from perfcore.model.specs import Device

STATE = "me_records"  # st.session_state key of the last live run's records
SIDEBAR = "(the sidebar's device)"
US = 1e6  # µs per second: the table's times are microseconds, as the seeds print them
MEASURE_CMD = "python -m perfcore measure --out results.json"
HOSTED = (
    "Live measurement is off on this hosted instance: it has no GPU of yours to time, and one "
    "server cannot time many users at once honestly. Measure on your own machine with "
    f"`{MEASURE_CMD}` (with JAX installed: `pip install jax`, or `pip install -e '.[cuda]'` "
    "for an NVIDIA GPU), then upload the file below: its records fill the tables and charts "
    "and its points are overlaid on the spec roofline."
)
EMPTY = (
    "No measurements yet. Press **Run** (the quick suite takes a few seconds on a CPU) or "
    "upload a results file; the tables and charts below are drawn from those records."
)
# The picker shows experiment ids (they are the link's values); this names each one.
EXPERIMENTS_HELP = "; ".join(f"**{name}**: {e.title}" for name, e in EXPERIMENTS.items())
BACKENDS = {"cpu": "the CPU", "gpu": "a GPU", "tpu": "a TPU"}


def no_jax(hint: str) -> str:
    """How to get JAX, and what works without it."""
    return (
        f"{hint}. For an NVIDIA GPU: `pip install -e '.[cuda]'` (the cuda extra), then restart "
        f"the app. Without JAX you can still upload a results file measured elsewhere "
        f"(`{MEASURE_CMD}`); every other page works as usual."
    )


def device_line(d: Detected) -> str:
    """What JAX runs on, said plainly; a CPU labelled as such."""
    where = BACKENDS.get(d.backend, f"backend {d.backend}")
    head = f"JAX {d.jax_version} runs on **{where}**: device_kind `{d.device_kind}`"
    if d.backend == "cpu":
        return head + ". JAX sees no GPU here, so every timing below is a CPU measurement."
    cc = f", compute capability {d.compute_capability}" if d.compute_capability else ""
    return f"{head} (backend `{d.backend}`{cc})."


def page_records(live: tuple[Record, ...], uploaded: tuple[Record, ...]) -> tuple[Record, ...]:
    """The page's data: the last live run's records, else the uploaded file's."""
    return live or uploaded


def overlay(live: tuple[Record, ...], uploaded: tuple[Record, ...]) -> tuple[MeasuredPoint, ...]:
    """Roofline points of the live run and of the uploaded file together."""
    return measured_points(live + uploaded)


def device_kind(records: tuple[Record, ...], detected: Detected | None) -> str | None:
    """The device the page's data was (or would be) measured on; None when neither says."""
    if records:
        return records[0].device
    return detected.device_kind if detected else None


def known_spec(
    records: tuple[Record, ...], detected: Detected | None, specs: dict[str, Device]
) -> Device | None:
    """The specs row of the page's device: the records' spec_name, else its device_kind."""
    named = next((r.spec_name for r in records if r.spec_name in specs), None)
    if named:
        return specs[named]
    kind = device_kind(records, detected)
    return match_device(kind, specs) if kind else None


def picked(choice: str, sidebar: Device, specs: dict[str, Device]) -> Device:
    """The row a user picked for an unknown device (the sidebar's device by default)."""
    return sidebar if choice == SIDEBAR else specs[choice]


def unknown(records: tuple[Record, ...], detected: Detected | None) -> str:
    """Why the user must pick a spec row (a CPU has none in data/specs.csv)."""
    backend = records[0].backend if records else detected.backend if detected else ""
    cpu = " data/specs.csv has no CPU rows: add one with the sidebar's specs upload."
    kind = device_kind(records, detected)
    return f"`{kind}` is an unknown device: pick its spec row.{cpu * (backend == 'cpu')}"


def suite_captions(suites: dict[str, Suite]) -> list[str]:
    """One line per suite: its matmul sides and dtype, and how a CPU runs it."""
    return [f"matmul sides {s.matmul_sizes[0]}-{s.matmul_sizes[-1]}, {s.matmul_dtype}, "
            f"{s.repeats} samples{_on_cpu(s)}" for s in suites.values()]  # fmt: skip


def _on_cpu(suite: Suite) -> str:
    """How a CPU changes the suite, if it does."""
    changed = max(suite.matmul_sizes) > CPU_MAX_MATMUL or suite.matmul_dtype != "float32"
    return f"; on a CPU float32, sides up to {CPU_MAX_MATMUL}" if changed else ""


def spec_line(spec: Device, own: bool) -> str:
    """Which row the spec figures come from, and whether it is this device's own."""
    how = "its own row, matched to the device_kind" if own else "picked, not this device's row"
    return f"Spec figures: **{spec.name}** ({how})."


def source_line(records: tuple[Record, ...], live: bool) -> str:
    """Where the shown records come from."""
    first = records[0]
    origin = "the live run" if live else "the uploaded results file"
    return (
        f"{len(records)} records from {origin}: {first.device} (backend {first.backend}), "
        f"JAX {first.jax_version}, {first.timestamp}."
    )


def precision_note(records: tuple[Record, ...]) -> str:
    """Which precision really ran, per dtype, read from the records."""
    ran = sorted({(r.dtype, r.precision) for r in records if r.flops and r.precision})
    if not ran:
        return "No record did arithmetic with a precision to report."
    said = ", ".join(f"{dtype} work ran at **{p}**" for dtype, p in ran)
    tf32 = any(d == "float32" and p == "tf32" for d, p in ran)
    why = " (JAX's default float32 matmul precision uses TF32 tensor cores here)" * tf32
    return f"Precision that ran (from the records): {said}{why}; each point sits under that roof."


def roof_precision(records: tuple[Record, ...], fallback: str) -> str:
    """The precision whose roof the roofline highlights: the sweep's, else the first point's."""
    sized = sweep(records)
    if sized:
        return sized[0].precision
    return next((r.precision for r in records if r.flops and r.precision), fallback)


def _rate(r: Record, amount: float | None, median: float) -> float | None:
    """amount per second at the median, for synchronized work; None otherwise."""
    return amount / median if r.measurement.synced and amount and median > 0 else None


def _row(r: Record) -> dict:
    """One record's table row: times in µs, achieved rates at the median."""
    m = r.measurement
    median, iqr = m.median, m.iqr
    return {"experiment": r.experiment, "what": r.label, "method": m.method, "synced": m.synced,
            "calls/sample": m.calls_per_sample, "samples": m.n, "min (µs)": m.min * US,
            "median (µs)": median * US, "mean (µs)": m.mean * US, "IQR (µs)": iqr * US,
            "spread (IQR/median)": m.spread,
            "FLOP/s (median)": _rate(r, r.flops, median),
            "bandwidth (B/s, median)": _rate(r, r.bytes, median),
            "precision": r.precision or None, "regime": regime_of(r) or None,
            "note": r.note}  # fmt: skip


def table(records: tuple[Record, ...]) -> pd.DataFrame:
    """One row per record: what, method and spread, times in µs, achieved rates."""
    return pd.DataFrame([_row(r) for r in records])


def takeaway(records: tuple[Record, ...], spec: Device, own: bool) -> str:
    """The page's 'read this': the spread that decides what is a result, and the sweep's span."""
    parts = []
    s = spread(records)
    if s:
        parts.append(s.sentence)
    rows = sweep(records)
    if len(rows) > 1:
        gain = rows[-1].flops_per_s / rows[0].flops_per_s
        parts.append(
            f"The same matmul achieved {fmt.ratio(gain)} the FLOP/s at n={rows[-1].n} that it "
            f"did at n={rows[0].n} ({RATE_BASIS}): size decides which regime you are in."
        )
    best = [c for c in ceilings(records, spec) if c.fraction is not None]
    for c in best[:1]:
        whose = "" if own else " (a picked row, not this device's own)"
        parts.append(f"Best matmul: {fmt.percent(c.fraction)} of {spec.name}'s spec{whose}.")
    return " ".join(parts) or "These records hold no sweep, spread or ceiling to read here."
