"""Measurement results files: one Record per timed thing, saved as JSON or CSV.

A Record is a Measurement (raw samples in seconds per call, method, warmup) plus what
was measured (experiment, label, shapes, dtype, the precision whose roof applies, FLOPs
and bytes) and where (device, backend, JAX version, UTC time stamp). Statistics are
written for readers and checked against the samples on load. Field by field: SCHEMA
below and docs/results-format.md. Roofline points from records: perfcore.measure.points.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from perfcore.errors import FileProblems
from perfcore.measure.bench import ISOLATED, LOOP, METHODS, Measurement
from perfcore.model.specs import PRECISIONS

FORMAT = "perfcore-results"
VERSION = 1
FLOPS_SOURCES = ("cost_analysis", "model", "")

# (field, kind, description): the order is the CSV column order.
SCHEMA = (
    ("experiment", "name", "experiment id, e.g. 'sweep'"),
    ("label", "name", "what was timed within it, e.g. 'matmul 1024'"),
    ("device", "name", "JAX device_kind, e.g. 'NVIDIA H100 80GB HBM3' or 'cpu'"),
    ("spec_name", "text", "matched data/specs.csv row name; empty when unknown"),
    ("backend", "name", "JAX backend: cpu, gpu or tpu"),
    ("jax_version", "name", "jax.__version__"),
    ("timestamp", "timestamp", "ISO 8601 with UTC offset, when the record was taken"),
    ("shapes", "shapes", "input shapes; CSV: '1024x1024;1024x1024', '()' a scalar"),
    ("dtype", "text", "input dtype, e.g. float32, bfloat16"),
    ("precision", "precision", "which roof applies: " + " ".join(PRECISIONS) + " or empty"),
    ("flops", "amount", "FLOPs per call used for FLOP/s; empty when not applicable"),
    ("bytes", "amount", "bytes per call: cost_analysis 'bytes accessed', else the model"),
    ("flops_model", "amount", "FLOPs per call from perfcore.model.ops"),
    ("bytes_model", "amount", "bytes per call from perfcore.model.ops"),
    ("flops_source", "flops_source", "where flops came from: cost_analysis, else model"),
    ("samples_s", "samples", "raw samples, seconds per call; CSV: space-separated"),
    ("calls_per_sample", "count1", "calls averaged into each sample (1 for isolated calls)"),
    ("method", "method", f"'{ISOLATED}' or '{LOOP}'"),
    ("warmup", "count0", "untimed calls before the first sample"),
    ("synced", "bool", "true when the clock stopped after the device finished"),
    ("min_s", "derived", "min of samples_s, seconds (written, checked on load)"),
    ("median_s", "derived", "median of samples_s, seconds"),
    ("mean_s", "derived", "mean of samples_s, seconds"),
    ("max_s", "derived", "max of samples_s, seconds"),
    ("iqr_s", "derived", "interquartile range of samples_s, seconds"),
    ("spread", "derived", "IQR / median, a fraction"),
    ("note", "text", "free text"),
)
FIELDS = tuple(name for name, _, _ in SCHEMA)
OPTIONAL = {"spec_name", "note", "min_s", "median_s", "mean_s", "max_s", "iqr_s", "spread"}
DERIVED = {"min_s": "min", "median_s": "median", "mean_s": "mean", "max_s": "max"}
DERIVED |= {"iqr_s": "iqr", "spread": "spread"}
MEASUREMENT_FIELDS = {"samples_s": "samples", "calls_per_sample": "calls_per_sample"}
MEASUREMENT_FIELDS |= {"method": "method", "warmup": "warmup", "synced": "synced"}


class ResultsError(FileProblems):
    """A results file that cannot be loaded; the message lists every problem found."""


@dataclass(frozen=True)
class Record:
    """One measurement with what was measured and where; see SCHEMA."""

    experiment: str
    label: str
    measurement: Measurement
    device: str
    backend: str
    jax_version: str
    timestamp: str
    spec_name: str = ""
    shapes: tuple[tuple[int, ...], ...] = ()
    dtype: str = ""
    precision: str = ""
    flops: float | None = None
    bytes: float | None = None
    flops_model: float | None = None
    bytes_model: float | None = None
    flops_source: str = ""
    note: str = ""


def record_row(record: Record) -> dict:
    """The record as one flat dict of JSON values, keys in FIELDS order."""
    m = record.measurement
    row = {name: getattr(record, name, None) for name in FIELDS}
    row |= {field: getattr(m, attr) for field, attr in MEASUREMENT_FIELDS.items()}
    row |= {field: getattr(m, attr) for field, attr in DERIVED.items()}
    row["samples_s"] = list(m.samples)
    row["shapes"] = [list(shape) for shape in record.shapes]
    return row


def to_json(records: tuple[Record, ...]) -> str:
    """The records as a results JSON document."""
    rows = [record_row(r) for r in records]
    return json.dumps({"format": FORMAT, "version": VERSION, "records": rows}, indent=1)


def _csv_cell(value) -> str:
    """One value as CSV text: floats by repr (exact), None empty, bools true/false."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list) and value and isinstance(value[0], list):
        return ";".join("x".join(map(str, shape)) or "()" for shape in value)
    if isinstance(value, list):
        return " ".join(repr(float(v)) for v in value)
    return repr(value) if isinstance(value, float) else str(value)


