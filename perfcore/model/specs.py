"""The hardware database: one frozen Device per row of data/specs.csv.

The CSV holds human units (TB/s, GB/s, TFLOP/s, GiB, MiB, KiB); a Device holds SI
floats. This module is one of the two places units convert (format.py is the other).
Capacities are binary (an "80 GB" HBM stack is 80 GiB, as vendors size memory);
rates are decimal (1 TB/s = 1e12 bytes/s, 1 TFLOP/s = 1e12 FLOP/s).
An empty cell is "not published" and becomes None, never 0. load_specs reports every
problem of a file at once; perfcore.model.sanity flags well-formed rows that look mistyped.
"""

from __future__ import annotations

import codecs
import csv
import dataclasses
import difflib
import io
import math
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import BinaryIO

from perfcore.errors import FileProblems

PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4")

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "data" / "specs.csv"

# column -> (Device field, multiplier to SI). Order is the documented schema.
REQUIRED_COLUMNS = (
    "name", "vendor", "year", "architecture", "form_factor", "compute_units",
    "memory_gb", "memory_bw_tbs", "l2_mb", "smem_kb_per_unit", "regs_kb_per_unit",
    "fp64_tflops", "fp32_tflops", "tf32_tflops", "bf16_tflops", "fp16_tflops",
    "fp8_tflops", "int8_tops", "fp4_tflops", "scaleup_gbs", "scaleout_gbs", "pcie_gbs",
    "tdp_w", "source", "notes",
)  # fmt: skip

# Optional columns the loader understands; any other extra column is kept verbatim.
# On-chip bandwidths are not published by vendors: these are estimates, labelled so.
# jax_device_kinds: the exact JAX device.device_kind strings of this row, ';'-separated.
OPTIONAL_COLUMNS = ("l2_bw_tbs_est", "smem_bw_tbs_est", "regs_bw_tbs_est", "jax_device_kinds")
KINDS_SEPARATOR = ";"

NUMERIC_SI = {
    "compute_units": ("compute_units", 1),
    "memory_gb": ("memory_bytes", 1024**3),
    "memory_bw_tbs": ("memory_bytes_per_s", 1e12),
    "l2_mb": ("l2_bytes", 1024**2),
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
}


KNOWN_COLUMNS = frozenset(REQUIRED_COLUMNS + OPTIONAL_COLUMNS)
YEAR_MIN, YEAR_MAX = 1990, 2100  # outside this, a year is a typo (e.g. 20222)

# What a cell must hold, as the messages say it.
POSITIVE = "a positive finite number, or empty for not published"
WHOLE = "a positive whole number, or empty for not published"
YEAR = f"a whole-number year from {YEAR_MIN} to {YEAR_MAX}"
NONEMPTY = {
    "name": "a device name (every row needs one)",
    "vendor": "the vendor's name (every row needs one)",
    "source": "the datasheet or whitepaper the row's figures come from (every row cites one)",
}
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
PLACEHOLDERS = ("n/a", "na", "-", "--", "?", "tbd", "none", "null", "unknown")


class SpecError(FileProblems):
    """A specs file that cannot be loaded; the message lists every problem found."""

    @property
    def path(self) -> str:
        """The file's path or upload name."""
        return self.label


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


def is_positive_finite(value: float) -> bool:
    """True when value is a finite number above zero."""
    return math.isfinite(value) and value > 0


class _Expected(ValueError):
    """A cell that does not convert; the message says what belongs there."""


def load_specs(path: str | Path | BinaryIO | None = None) -> dict[str, Device]:
    """Devices keyed by name, in file order, from a specs CSV path or open binary file."""
    if hasattr(path, "read"):
        return load_specs_bytes(path.read(), getattr(path, "name", "uploaded file"))
    path = Path(DEFAULT_PATH if path is None else path)
    return load_specs_bytes(path.read_bytes(), str(path))


def load_specs_bytes(data: bytes, label: str) -> dict[str, Device]:
    """Devices keyed by name, in file order; SpecError lists every problem, named by `label`."""
    header, rows = _table(bytes(data), label)
    problems = _header_problems(header, label)
    clean, row_problems = _parse_rows(header, rows, label)
    built = {} if problems else {f["name"]: (n, Device(**f)) for n, f in clean}
    problems += row_problems
    if problems:
        raise SpecError(label, problems)
    return {name: device for name, (_, device) in built.items()}


