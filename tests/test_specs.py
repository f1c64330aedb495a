"""specs: the bundled database loads in SI units; broken files are reported cell by cell."""

import ast
import csv
import io
from pathlib import Path

import pytest

from perfcore.model.chip import specs as specs_module
from perfcore.model.chip.sanity import sanity_problems
from perfcore.model.chip.specs import (
    DEFAULT_PATH,
    REQUIRED_COLUMNS,
    Device,
    SpecError,
    load_specs,
    load_specs_bytes,
)
from tests.support.pages import ROUND_H100

BAD_SPECS = Path(__file__).parent / "data" / "bad_specs"

# The accelerators the foundation issue asks for, as data/specs.csv names them.
ISSUE_DEVICES = (
    "NVIDIA V100 SXM2",
    "NVIDIA A100 SXM4 80GB",
    "NVIDIA A100 PCIe 40GB",
    "NVIDIA H100 SXM",
    "NVIDIA H100 PCIe",
    "NVIDIA H200 SXM",
    "NVIDIA B200",
    "NVIDIA L4",
    "NVIDIA L40S",
    "NVIDIA A10",
    "NVIDIA T4",
    "NVIDIA GeForce RTX 3090",
    "NVIDIA GeForce RTX 4090",
    "NVIDIA GeForce RTX 5090",
    "AMD Instinct MI250X",
    "AMD Instinct MI300X",
    "AMD Instinct MI325X",
    "Google TPU v4",
    "Google TPU v5e",
    "Google TPU v5p",
    "Google TPU v6e",
    "Intel Gaudi 2",
    "Intel Gaudi 3",
)

# One valid row (the round-figures H100), for tests that must not depend on data/specs.csv.
VALID_ROW = dict(
    zip(
        REQUIRED_COLUMNS,
        (
            "Test H100",
            "NVIDIA",
            "2022",
            "Hopper",
            "SXM5",
            "132",
            "80",
            "3.35",
            "50",
            "228",
            "256",
            "34",
            "67",
            "495",
            "990",
            "990",
            "1979",
            "1979",
            "",
            "900",
            "50",
            "128",
            "700",
            "gpu_from_scratch.py seed",
            "dense, rounded",
        ),
        strict=True,
    )
)

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


