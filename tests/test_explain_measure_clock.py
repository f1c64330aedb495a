"""The timing lessons read back from records: with their printed numbers, their sentences."""

import dataclasses

import pytest

from perfcore.explain.measure import measure_clock as clock
from perfcore.measure.clock.harness import ISOLATED
from tests.support.measured import US, lesson_records, matmul

RECORDS = lesson_records()


def test_the_dispatch_table_is_the_timing_lessons_table():
    rows = clock.dispatch(RECORDS)
    assert [r.n for r in rows] == [128, 512, 1024]
    table = clock.dispatch_table(rows)
    assert (table.iloc[:, 1] * 1e6).round(1).tolist() == [14.9, 18.4, 16.5]
    assert (table.iloc[:, 2] * 1e6).round(1).tolist() == [156.4, 736.4, 5929.7]
    assert set(table.attrs["units"].values()) == {"seconds", "ratio"}
    assert table["compute / dispatch"].round().tolist() == [10, 40, 359]


def test_the_dispatch_sentence_gives_the_timing_lessons_factor_38_for_512():
    text = clock.dispatch_sentence(clock.dispatch(RECORDS))
    assert "between 14.9 µs and 18.4 µs" in text
    assert "a factor of 38x for 512x more arithmetic" in text
    assert "measures your Python, not your program" in text


def test_columns_that_do_not_separate_are_not_called_a_result():
    flat = (
        matmul("dispatch", "dispatch 16", 16, 10 * US, method=ISOLATED, synced=False),
        matmul("dispatch", "compute 16", 16, 11 * US, method=ISOLATED),
        matmul("dispatch", "dispatch 32", 32, 12 * US, method=ISOLATED, synced=False),
        matmul("dispatch", "compute 32", 32, 11.5 * US, method=ISOLATED),
    )
    assert "too small to pull the columns apart" in clock.dispatch_sentence(clock.dispatch(flat))


def test_pairs_give_the_timing_lessons_ratios():
    by = {p.title: p for p in clock.pairs(RECORDS)}
    assert list(by) == [t for _, _, t, _, _ in clock.PAIRS.values()]
    assert "one compile costs 110 steady steps" in by["compile vs steady state"].sentence
    blocking = by["block at the end vs every call"]
    assert (blocking.a_s, blocking.b_s) == pytest.approx((727e-6, 1524e-6))
    assert "(2.1x)" in blocking.sentence
    assert by["compile vs steady state"].a_method != by["compile vs steady state"].b_method


def test_a_pair_inside_its_spread_is_not_a_result_yet():
    noisy = tuple(
        dataclasses.replace(
            r, measurement=dataclasses.replace(r.measurement, samples=(700e-6, 760e-6, 1600e-6))
        )
        if r.label == "block at the end"
        else r
        for r in RECORDS
    )
    blocking = {p.title: p for p in clock.pairs(noisy)}["block at the end vs every call"]
    assert "not a result yet" in blocking.sentence


def test_the_spread_is_the_timing_lessons_21_percent_and_says_what_is_not_a_result():
    s = clock.spread(RECORDS)
    assert len(s.runs) == 5 and s.mins[0] == pytest.approx(5929.7e-6)
    assert s.run_to_run == pytest.approx((7167.1 - 5929.7) / 5929.7)
    assert s.loop_mean == pytest.approx(6900e-6)
    assert "spread of 20.9 %" in s.sentence
    assert "a difference smaller than 20.9 % is not a result yet" in s.sentence
    assert clock.spread(RECORDS[:4]) is None


def test_elementwise_ops_within_a_factor_two_are_alike():
    text = clock.elementwise_sentence(RECORDS)
    assert "160 µs to 270 µs" in text and "Alike" in text
    slow_sin = tuple(
        dataclasses.replace(r, measurement=dataclasses.replace(r.measurement, samples=(1e-3,)))
        if r.label == "sin"
        else r
        for r in RECORDS
    )
    assert "Not alike here: sin" in clock.elementwise_sentence(slow_sin)
