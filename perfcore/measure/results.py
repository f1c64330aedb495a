"""Measurement results files: one Record per timed thing, saved as JSON or CSV.

A Record is a Measurement (raw samples in seconds per call, method, warmup) plus what
was measured (experiment, label, shapes, dtype, size, the precision whose roof applies,
FLOPs and bytes) and where (device, backend, JAX version, UTC time stamp). The schema is
the dataclass fields' metadata (schema.column): it orders the CSV columns, picks each
field's parser and writes docs/results-format.md's table (schema_table). Statistics are
written for readers and checked against the samples on load. Version 1 files still load.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path

from perfcore.errors import FileProblems
from perfcore.measure import renamed, results_v1
from perfcore.measure.bench import Measurement
from perfcore.measure.parsers import PARSERS
from perfcore.measure.schema import Column, column, columns
from perfcore.model.specs import PRECISIONS

FORMAT = "perfcore-results"
VERSION = 2
VERSIONS = (1, 2)  # versions this code loads; version 1 is upgraded on load (results_v1)
PRECISION_DOC = "which roof applies: " + ", ".join(f"`{p}`" for p in PRECISIONS) + " or empty"
# Written for readers after the measurement's fields, checked against the samples on load.
DERIVED = (
    ("min_s", "min", "min of `samples_s`"),
    ("median_s", "median", "median of `samples_s` (linear interpolation)"),
    ("mean_s", "mean", "mean of `samples_s`"),
    ("max_s", "max", "max of `samples_s`"),
    ("iqr_s", "iqr", "interquartile range of `samples_s`"),
    ("spread", "spread", "`iqr_s / median_s`, a fraction; above 0.1 the measurement is noisy"),
)


class ResultsError(FileProblems):
    """A results file that cannot be loaded; the message lists every problem found."""


@dataclass(frozen=True, kw_only=True)
class Record:
    """One measurement with what was measured and where; the fields are the file's columns."""

    experiment: str = column("name", "experiment id, e.g. `sweep` (perfcore.measure.registry)")
    label: str = column("name", "what was timed within the experiment, e.g. `matmul 1024`")
    device: str = column("name", "JAX `device_kind`, e.g. `NVIDIA H100 80GB HBM3`, or `cpu`")
    spec_name: str = column(
        "text", "the data/specs.csv row the device matched; empty when unknown",
        optional=True, default="",
    )  # fmt: skip
    backend: str = column("name", "JAX backend: `cpu`, `gpu` or `tpu`")
    jax_version: str = column("name", "`jax.__version__`")
    timestamp: str = column(
        "timestamp", "ISO 8601 with a UTC offset, e.g. 2025-01-31T12:00:00+00:00"
    )
    shapes: tuple[tuple[int, ...], ...] = column(
        "shapes", "input shapes; CSV: `1024x1024;1024x1024`, `()` a scalar", default=()
    )
    dtype: str = column("text", "input dtype, e.g. `float32`, `bfloat16`", default="")
    precision: str = column("precision", PRECISION_DOC, default="")
    size: float | None = column(
        "amount", "the swept size, in the unit `size_kind` names; empty when not swept",
        optional=True, default=None,
    )  # fmt: skip
    size_kind: str = column(
        "size_kind", "unit of `size`: `side` (matrix side n), `elements` or `bytes`; or empty",
        optional=True, default="",
    )  # fmt: skip
    level: str = column(
        "text", "memory level (plateau) of the record, e.g. `cache 1`, `memory`; empty when none",
        optional=True, default="",
    )  # fmt: skip
    flops: float | None = column(
        "amount", "FLOPs per call used for FLOP/s: cost_analysis where reported, else the "
        "model; empty when not applicable", default=None,
    )  # fmt: skip
    bytes: float | None = column(
        "amount", "bytes per call: cost_analysis `bytes accessed`, else the model", default=None
    )
    flops_model: float | None = column(
        "amount", "FLOPs per call from perfcore.model.ops (the cross-check)", default=None
    )
    bytes_model: float | None = column(
        "amount", "bytes per call from perfcore.model.ops", default=None
    )
    flops_source: str = column(
        "flops_source", "where `flops` came from: `cost_analysis` or `model`; empty when none",
        default="",
    )  # fmt: skip
    measurement: Measurement = column("measurement", "the measurement's fields and statistics")
    regime: str = column(
        "text", "the sweep's regime: `overhead`, `utilisation` or `compute roof`; or empty",
        optional=True, default="",
    )  # fmt: skip
    notes: tuple[str, ...] = column(
        "notes", "remarks, each one line (a cost_analysis disagreement, the run-to-run "
        "spread); CSV: one per line of the cell", optional=True, default=(),
    )  # fmt: skip

    @property
    def note(self) -> str:
        """The notes as one line of text."""
        return "; ".join(self.notes)

    def noted(self, note: str) -> Record:
        """The record with one more note (notes are appended, never replaced)."""
        return dataclasses.replace(self, notes=(*self.notes, note))

    def rate(self, amount: float | None, seconds: float | None = None) -> float | None:
        """amount / seconds (default the median) for synchronized work; else None, per second."""
        seconds = self.measurement.median if seconds is None else seconds
        return amount / seconds if self.measurement.synced and amount and seconds > 0 else None

    @property
    def flops_per_s(self) -> float | None:
        """Achieved FLOP/s at the median; None when unsynchronized or without FLOPs."""
        return self.rate(self.flops)

    @property
    def bytes_per_s(self) -> float | None:
        """Achieved bytes/s at the median; None when unsynchronized or without bytes."""
        return self.rate(self.bytes)


