"""The Profile page's tables and takeaways, on the committed MLP profile (a results file).

Oracles: the file's own samples (medians recomputed here with statistics.median), sums
over the table, and hand arithmetic for the before/after change.
"""

import dataclasses
import statistics
from pathlib import Path

import pytest

from perfcore.explain.measure import profile as view
from perfcore.measure.clock.harness import Measurement
from perfcore.measure.profile.judge.assess import spec_roofs
from perfcore.measure.profile.judge.records import profile_records, rediagnosed
from perfcore.measure.results import load_results

PROFILE = load_results(Path(__file__).parent / "data" / "profile" / "mlp_profile.json")


def test_the_op_table_is_by_time_and_its_shares_add_to_one():
    df = view.op_table(PROFILE)
    medians = [statistics.median(r.measurement.samples) for r in profile_records(PROFILE)]
    assert list(df["time / step"]) == sorted(medians, reverse=True)
    assert df["share"].sum() == pytest.approx(1.0)
    assert set(df["category"]) == {"matmul/conv", "elementwise fusion"}


def test_the_top_ops_make_up_80_percent_and_no_more_than_needed():
    top = view.top_ops(PROFILE)
    total = sum(r.measurement.median for r in profile_records(PROFILE))
    covered = sum(r.measurement.median for r in top)
    assert covered >= 0.8 * total
    assert covered - top[-1].measurement.median < 0.8 * total


def test_category_times_add_up_to_the_op_time():
    total = sum(r.measurement.median for r in profile_records(PROFILE))
    assert sum(view.category_times(PROFILE).values()) == pytest.approx(total)


def test_halving_one_op_shows_as_its_change_and_in_the_total():
    ops = profile_records(PROFILE)
    slow = ops[0]
    faster = dataclasses.replace(
        slow, measurement=Measurement(samples=tuple(s / 2 for s in slow.measurement.samples))
    )
    after = tuple(faster if r is slow else r for r in PROFILE)
    table = view.compare(PROFILE, after)
    row = table[table["op"] == slow.label].iloc[0]
    assert row["change"] == pytest.approx(-slow.measurement.median / 2)
    assert table.iloc[0]["change"] == pytest.approx(-slow.measurement.median / 2)
    assert slow.label in view.compare_headline(table)


def test_an_op_in_only_one_profile_says_so():
    table = view.compare(PROFILE, PROFILE[:2])
    assert "only before" in set(table["status"])


def test_records_are_diagnosed_anew_against_the_roofs_picked(specs):
    """On an H100's fp32 roof (67 TFLOP/s) a CPU's 0.2 TFLOP/s matmul is far below it."""
    judged = profile_records(rediagnosed(PROFILE, spec_roofs(specs["NVIDIA H100 SXM"])))
    unjudged = profile_records(PROFILE)
    assert all("no roof" in r.diagnosis for r in unjudged if r.category == "matmul/conv")
    assert all("%" in r.diagnosis for r in judged if r.category == "matmul/conv")


def test_the_headline_names_the_slowest_op_and_its_source():
    first = profile_records(PROFILE)[0]
    shown = view.short_source(first.source)
    assert first.label in view.headline(PROFILE) and shown in view.headline(PROFILE)
    line = first.source.rsplit(":", 1)[1]
    # captured in /src/project: shown from there when that is the working directory
    at_root = view.short_source(first.source, Path("/src/project"))
    assert at_root == f"perfcore/measure/profile_examples.py:{line}"  # as captured
    assert shown == first.source  # elsewhere, as recorded


def test_each_op_names_its_bounding_roof_and_its_fraction(specs):
    """On the H100 SXM (fp32 66.9 TFLOP/s, 3.35 TB/s, ridge 20 FLOP/B): a matmul at 39
    FLOP/B is compute-bound, its fraction FLOP/s / 66.9e12; a tanh at 0.12 FLOP/B is
    memory-bound, its fraction bytes/s / 3.35e12."""
    df = view.op_table(PROFILE, spec_roofs(specs["NVIDIA H100 SXM"]))
    matmul = df[df["category"] == "matmul/conv"].iloc[0]
    tanh = df[df["category"] == "elementwise fusion"].iloc[0]
    assert matmul["bound by"] == "compute" and tanh["bound by"] == "memory"
    assert matmul["fraction of roof"] == pytest.approx(matmul["FLOP/s"] / 66.9e12)
    assert tanh["fraction of roof"] == pytest.approx(tanh["bytes/s"] / 3.35e12)
