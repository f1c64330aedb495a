"""The hardware database: one frozen Device per row of data/specs.csv.

The CSV holds human units (TB/s, GB/s, TFLOP/s, GiB, MiB, KiB); a Device holds SI
floats. This module is one of the two places units convert (format.py is the other).
Capacities are binary (an "80 GB" HBM stack is 80 GiB, as vendors size memory);
rates are decimal (1 TB/s = 1e12 bytes/s, 1 TFLOP/s = 1e12 FLOP/s).
An empty cell is "not published" and becomes None, never 0. load_specs reports every
problem of a file at once; perfcore.model.chip.sanity flags well-formed rows that look mistyped.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import BinaryIO

from perfcore.errors import FileProblems, NotPublished, UserError
from perfcore.model.chip.csvrows import (
    Expected,
    Schema,
    load_from,
    parse_table,
    positive,
    whole,
)

PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4")

DEFAULT_PATH = Path(__file__).resolve().parents[3] / "data" / "specs.csv"

# column -> (Device field, multiplier to SI). Order is the documented schema.
REQUIRED_COLUMNS = (
    "name",
    "vendor",
    "year",
    "architecture",
    "form_factor",
    "compute_units",
    "memory_gib",
    "memory_bw_tbs",
    "l2_mib",
    "smem_kb_per_unit",
    "regs_kb_per_unit",
    "fp64_tflops",
    "fp32_tflops",
    "tf32_tflops",
    "bf16_tflops",
    "fp16_tflops",
    "fp8_tflops",
    "int8_tops",
    "fp4_tflops",
    "scaleup_gbs",
    "scaleout_gbs",
    "pcie_gbs",
    "tdp_w",
    "source",
    "notes",
)

# Optional columns the loader understands; any other extra column is kept verbatim.
# On-chip bandwidths are not published by vendors: these are estimates, labelled so.
# jax_device_kinds: the exact JAX device.device_kind strings of this row, ';'-separated.
# scaleup_domain: GPUs one scale-up link joins all-to-all (an HGX board: 8; a GB200 NVL72 rack: 72).
OPTIONAL_COLUMNS = (
    "l2_bw_tbs_est",
    "smem_bw_tbs_est",
    "regs_bw_tbs_est",
    "jax_device_kinds",
    "scaleup_domain",
)
WHOLE_COLUMNS = ("compute_units", "scaleup_domain")
KINDS_SEPARATOR = ";"

NUMERIC_SI = {
    "compute_units": ("compute_units", 1),
    "memory_gib": ("memory_bytes", 1024**3),
    "memory_bw_tbs": ("memory_bytes_per_s", 1e12),
    "l2_mib": ("l2_bytes", 1024**2),
    "smem_kb_per_unit": ("smem_bytes_per_unit", 1024),
    "regs_kb_per_unit": ("regs_bytes_per_unit", 1024),
    **{f"{p}_tflops": (f"{p}_flops_per_s", 1e12) for p in PRECISIONS if p != "int8"},
    "int8_tops": ("int8_flops_per_s", 1e12),
    "scaleup_gbs": ("scaleup_bytes_per_s", 1e9),
    "scaleout_gbs": ("scaleout_bytes_per_s", 1e9),
    "pcie_gbs": ("pcie_bytes_per_s", 1e9),
    "tdp_w": ("tdp_w", 1),
    "l2_bw_tbs_est": ("l2_bytes_per_s_est", 1e12),
    "smem_bw_tbs_est": ("smem_bytes_per_s_est", 1e12),
    "regs_bw_tbs_est": ("regs_bytes_per_s_est", 1e12),
    "scaleup_domain": ("scaleup_domain", 1),
}

YEAR_MIN, YEAR_MAX = 1990, 2100  # outside this, a year is a typo (e.g. 20222)

# What a cell must hold, as the messages say it.
POSITIVE = "a positive finite number, or empty for not published"
NOT_ZERO = " (never 0 or negative: leave it empty if not published)"
WHOLE = "a positive whole number, or empty for not published"
YEAR = f"a whole-number year from {YEAR_MIN} to {YEAR_MAX}"
NONEMPTY = {
    "name": "a device name (every row needs one)",
    "vendor": "the vendor's name (every row needs one)",
    "source": "the datasheet or whitepaper the row's figures come from (every row cites one)",
}


class SpecError(FileProblems):
    """A specs file that cannot be loaded; the message lists every problem found."""

    @property
    def path(self) -> str:
        """The file's path or upload name."""
        return self.label