def _table(data: bytes, label: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and the non-blank data rows, numbered as a spreadsheet numbers rows."""
    records = _records(_text(data, label), label)
    header = [cell.strip() for cell in records[0]]
    if not "".join(header):
        expected = f"the header ({', '.join(REQUIRED_COLUMNS[:3])}, ...)"
        raise SpecError(label, [f"{label}, row 1: got a blank row; expected {expected}"])
    _check_delimiter(header, label)
    rows = [(n, cells) for n, cells in enumerate(records[1:], start=2) if "".join(cells).strip()]
    if not rows:
        problem = f"{label}, row 2: no data rows below the header; expected one row per device"
        raise SpecError(label, [problem])
    return header, rows


def _text(data: bytes, label: str) -> str:
    """The file's text, decoded as UTF-8 (a BOM allowed); SpecError when empty or not UTF-8."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise SpecError(label, [_encoding_problem(data, err.start, label)]) from None
    if not text.strip():
        expected = f"a header row ({', '.join(REQUIRED_COLUMNS[:3])}, ...) and a row per device"
        raise SpecError(label, [f"{label}: the file is empty; expected {expected}"])
    return text


def _encoding_problem(data: bytes, start: int, label: str) -> str:
    """Where the first byte that is not UTF-8 sits (row, column, cell), and what to do."""
    expected = "expected UTF-8 text (save as 'CSV UTF-8')"
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return f"{label}, row 1: got UTF-16 text; {expected}"
    marked = data[:start].decode("utf-8-sig") + "\ufffd"  # the bad byte's cell ends the text
    records = list(csv.reader(io.StringIO(marked, newline=""), skipinitialspace=True))
    row, index = len(records), len(records[-1]) - 1
    column = records[0][index] if row > 1 and index < len(records[0]) else _letter(index)
    found = f"byte {data[start : start + 1]!r} after {records[-1][-1][:-1]!r}"
    return f"{label}, row {row}, column {column!r}: got {found}, not UTF-8; {expected}"


def _records(text: str, label: str) -> list[list[str]]:
    """Every CSV record of the text; SpecError on malformed CSV (an unclosed quote, NUL)."""
    records = []
    try:
        records.extend(
            csv.reader(io.StringIO(text, newline=""), skipinitialspace=True, strict=True)
        )
    except csv.Error as err:
        problem = f"{label}, row {len(records) + 1}: {err}; expected well-formed CSV"
        raise SpecError(label, [problem + " (is a quote left open?)"]) from None
    return records


def _check_delimiter(header: list[str], label: str) -> None:
    """SpecError when the header is split by semicolons, tabs or pipes rather than commas."""
    counts = {sep: sum(cell.count(sep) for cell in header) for sep in (";", "\t", "|")}
    sep = max(counts, key=counts.get)
    if 0 < counts[sep] >= len(header):
        found = f"{header[0][:48]!r}, separated by {sep!r}"
        problem = f"{label}, row 1: the header is {found}; expected comma-separated columns"
        raise SpecError(label, [problem])


def _header_problems(header: list[str], label: str) -> list[str]:
    """Problems of the header row: unnamed, duplicated and missing required columns."""
    problems, first = [], {}
    for i, column in enumerate(header):
        if not column:
            problems.append(f"{label}, row 1, column {_letter(i)}: got ''; expected a column name")
        elif column in first:
            where = f"columns {_letter(first[column])} and {_letter(i)}"
            problems.append(f"{label}, row 1, column {column!r}: got it in {where}; expected once")
        first.setdefault(column, i)
    return problems + _missing_problem(header, label)


def _missing_problem(header: list[str], label: str) -> list[str]:
    """One problem naming every required column the header lacks, with likely misspellings."""
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if not missing:
        return []
    named = ", ".join(repr(c) + _did_you_mean(c, header) for c in missing)
    expected = "expected all of " + ", ".join(REQUIRED_COLUMNS)
    return [f"{label}, row 1: missing required column(s) {named}; {expected}"]


def _did_you_mean(column: str, header: list[str]) -> str:
    """' (did you mean X?)' when an unknown header column looks like `column`, else ''."""
    unknown = {c.lower(): c for c in header if c not in KNOWN_COLUMNS}
    close = difflib.get_close_matches(column, list(unknown), n=1, cutoff=0.75)
    return f" (did you mean {unknown[close[0]]!r}?)" if close else ""


def _letter(index: int) -> str:
    """The spreadsheet letter of a 0-based column index (0 -> A, 26 -> AA)."""
    letters = ""
    while index >= 0:
        index, rest = divmod(index, 26)
        letters, index = chr(ord("A") + rest) + letters, index - 1
    return letters


def _parse_rows(header, rows, label) -> tuple[list[tuple[int, dict]], list[str]]:
    """(row number, Device fields) of each clean row, and every problem of the others."""
    clean, problems, first = [], [], {}
    for n, cells in rows:
        fields, found = _parse_row(header, cells, n, label)
        name = fields.get("name")
        if name and name in first:
            found.append(
                f"{_at(label, n, 'name')}: got {name!r}, the name of row {first[name]}; "
                "expected each name once"
            )
        first.setdefault(name, n)
        clean += [] if found else [(n, fields)]
        problems += found
    return clean, problems


def _parse_row(header, cells, n, label) -> tuple[dict, list[str]]:
    """A data row's Device fields, and its problems (each naming file, row, column, value)."""
    if len(cells) != len(header):
        return {}, [_width_problem(header, cells, n, label)]
    fields, extra, problems = {}, [], []
    for column, raw in zip(header, cells, strict=True):
        if column not in KNOWN_COLUMNS:
            extra.append((column, raw))
            continue
        try:
            fields.update(_convert(column, raw))
        except _Expected as expected:
            problems.append(f"{_at(label, n, column)}: got {raw!r}; expected {expected}")
    return {**fields, "extra": tuple(extra)}, problems


def _at(label: str, n: int, column: str) -> str:
    """Where a cell is, as messages say it: file, spreadsheet row, column."""
    return f"{label}, row {n}, column {column!r}"


def _width_problem(header: list[str], cells: list[str], n: int, label: str) -> str:
    """A row with more or fewer fields than the header: where it goes wrong, and the value."""
    counted = f"{len(cells)} fields, the header has {len(header)}"
    if len(cells) > len(header):
        where, value = header[-1], cells[len(header) - 1 :]
        why = "an unquoted comma, as in 1,979 or a note? quote the value"
    else:
        where, value = header[len(cells) - 1], cells[-1]
        why = f"no value for {', '.join(header[len(cells) :])}; empty cells still need commas"
    return (
        f"{_at(label, n, where)}: got {value!r} ({counted}); expected one value per column ({why})"
    )


def _convert(column: str, raw: str) -> dict:
    """{Device field: value} for one known cell, in SI; _Expected says what belongs there."""
    text = raw.strip()
    if column in NONEMPTY and not text:
        raise _Expected(NONEMPTY[column])
    if column == "year":
        return {"year": _year(text)}
    if column == "jax_device_kinds":
        return {column: tuple(k.strip() for k in text.split(KINDS_SEPARATOR) if k.strip())}
    if column not in NUMERIC_SI:
        return {column: text}
    field, scale = NUMERIC_SI[column]
    if column == "compute_units":
        return {field: _whole(text, column)}
    return {field: _si(_number(text, column), scale)}


def _year(text: str) -> int:
    """The cell as a release year; _Expected unless a whole number in YEAR_MIN..YEAR_MAX."""
    if not re.fullmatch(r"\d+", text) or not YEAR_MIN <= int(text) <= YEAR_MAX:
        raise _Expected(YEAR)
    return int(text)


def _whole(text: str, column: str) -> int | None:
    """The cell as a positive integer count, None when empty; _Expected otherwise."""
    if not text:
        return None
    if not re.fullmatch(r"\+?\d+", text) or int(text) == 0:
        raise _Expected(WHOLE + _hint(text, column))
    return int(text)


def _number(text: str, column: str) -> Decimal | None:
    """The cell as an exact decimal above zero, None when empty; _Expected otherwise."""
    if not text:
        return None
    if not NUMBER.fullmatch(text):
        raise _Expected(POSITIVE + _hint(text, column))
    if Decimal(text) <= 0:
        raise _Expected(POSITIVE + " (never 0 or negative: leave it empty if not published)")
    return Decimal(text)


def _si(number: Decimal | None, scale: float) -> float | None:
    """The human-unit number in SI; exact decimal product, so 3.35 TB/s is 3.35e12 exactly."""
    if number is None:
        return None
    value = float(number * Decimal(scale))
    if not is_positive_finite(value):
        raise _Expected(POSITIVE + " (this one is out of range)")
    return value


def _hint(text: str, column: str) -> str:
    """' (how to fix it)' when a cell that is not a plain number holds a common mistake."""
    if re.fullmatch(r"[+-]?\d[\d,]*(\.\d*)?", text):
        return _comma_hint(text)
    if text.lower().lstrip("+-") in ("nan", "inf", "infinity"):
        return " (NaN and infinity are not figures: leave it empty if not published)"
    if text.lower() in PLACEHOLDERS:
        return " (leave the cell empty if not published)"
    lead = re.match(r"[+-]?(\d+\.?\d*|\.\d+)(?=\s*[^\d\s.,])", text)
    if lead:
        return f" (no units in the cell: the column name {column!r} gives them; write {lead[0]})"
    return ""


def _comma_hint(text: str) -> str:
    """' (no commas ...)' for 1,979 (a thousands separator) or 3,35 (a decimal comma)."""
    thousands = re.fullmatch(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?", text)
    decimal = text.count(",") == 1 and "." not in text
    options = [text.replace(",", "")] * bool(thousands) + [text.replace(",", ".")] * decimal
    return f" (no commas in numbers: write {' or '.join(options)})" if options else ""


def column_value(device: Device, column: str) -> float | None:
    """A numeric figure of the device back in the CSV's human unit (TB/s, TFLOP/s, GB, ...)."""
    field, scale = NUMERIC_SI[column]
    value = getattr(device, field)
    return None if value is None else value / scale
