"""perfcore.measure.results.empirical: the measured hierarchical roofline derived from records."""

import dataclasses
from pathlib import Path

import pytest

from perfcore.measure.clock.harness import Measurement
from perfcore.measure.results import Record, empirical, load_results, report

KIB, MIB = 2**10, 2**20


def record(label, samples, **kw):
    """A roofline-experiment record with the given samples (seconds)."""
    return Record(
        experiment="roofline",
        label=label,
        device="cpu",
        backend="cpu",
        jax_version="0",
        timestamp="2026-01-01T00:00:00+00:00",
        measurement=Measurement(samples),
        **kw,
    )


def matmul(dtype, precision, n, seconds):
    """A matmul record of side n timed at `seconds` (and a slower sample)."""
    return record(
        f"matmul {dtype} {n}",
        (seconds, 2 * seconds),
        dtype=dtype,
        precision=precision,
        flops=2.0 * n**3,
        size=n,
        size_kind="side",
    )


def stream(kernel, working_set, bytes_per_s):
    """A streaming record moving 1 GB per call at bytes_per_s (fastest sample)."""
    return record(
        f"{kernel} {working_set}",
        (1e9 / bytes_per_s, 2e9 / bytes_per_s),
        bytes=1e9,
        size=working_set,
        size_kind="bytes",
        dtype="float32",
    )


RECORDS = (
    matmul("float32", "fp32", 512, 2 * 512**3 / 50e9),
    matmul("float32", "fp32", 1024, 2 * 1024**3 / 80e9),
    matmul("bfloat16", "bf16", 1024, 2 * 1024**3 / 20e9),
    *(stream("scale", s, 100e9) for s in (16 * KIB, 64 * KIB, 256 * KIB)),
    *(stream("triad", s, 90e9) for s in (16 * KIB, 64 * KIB, 256 * KIB)),
    *(stream("scale", s, 20e9) for s in (64 * MIB, 256 * MIB)),
    *(stream("triad", s, 25e9) for s in (64 * MIB, 256 * MIB)),
)


def test_one_flat_roof_per_precision_at_its_best_size_from_the_fastest_sample():
    roofs = empirical.roofs(RECORDS)
    assert [(r.precision, round(r.flops_per_s)) for r in roofs] == [("fp32", 80e9), ("bf16", 20e9)]
    assert roofs[0].label == "matmul float32 1024"


def test_one_slanted_roof_per_level_from_the_better_kernel_at_each_size():
    levels = empirical.levels(RECORDS)
    assert [(lv.name, round(lv.bytes_per_s)) for lv in levels] == [
        ("cache 1", 100e9),
        ("memory", 25e9),
    ]
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


def ceilings(label, samples, **kw):
    """A record of the ceilings experiment (the quick suite's matmul and copy)."""
    return dataclasses.replace(record(label, samples, **kw), experiment="ceilings")


def test_a_ceiling_is_the_fastest_sample_and_a_level_the_median_over_its_plateau():
    slow_tail = matmul("float32", "fp32", 1024, 2 * 1024**3 / 80e9)
    assert empirical.best_rate(slow_tail, slow_tail.flops) == pytest.approx(80e9)
    assert slow_tail.flops_per_s == pytest.approx(80e9 / 1.5)  # the median: not a ceiling
    curve = [
        stream("scale", s, bw)
        for s, bw in ((16 * KIB, 90e9), (64 * KIB, 100e9), (256 * KIB, 120e9))
    ]
    (level,) = empirical.levels(tuple(curve))
    assert level.bytes_per_s == pytest.approx(100e9)


@pytest.mark.parametrize("kernel", ["scale", "triad"])
def test_an_unlevelled_streaming_record_with_flops_is_never_a_compute_roof(kernel):
    flopping = dataclasses.replace(stream(kernel, 64 * MIB, 1e15), flops=1e12, precision="fp32")
    assert not flopping.level and empirical.is_stream(flopping)
    assert empirical.roofs((*RECORDS, flopping)) == empirical.roofs(RECORDS)


def test_the_ceilings_matmul_is_a_compute_roof_and_its_copy_the_one_memory_level():
    mm = ceilings(
        "best matmul",
        (2 * 4096**3 / 100e12,),
        dtype="bfloat16",
        precision="bf16",
        flops=2.0 * 4096**3,
        size=4096,
        size_kind="side",
    )
    copy = ceilings(
        "copy",
        (1e9 / 2e12,),
        bytes=1e9,
        flops=1e6,
        size=512 * MIB,
        size_kind="bytes",
        dtype="float32",
        precision="fp32",
    )
    found = empirical.measured_roofline((mm, copy))
    assert [(r.name, round(r.flops_per_s)) for r in found.roofs] == [("bf16", 100e12)]
    assert [(lv.name, round(lv.bytes_per_s)) for lv in found.levels] == [("memory", 2e12)]


