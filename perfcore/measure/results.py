"""Measurement results files: one Record per timed thing, saved as JSON or CSV.

The file format in three modules, by job: results_record (the Record type, the version),
results_codec (the schema, JSON and CSV writers), results_load (reading and validation).
This module keeps their names in one place, as callers have always imported them.
Versions 1 and 2 still load.
"""

from perfcore.measure.results_codec import (
    DERIVED_COLUMNS,
    FIELDS,
    MEASUREMENT_COLUMNS,
    RECORD_COLUMNS,
    SCHEMA,
    record_row,
    save_results,
    schema_table,
    to_csv,
    to_json,
)
from perfcore.measure.results_load import load_results, load_results_bytes, parse_record
from perfcore.measure.results_record import (
    DERIVED,
    FORMAT,
    PRECISION_DOC,
    VERSION,
    VERSIONS,
    Record,
    ResultsError,
)

__all__ = [
    "DERIVED", "DERIVED_COLUMNS", "FIELDS", "FORMAT", "MEASUREMENT_COLUMNS", "PRECISION_DOC",
    "RECORD_COLUMNS", "SCHEMA", "VERSION", "VERSIONS", "Record", "ResultsError", "load_results",
    "load_results_bytes", "parse_record", "record_row", "save_results", "schema_table",
    "to_csv", "to_json",
]  # fmt: skip
