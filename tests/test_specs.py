"""specs: the bundled database loads in SI units; broken files are reported cell by cell."""

import csv

import pytest

from perfcore.model.chip.specs import (
    DEFAULT_PATH,
    REQUIRED_COLUMNS,
    Device,
    SpecError,
    load_specs,
    load_specs_bytes,
)
from tests.support.pages import ROUND_H100
from tests.support.spec_rows import csv_bytes, load_one, row

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


@pytest.fixture(scope="module")
def bundled() -> dict[str, Device]:
    """data/specs.csv (test_sanity.py holds its rows to sanity.py)."""
    assert DEFAULT_PATH.exists(), f"{DEFAULT_PATH} is missing: the app ships with it"
    return load_specs()


def test_every_bundled_row_loads_cites_a_source_and_passes_sanity(bundled):
    assert bundled
    assert all(device.source for device in bundled.values())


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
