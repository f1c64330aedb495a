"""The Profile page's predictions read back from records: each op and the step held against
what was measured, the ops outside the curves' spread named, the predicted column.

Oracles: hand-made records (three ops, a step, its untraced wall) and hand arithmetic of the
errors."""

import dataclasses

import pytest

from perfcore import format as fmt
from perfcore.explain.measure import profile as view
from perfcore.explain.measure import profile_predict
from perfcore.measure.clock.harness import Measurement
from perfcore.measure.profile.judge.records import STEP, UNENDED
from perfcore.measure.profile.predict.op import OpPrediction
from perfcore.measure.profile.predict.program import Prediction
from perfcore.measure.profile.predict.wall import WALL, wall_record
from perfcore.measure.results import Record
from perfcore.measure.results.record import PROFILE

COMMON = {
    "device": "cpu",
    "backend": "cpu",
    "jax_version": "0.0",
    "timestamp": "2026-01-02T03:04:05+00:00",
}


def _op(label: str, measured: float, predicted: float | None) -> Record:
    return Record(
        experiment=PROFILE,
        label=label,
        category="matmul/conv",
        measurement=Measurement(samples=(measured,) * 3),
        predicted_s=predicted,
        predicted_from="" if predicted is None else "measured kernels on cpu, 2026-01-02",
        kernel="" if predicted is None else "matmul",
        **COMMON,
    )


STEP_RECORD = Record(
    experiment=PROFILE,
    label="jit_block step",
    category=STEP,
    measurement=Measurement(samples=(4e-3,) * 5),
    predicted_s=3e-3,
    predicted_from="measured kernels on cpu, 2026-01-02; dispatch of 1 program(s)",
    **COMMON,
)
OPS = (_op("dot.1", 2e-3, 1e-3), _op("dot.2", 1e-3, 1.1e-3), _op("copy.3", 5e-4, None))
WALL_RECORD = wall_record(STEP_RECORD, Measurement(samples=(5e-3,) * 7))


def test_each_op_and_the_step_are_held_against_what_was_measured():
    """dot.1: 1 ms predicted, 2 ms measured: -50 %; the step 3 ms against its 5 ms wall."""
    versus, whence = profile_predict.held((STEP_RECORD, *OPS, WALL_RECORD))
    errors = {o.name: o.error for o in versus.ops}
    assert errors == pytest.approx({"dot.1": -0.5, "dot.2": 0.1})
    assert versus.unmatched == ("copy.3",)
    assert versus.step_error == pytest.approx(3e-3 / 5e-3 - 1)
    assert WALL_RECORD.experiment == WALL and "untraced wall" in whence and "of 7" in whence


def test_the_step_is_held_against_its_fastest_call_with_the_median_beside():
    """Every curve point is a kernel's fastest call, so the prediction is of the fastest
    step: 3 ms against walls of 4, 5, 5, 6 and 9 ms is -25 %, the 5 ms median beside."""
    walls = wall_record(STEP_RECORD, Measurement(samples=(5e-3, 9e-3, 4e-3, 6e-3, 5e-3)))
    versus, whence = profile_predict.held((STEP_RECORD, *OPS, walls))
    assert versus.wall_s == 4e-3 and versus.wall_median_s == 5e-3
    assert versus.step_error == pytest.approx(-0.25)
    assert "fastest of 5" in whence and "median 5" in whence


def test_an_op_is_held_against_its_fastest_step_with_its_median_beside():
    """As the step: 1.5 ms predicted against steps of 2, 0, 1 and 3 ms is +50 % of the 1 ms
    fastest (a step it did not run in, 0 s, is not its fastest) and 0 % of the 1.5 ms median.
    The matmul ops' median |error|: dot.2 10 % either way, this one 50 % and 0 %."""
    varied = dataclasses.replace(
        OPS[0], measurement=Measurement(samples=(2e-3, 0.0, 1e-3, 3e-3)), predicted_s=1.5e-3
    )
    versus, _ = profile_predict.held((STEP_RECORD, varied, *OPS[1:], WALL_RECORD))
    (op, _) = versus.ops
    assert (op.fastest_s, op.measured_s) == pytest.approx((1e-3, 1.5e-3))
    assert (op.error, op.median_step_error) == pytest.approx((0.5, 0.0))
    assert versus.median_error() == pytest.approx((0.5 + 0.1) / 2)
    assert versus.median_error(of_median=True) == pytest.approx((0.0 + 0.1) / 2)
    line = profile_predict.shown((STEP_RECORD, varied, *OPS[1:], WALL_RECORD)).lines[0]
    assert "30.0 % against each op's fastest step (5.00 % against its median step)" in line


