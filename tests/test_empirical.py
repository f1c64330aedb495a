"""perfcore.measure.empirical: the measured hierarchical roofline derived from records."""

from perfcore.measure import empirical, report
from perfcore.measure.bench import Measurement
from perfcore.measure.results import Record

KIB, MIB = 2**10, 2**20


def record(label, samples, **kw):
    """A roofline-experiment record with the given samples (seconds)."""
    return Record(
        experiment="roofline", label=label, device="cpu", backend="cpu", jax_version="0",
        timestamp="2026-01-01T00:00:00+00:00", measurement=Measurement(samples), **kw,
    )  # fmt: skip


def matmul(dtype, precision, n, seconds):
    """A matmul record of side n timed at `seconds` (and a slower sample)."""
    return record(f"matmul {dtype} {n}", (seconds, 2 * seconds), dtype=dtype,
                  precision=precision, flops=2.0 * n**3, size=n, size_kind="side")  # fmt: skip


def stream(kernel, working_set, bytes_per_s):
    """A streaming record moving 1 GB per call at bytes_per_s (fastest sample)."""
    return record(f"{kernel} {working_set}", (1e9 / bytes_per_s, 2e9 / bytes_per_s),
                  bytes=1e9, size=working_set, size_kind="bytes", dtype="float32")  # fmt: skip


RECORDS = (
    matmul("float32", "fp32", 512, 2 * 512**3 / 50e9),
    matmul("float32", "fp32", 1024, 2 * 1024**3 / 80e9),
    matmul("bfloat16", "bf16", 1024, 2 * 1024**3 / 20e9),
    *(stream("copy", s, 100e9) for s in (16 * KIB, 64 * KIB, 256 * KIB)),
    *(stream("triad", s, 90e9) for s in (16 * KIB, 64 * KIB, 256 * KIB)),
    *(stream("copy", s, 20e9) for s in (64 * MIB, 256 * MIB)),
    *(stream("triad", s, 25e9) for s in (64 * MIB, 256 * MIB)),
)


def test_one_flat_roof_per_precision_at_its_best_size_from_the_fastest_sample():
    roofs = empirical.roofs(RECORDS)
    assert [(r.precision, round(r.flops_per_s)) for r in roofs] == [("fp32", 80e9), ("bf16", 20e9)]
    assert roofs[0].label == "matmul float32 1024"


def test_one_slanted_roof_per_level_from_the_better_kernel_at_each_size():
    levels = empirical.levels(RECORDS)
    assert [(lv.name, round(lv.bytes_per_s)) for lv in levels] == [
        ("cache 1", 100e9), ("memory", 25e9)
    ]  # fmt: skip
    assert levels[1].plateau.lo_bytes == 64 * MIB


def test_stream_records_are_labelled_with_their_level_and_others_kept():
    labelled = empirical.with_levels(RECORDS)
    assert {r.level for r in labelled if r.size_kind == "bytes"} == {"cache 1", "memory"}
    assert all(r.level == "" for r in labelled if r.size_kind == "side")


def test_records_of_other_experiments_give_no_roofline():
    other = tuple(r.__class__(**{**r.__dict__, "experiment": "sweep"}) for r in RECORDS)
    assert empirical.measured_roofline(other) == empirical.MeasuredRoofline((), ())
    assert report.roofline_lines(other) == []


def test_the_terminal_summary_names_each_roof_and_level_with_units():
    text = "\n".join(report.roofline_lines(RECORDS))
    assert "80.0 GFLOP/s" in text and "fp32" in text
    assert "memory" in text and "25.0 GB/s" in text and "64.0 MiB - 256 MiB" in text
