"""perfcore.measure.results: exact round trips, and malformed files rejected with where and what."""

import csv
import dataclasses
import io
import json
from pathlib import Path

import pytest

from perfcore.measure import results
from perfcore.measure.clock.harness import ISOLATED, LOOP, Measurement
from perfcore.measure.results import Record, ResultsError
from tests.support.measured import lesson_records

STAMP = "2025-01-31T12:00:00+00:00"


def record(**changes) -> Record:
    """A plausible matmul record; fields overridable."""
    fields = dict(
        experiment="sweep",
        label="matmul 1024",
        measurement=Measurement((1 / 3, 0.1 + 0.2, 1e-7, 2.5e-3), 10, LOOP, 3),
        device="NVIDIA H100 80GB HBM3",
        backend="gpu",
        jax_version="0.10.2",
        timestamp=STAMP,
        spec_name="NVIDIA H100 SXM",
        shapes=((1024, 1024), (1024, 1024)),
        dtype="bfloat16",
        precision="bf16",
        flops=2.0 * 1024**3,
        bytes=6.0 * 1024**2,
        flops_model=2.0 * 1024**3,
        bytes_model=6.0 * 1024**2,
        flops_source="cost_analysis",
        size=1024.0,
        size_kind="side",
        regime="utilisation",
        notes=('say "hi", twice', "ok; and, a comma"),
    )
    return Record(**(fields | changes))


RECORDS = (
    record(),
    record(
        experiment="barriers",
        label="read every step",
        shapes=((), (4,)),
        dtype="",
        precision="",
        flops=None,
        bytes=None,
        flops_model=None,
        bytes_model=None,
        flops_source="",
        spec_name="",
        notes=(),
        size=None,
        size_kind="",
        regime="",
        measurement=Measurement((1e-3,), 1, ISOLATED, 0, False),
    ),
)


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_results_round_trip_exactly_through_a_file(tmp_path, suffix):
    path = results.save_results(RECORDS, tmp_path / f"r{suffix}")
    assert results.load_results(path) == RECORDS


def test_json_and_csv_bytes_load_to_the_same_records():
    from_json = results.load_results_bytes(results.to_json(RECORDS).encode(), "upload.json")
    from_csv = results.load_results_bytes(results.to_csv(RECORDS).encode(), "upload.csv")
    assert from_json == from_csv == RECORDS


def test_written_statistics_are_those_of_the_samples():
    row = json.loads(results.to_json(RECORDS))["records"][0]
    m = RECORDS[0].measurement
    assert (row["min_s"], row["median_s"], row["mean_s"]) == (m.min, m.median, m.mean)
    assert row["method"] == LOOP and row["calls_per_sample"] == 10


DOC = Path(__file__).parent.parent / "docs" / "results-format.md"
FIXTURES = Path(__file__).parent / "data" / "results"


def test_the_documented_field_table_is_the_one_the_schema_writes():
    assert results.schema_table() in DOC.read_text("utf-8")


def test_csv_columns_follow_the_schema_and_every_record_field_has_one():
    header = results.to_csv(RECORDS).splitlines()[0].split(",")
    assert tuple(header) == results.FIELDS
    attrs = {c.attr for c in results.RECORD_COLUMNS} | {"measurement"}
    assert attrs == {f.name for f in dataclasses.fields(Record)}


def test_files_are_written_as_version_6():
    assert json.loads(results.to_json(RECORDS))["version"] == results.VERSION == 6


def test_a_kernel_records_kind_threads_and_cache_round_trip_and_older_files_load():
    kernel = record(
        experiment="kernels", kernel="matmul rhs transposed", threads=2, cache_bytes=2**25
    )
    for suffix in (".json", ".csv"):
        text = results.to_json((kernel,)) if suffix == ".json" else results.to_csv((kernel,))
        assert results.load_results_bytes(text.encode(), f"k{suffix}") == (kernel,)
    document = json.loads(results.to_json((kernel,)))
    document["version"] = 5
    del document["records"][0]["cache_bytes"]  # version 5 had no cache column
    five = results.load_results_bytes(json.dumps(document).encode(), "v5.json")
    assert five == (dataclasses.replace(kernel, cache_bytes=None),)
    document["version"] = 4
    del document["records"][0]["threads"]  # version 4 had no threads column
    old = results.load_results_bytes(json.dumps(document).encode(), "v4.json")
    assert old == (dataclasses.replace(kernel, threads=None, cache_bytes=None),)


