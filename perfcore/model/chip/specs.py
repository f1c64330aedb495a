"""The hardware database: one frozen Device per row of data/specs.csv.

The CSV holds human units (TB/s, GB/s, TFLOP/s, GiB, MiB, KiB); a Device holds SI
floats. This module is one of the two places units convert (format.py is the other).
Capacities are binary (an "80 GB" HBM stack is 80 GiB, as vendors size memory);
rates are decimal (1 TB/s = 1e12 bytes/s, 1 TFLOP/s = 1e12 FLOP/s).
An empty cell is "not published" and becomes None, never 0. load_specs reports every
problem of a file at once; perfcore.model.chip.sanity flags well-formed rows that look mistyped.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import BinaryIO

from perfcore.errors import FileProblems
from perfcore.model.chip.csvrows import (
    Expected,
    Schema,
    load_from,
    parse_table,
    positive,
    whole,
)
from perfcore.model.chip.device import (
    NUMERIC_SI,
    WHOLE_COLUMNS,
    Device,
    is_positive_finite,
)

# Kept importable from here, where callers import them (a Device's figures live in device.py,
# what-ifs in whatif.py).
from perfcore.model.chip.device import PRECISIONS as PRECISIONS
from perfcore.model.chip.whatif import parse_what_if as parse_what_if
from perfcore.model.chip.whatif import what_if as what_if

DEFAULT_PATH = Path(__file__).resolve().parents[3] / "data" / "specs.csv"

# The documented schema, in order (data/specs.csv's header).
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
KINDS_SEPARATOR = ";"

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
