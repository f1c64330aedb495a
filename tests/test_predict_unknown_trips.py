"""A loop whose trip count depends on the data (a while over a convergence test): XLA knows no
trip count, so nothing before the run can say how often its body runs. Its ops are priced
once a step and say so; held against a profile, each is held at the runs a step the profile
counted, and the step at those counts is said beside the prediction.

Pure: tests/data/profile/cpu_scan.hlo (a 5-step scan: known_trip_count 5) and the same module
with its trip count taken out, on flat hand-made curves; the held side from records made by
hand (a body's op priced once, profiled at 297 runs a step).
"""

from pathlib import Path

import pytest

from perfcore import format as fmt
from perfcore.explain.measure import predict as explain_predict
from perfcore.explain.measure import profile_predict
from perfcore.measure.clock.harness import Measurement
from perfcore.measure.profile.judge.records import STEP
from perfcore.measure.profile.predict.op import UNKNOWN_TRIPS
from perfcore.measure.profile.predict.wall import wall_record
from perfcore.measure.results import Record
from perfcore.measure.results.record import PROFILE
from tests.support.kernels import cpu_curves, predicted_ops

SCAN = (Path(__file__).parent / "data" / "profile" / "cpu_scan.hlo").read_text("utf-8")
UNKNOWN = SCAN.replace('"known_trip_count":{"n":"5"},', "")
CURVES = cpu_curves({"elementwise": 0.5, "transcendental": 0.25, "matmul": 0.5})


def cost(text: str) -> tuple[float, float, float]:
    return 1e3, 1024.0, 0.0


def test_a_body_op_of_a_loop_of_unknown_trip_count_is_priced_once_a_step_and_says_so():
    assert UNKNOWN != SCAN
    known = predicted_ops(SCAN, CURVES, 3, cost)["ynn_fusion"]
    once = predicted_ops(UNKNOWN, CURVES, 3, cost)["ynn_fusion"]
    assert (known.occurrences, known.trips_known) == (5, True)
    assert (once.occurrences, once.trips_known) == (1, False)
    assert once.predicted_s == pytest.approx(known.predicted_s / 5)
    assert once.derived_from.endswith(UNKNOWN_TRIPS) and UNKNOWN_TRIPS not in known.derived_from


COMMON = {"device": "cpu", "backend": "cpu", "jax_version": "0.0", "timestamp": "2026-01-02"}


def _record(label: str, category: str, measured: float, predicted: float, occurrences=1, **kw):
    return Record(
        experiment=PROFILE,
        label=label,
        category=category,
        measurement=Measurement(samples=(measured,) * 3),
        predicted_s=predicted,
        occurrences=occurrences,
        **COMMON,
        **kw,
    )


def test_held_against_a_profile_each_is_held_at_the_runs_the_profile_counted():
    """A body's matmul priced once at 0.2 ms, profiled at 297 runs a step (60 ms): held at
    59.4 ms (-1 %); it adds 59.2 ms to the 0.3 ms predicted step, about 59.5 ms at those
    counts against the 61 ms wall (-2 %)."""
    step = _record("jit_f step", STEP, 61e-3, 3e-4, predicted_from="measured kernels on cpu")
    body = _record(
        "ynn_fusion",
        "matmul/conv",
        60e-3,
        2e-4,
        297,
        predicted_from=f"matmul float32, measured kernels on cpu{UNKNOWN_TRIPS}",
        kernel="matmul",
    )
    wall = wall_record(step, Measurement(samples=(61e-3,) * 5))
    versus, _ = profile_predict.held((step, body, wall))
    (op,) = versus.ops
    assert op.predicted_s == pytest.approx(297 * 2e-4) and op.error == pytest.approx(-0.01)
    assert "held at the 297 runs a step the profile counted" in op.derived_from
    assert versus.counted == ("ynn_fusion",)
    assert versus.counted_s == pytest.approx(296 * 2e-4)
    (line,) = explain_predict.counted_lines(versus)
    assert f"they add {fmt.seconds(296 * 2e-4)}" in line
    assert f"about {fmt.seconds(3e-4 + 296 * 2e-4)} (-2% against the wall" in line