def test_an_op_whose_end_was_not_traced_is_named_and_not_held():
    unended = dataclasses.replace(OPS[1], notes=(*OPS[1].notes, UNENDED))
    versus, _ = profile_predict.held((STEP_RECORD, OPS[0], unended, OPS[2], WALL_RECORD))
    assert [o.name for o in versus.ops] == ["dot.1"] and versus.unended == ("dot.2",)
    assert "not held (1): dot.2" in profile_predict.shown((STEP_RECORD, OPS[0], unended)).lines[-1]


def test_an_op_with_no_prediction_is_named_with_its_measured_share_of_the_step():
    """copy.3 (no cost model): 0.5 ms measured a step, 10 % of the 5 ms wall, left out of the
    predicted step, and the page and the CLI say so."""
    versus, _ = profile_predict.held((STEP_RECORD, *OPS, WALL_RECORD))
    assert versus.unmatched_s == pytest.approx(5e-4)
    line = profile_predict.shown((STEP_RECORD, *OPS, WALL_RECORD)).lines[-1]
    assert line.startswith(f"not predicted (1, {fmt.seconds(5e-4)} a step measured, 10")
    assert "copy.3" in line and "the predicted step leaves them out" in line


def test_without_an_untraced_wall_the_device_span_stands_in_said_as_such():
    versus, whence = profile_predict.held((STEP_RECORD, *OPS))
    assert versus.wall_s == 4e-3 and "device span under the profiler" in whence


def test_records_with_no_predicted_step_show_no_prediction():
    assert profile_predict.held(OPS) is None
    assert profile_predict.shown(OPS) is None


def test_the_ops_outside_the_curves_spread_are_named_and_none_without_curves():
    versus, _ = profile_predict.held((STEP_RECORD, *OPS, WALL_RECORD))
    assert "dot.1" in profile_predict.missed_line(versus, 0.2)
    assert "dot.2" not in profile_predict.missed_line(versus, 0.2)
    assert "within the curves' own spread" in profile_predict.missed_line(versus, 0.6)
    assert profile_predict.NO_CURVES in profile_predict.missed_line(versus, None)
    shown = profile_predict.shown((STEP_RECORD, *OPS, WALL_RECORD))  # no kernels records
    assert shown.spread is None and shown.missed == ()


def test_the_totals_line_says_predicted_measured_and_from_what():
    records = (STEP_RECORD, *OPS, WALL_RECORD)
    line = profile_predict.totals_line(*profile_predict.held(records), records)
    assert fmt.seconds(3e-3) in line and fmt.seconds(5e-3) in line and "-40%" in line
    assert f"median |error| {fmt.percent(0.3)}" in line  # of |-50 %| and |+10 %|
    assert STEP_RECORD.predicted_from in line


def test_the_op_table_has_a_predicted_column_only_where_ops_were_predicted():
    table = view.op_table((STEP_RECORD, *OPS))
    assert list(table["predicted / step"].fillna(0)) == [1e-3, 1.1e-3, 0]
    assert table.columns.get_loc("predicted / step") == table.columns.get_loc("time / step") + 1
    unpredicted = view.op_table((_op("dot.9", 1e-3, None),))
    assert "predicted / step" not in unpredicted and "predicted from" not in unpredicted


def test_a_profile_taken_here_gets_its_prediction_and_untraced_wall():
    """A prediction of dot.1 (1.5 ms) and a 0.5 ms dispatch: the step 2 ms against a 5 ms wall."""
    op = OpPrediction(
        "dot.1",
        "dot",
        "matmul/conv",
        "matmul",
        "float32",
        "",
        1,
        1.0,
        1.0,
        1e-3,
        1.5e-3,
        0.5,
        "measured",
        "measured kernels on cpu",
    )
    prediction = Prediction("p", "cpu", (op,), 1, 5e-4, "dispatch of 1 program(s)", "curves")
    unpredicted = (STEP_RECORD, _op("dot.1", 2e-3, None))
    records = profile_predict.predicted_records(unpredicted, prediction, WALL_RECORD.measurement)
    versus, whence = profile_predict.held(records)
    assert [(o.name, o.predicted_s) for o in versus.ops] == [("dot.1", 1.5e-3)]
    assert versus.predicted_step_s == pytest.approx(2e-3) and versus.wall_s == 5e-3
    assert "untraced wall" in whence
