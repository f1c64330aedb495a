"""measure.clock.harness: the harness driven by a fake clock and fake device, and Measurement."""

import math
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from perfcore.measure.clock import harness
from perfcore.measure.clock.harness import ISOLATED, LOOP, Measurement


class FakeDevice:
    """An asynchronous device on a fake clock: a call costs `dispatch_s` of host time and
    queues `work_s` of device work; sync waits for the queue. The first call also compiles."""

    def __init__(self, dispatch_s=10e-6, work_s=5e-3, compile_s=0.0):
        self.dispatch_s, self.work_s, self.compile_s = dispatch_s, work_s, compile_s
        self.now = self.busy_until = 0.0
        self.calls = 0
        self.events = []

    def clock(self):
        self.events.append("clock")
        return self.now

    def call(self):
        self.now += self.dispatch_s + (self.compile_s if self.calls == 0 else 0.0)
        self.calls += 1
        self.busy_until = max(self.now, self.busy_until) + self.work_s
        self.events.append("call")
        return self.calls

    def sync(self, output):
        self.now = max(self.now, self.busy_until)
        self.events.append("sync")


def fake_measure(device, **kw):
    return harness.measure(device.call, sync=device.sync, clock=device.clock, **kw)


def test_warmup_and_compile_are_excluded_from_the_samples():
    device = FakeDevice(dispatch_s=1e-6, work_s=1e-3, compile_s=100.0)
    m = fake_measure(device, warmup=3, repeats=5)
    assert m.n == 5 and m.warmup == 3
    assert device.calls == 3 + 5
    assert all(s == pytest.approx(1.001e-3) for s in m.samples)


def test_prepare_runs_before_every_call_outside_the_clock():
    """prepare (1 ms of host time on the fake clock) before each of 2 warm-up and 4 timed
    calls: never between a sample's clock readings, so no sample holds its time."""
    device = FakeDevice(dispatch_s=1e-6, work_s=1e-3)

    def prepare():
        device.now += 1e-3
        device.events.append("prepare")

    m = fake_measure(device, warmup=2, repeats=4, prepare=prepare)
    assert device.events.count("prepare") == 2 + 4
    assert all(s == pytest.approx(1.001e-3) for s in m.samples)
    timed = device.events[device.events.index("sync") + 1 :]
    calls = [i for i, event in enumerate(timed) if event == "call"]
    assert len(calls) == 4 and all(timed[i - 2 : i] == ["prepare", "clock"] for i in calls)


def test_prepare_refuses_a_loop_of_calls_per_sample():
    with pytest.raises(ValueError, match="prepare"):
        fake_measure(FakeDevice(), method=harness.LOOP, calls_per_sample=3, prepare=lambda: None)


def test_sync_is_called_after_each_timed_call_and_before_the_clock_stops():
    device = FakeDevice()
    fake_measure(device, warmup=2, repeats=4)
    timed = device.events[device.events.index("sync") + 1 :]  # after the warmup's sync
    calls = [i for i, event in enumerate(timed) if event == "call"]
    assert len(calls) == 4
    for i in calls:
        assert timed[i + 1 : i + 3] == ["sync", "clock"]


def test_naive_timer_measures_dispatch_and_blocked_timer_measures_the_work():
    naive = fake_measure(FakeDevice(dispatch_s=10e-6, work_s=5e-3), blocking=False)
    blocked = fake_measure(FakeDevice(dispatch_s=10e-6, work_s=5e-3))
    assert naive.min == pytest.approx(10e-6) and not naive.synced
    assert blocked.min == pytest.approx(5.01e-3) and blocked.synced


def test_naive_timer_on_a_real_asynchronous_device_sees_only_the_enqueue():
    with ThreadPoolExecutor(max_workers=1) as device:
        work_s = 0.02

        def enqueue():
            return device.submit(time.sleep, work_s)

        naive = harness.measure(
            enqueue, sync=lambda f: f.result(), warmup=1, repeats=3, blocking=False
        )
        blocked = harness.measure(enqueue, sync=lambda f: f.result(), warmup=1, repeats=3)
    assert naive.min < work_s / 4
    assert blocked.min >= work_s


