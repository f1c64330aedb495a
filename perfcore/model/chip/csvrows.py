"""Reading a CSV a user may have typed: rows, header and cells, every problem reported.

specs.py and models.py each describe their file with a Schema and convert their own
cells; this module does the rest the same way for both: UTF-8 with or without a BOM,
header checks (unnamed, duplicated, missing or misspelled columns), rows of the wrong
width, duplicate names, and each problem named by file, spreadsheet row, column, value
and what was expected, with a hint for common mistakes (1,979; 3,35; "80 GB"; n/a).
"""

from __future__ import annotations

import codecs
import csv
import difflib
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from perfcore.errors import FileProblems

NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
PLACEHOLDERS = ("n/a", "na", "-", "--", "?", "tbd", "none", "null", "unknown")
TRUE, FALSE = ("true", "yes", "1"), ("false", "no", "0")

Rows = list[tuple[int, list[str]]]


class Expected(ValueError):
    """A cell that does not convert; the message says what belongs there."""


@dataclass(frozen=True)
class Schema:
    """A CSV's columns, what one row describes ("device"), and the error its problems raise."""

    required: tuple[str, ...]
    optional: tuple[str, ...]
    noun: str
    error: type[FileProblems]
    renamed: tuple[tuple[str, str], ...] = ()  # (old column, its name now): old files load

    def current(self, column: str) -> str:
        """The column's name now: an old header's name mapped to the one that replaced it."""
        return dict(self.renamed).get(column, column)

    @property
    def known(self) -> frozenset[str]:
        """Every column the loader understands."""
        return frozenset(self.required + self.optional)


def load_from(path, default: Path, load_bytes: Callable[[bytes, str], dict]) -> dict:
    """load_bytes over a CSV path (default: `default`) or an open binary file, labelled."""
    if hasattr(path, "read"):
        return load_bytes(path.read(), getattr(path, "name", "uploaded file"))
    path = Path(default if path is None else path)
    return load_bytes(path.read_bytes(), str(path))


def parse_table(data: bytes, label: str, schema: Schema, convert) -> tuple[list, list, list]:
    """(clean rows, header problems, row problems) of a CSV file's bytes against `schema`."""
    header, rows = read_table(bytes(data), label, schema)
    clean, row_problems = parse_rows(header, rows, label, schema, convert)
    return clean, header_problems(header, label, schema), row_problems


def read_table(data: bytes, label: str, schema: Schema) -> tuple[list[str], Rows]:
    """The header and the non-blank data rows, numbered as a spreadsheet numbers rows."""
    records = _records(_text(data, label, schema), label, schema)
    header = [schema.current(cell.strip()) for cell in records[0]]
    if not "".join(header):
        expected = f"the header ({', '.join(schema.required[:3])}, ...)"
        raise schema.error(label, [f"{label}, row 1: got a blank row; expected {expected}"])
    _check_delimiter(header, label, schema)
    rows = [(n, cells) for n, cells in enumerate(records[1:], start=2) if "".join(cells).strip()]
    if not rows:
        problem = (
            f"{label}, row 2: no data rows below the header; expected one row per {schema.noun}"
        )
        raise schema.error(label, [problem])
    return header, rows


