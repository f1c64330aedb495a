"""measure.experiments.kernel_rounds: a second pass's samples join the first's (no JAX)."""

import time

from perfcore.measure.experiments import kernel_rounds
from tests.support.kernel_records import record


def test_the_chosen_points_second_pass_samples_join_the_first_and_others_keep_one_pass():
    def measure(env, point, share):
        return record(point, f"{point} again", [1e-3, 2e-3])

    first = [
        ("matmul", record("matmul", "matmul", [5e-3, 6e-3])),
        ("copy", record("copy", "copy", [5e-3])),
    ]
    deadline = time.perf_counter() + 60.0
    out = kernel_rounds.again(None, first, deadline, measure, lambda p: p == "matmul")
    assert out[0].measurement.samples == (5e-3, 6e-3, 1e-3, 2e-3)
    assert out[0].measurement.min == 1e-3 and out[0].notes == ("samples of two passes",)
    assert out[1] == first[1][1]


def test_a_point_whose_calls_would_not_fit_the_time_left_keeps_its_one_pass():
    slow = record("matmul", "matmul", [5.0, 5.0])
    out = kernel_rounds.again(None, [("matmul", slow)], time.perf_counter() + 1.0, None, bool)
    assert out == [slow]