# Columns renamed to say their unit (they always held GiB and MiB); files with the old
# header still load.
RENAMED = (("memory_gb", "memory_gib"), ("l2_mb", "l2_mib"))
SCHEMA = Schema(REQUIRED_COLUMNS, OPTIONAL_COLUMNS, "device", SpecError, RENAMED)


@dataclass(frozen=True)
class Device:
    """One accelerator's published figures in SI units; None where unpublished."""

    name: str
    vendor: str
    year: int
    architecture: str = ""
    form_factor: str = ""
    compute_units: int | None = None
    memory_bytes: float | None = None
    memory_bytes_per_s: float | None = None
    l2_bytes: float | None = None
    smem_bytes_per_unit: float | None = None
    regs_bytes_per_unit: float | None = None
    fp64_flops_per_s: float | None = None
    fp32_flops_per_s: float | None = None
    tf32_flops_per_s: float | None = None
    bf16_flops_per_s: float | None = None
    fp16_flops_per_s: float | None = None
    fp8_flops_per_s: float | None = None
    int8_flops_per_s: float | None = None
    fp4_flops_per_s: float | None = None
    scaleup_bytes_per_s: float | None = None  # both directions, as marketed
    scaleout_bytes_per_s: float | None = None  # one direction
    pcie_bytes_per_s: float | None = None  # both directions, as marketed
    tdp_w: float | None = None
    l2_bytes_per_s_est: float | None = None
    smem_bytes_per_s_est: float | None = None
    regs_bytes_per_s_est: float | None = None
    scaleup_domain: int | None = None  # GPUs in one scale-up (NVLink, ICI...) domain
    source: str = ""
    notes: str = ""
    jax_device_kinds: tuple[str, ...] = ()
    extra: tuple[tuple[str, str], ...] = ()

    def peak_flops(self, precision: str) -> float | None:
        """Dense peak FLOP/s (OP/s for int8) at `precision`; None where unpublished."""
        if precision not in PRECISIONS:
            raise ValueError(f"unknown precision {precision!r}; expected one of {PRECISIONS}")
        return getattr(self, f"{precision}_flops_per_s")

    def published_precisions(self) -> tuple[str, ...]:
        """The precisions this device publishes a peak for, in PRECISIONS order."""
        return tuple(p for p in PRECISIONS if self.peak_flops(p) is not None)

    def replace(self, **changes) -> Device:
        """A copy with some figures changed (for what-if inputs)."""
        return dataclasses.replace(self, **changes)


# A Device figure in words, for a NotPublished that names it.
FIGURE_WORDS = {
    "memory_bytes_per_s": "memory bandwidth",
    "memory_bytes": "memory capacity",
    "compute_units": "compute-unit count",
    "pcie_bytes_per_s": "PCIe bandwidth",
    "scaleup_bytes_per_s": "scale-up bandwidth",
    "scaleout_bytes_per_s": "scale-out (network) bandwidth",
    **{f"{p}_flops_per_s": f"{p} peak" for p in PRECISIONS},
}


def require(device: Device, field: str, needed_for: str = "") -> float:
    """The device's figure `field`; NotPublished naming it where the cell is empty."""
    value = getattr(device, field)
    if value is None:
        raise NotPublished(device.name, (field,), FIGURE_WORDS.get(field, field), needed_for)
    return value


