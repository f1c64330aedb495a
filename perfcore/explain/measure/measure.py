"""The measure page: which device ran, which spec row it is, the records as a table, takeaways.

Records come from a live run (measure.experiments.runner) or an uploaded results file; the rows of
the charts come from explain.measure.measure_sweep and explain.measure.measure_clock. Every
time names its
method and spread, every spec figure its row, every derived number what it came from. A spec
row is compared only when it matches the device that ran, or when the user picks one.
"""

from __future__ import annotations

import pandas as pd

from perfcore import format as fmt
from perfcore.explain.measure.measure_clock import spread
from perfcore.explain.measure.measure_roofline import ceilings
from perfcore.explain.measure.measure_sweep import RATE_BASIS, sweep
from perfcore.measure.clock.devices import match_device
from perfcore.measure.experiments.registry import EXPERIMENTS
from perfcore.measure.experiments.suites import (
    CPU_MAX_MATMUL,
    BackendFailed,
    DeviceMemoryError,
    Suite,
    for_platform,
)
from perfcore.measure.results import Record
from perfcore.measure.results.empirical import measured_roofline
from perfcore.measure.results.points import MeasuredPoint, measured_points
from perfcore.model.chip.specs import Device

STATE = "me_records"  # st.session_state key of the last live run's records
RUNNING = "me_running"  # set while this session's run is under way; left set if it was stopped
MEASURED_ONLY = "(none: measured ceilings only)"
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
BEFORE_RUN = (
    "JAX starts, and finds the device it will time, when you press **Run** (about a second "
    "the first time); the device and its spec row are named with the results."
)
STOPPED = (
    "The last run stopped before it finished (stopped from the browser, or the page was left): "
    "no records were kept from it, and the next run starts afresh."
)
# The picker shows experiment ids (they are the link's values); this names each one.
EXPERIMENTS_HELP = "; ".join(e.summary for e in EXPERIMENTS.values())
WAITING_NOTE = "Another session is measuring: a run now waits for it to finish."
BACKENDS = {"cpu": "the CPU", "gpu": "a GPU", "tpu": "a TPU"}


def heavy_note() -> str:
    """Which experiments are left out of the default selection, and roughly how long each runs."""
    heavy = [f"**{e.name}** ({e.takes})" for e in EXPERIMENTS.values() if e.heavy]
    if not heavy:
        return ""
    return (
        "Selected by default: the quick experiments that teach the clock. Add the longer ones "
        f"when you want them: {', '.join(heavy)}."
    )


def no_jax(hint: str) -> str:
    """How to get JAX, and what works without it."""
    return (
        f"{hint}. For an NVIDIA GPU: `pip install -e '.[cuda]'` (the cuda extra), then restart "
        f"the app. Without JAX you can still upload a results file measured elsewhere "
        f"(`{MEASURE_CMD}`); every other page works as usual."
    )


KEPT = "No records were kept from this run; other sessions can measure."


def fault(error: DeviceMemoryError | BackendFailed) -> str:
    """What stopped a run, said on the page: work too big for the device, or JAX's runtime
    failing (the device or its driver). Any other error is a bug, reported as one."""
    if isinstance(error, DeviceMemoryError):
        return str(error)
    code = f" ({error.code})" if error.code else ""
    return f"JAX's runtime failed{code} in {error.where}: {error.message}. {KEPT}"


def page_records(live: tuple[Record, ...], uploaded: tuple[Record, ...]) -> tuple[Record, ...]:
    """The page's data: the last live run's records, else the uploaded file's."""
    return live or uploaded


def overlay(live: tuple[Record, ...], uploaded: tuple[Record, ...]) -> tuple[MeasuredPoint, ...]:
    """Roofline points of the live run and the uploaded file, of the page's device only."""
    records = page_records(live, uploaded)
    device = records[0].device if records else None
    return measured_points(tuple(r for r in live + uploaded if r.device == device))


def known_spec(records: tuple[Record, ...], specs: dict[str, Device]) -> Device | None:
    """The specs row of the device the records ran on: their spec_name, else the device_kind."""
    named = next((r.spec_name for r in records if r.spec_name in specs), None)
    if named:
        return specs[named]
    return match_device(records[0].device, specs) if records else None


def not_this_device(records: tuple[Record, ...], device: Device) -> str:
    """Why an uploaded file's points are not drawn on another device's roofline."""
    return (
        f"Not overlaid: these measurements ran on `{records[0].device}`, not on {device.name}, "
        "and a measurement is compared only with the spec of the device it ran on. Pick that "
        "device in the sidebar, or open the Measure page to see them on its measured roofline."
    )


def unknown(records: tuple[Record, ...]) -> str:
    """Why no spec row is compared, and what the roof drawn is instead."""
    first = records[0]
    cpu = " (data/specs.csv has no CPU rows)" if first.backend == "cpu" else ""
    return (
        f"`{first.device}` matches no spec row{cpu}: the roof drawn is this device's own "
        "measured ceilings. Pick a row below to compare with a published spec."
    )