def to_csv(records: tuple[Record, ...]) -> str:
    """The records as results CSV text, one row per record, FIELDS as the header."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FIELDS)
    for record in records:
        writer.writerow([_csv_cell(v) for v in record_row(record).values()])
    return out.getvalue()


def save_results(records: tuple[Record, ...], path: str | Path) -> Path:
    """Write records to path as JSON or CSV (by suffix); the path written."""
    path = Path(path)
    if path.suffix.lower() not in (".json", ".csv"):
        raise ValueError(f"{path}: expected a .json or .csv file name")
    text = to_csv(records) if path.suffix.lower() == ".csv" else to_json(records)
    path.write_text(text, encoding="utf-8")
    return path


def load_results(path: str | Path) -> tuple[Record, ...]:
    """Records from a results file on disk; ResultsError listing every problem."""
    path = Path(path)
    return load_results_bytes(path.read_bytes(), str(path))


def load_results_bytes(data: bytes, label: str) -> tuple[Record, ...]:
    """Records from the bytes of a JSON or CSV results file; ResultsError if malformed."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        problem = f"not UTF-8 text ({error.reason} at byte {error.start})"
        raise ResultsError(label, [problem]) from None
    if not text.strip():
        raise ResultsError(label, ["empty file: expected a results JSON or CSV"])
    is_json = label.lower().endswith(".json") or text.lstrip().startswith(("{", "["))
    rows, where = (_json_rows if is_json else _csv_rows)(text, label)
    return _records(rows, where, label)


def _json_rows(text: str, label: str) -> tuple[list, str]:
    """The record dicts of a results JSON document, and how to name one ('record')."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ResultsError(label, [f"not JSON: {error.msg} at line {error.lineno}"]) from None
    problems = []
    if not isinstance(document, dict):
        raise ResultsError(label, ["expected a JSON object with 'format' and 'records'"])
    if document.get("format") != FORMAT:
        problems.append(f"field 'format': got {document.get('format')!r}, expected {FORMAT!r}")
    if document.get("version") != VERSION:
        problems.append(f"field 'version': got {document.get('version')!r}, expected {VERSION}")
    rows = document.get("records")
    if not isinstance(rows, list) or not rows:
        problems.append(f"field 'records': got {rows!r:.60}, expected a non-empty list")
    if problems:
        raise ResultsError(label, problems)
    return rows, "record"


def _csv_rows(text: str, label: str) -> tuple[list, str]:
    """The data rows of a results CSV as dicts, and how to name one ('row')."""
    reader = csv.DictReader(io.StringIO(text))
    header = reader.fieldnames or []
    missing = [f for f in FIELDS if f not in header and f not in OPTIONAL]
    if missing:
        raise ResultsError(label, [f"header: missing column(s) {', '.join(missing)}"])
    rows = list(reader)
    if not rows:
        raise ResultsError(label, ["expected at least one data row under the header"])
    return rows, "row"


def _records(rows: list, where: str, label: str) -> tuple[Record, ...]:
    """Validated Records from raw rows; ResultsError naming every bad row and field."""
    first = 2 if where == "row" else 0  # CSV rows count from the header line, row 1
    records, problems = [], []
    for number, row in enumerate(rows, start=first):
        record, row_problems = parse_record(row)
        records.append(record)
        problems += [f"{where} {number}: {p}" for p in row_problems]
    if problems:
        raise ResultsError(label, problems)
    return tuple(records)


def _name(value) -> str:
    """The value as non-empty text."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError("non-empty text")
    return value


