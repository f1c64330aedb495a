"""specs: a broken specs file is rejected naming its file, row, column, value and what was
expected."""

from pathlib import Path

import pytest

from perfcore.model.chip.specs import REQUIRED_COLUMNS, SpecError, load_specs, load_specs_bytes
from tests.support.spec_rows import csv_bytes, row

BAD_SPECS = Path(__file__).parent / "data" / "bad_specs"


POSITIVE = "expected a positive finite number, or empty for not published"


# file -> substrings its SpecError must contain (the file name is checked for every file).
# Every file but several_problems.csv is two valid rows with exactly one thing broken.
EXPECTED = {
    "empty.csv": ["the file is empty", "expected a header row"],
    "header_only.csv": ["row 2", "no data rows", "expected one row per device"],
    "latin1_encoded.csv": ["row 3", "column 'notes'", r"b'\xe9'", "after 'Densit'", "UTF-8"],
    "utf16_encoded.csv": ["row 1", "got UTF-16 text", "expected UTF-8 text"],
    "semicolon_separated.csv": ["row 1", "'name;vendor;year", "';'", "expected comma-separated"],
    "tab_separated.csv": ["row 1", r"'name\tvendor", r"'\t'", "expected comma-separated"],
    "misspelled_column.csv": [
        "row 1",
        "missing required column(s) 'memory_bw_tbs' (did you mean 'memory_bw_tb'?)",
        "expected all of name, vendor",
    ],
    "missing_column.csv": ["row 1", "missing required column(s) 'tdp_w';", "expected all of"],
    "duplicate_column.csv": [
        "row 1",
        "column 'tdp_w'",
        "got it in columns W and Z",
        "expected once",
    ],
    "unnamed_column.csv": ["row 1", "column Z", "got ''", "expected a column name"],
    "too_many_fields.csv": [
        "row 2",
        "column 'notes'",
        "got ['gpu_from_scratch.py seed",
        "26 fields, the header has 25",
        "expected one value per column",
    ],
    "too_few_fields.csv": [
        "row 3",
        "column 'source'",
        "got 'NVIDIA A100 Tensor Core GPU datasheet (2021)'",
        "24 fields, the header has 25",
        "expected one value per column (no value for notes",
    ],
    "unclosed_quote.csv": ["row 3", "unexpected end of data", "expected well-formed CSV"],
    "units_in_number.csv": [
        "row 2",
        "column 'memory_bw_tbs'",
        "got '3.35 TB/s'",
        POSITIVE,
        "no units in the cell",
        "write 3.35",
    ],
    "thousands_separator.csv": [
        "row 2",
        "column 'fp8_tflops'",
        "got '1,979'",
        POSITIVE,
        "no commas in numbers: write 1979",
    ],
    "decimal_comma.csv": ["row 3", "column 'memory_bw_tbs'", "got '2,04'", POSITIVE, "write 2.04"],
    "negative_value.csv": [
        "row 3",
        "column 'tdp_w'",
        "got '-400'",
        POSITIVE,
        "never 0 or negative",
    ],
    "zero_value.csv": ["row 2", "column 'memory_gib'", "got '0'", POSITIVE, "never 0"],
    "nan_value.csv": ["row 2", "column 'fp32_tflops'", "got 'NaN'", POSITIVE, "not figures"],
    "infinite_value.csv": ["row 3", "column 'pcie_gbs'", "got 'inf'", POSITIVE, "not figures"],
    "placeholder_value.csv": [
        "row 3",
        "column 'fp8_tflops'",
        "got 'n/a'",
        POSITIVE,
        "leave the cell empty",
    ],
    "fractional_compute_units.csv": [
        "row 2",
        "column 'compute_units'",
        "got '132.5'",
        "expected a positive whole number, or empty for not published",
    ],
    "year_out_of_range.csv": [
        "row 2",
        "column 'year'",
        "got '20222'",
        "expected a whole-number year from 1990 to 2100",
    ],
    "year_not_a_number.csv": ["row 3", "column 'year'", "got '2O20'", "expected a whole-number"],
    "empty_name.csv": ["row 3", "column 'name'", "got ''", "expected a device name"],
    "empty_vendor.csv": ["row 2", "column 'vendor'", "got ''", "expected the vendor's name"],
    "empty_source.csv": ["row 3", "column 'source'", "got ''", "every row cites one"],
    "duplicate_name.csv": [
        "row 3",
        "column 'name'",
        "got 'NVIDIA H100 SXM (round figures)', the name of row 2",
        "expected each name once",
    ],
    "row_number_counts_records.csv": ["row 3", "column 'l2_mib'", "got '40 MB'", "write 40"],
    "several_problems.csv": [
        "row 2, column 'year': got '2022.5'; expected a whole-number year",
        "row 2, column 'bf16_tflops': got '1,979'; " + POSITIVE,
        "row 3, column 'memory_gib': got '-80'; " + POSITIVE,
        "row 3, column 'source': got ''; expected the datasheet",
        "row 3, column 'name': got 'NVIDIA H100 SXM (round figures)', the name of row 2",
    ],
}


def test_bad_specs_corpus_has_at_least_15_files_each_with_expectations():
    files = sorted(p.name for p in BAD_SPECS.glob("*.csv"))
    assert len(files) >= 15
    assert files == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_spec_file_is_rejected_naming_file_row_column_value_and_expectation(name):
    with pytest.raises(SpecError) as caught:
        load_specs(BAD_SPECS / name)
    message = str(caught.value)
    for part in [name, *EXPECTED[name]]:
        assert part in message


@pytest.mark.parametrize("name", sorted(set(EXPECTED) - {"several_problems.csv"}))
def test_bad_spec_file_with_one_thing_broken_reports_one_problem(name):
    with pytest.raises(SpecError) as caught:
        load_specs(BAD_SPECS / name)
    assert len(caught.value.problems) == 1


def test_every_problem_of_a_file_is_reported_in_one_spec_error():
    with pytest.raises(SpecError) as caught:
        load_specs(BAD_SPECS / "several_problems.csv")
    assert len(caught.value.problems) == len(EXPECTED["several_problems.csv"])


def test_each_problem_names_the_file_it_came_from():
    data = csv_bytes(row(year="1989"), row(name="other", vendor=""))
    with pytest.raises(SpecError) as caught:
        load_specs_bytes(data, "my upload.csv")
    assert caught.value.path == "my upload.csv"
    assert all(p.startswith("my upload.csv, row ") for p in caught.value.problems)


def test_rows_of_the_wrong_width_are_each_reported_once():
    header, valid, wide = csv_bytes(row(), row(name="wide")).decode().splitlines()
    data = "\n".join([header, valid, wide + ",x", "a,b", "c,d"]).encode()
    with pytest.raises(SpecError) as caught:
        load_specs_bytes(data, "ragged.csv")
    assert [p.split(":")[0] for p in caught.value.problems] == [
        f"ragged.csv, row {n}, column {c!r}"
        for n, c in ((3, "notes"), (4, "vendor"), (5, "vendor"))
    ]


def test_a_blank_first_line_is_reported_as_a_missing_header():
    with pytest.raises(SpecError, match="blank.csv, row 1: got a blank row; expected the header"):
        load_specs_bytes(b"\n" + csv_bytes(row()), "blank.csv")


def test_a_bad_row_does_not_hide_a_missing_column():
    columns = [c for c in REQUIRED_COLUMNS if c != "notes"]
    with pytest.raises(SpecError) as caught:
        load_specs_bytes(csv_bytes(row(year="soon"), columns=columns), "x.csv")
    assert len(caught.value.problems) == 2
