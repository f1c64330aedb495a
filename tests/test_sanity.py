"""sanity: figures typed in the wrong unit or as a sparse headline are flagged by device and
column; specs.py loads such rows and does not import sanity."""

import ast
from pathlib import Path

from perfcore.model.chip import specs as specs_module
from perfcore.model.chip.sanity import sanity_problems
from perfcore.model.chip.specs import Device, load_specs_bytes
from tests.support.pages import ROUND_H100
from tests.support.spec_rows import csv_bytes, load_one, row


def test_bundled_rows_have_no_sanity_problems(specs):
    assert {name: sanity_problems(d) for name, d in specs.items() if sanity_problems(d)} == {}


def doubled(device: Device, *fields: str, factor: float = 2) -> Device:
    """The device with each named SI field multiplied by factor."""
    return device.replace(**{f: getattr(device, f) * factor for f in fields})


def test_sanity_flags_bf16_and_fp16_doubled_as_a_sparse_headline(specs):
    typo = doubled(specs[ROUND_H100], "bf16_flops_per_s", "fp16_flops_per_s")
    assert any("'bf16_tflops'" in p and "2:4-sparse" in p for p in sanity_problems(typo))


def test_sanity_flags_memory_bandwidth_typed_in_bits(specs):
    typo = doubled(specs[ROUND_H100], "memory_bytes_per_s", factor=8)
    assert any("'memory_bw_tbs' = 26.8" in p and "Gb/s" in p for p in sanity_problems(typo))


def test_sanity_flags_scaleout_typed_in_bits(specs):
    typo = doubled(specs[ROUND_H100], "scaleout_bytes_per_s", factor=8)
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