def csv_bytes(*rows: dict[str, str], columns=REQUIRED_COLUMNS) -> bytes:
    """A specs CSV of `rows` (column -> raw cell) under a header of `columns`, as UTF-8."""
    out = io.StringIO()
    writer = csv.DictWriter(out, list(columns), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def row(**changes: str) -> dict[str, str]:
    """VALID_ROW with some cells changed."""
    return {**VALID_ROW, **changes}


def load_one(**changes: str) -> Device:
    """The single Device of an inline file holding VALID_ROW with some cells changed."""
    (device,) = load_specs_bytes(csv_bytes(row(**changes)), "inline.csv").values()
    return device


@pytest.fixture(scope="module")
def bundled() -> dict[str, Device]:
    """data/specs.csv (test_bundled_rows_have_no_sanity_problems holds it to sanity.py)."""
    assert DEFAULT_PATH.exists(), f"{DEFAULT_PATH} is missing: the app ships with it"
    return load_specs()


def test_every_bundled_row_loads_cites_a_source_and_passes_sanity(bundled):
    assert bundled
    assert all(device.source for device in bundled.values())


def test_bundled_rows_have_no_sanity_problems(bundled):
    assert {name: sanity_problems(d) for name, d in bundled.items() if sanity_problems(d)} == {}


def test_default_path_holds_the_issue_devices_and_the_round_h100(bundled):
    assert len(bundled) >= 24
    assert set(ISSUE_DEVICES) | {ROUND_H100} <= set(bundled)


def test_devices_are_keyed_by_name_in_file_order():
    names = ["b", "a", "c"]
    devices = load_specs_bytes(csv_bytes(*(row(name=n) for n in names)), "order.csv")
    assert list(devices) == names
    assert [d.name for d in devices.values()] == names


def test_peak_flops_is_dense_si_flop_per_s(bundled):
    assert bundled[ROUND_H100].peak_flops("bf16") == 990e12


def test_round_row_holds_the_printed_figures_in_si(bundled):
    h100 = bundled[ROUND_H100]
    assert (h100.memory_bytes, h100.memory_bytes_per_s) == (80 * 1024**3, 3.35e12)
    assert (h100.fp32_flops_per_s, h100.compute_units) == (67e12, 132)


def test_peak_flops_is_none_where_unpublished():
    assert load_one(fp4_tflops="").peak_flops("fp4") is None


def test_peak_flops_rejects_an_unknown_precision():
    with pytest.raises(ValueError, match="fp12"):
        load_one().peak_flops("fp12")


def test_memory_capacity_is_binary_bytes():
    assert load_one(memory_gib="80").memory_bytes == 80 * 1024**3


def test_memory_bandwidth_is_exact_decimal_bytes_per_s():
    assert load_one(memory_bw_tbs="3.35").memory_bytes_per_s == 3.35e12


def test_empty_cell_is_none_never_zero():
    device = load_one(l2_mib="", scaleout_gbs="", tdp_w="")
    assert (device.l2_bytes, device.scaleout_bytes_per_s, device.tdp_w) == (None, None, None)


def test_device_is_hashable_and_equal_by_value():
    assert hash(load_one()) == hash(load_one())
    assert len({load_one(), load_one()}) == 1


def test_valid_file_with_extra_columns_loads_and_keeps_them():
    columns = (*REQUIRED_COLUMNS, "boost_clock_mhz", "comment")
    data = csv_bytes(row(boost_clock_mhz="1980", comment="mine"), columns=columns)
    (device,) = load_specs_bytes(data, "extra.csv").values()
    assert device.extra == (("boost_clock_mhz", "1980"), ("comment", "mine"))
    assert hash(device)


def test_optional_estimate_columns_convert_to_si():
    columns = (*REQUIRED_COLUMNS, "l2_bw_tbs_est")
    (device,) = load_specs_bytes(csv_bytes(row(l2_bw_tbs_est="10"), columns=columns), "x").values()
    assert (device.l2_bytes_per_s_est, device.extra) == (10e12, ())


def test_utf8_bom_file_loads():
    devices = load_specs_bytes(b"\xef\xbb\xbf" + csv_bytes(row()), "bom.csv")
    assert list(devices) == ["Test H100"]


def test_load_specs_reads_an_open_binary_file_as_uploads_arrive(tmp_path):
    path = tmp_path / "upload.csv"
    path.write_bytes(csv_bytes(row()))
    with path.open("rb") as upload:
        assert list(load_specs(upload)) == ["Test H100"]


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


def doubled(device: Device, *fields: str, factor: float = 2) -> Device:
    """The device with each named SI field multiplied by factor."""
    return device.replace(**{f: getattr(device, f) * factor for f in fields})


def test_sanity_flags_bf16_and_fp16_doubled_as_a_sparse_headline(bundled):
    typo = doubled(bundled[ROUND_H100], "bf16_flops_per_s", "fp16_flops_per_s")
    assert any("'bf16_tflops'" in p and "2:4-sparse" in p for p in sanity_problems(typo))


def test_sanity_flags_memory_bandwidth_typed_in_bits(bundled):
    typo = doubled(bundled[ROUND_H100], "memory_bytes_per_s", factor=8)
    assert any("'memory_bw_tbs' = 26.8" in p and "Gb/s" in p for p in sanity_problems(typo))


def test_sanity_flags_scaleout_typed_in_bits(bundled):
    typo = doubled(bundled[ROUND_H100], "scaleout_bytes_per_s", factor=8)
    assert any("'scaleout_gbs' = 400" in p and "Gb/s" in p for p in sanity_problems(typo))


def test_sanity_message_names_device_and_column():
    (problem,) = sanity_problems(load_one(fp8_tflops="3958"))
    assert problem.startswith("Test H100: column 'fp8_tflops' = 3958")


def test_default_load_keeps_rows_that_fail_sanity():
    assert load_specs_bytes(csv_bytes(row(pcie_gbs="1024")), "odd.csv")


def test_specs_does_not_import_sanity_which_builds_on_it():
    tree = ast.parse(Path(specs_module.__file__).read_text())
    imported = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    imported += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not [m for m in imported if m and "sanity" in m]


def test_jax_device_kinds_is_an_optional_list_of_exact_strings():
    columns = (*REQUIRED_COLUMNS, "jax_device_kinds")
    kinds = "Tesla V100-SXM2-16GB; Tesla V100-SXM2-32GB"
    data = csv_bytes(row(jax_device_kinds=kinds), row(name="other"), columns=columns)
    mine, other = load_specs_bytes(data, "kinds.csv").values()
    assert mine.jax_device_kinds == ("Tesla V100-SXM2-16GB", "Tesla V100-SXM2-32GB")
    assert (other.jax_device_kinds, mine.extra) == ((), ())
    assert hash(mine)


def test_a_file_without_jax_device_kinds_still_loads():
    (device,) = load_specs_bytes(csv_bytes(row()), "plain.csv").values()
    assert device.jax_device_kinds == ()


def test_bundled_rows_name_their_jax_device_kinds(bundled):
    assert bundled["NVIDIA H100 SXM"].jax_device_kinds == ("NVIDIA H100 80GB HBM3",)
    assert bundled["Google TPU v5e"].jax_device_kinds == ("TPU v5 lite",)
    assert bundled[ROUND_H100].jax_device_kinds == ()


def test_scaleup_domain_is_an_optional_whole_number_column():
    columns = (*REQUIRED_COLUMNS, "scaleup_domain")
    data = csv_bytes(row(scaleup_domain="72"), row(name="other"), columns=columns)
    first, second = load_specs_bytes(data, "x").values()
    assert (first.scaleup_domain, second.scaleup_domain) == (72, None)
    (plain,) = load_specs_bytes(csv_bytes(row()), "x").values()
    assert plain.scaleup_domain is None
    with pytest.raises(SpecError, match="scaleup_domain"):
        load_specs_bytes(csv_bytes(row(scaleup_domain="7.5"), columns=columns), "x")


def test_every_bundled_domain_says_where_it_comes_from(specs):
    for d in specs.values():
        assert "Scale-up domain" in d.notes, d.name
        assert d.scaleup_domain is None or f"Scale-up domain {d.scaleup_domain}:" in d.notes


def test_a_file_with_the_old_column_names_still_loads():
    """memory_gb and l2_mb were renamed memory_gib and l2_mib (they always held GiB and MiB):
    a file written with the old header loads, its figures read in the same units."""
    old = csv_bytes(row()).decode().replace("memory_gib", "memory_gb").replace("l2_mib", "l2_mb")
    assert "memory_gb," in old and "l2_mb," in old
    (device,) = load_specs_bytes(old.encode(), "old.csv").values()
    assert device.memory_bytes == load_one().memory_bytes
    assert device.l2_bytes == load_one().l2_bytes


def test_the_bundled_header_names_binary_capacities_by_their_unit():
    with open(DEFAULT_PATH, newline="") as f:
        header = next(csv.reader(f))
    assert {"memory_gib", "l2_mib"} <= set(header)
    assert not {"memory_gb", "l2_mb"} & set(header)