def is_positive_finite(value: float) -> bool:
    """True when value is a finite number above zero."""
    return math.isfinite(value) and value > 0


def load_specs(path: str | Path | BinaryIO | None = None) -> dict[str, Device]:
    """Devices keyed by name, in file order, from a specs CSV path or open binary file."""
    return load_from(path, DEFAULT_PATH, load_specs_bytes)


def load_specs_bytes(data: bytes, label: str) -> dict[str, Device]:
    """Devices keyed by name, in file order; SpecError lists every problem, named by `label`."""
    clean, problems, row_problems = parse_table(data, label, SCHEMA, _convert)
    built = {} if problems else {f["name"]: (n, Device(**f)) for n, f in clean}
    problems += row_problems
    if problems:
        raise SpecError(label, problems)
    return {name: device for name, (_, device) in built.items()}


def _convert(column: str, raw: str) -> dict:
    """{Device field: value} for one known cell, in SI; Expected says what belongs there."""
    text = raw.strip()
    if column in NONEMPTY and not text:
        raise Expected(NONEMPTY[column])
    if column == "year":
        return {"year": _year(text)}
    if column == "jax_device_kinds":
        return {column: tuple(k.strip() for k in text.split(KINDS_SEPARATOR) if k.strip())}
    if column not in NUMERIC_SI:
        return {column: text}
    field, scale = NUMERIC_SI[column]
    if column in WHOLE_COLUMNS:
        return {field: whole(text, column, WHOLE)}
    return {field: _si(positive(text, column, POSITIVE, NOT_ZERO), scale)}


def _year(text: str) -> int:
    """The cell as a release year; Expected unless a whole number in YEAR_MIN..YEAR_MAX."""
    if not re.fullmatch(r"\d+", text) or not YEAR_MIN <= int(text) <= YEAR_MAX:
        raise Expected(YEAR)
    return int(text)


def _si(value: Decimal | None, scale: float) -> float | None:
    """The human-unit number in SI; exact decimal product, so 3.35 TB/s is 3.35e12 exactly."""
    if value is None:
        return None
    value = float(value * Decimal(scale))
    if not is_positive_finite(value):
        raise Expected(POSITIVE + " (this one is out of range)")
    return value


def column_value(device: Device, column: str) -> float | None:
    """A numeric figure of the device back in the CSV's human unit (TB/s, TFLOP/s, GB, ...)."""
    field, scale = NUMERIC_SI[column]
    value = getattr(device, field)
    return None if value is None else value / scale


class WhatIfError(UserError):
    """A what-if change that cannot apply: one line naming the figure, the value, the fix."""


# Figures a what-if may change: CSV column -> (words in the device's new name, unit).
WHAT_IF = {
    "memory_bw_tbs": ("memory", "TB/s"),
    "memory_gib": ("capacity", "GiB"),
    **{f"{p}_tflops": (f"{p.upper()} peak", "TFLOP/s") for p in PRECISIONS if p != "int8"},
    "int8_tops": ("INT8 peak", "TOP/s"),
    "scaleup_gbs": ("scale-up", "GB/s"),
    "scaleup_domain": ("scale-up domain", "GPUs"),
    "scaleout_gbs": ("network", "GB/s"),
    "pcie_gbs": ("PCIe", "GB/s"),
    "tdp_w": ("TDP", "W"),
}
# Not a column: every published peak times this factor (a precision's own figure, given
# too, is set after it).
PEAK_SCALE = "peak_x"
FIGURES = (PEAK_SCALE, *WHAT_IF)
OUT_OF_RANGE = "expected a finite figure (this one is out of range)"
WHAT_IF_MARK = "what_if"  # the key in Device.extra of a what-if's changes, as text


def changes_of(device: Device) -> str:
    """The what-if text that made `device` from a published row; '' for a published row."""
    return dict(device.extra).get(WHAT_IF_MARK, "")