def suite_captions(suites: dict[str, Suite]) -> list[str]:
    """One line per suite: its matmul sides and dtype, and how a CPU runs it; a suite of its
    own experiments (kernels) names them and its budget."""
    return [
        f"runs {', '.join(s.experiments)} when none is picked, in about {s.kernels_budget_s:.0f} s "
        f"({for_platform(s, 'gpu').kernels_budget_s:.0f} s on a GPU, "
        f"{for_platform(s, 'tpu').kernels_budget_s:.0f} s on a TPU)"
        if s.experiments
        else f"matmul sides {s.matmul_sizes[0]}-{s.matmul_sizes[-1]}, {s.matmul_dtype}, "
        f"{s.repeats} samples{_on_cpu(s)}"
        for s in suites.values()
    ]


def _on_cpu(suite: Suite) -> str:
    """How a CPU changes the suite, if it does."""
    changed = max(suite.matmul_sizes) > CPU_MAX_MATMUL or suite.matmul_dtype != "float32"
    return f"; on a CPU float32, sides up to {CPU_MAX_MATMUL}" if changed else ""


def spec_line(spec: Device | None, own: bool) -> str:
    """Which row the spec figures come from, whether it is this device's own, or none."""
    if spec is None:
        return "Spec figures: none compared; the roof is the measured ceilings."
    how = "its own row, matched to the device it ran on" if own else "picked, not this device's row"
    return f"Spec figures: **{spec.name}** ({how})."


def source_line(records: tuple[Record, ...], live: bool) -> str:
    """Where the shown records come from, on which device; a CPU said plainly."""
    first = records[0]
    origin = "the live run" if live else "the uploaded results file"
    where = BACKENDS.get(first.backend, f"backend {first.backend}")
    cpu = " JAX saw no GPU, so every timing here is a CPU measurement." * (first.backend == "cpu")
    return (
        f"{len(records)} records from {origin}, measured on **{where}** (`{first.device}`), "
        f"JAX {first.jax_version}, {first.timestamp}.{cpu}"
    )


def precision_note(records: tuple[Record, ...]) -> str:
    """The roof each dtype's points sit under, from the records, and where that came from."""
    ran = sorted({(r.dtype, r.precision) for r in records if r.flops and r.precision})
    if not ran:
        return "No record did arithmetic with a precision to report."
    said = ", ".join(f"{dtype} work under the **{p}** roof" for dtype, p in ran)
    tf32 = any(d == "float32" and p == "tf32" for d, p in ran)
    why = " (JAX's default float32 matmul precision selects TF32 on this backend)" * tf32
    return (
        f"Roof per dtype: {said}{why}. Each record's precision was looked up when it was "
        "measured, from its dtype, the backend and JAX's matmul-precision setting: the "
        "precision those ask for, not one observed on the hardware."
    )


def roof_precision(records: tuple[Record, ...], fallback: str) -> str:
    """The precision whose roof the roofline highlights: the sweep's, else the first point's."""
    sized = sweep(records)
    if sized:
        return sized[0].precision
    return next((r.precision for r in records if r.flops and r.precision), fallback)


TABLE_UNITS = {
    "min": "seconds",
    "median": "seconds",
    "mean": "seconds",
    "IQR": "seconds",
    "spread": "percent",
    "FLOP/s at the median": "flops_per_s",
    "bandwidth at the median": "bytes_per_s",
}


def _row(r: Record) -> dict:
    """One record's table row: times in seconds per call, achieved rates at the median."""
    m = r.measurement
    return {
        "experiment": r.experiment,
        "what": r.label,
        "method": m.method,
        "synced": m.synced,
        "calls/sample": m.calls_per_sample,
        "samples": m.n,
        "min": m.min,
        "median": m.median,
        "mean": m.mean,
        "IQR": m.iqr,
        "spread": m.spread,
        "FLOP/s at the median": r.flops_per_s,
        "bandwidth at the median": r.bytes_per_s,
        "precision": r.precision or None,
        "regime": r.regime or None,
        "note": r.note,
    }


def table(records: tuple[Record, ...]) -> pd.DataFrame:
    """One row per record: what, method and spread, times (seconds per call), achieved rates."""
    df = pd.DataFrame([_row(r) for r in records])
    df.attrs["units"] = dict(TABLE_UNITS)
    return df


def takeaway(records: tuple[Record, ...], spec: Device | None, own: bool) -> str:
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
    measured = ceilings(measured_roofline(records), spec)
    best = [c for c in measured if c.fraction is not None and c.unit == "FLOP/s"]
    for c in best[:1]:
        whose = "" if own else " (a picked row, not this device's own)"
        parts.append(f"Best matmul: {fmt.percent(c.fraction)} of {spec.name}'s spec{whose}.")
    if spec is None and measured:
        parts.append("No spec row applies, so no fraction of spec is given: the roof is measured.")
    return " ".join(parts) or "These records hold no sweep, spread or ceiling to read here."