@pytest.mark.parametrize("name", ["v1.json", "v1.csv"])
def test_version_1_files_load_with_the_regime_and_sizes_typed(name):
    loaded = results.load_results(FIXTURES / name)
    assert loaded == lesson_records_as_v2()
    sweep = [r for r in loaded if r.experiment == "sweep" and r.size]
    assert [(r.size, r.regime, r.notes) for r in sweep] == [
        (256, "overhead", ()),
        (1024, "utilisation", ()),
        (4096, "compute roof", ()),
    ]
    add = next(r for r in loaded if r.label == "add")
    assert add.notes == ("cost_analysis FLOPs 1.6e+07 vs model 1.7e+07",)


def lesson_records_as_v2() -> tuple[Record, ...]:
    """The records the v1 fixtures were written from, as version 2 types them."""
    records = list(lesson_records())
    records[8] = records[8].noted("cost_analysis FLOPs 1.6e+07 vs model 1.7e+07")
    return tuple(records)


def test_a_note_is_appended_not_replaced():
    noted = RECORDS[0].noted("third")
    assert noted.notes == (*RECORDS[0].notes, "third")
    assert noted.note.endswith("; third")


def test_rates_are_of_synchronized_work_at_the_median():
    m = RECORDS[0].measurement
    assert RECORDS[0].flops_per_s == RECORDS[0].flops / m.median
    assert RECORDS[0].bytes_per_s == RECORDS[0].bytes / m.median
    assert RECORDS[1].flops_per_s is None  # not synchronized, and no FLOPs
    unsynced = dataclasses.replace(RECORDS[0], measurement=Measurement((1e-3,), synced=False))
    assert unsynced.flops_per_s is None and unsynced.bytes_per_s is None


def json_with(**changes) -> bytes:
    """A results JSON of two records, the second with some fields changed (None drops one)."""
    document = json.loads(results.to_json(RECORDS))
    document["records"][1] |= changes
    document["records"][1] = {k: v for k, v in document["records"][1].items() if v != "DROP"}
    return json.dumps(document).encode()


def csv_with(column: str, value: str) -> bytes:
    """A results CSV whose first data row has `column` set to value."""
    header, first, *rest = csv.reader(io.StringIO(results.to_csv(RECORDS)))
    first[header.index(column)] = value
    out = io.StringIO()
    csv.writer(out).writerows([header, first, *rest])
    return out.getvalue().encode()


MALFORMED = [
    (b"\xff\xfe\x00garbage", "x.json", "not UTF-8"),
    (b"", "x.csv", "empty file"),
    (b'{"format": "perfcore-results", "version": 1, "records": [', "x.json", "not JSON"),
    (b'{"format": "other", "version": 9, "records": []}', "x.json", "field 'format'"),
    (json_with(method="fastest"), "x.json", "record 1: field 'method'"),
    (json_with(samples_s=[1e-3, -2.0]), "x.json", "record 1: field 'samples_s'"),
    (json_with(calls_per_sample=0), "x.json", "record 1: field 'calls_per_sample'"),
    (json_with(timestamp="yesterday"), "x.json", "record 1: field 'timestamp'"),
    (json_with(precision="fp12"), "x.json", "record 1: field 'precision'"),
    (json_with(median_s=123.0), "x.json", "record 1: field 'median_s'"),
    (json_with(device="DROP"), "x.json", "record 1: field 'device': missing"),
    (json_with(calls_per_sample=7), "x.json", "record 1: invalid Measurement"),
    (csv_with("flops", "lots"), "x.csv", "row 2: field 'flops'"),
    (csv_with("shapes", "10x?"), "x.csv", "row 2: field 'shapes'"),
    (csv_with("synced", "maybe"), "x.csv", "row 2: field 'synced'"),
    (b"experiment,label\nsweep,x\n", "x.csv", "missing column(s)"),
    (json_with(notes=["two\nlines"]), "x.json", "record 1: field 'notes'"),
    (json_with(size_kind="furlongs"), "x.json", "record 1: field 'size_kind'"),
    (b'{"format": "perfcore-results", "version": 7, "records": [{}]}', "x.json", "'version'"),
]


@pytest.mark.parametrize(("data", "label", "expected"), MALFORMED)
def test_malformed_results_files_are_rejected_with_where_and_what(data, label, expected):
    with pytest.raises(ResultsError) as caught:
        results.load_results_bytes(data, label)
    assert expected in str(caught.value)
    assert str(caught.value).startswith(label)


def test_every_problem_is_listed_not_only_the_first():
    data = json_with(method="fastest", warmup=-1, backend="")
    with pytest.raises(ResultsError) as caught:
        results.load_results_bytes(data, "two.json")
    assert len(caught.value.problems) == 3
    assert isinstance(caught.value, ValueError)


def test_problem_names_the_value_and_what_was_expected():
    with pytest.raises(ResultsError) as caught:
        results.load_results_bytes(json_with(precision="fp12"), "x.json")
    assert "got 'fp12', expected one of" in caught.value.problems[0]