def test_a_version_1_ceilings_copy_without_a_size_kind_is_still_memory_not_compute():
    old = ceilings("copy", (1e9 / 2e12,), bytes=1e9, flops=1e6, dtype="float32", precision="fp32")
    found = empirical.measured_roofline((old,))
    assert found.roofs == () and found.levels[0].plateau.sizes == (1e9,)


def test_the_streaming_sweep_outranks_the_ceilings_copy():
    copy = ceilings("copy", (1e9 / 5e9,), bytes=1e9, dtype="float32")
    assert empirical.levels((*RECORDS, copy)) == empirical.levels(RECORDS)


def test_the_roof_at_an_intensity_is_the_lower_of_fastest_level_and_flat_roof():
    found = empirical.measured_roofline(RECORDS)
    assert found.roof_at(0.1, "fp32") == pytest.approx(10e9)  # 100 GB/s x 0.1 FLOP/byte
    assert found.roof_at(1e6, "fp32") == pytest.approx(80e9)
    assert found.roof_at(1.0, "fp8") is None


def test_unsynchronized_records_give_no_roof():
    naive = dataclasses.replace(
        RECORDS[1], measurement=dataclasses.replace(RECORDS[1].measurement, synced=False)
    )
    assert [r.label for r in empirical.roofs((naive,))] == []


@pytest.mark.parametrize("name", ["v1.json", "v1.csv"])
def test_a_version_1_file_with_ceilings_still_gives_a_measured_roofline(name):
    records = load_results(Path(__file__).parent / "data" / "results" / name)
    found = empirical.measured_roofline(records)
    copy = next(r for r in records if r.experiment == "ceilings" and r.label == "copy")
    assert [lv.name for lv in found.levels] == ["memory"]
    assert found.levels[0].bytes_per_s == empirical.best_rate(copy, copy.bytes)
    assert found.roofs and all(r.label != "copy" for r in found.roofs)


def test_a_pass_within_the_factor_of_the_overhead_is_overhead_bound():
    """Factor 10: a 9 us pass against a 1 us overhead per pass is flagged, 11 us is not."""
    assert empirical.overhead_bound(9e-6, 1e-6) and not empirical.overhead_bound(11e-6, 1e-6)


def flagged(record):
    """The record flagged as the streaming sweep flags an overhead-bound pass."""
    return record.noted(empirical.OVERHEAD_BOUND)


def test_overhead_bound_records_are_no_memory_level_and_get_no_level():
    """Between the 100 GB/s cache and the 25 GB/s memory, two working sets whose passes were
    about the loop's overhead read 50 GB/s: unflagged they would be a level 'cache 2'
    (a flat pair, slower than the cache); flagged they are left out, as if not measured."""
    between = tuple(stream("scale", s, 50e9) for s in (1 * MIB, 4 * MIB))
    assert [lv.name for lv in empirical.levels((*RECORDS, *between))] == [
        "cache 1",
        "cache 2",
        "memory",
    ]
    marked = tuple(flagged(r) for r in between)
    assert empirical.levels((*RECORDS, *marked)) == empirical.levels(RECORDS)
    labelled = empirical.with_levels((*RECORDS, *marked))
    assert [r.level for r in labelled if empirical.is_overhead_bound(r)] == ["", ""]
    assert empirical.bandwidth_curve((*RECORDS, *marked)) == empirical.bandwidth_curve(RECORDS)


def test_the_terminal_summary_gives_each_paths_overhead_and_how_many_are_overhead_bound():
    """Two paths on one device: the loop's 3 records (2 flagged), the Pallas path's 2."""
    loop, pallas = f"{empirical.PATH_NOTE}loop", f"{empirical.PATH_NOTE}pallas"
    overhead = f"{empirical.OVERHEAD_NOTE} 4.00 us (scale, loop)"
    timed = [stream("scale", s, 1e9).noted(loop) for s in (KIB, 4 * KIB, 16 * KIB)]
    timed = [
        flagged(timed[0]),
        flagged(timed[1]),
        timed[2],
        *(stream("scale", s, 9e9).noted(pallas) for s in (KIB, 4 * KIB)),
    ]
    tiny = record("scale overhead (loop), 16384 passes over 16 float32", (1e-3,), notes=(overhead,))
    assert report.stream_lines((tiny, *timed)) == [
        overhead,
        f"{loop}: 3 records, 2 overhead-bound (not levels)",
        f"{pallas}: 2 records, 0 overhead-bound (not levels)",
    ]
