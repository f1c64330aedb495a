"""The results file's two encodings, JSON and CSV, written from the Record's schema.

SCHEMA orders the columns (the record's fields, the measurement's in their place, then the
statistics derived from the samples, written for readers); schema_table() writes
docs/results-format.md's field table from it. Floats are written by repr, so a file
round-trips exactly.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from pathlib import Path

from perfcore.measure.clock.harness import Measurement
from perfcore.measure.clock.schema import Column, columns
from perfcore.measure.results.record import DERIVED, FORMAT, VERSION, Record


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