def test_back_to_back_loop_syncs_once_per_sample_and_reports_mean_per_call():
    device = FakeDevice(dispatch_s=1e-6, work_s=1e-3)
    m = fake_measure(device, method=LOOP, calls_per_sample=10, warmup=1, repeats=3)
    assert m.method == LOOP and m.calls_per_sample == 10
    assert device.events.count("sync") == 1 + 3
    assert all(s == pytest.approx(1.0001e-3) for s in m.samples)


def test_budget_in_time_stops_before_the_repeat_count():
    m = fake_measure(FakeDevice(dispatch_s=0, work_s=0.1), repeats=1000, budget_s=0.35)
    assert 3 <= m.n <= 5


def test_a_tiny_budget_still_takes_three_samples():
    assert fake_measure(FakeDevice(), repeats=25, budget_s=1e-12).n == 3


def test_measure_refuses_bad_arguments_before_calling_fn():
    device = FakeDevice()
    bad_arguments = [
        {"method": "best of 3"},
        {"repeats": 0},
        {"budget_s": 0},
        {"warmup": -1},
        {"method": ISOLATED, "calls_per_sample": 10},
    ]
    for bad in bad_arguments:
        with pytest.raises(ValueError):
            fake_measure(device, **bad)
    assert device.calls == 0


def test_measurement_derives_statistics_from_raw_samples():
    m = Measurement([1.0, 2.0, 3.0, 4.0, 100.0])
    assert m.samples == (1.0, 2.0, 3.0, 4.0, 100.0)
    assert (m.min, m.median, m.mean, m.max, m.iqr) == (1.0, 3.0, 22.0, 100.0, 2.0)
    assert m.spread == pytest.approx(2 / 3) and m.noisy


def test_statistic_is_min_for_isolated_calls_and_mean_for_a_loop():
    samples = (1.0, 2.0, 6.0)
    assert Measurement(samples, method=ISOLATED).statistic == 1.0
    assert Measurement(samples, calls_per_sample=10, method=LOOP).statistic == 3.0


def test_measurement_is_hashable_and_a_value():
    a, b = Measurement((1e-3, 2e-3)), Measurement([1e-3, 2e-3])
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1


@pytest.mark.parametrize(
    "kwargs",
    [
        {"samples": ()},
        {"samples": (1.0, -1.0)},
        {"samples": (math.nan,)},
        {"samples": (1.0,), "method": "fastest"},
        {"samples": (1.0,), "method": ISOLATED, "calls_per_sample": 10},
        {"samples": (1.0,), "warmup": -1},
    ],
)
def test_invalid_measurements_are_refused(kwargs):
    with pytest.raises(ValueError):
        Measurement(**kwargs)


def test_a_difference_smaller_than_the_run_to_run_spread_is_not_a_result():
    runs = [Measurement((5929.7e-6,)), Measurement((7167.1e-6,))]  # the timing lessons' 21 % range
    spread = harness.run_to_run_spread(runs)
    assert spread == pytest.approx(0.2087, abs=1e-4)
    faster = Measurement((5400e-6,))
    assert not harness.is_a_result(runs[0], faster, spread)
    assert harness.is_a_result(runs[0], Measurement((3000e-6,)), spread)


def test_interleaved_takes_one_sample_of_each_fn_per_round_each_waited_on():
    """One fake device (10 us dispatch, 5 ms work a call): fn a makes one call, fn b two.
    Each sample is synced before its clock stops, so a = 10 us + 5 ms and b = 10 us + 10 ms
    (b's second dispatch hides under its first call's work); the order is a, b each round."""
    device, order = FakeDevice(), []

    def fn(name, calls):
        def run():
            order.append(name)
            return [device.call() for _ in range(calls)][-1]

        return run

    a, b = harness.interleaved(
        (fn("a", 1), fn("b", 2)), sync=device.sync, clock=device.clock, warmup=1, repeats=4
    )
    assert a.samples == pytest.approx((5.01e-3,) * 4)
    assert b.samples == pytest.approx((10.01e-3,) * 4)
    assert order == ["a", "b"] * 5  # one warmup each, then 4 rounds in turn
    assert a.method == ISOLATED and a.warmup == 1 and a.synced
