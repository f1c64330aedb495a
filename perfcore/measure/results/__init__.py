"""The results file, and what is derived from its records without JAX.

The file: record (the Record type, the version), codec (JSON and CSV writers from the
schema), load (reading and validation, every problem at once), parsers, v1 and renamed
(old files read under today's names: versions 1 and 2 still load). Derived from records:
points (measured points on a roofline, never clamped), plateaus, empirical (the measured
hierarchical roofline), linkfit (collectives' algbw and busbw, the link model fitted) and
report (terminal summaries). This package keeps the file's names in one place, as callers
have always imported them. May import perfcore.measure.clock and perfcore.model.
"""

from perfcore.measure.results.codec import (
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
from perfcore.measure.results.load import load_results, load_results_bytes, parse_record
from perfcore.measure.results.record import (
    DERIVED,
    FORMAT,
    PRECISION_DOC,
    VERSION,
    VERSIONS,
    Record,
    ResultsError,
)

__all__ = [
    "DERIVED",
    "DERIVED_COLUMNS",
    "FIELDS",
    "FORMAT",
    "MEASUREMENT_COLUMNS",
    "PRECISION_DOC",
    "RECORD_COLUMNS",
    "SCHEMA",
    "VERSION",
    "VERSIONS",
    "Record",
    "ResultsError",
    "load_results",
    "load_results_bytes",
    "parse_record",
    "record_row",
    "save_results",
    "schema_table",
    "to_csv",
    "to_json",
]
