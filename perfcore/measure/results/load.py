"""Loading a results file: every field of every record validated, all problems at once.

JSON or CSV (by name or first character); a version 1 file is upgraded on load
(v1); a version 2 file lacks only version 3's optional profile columns. Each
problem names the file, the CSV row (the header is row 1) or JSON record, the field, the
value found and what was expected; written statistics must agree with the samples.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

from perfcore.measure.clock.harness import Measurement
from perfcore.measure.results import renamed, v1
from perfcore.measure.results.codec import (
    DERIVED_COLUMNS,
    MEASUREMENT_COLUMNS,
    RECORD_COLUMNS,
    SCHEMA,
)
from perfcore.measure.results.parsers import PARSERS
from perfcore.measure.results.record import FORMAT, VERSIONS, Record, ResultsError


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
    return [v1.upgrade(row) for row in rows] if version == 1 else rows, "record"


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
    return [v1.upgrade(row) for row in rows] if "note" in header else rows, "row"


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