def peak_column(precision: str) -> str:
    """The specs.csv column of the peak at `precision` (int8's is in TOP/s)."""
    return "int8_tops" if precision == "int8" else f"{precision}_tflops"


def what_if(device: Device, **changes: float) -> Device:
    """device with figures changed (CSV column names, human units), named as modified."""
    fields, words = {}, []
    for column, value in changes.items():
        if column not in FIGURES:
            raise WhatIfError(
                f"what-if: unknown figure {column!r}; expected one of {', '.join(FIGURES)}"
            )
        if not (isinstance(value, int | float) and is_positive_finite(float(value))):
            raise WhatIfError(f"what-if: {column} = {value!r}: expected a positive number")
        if column == PEAK_SCALE:
            fields |= _scaled_peaks(device, float(value), fields)
            words.append(f"every peak {float(value):.3g}×")
            continue
        if column in WHOLE_COLUMNS and not float(value).is_integer():
            raise WhatIfError(f"what-if: {column} = {value!r}: expected a whole number")
        field, scale = NUMERIC_SI[column]
        fields[field] = int(value) if column in WHOLE_COLUMNS else float(value) * scale
        if not is_positive_finite(float(fields[field])):
            raise WhatIfError(f"what-if: {column} = {value!r}: {OUT_OF_RANGE}")
        words.append(_changed(column_value(device, column), float(value), *WHAT_IF[column]))
    if not words:
        return device
    extra = (*device.extra, (WHAT_IF_MARK, what_if_text(changes)))
    return device.replace(name=f"{device.name}, {'; '.join(words)}", extra=extra, **fields)


def _scaled_peaks(device: Device, factor: float, fields: dict) -> dict:
    """{peak field: published peak × factor} for the peaks not already set in `fields`."""
    kept = [p for p in device.published_precisions() if f"{p}_flops_per_s" not in fields]
    scaled = {f"{p}_flops_per_s": device.peak_flops(p) * factor for p in kept}
    if not all(is_positive_finite(v) for v in scaled.values()):
        raise WhatIfError(f"what-if: {PEAK_SCALE} = {factor!r}: {OUT_OF_RANGE}")
    return scaled


def _changed(old: float | None, new: float, label: str, unit: str) -> str:
    """'memory 2× → 6.7 TB/s', 'scale-up domain 8 → 72 GPUs', or 'network → 100 GB/s'."""
    if old is None:
        return f"{label} → {new:g} {unit}"
    if unit == "GPUs":
        return f"{label} {old:g} → {new:g} {unit}"
    return f"{label} {new / old:.3g}× → {new:g} {unit}"


def what_if_text(changes: dict[str, float]) -> str:
    """{column: value} -> 'memory_bw_tbs=6.7,scaleup_domain=72', as parse_what_if reads it."""
    return ",".join(f"{column}={value:.15g}" for column, value in changes.items())


def apply_what_if(device: Device, text: str) -> Device:
    """device changed by a what-if text (parse_what_if's); blank text: device unchanged."""
    return what_if(device, **parse_what_if(text)) if text.strip() else device


def parse_what_if(text: str) -> dict[str, float]:
    """'memory_bw_tbs=6.7,scaleup_domain=72' -> {column: value}; WhatIfError, one line, if not."""
    changes: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",")):
        column, eq, raw = part.partition("=")
        column = column.strip()
        if not eq or column not in FIGURES:
            got = column if eq else part
            raise WhatIfError(
                f"what-if {part[:40]!r}: expected FIGURE=VALUE with FIGURE one of "
                f"{', '.join(FIGURES)} (got {got[:40]!r})"
            )
        if column in changes:
            raise WhatIfError(f"what-if: {column} is given twice")
        try:
            changes[column] = float(raw)
        except ValueError:
            raise WhatIfError(
                f"what-if {part[:40]!r}: {raw.strip()[:20]!r} is not a number"
            ) from None
    return changes