def _schema() -> tuple[tuple[Column, ...], tuple[Column, ...], tuple[Column, ...]]:
    """(Record's columns, Measurement's, the derived statistics'), in file order."""
    record = [c for c in columns(Record) if c.kind != "measurement"]
    derived = [Column(name, attr, "derived", doc, True) for name, attr, doc in DERIVED]
    return tuple(record), tuple(columns(Measurement)), tuple(derived)


RECORD_COLUMNS, MEASUREMENT_COLUMNS, DERIVED_COLUMNS = _schema()
_AT = [f.name for f in dataclasses.fields(Record)].index("measurement")
SCHEMA = (*RECORD_COLUMNS[:_AT], *MEASUREMENT_COLUMNS, *DERIVED_COLUMNS, *RECORD_COLUMNS[_AT:])
FIELDS = tuple(c.name for c in SCHEMA)


def schema_table() -> str:
    """docs/results-format.md's field table (a Markdown table), written from SCHEMA."""
    rows = [f"| `{c.name}` | {c.kind} | {'yes' if c.optional else ''} | {c.doc} |" for c in SCHEMA]
    return "\n".join(["| field | kind | optional | meaning |", "|---|---|---|---|", *rows])


def record_row(record: Record) -> dict:
    """The record as one flat dict of JSON values, keys in FIELDS order."""
    m = record.measurement
    row = {c.name: getattr(record, c.attr, None) for c in RECORD_COLUMNS}
    row |= {c.name: getattr(m, c.attr) for c in (*MEASUREMENT_COLUMNS, *DERIVED_COLUMNS)}
    row["samples_s"] = list(m.samples)
    row["shapes"] = [list(shape) for shape in record.shapes]
    row["notes"] = list(record.notes)
    return {name: row[name] for name in FIELDS}


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
    if isinstance(value, list) and value and isinstance(value[0], str):
        return "\n".join(value)
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
    """The record dicts of a results JSON document (upgraded to this version), and 'record'."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ResultsError(label, [f"not JSON: {error.msg} at line {error.lineno}"]) from None
    problems = []
    if not isinstance(document, dict):
        raise ResultsError(label, ["expected a JSON object with 'format' and 'records'"])
    if document.get("format") != FORMAT:
        problems.append(f"field 'format': got {document.get('format')!r}, expected {FORMAT!r}")
    version = document.get("version")
    if version not in VERSIONS:
        problems.append(f"field 'version': got {version!r}, expected one of {VERSIONS}")
    rows = document.get("records")
    if not isinstance(rows, list) or not rows:
        problems.append(f"field 'records': got {rows!r:.60}, expected a non-empty list")
    if problems:
        raise ResultsError(label, problems)
    return [results_v1.upgrade(row) for row in rows] if version == 1 else rows, "record"


def _csv_rows(text: str, label: str) -> tuple[list, str]:
    """The data rows of a results CSV as dicts (a version 1 header upgraded), and 'row'."""
    reader = csv.DictReader(io.StringIO(text))
    header = reader.fieldnames or []
    missing = [c.name for c in SCHEMA if c.name not in header and not c.optional]
    if missing:
        raise ResultsError(label, [f"header: missing column(s) {', '.join(missing)}"])
    rows = list(reader)
    if not rows:
        raise ResultsError(label, ["expected at least one data row under the header"])
    return [results_v1.upgrade(row) for row in rows] if "note" in header else rows, "row"


def _records(rows: list, where: str, label: str) -> tuple[Record, ...]:
    """Validated Records from raw rows; ResultsError naming every bad row and field."""
    first = 2 if where == "row" else 0  # CSV rows count from the header line, row 1
    records, problems = [], []
    for number, row in enumerate(rows, start=first):
        record, row_problems = parse_record(renamed.current(row))
        records.append(record)
        problems += [f"{where} {number}: {p}" for p in row_problems]
    if problems:
        raise ResultsError(label, problems)
    return tuple(records)


def _fields(row: dict) -> tuple[dict, list[str]]:
    """Each SCHEMA column of row parsed (an absent optional one left out), and the problems."""
    values, problems = {}, []
    for c in SCHEMA:
        if c.name not in row:
            problems += [] if c.optional else [f"field {c.name!r}: missing"]
            continue
        try:
            values[c.name] = PARSERS[c.kind](row.get(c.name))
        except ValueError as error:
            problems.append(f"field {c.name!r}: got {row.get(c.name)!r:.80}, expected {error}")
    return values, problems


def _derived_problems(values: dict, m: Measurement) -> list[str]:
    """A problem for each written statistic that disagrees with the samples."""
    problems = []
    for c in DERIVED_COLUMNS:
        written, computed = values.get(c.name), getattr(m, c.attr)
        if written is not None and not math.isclose(written, computed, rel_tol=1e-9):
            problems.append(
                f"field {c.name!r}: got {written!r}, expected {computed!r} from samples"
            )
    return problems


def parse_record(row: dict) -> tuple[Record | None, list[str]]:
    """A Record from one raw row (JSON values or CSV text), or None and its problems."""
    if not isinstance(row, dict):
        return None, [f"got {row!r:.60}, expected an object of fields"]
    values, problems = _fields(row)
    if problems:
        return None, problems
    try:
        m = Measurement(**{c.attr: values[c.name] for c in MEASUREMENT_COLUMNS})
    except ValueError as error:
        return None, [str(error)]
    problems = _derived_problems(values, m)
    kept = {c.attr: values[c.name] for c in RECORD_COLUMNS if c.name in values}
    return (None if problems else Record(measurement=m, **kept)), problems