def _text(data: bytes, label: str, schema: Schema) -> str:
    """The file's text, decoded as UTF-8 (a BOM allowed); an error when empty or not UTF-8."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise schema.error(label, [_encoding_problem(data, err.start, label)]) from None
    if not text.strip():
        columns = ", ".join(schema.required[:3])
        expected = f"a header row ({columns}, ...) and a row per {schema.noun}"
        raise schema.error(label, [f"{label}: the file is empty; expected {expected}"])
    return text


def _encoding_problem(data: bytes, start: int, label: str) -> str:
    """Where the first byte that is not UTF-8 sits (row, column, cell), and what to do."""
    expected = "expected UTF-8 text (save as 'CSV UTF-8')"
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return f"{label}, row 1: got UTF-16 text; {expected}"
    marked = data[:start].decode("utf-8-sig") + "\ufffd"  # the bad byte's cell ends the text
    records = list(csv.reader(io.StringIO(marked, newline=""), skipinitialspace=True))
    row, index = len(records), len(records[-1]) - 1
    column = records[0][index] if row > 1 and index < len(records[0]) else letter(index)
    found = f"byte {data[start : start + 1]!r} after {records[-1][-1][:-1]!r}"
    return f"{label}, row {row}, column {column!r}: got {found}, not UTF-8; {expected}"


def _records(text: str, label: str, schema: Schema) -> list[list[str]]:
    """Every CSV record of the text; an error on malformed CSV (an unclosed quote, NUL)."""
    records = []
    try:
        records.extend(
            csv.reader(io.StringIO(text, newline=""), skipinitialspace=True, strict=True)
        )
    except csv.Error as err:
        problem = f"{label}, row {len(records) + 1}: {err}; expected well-formed CSV"
        raise schema.error(label, [problem + " (is a quote left open?)"]) from None
    return records


def _check_delimiter(header: list[str], label: str, schema: Schema) -> None:
    """An error when the header is split by semicolons, tabs or pipes rather than commas."""
    counts = {sep: sum(cell.count(sep) for cell in header) for sep in (";", "\t", "|")}
    sep = max(counts, key=counts.get)
    if 0 < counts[sep] >= len(header):
        found = f"{header[0][:48]!r}, separated by {sep!r}"
        problem = f"{label}, row 1: the header is {found}; expected comma-separated columns"
        raise schema.error(label, [problem])


def header_problems(header: list[str], label: str, schema: Schema) -> list[str]:
    """Problems of the header row: unnamed, duplicated and missing required columns."""
    problems, first = [], {}
    for i, column in enumerate(header):
        if not column:
            problems.append(f"{label}, row 1, column {letter(i)}: got ''; expected a column name")
        elif column in first:
            where = f"columns {letter(first[column])} and {letter(i)}"
            problems.append(f"{label}, row 1, column {column!r}: got it in {where}; expected once")
        first.setdefault(column, i)
    return problems + _missing_problem(header, label, schema)


def _missing_problem(header: list[str], label: str, schema: Schema) -> list[str]:
    """One problem naming every required column the header lacks, with likely misspellings."""
    missing = [c for c in schema.required if c not in header]
    if not missing:
        return []
    named = ", ".join(repr(c) + _did_you_mean(c, header, schema) for c in missing)
    expected = "expected all of " + ", ".join(schema.required)
    return [f"{label}, row 1: missing required column(s) {named}; {expected}"]


def _did_you_mean(column: str, header: list[str], schema: Schema) -> str:
    """' (did you mean X?)' when an unknown header column looks like `column`, else ''."""
    unknown = {c.lower(): c for c in header if c not in schema.known}
    close = difflib.get_close_matches(column, list(unknown), n=1, cutoff=0.75)
    return f" (did you mean {unknown[close[0]]!r}?)" if close else ""


def letter(index: int) -> str:
    """The spreadsheet letter of a 0-based column index (0 -> A, 26 -> AA)."""
    letters = ""
    while index >= 0:
        index, rest = divmod(index, 26)
        letters, index = chr(ord("A") + rest) + letters, index - 1
    return letters


Convert = Callable[[str, str], dict]


def parse_rows(header, rows: Rows, label, schema, convert: Convert):
    """(row number, fields) of each clean row, and every problem of the others."""
    clean, problems, first = [], [], {}
    for n, cells in rows:
        fields, found = _parse_row(header, cells, n, label, schema, convert)
        name = fields.get("name")
        if name and name in first:
            found.append(
                f"{at(label, n, 'name')}: got {name!r}, the name of row {first[name]}; "
                "expected each name once"
            )
        first.setdefault(name, n)
        clean += [] if found else [(n, fields)]
        problems += found
    return clean, problems


def _parse_row(header, cells, n, label, schema, convert) -> tuple[dict, list[str]]:
    """A data row's fields (unknown columns under "extra"), and its problems."""
    if len(cells) != len(header):
        return {}, [_width_problem(header, cells, n, label)]
    fields, extra, problems = {}, [], []
    for column, raw in zip(header, cells, strict=True):
        if column not in schema.known:
            extra.append((column, raw))
            continue
        try:
            fields.update(convert(column, raw))
        except Expected as expected:
            problems.append(f"{at(label, n, column)}: got {raw!r}; expected {expected}")
    return {**fields, "extra": tuple(extra)}, problems


def at(label: str, n: int, column: str) -> str:
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
        f"{at(label, n, where)}: got {value!r} ({counted}); expected one value per column ({why})"
    )


def whole(text: str, column: str, expected: str, lo: int = 1, hi: int | None = None) -> int | None:
    """The cell as a whole number from `lo` to `hi`, None when empty; Expected otherwise."""
    if not text:
        return None
    if not re.fullmatch(r"\+?\d+", text) or not lo <= int(text) <= (hi or int(text)):
        raise Expected(expected + hint(text, column))
    return int(text)


def positive(text: str, column: str, expected: str, why_positive: str = "") -> Decimal | None:
    """The cell as an exact decimal above zero, None when empty; Expected otherwise."""
    if not text:
        return None
    if not NUMBER.fullmatch(text):
        raise Expected(expected + hint(text, column))
    if Decimal(text) <= 0:
        raise Expected(expected + why_positive)
    return Decimal(text)


def boolean(text: str, expected: str) -> bool:
    """The cell as true or false (true/false, yes/no, 1/0, any case); Expected otherwise."""
    if text.lower() in TRUE + FALSE:
        return text.lower() in TRUE
    raise Expected(expected)


def hint(text: str, column: str) -> str:
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
