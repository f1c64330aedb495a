"""The measure page's words: the device said plainly, the right spec row, a table that names
its method and spread, and a takeaway computed from the records."""

import dataclasses
import math

import pytest

from perfcore.explain.measure import measure as view
from perfcore.measure.experiments import registry
from perfcore.measure.experiments.suites import SUITES, BackendFailed, DeviceMemoryError
from tests.support.measured import H100_KIND, lesson_records

RECORDS = lesson_records()
CPU_RECORDS = tuple(
    dataclasses.replace(r, device="cpu", backend="cpu", spec_name="") for r in RECORDS
)


def test_a_cpu_is_said_plainly_and_a_gpu_by_its_device_kind():
    cpu = view.source_line(CPU_RECORDS, live=True)
    assert "**the CPU**" in cpu and "CPU measurement" in cpu
    gpu = view.source_line(RECORDS, live=True)
    assert "**a GPU**" in gpu and H100_KIND in gpu and "CPU" not in gpu


def test_the_records_spec_name_decides_the_spec_row(specs):
    assert view.known_spec(RECORDS, specs).name == "NVIDIA H100 SXM"


def test_without_a_spec_name_the_device_kind_is_matched(specs):
    unnamed = tuple(dataclasses.replace(r, spec_name="") for r in RECORDS)
    assert view.known_spec(unnamed, specs).name == "NVIDIA H100 SXM"


def test_a_cpu_has_no_spec_row_and_its_roof_is_measured(specs):
    assert view.known_spec(CPU_RECORDS, specs) is None
    assert view.known_spec((), specs) is None
    said = view.unknown(CPU_RECORDS)
    assert "matches no spec row" in said and "no CPU rows" in said and "measured ceilings" in said
    assert "none compared" in view.spec_line(None, own=False)
    assert "picked" in view.spec_line(specs["NVIDIA T4"], own=False)


def test_a_live_run_is_the_page_data_and_both_sources_are_overlaid():
    live, uploaded = RECORDS[:8], RECORDS[8:]
    assert view.page_records(live, uploaded) == live
    assert view.page_records((), uploaded) == uploaded
    assert len(view.overlay(live, uploaded)) > len(view.overlay(live, ()))


def test_points_of_another_device_are_not_overlaid():
    assert view.overlay(CPU_RECORDS, RECORDS) == view.overlay(CPU_RECORDS, ())
    assert {p.device for p in view.overlay(CPU_RECORDS, RECORDS)} == {"cpu"}


def test_faults_are_said_with_what_was_kept():
    memory = view.fault(DeviceMemoryError("matmul 9x9x9 needs 1e9 bytes: refused"))
    assert memory.startswith("matmul 9x9x9")
    gone = view.fault(BackendFailed("starting JAX", "", "Unable to initialize backend 'cuda'"))
    assert gone.startswith("JAX's runtime failed in starting JAX: Unable to initialize backend")
    assert "No records were kept" in gone
    oom = view.fault(BackendFailed("roofline", "RESOURCE_EXHAUSTED", "Out of memory"))
    assert oom.startswith("JAX's runtime failed (RESOURCE_EXHAUSTED) in roofline: Out of memory")


def test_the_table_names_method_and_spread_in_si_units():
    df = view.table(RECORDS)
    for column in (
        "method",
        "calls/sample",
        "min",
        "median",
        "mean",
        "IQR",
        "spread",
        "FLOP/s at the median",
        "regime",
    ):
        assert column in df.columns
    assert df.attrs["units"]["median"] == "seconds" and df.attrs["units"]["spread"] == "percent"
    assert all(df[c].dtype.kind == "f" for c in df.attrs["units"])
    row = df.set_index("what").loc["compute 1024"]
    assert row["method"] == "isolated calls, min"
    assert row["min"] == pytest.approx(5929.7e-6)
    assert row["FLOP/s at the median"] == pytest.approx(2 * 1024**3 / 5929.7e-6)
    assert df.set_index("what").loc["matmul 256", "regime"] == "overhead"


def test_a_naive_timing_gets_no_achieved_rate():
    naive = view.table(RECORDS).set_index("what").loc["naive timer"]
    assert math.isnan(naive["FLOP/s at the median"]) and not naive["synced"]


def test_the_roof_per_dtype_is_read_from_the_records_and_says_it_is_looked_up():
    note = view.precision_note(RECORDS)
    assert "bfloat16 work under the **bf16** roof" in note
    assert "looked up" in note and "not one observed" in note  # says what it is
    tf32 = tuple(dataclasses.replace(r, dtype="float32", precision="tf32") for r in RECORDS)
    assert "TF32" in view.precision_note(tf32)
    assert view.roof_precision(RECORDS, "fp8") == "bf16"
    assert view.roof_precision((), "fp8") == "fp8"


def test_the_takeaway_is_computed_from_the_numbers(specs):
    text = view.takeaway(RECORDS, specs["NVIDIA H100 SXM"], own=True)
    assert "spread of 20.9 %" in text and "not a result yet" in text
    assert "56x the FLOP/s at n=4096 that it did at n=256" in text
    assert "16.0 % of NVIDIA H100 SXM's spec" in text
    picked = view.takeaway(RECORDS, specs["NVIDIA B200"], own=False)
    assert "not this device's own" in picked
    alone = view.takeaway(CPU_RECORDS, None, own=False)
    assert "% of" not in alone and "no fraction of spec" in alone


def test_hosted_and_no_jax_texts_say_how_to_measure_elsewhere():
    assert "hosted" in view.HOSTED and view.MEASURE_CMD in view.HOSTED
    hint = "JAX is not installed: pip install jax (CPU)"
    text = view.no_jax(hint)
    assert hint in text and ".[cuda]" in text and view.MEASURE_CMD in text


def test_suite_captions_say_what_a_cpu_changes():
    default, quick, kernels = view.suite_captions(SUITES)
    assert "256-8192, bfloat16" in default and "on a CPU float32" in default
    assert "32-128, float32" in quick and "on a CPU" not in quick
    said = "runs kernels when none is picked, in about 120 s (240 s on a GPU, 480 s on a TPU)"
    assert kernels == said


def test_the_picker_help_titles_every_experiment():
    assert "**dispatch**: dispatch vs compute (isolated calls, unblocked" in view.EXPERIMENTS_HELP
    assert view.EXPERIMENTS_HELP.count("**") == 2 * len(registry.EXPERIMENTS)


def test_the_heavy_experiments_are_named_with_how_long_they_take():
    note = view.heavy_note()
    heavy = [e for e in registry.EXPERIMENTS.values() if e.heavy]
    assert heavy and all(f"**{e.name}** ({e.takes})" in note for e in heavy)
    assert not any(f"**{name}**" in note for name in registry.default_selection())
    assert "about 2 min on a CPU" in view.EXPERIMENTS_HELP  # the roofline's, in the help too


def test_the_source_line_says_live_or_uploaded():
    assert view.source_line(RECORDS, live=True).startswith(f"{len(RECORDS)} records from the live")
    assert "uploaded results file" in view.source_line(RECORDS, live=False)