def _text(value) -> str:
    """The value as text; None is empty."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError("text")
    return value


def _timestamp(value) -> str:
    """The value, when it is an ISO 8601 time stamp with a UTC offset."""
    try:
        stamp = datetime.fromisoformat(_name(value))
    except ValueError:
        raise ValueError("an ISO 8601 time stamp, e.g. 2025-01-31T12:00:00+00:00") from None
    if stamp.tzinfo is None:
        raise ValueError("a time stamp with a UTC offset (+00:00)")
    return value


def _shape(value) -> tuple[int, ...]:
    """One shape from '1024x1024', '()' or a JSON list."""
    if isinstance(value, str):
        value = [] if value == "()" else value.split("x")
    if not isinstance(value, list):
        raise ValueError("a shape")
    return tuple(_count(v, 0) for v in value)


def _shapes(value) -> tuple[tuple[int, ...], ...]:
    """Shapes from '1024x1024;1024x1024' or a JSON list of lists."""
    if isinstance(value, str):
        value = value.split(";") if value else []
    if not isinstance(value, list):
        raise ValueError("shapes like '1024x1024;1024x1024' (JSON: [[1024, 1024], ...])")
    try:
        return tuple(_shape(v) for v in value)
    except ValueError:
        raise ValueError("shapes like '1024x1024;1024x1024' (JSON: [[1024, 1024], ...])") from None


def _number(value) -> float:
    """The value as a finite float >= 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError("a number")
    try:
        number = float(value)
    except ValueError:
        raise ValueError("a number") from None
    if not math.isfinite(number) or number < 0:
        raise ValueError("a finite number >= 0")
    return number


def _amount(value) -> float | None:
    """A finite float >= 0, or None for an empty cell or null."""
    return None if value is None or value == "" else _number(value)


def _samples(value) -> tuple[float, ...]:
    """Seconds per call, from space-separated text or a JSON list."""
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, list) or not value:
        raise ValueError("at least one sample, finite seconds >= 0")
    try:
        return tuple(_number(v) for v in value)
    except ValueError:
        raise ValueError("samples that are finite seconds >= 0") from None


def _count(value, minimum: int) -> int:
    """The value as an integer >= minimum."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"an integer >= {minimum}")
    return value


def _bool(value) -> bool:
    """True or False, from a JSON bool or 'true'/'false'."""
    flags = {True: True, False: False, "true": True, "false": False}
    if not isinstance(value, (bool, str)) or value not in flags:
        raise ValueError("true or false")
    return flags[value]


def _choice(options: tuple[str, ...]):
    """A parser accepting exactly one of options."""

    def parse(value) -> str:
        if value not in options:
            raise ValueError("one of " + ", ".join(repr(o) for o in options))
        return value

    return parse


PARSERS = {
    "name": _name,
    "text": _text,
    "timestamp": _timestamp,
    "shapes": _shapes,
    "precision": _choice(("", *PRECISIONS)),
    "amount": _amount,
    "flops_source": _choice(FLOPS_SOURCES),
    "samples": _samples,
    "count1": lambda v: _count(v, 1),
    "count0": lambda v: _count(v, 0),
    "method": _choice(METHODS),
    "bool": _bool,
    "derived": _amount,
}


def _fields(row: dict) -> tuple[dict, list[str]]:
    """Each SCHEMA field of row parsed, and a problem for each that fails."""
    values, problems = {}, []
    for name, kind, _ in SCHEMA:
        if name not in row and name not in OPTIONAL:
            problems.append(f"field {name!r}: missing")
            continue
        try:
            values[name] = PARSERS[kind](row.get(name))
        except ValueError as error:
            problems.append(f"field {name!r}: got {row.get(name)!r:.80}, expected {error}")
    return values, problems


def _derived_problems(values: dict, m: Measurement) -> list[str]:
    """A problem for each written statistic that disagrees with the samples."""
    problems = []
    for name, attr in DERIVED.items():
        written, computed = values.get(name), getattr(m, attr)
        if written is not None and not math.isclose(written, computed, rel_tol=1e-9):
            problems.append(f"field {name!r}: got {written!r}, expected {computed!r} from samples")
    return problems


def parse_record(row: dict) -> tuple[Record | None, list[str]]:
    """A Record from one raw row (JSON values or CSV text), or None and its problems."""
    if not isinstance(row, dict):
        return None, [f"got {row!r:.60}, expected an object of fields"]
    values, problems = _fields(row)
    if problems:
        return None, problems
    try:
        m = Measurement(*(values[field] for field in MEASUREMENT_FIELDS))
    except ValueError as error:
        return None, [str(error)]
    problems = _derived_problems(values, m)
    kept = {k: v for k, v in values.items() if k not in DERIVED and k not in MEASUREMENT_FIELDS}
    return (None if problems else Record(measurement=m, **kept)), problems
