"""measure.results.curves: kernel records to curves (dispatch taken off, roofs), round-trips."""

import dataclasses

import pytest

from perfcore.measure import results
from perfcore.measure.clock import harness
from perfcore.measure.clock.harness import Measurement
from perfcore.measure.results import curves
from tests.support.kernel_records import record

RECORDS = (
    record("dispatch", "dispatch, 1 argument", [10e-6, 12e-6], n_args=1),
    record("dispatch", "dispatch, 16 arguments", [25e-6, 30e-6], n_args=16),
    # fastest 111 µs less an 11 µs 2-argument dispatch: 100 µs for 1e7 FLOPs = 1e11 FLOP/s
    record("matmul", "matmul big", [111e-6, 130e-6], 1e7, 1e5, 1e7),
    # 61 µs - 11 µs = 50 µs for 1e6 FLOPs: 2e10 FLOP/s, 0.2 of the best
    record("matmul", "matmul small", [61e-6, 70e-6], 1e6, 1e4, 1e6),
    # one argument: 1e6 bytes in 111 - 10 = 101 µs, the best copy
    record("copy", "copy", [111e-6], 0.0, 1e6, 1e6, n_args=1),
    # 13 µs, of which 11 µs dispatch: mostly dispatch, no point
    record("elementwise", "tiny", [13e-6], 10.0, 100.0, 100.0),
)


def test_dispatch_is_fitted_per_argument_from_the_fastest_calls_as_the_kernels_are():
    """No program of several results in these records (a file made before the suite timed
    one): nothing more for a tuple."""
    assert curves.dispatch_fit(RECORDS) == pytest.approx((10e-6, 1e-6, 0.0))
    c = curves.curves(RECORDS, specs={})
    assert (c.dispatch_s, c.dispatch_per_arg_s) == pytest.approx((10e-6, 1e-6))
    assert c.dispatch(3, 5) == c.dispatch(3) == pytest.approx(12e-6)


def test_a_program_of_several_results_adds_its_launch_over_the_one_result_launch():
    """1 argument and 4 results at 16 µs against 10 µs for 1 result: 6 µs more for any
    program returning a tuple, on top of its arguments' share; none for one result. A
    TPU v5e here: 347-404 µs for one result, 505-553 for 2 to 4."""
    several = curves.DISPATCH_RESULTS
    mine = (*RECORDS, record(several, "dispatch, 1 argument, 4 results", [16e-6], n_args=1))
    assert curves.dispatch_fit(mine) == pytest.approx((10e-6, 1e-6, 6e-6))
    c = curves.curves(mine, specs={})
    assert c.dispatch(3, 2) == pytest.approx(18e-6) and c.dispatch(3, 1) == pytest.approx(12e-6)


def test_a_large_result_adds_its_launchs_host_time_over_its_device_time_per_size():
    """One result of 64 MiB: fastest call 150 µs, its device time 100 µs (median under the
    profiler), the plain launch 10 µs: 40 µs more. 256 MiB: 420 - 300 - 10 = 110 µs. Between,
    linear in bytes (128 MiB: 40 + 70 / 3); below 64 MiB, from nothing at 0 bytes (32 MiB:
    20 µs); past 256 MiB, 256 MiB's. A TPU v5e here: 90-175 µs at 64-256 MiB."""
    large, mib = curves.DISPATCH_BYTES, 2**20
    profiled = [
        record(large, f"{n} MiB", [t], n_bytes=n * mib, n_args=1)
        for n, t in ((64, 100e-6), (256, 300e-6))
    ]
    profiled = [
        dataclasses.replace(
            r, measurement=Measurement(r.measurement.samples, method=harness.PROFILED)
        )
        for r in profiled
    ]
    walls = [
        record(large, f"{n} MiB", [t, t + 50e-6], n_bytes=n * mib, n_args=1)
        for n, t in ((64, 150e-6), (256, 420e-6))
    ]
    mine = (*RECORDS, *profiled, *walls)
    fit = curves.dispatch_bytes_fit(mine, 10e-6)
    assert [b for b, _ in fit] == [64 * mib, 256 * mib]
    assert [s for _, s in fit] == pytest.approx([40e-6, 110e-6])
    c = curves.curves(mine, specs={})
    assert c.dispatch_bytes == fit
    assert c.results_s(32 * mib) == pytest.approx(20e-6)
    assert c.results_s(128 * mib) == pytest.approx(40e-6 + 70e-6 / 3)
    assert c.results_s(1024 * mib) == pytest.approx(110e-6) and c.results_s(0) == 0.0
    assert c.dispatch(1, 1, 128 * mib) == pytest.approx(10e-6 + 40e-6 + 70e-6 / 3)
    assert curves.curves(RECORDS, specs={}).results_s(128 * mib) == 0.0  # none timed: a CPU's
    assert curves.dispatch_bytes_fit((*RECORDS, *walls), 10e-6) == ()  # no device time: none


def test_a_launch_of_more_arguments_measured_faster_sets_the_launch_alone():
    """16 arguments at 25 µs, 1 at 30 µs: a launch costs at most 25 µs, nothing per argument."""
    noisy = (
        record("dispatch", "dispatch, 1 argument", [30e-6], n_args=1),
        record("dispatch", "dispatch, 16 arguments", [25e-6], n_args=16),
    )
    assert curves.dispatch_fit(noisy) == pytest.approx((25e-6, 0.0, 0.0))


def test_efficiencies_are_fractions_of_the_best_measured_roofs_after_dispatch():
    c = curves.curves(RECORDS, specs={})
    assert dict(c.peak_flops_per_s)["float32"] == pytest.approx(1e11)
    assert c.bytes_per_s == pytest.approx(1e6 / 101e-6)
    effs = {p.size: p.efficiency for p in c.curve("matmul", "float32")}
    assert effs == pytest.approx({1e7: 1.0, 1e6: 0.2})
    assert c.curve("copy", "float32")[0].efficiency == pytest.approx(1.0)
    assert c.curve("elementwise", "float32") == ()  # mostly dispatch: left out
    assert (c.device, c.date, c.roofs_from) == ("cpu", "2026-01-31", curves.ROOF_FROM_MEASURED)


def test_a_spec_rows_roofs_are_used_where_the_records_matched_one(specs):
    name = next(n for n, d in specs.items() if d.peak_flops("fp32") and d.memory_bytes_per_s)
    matched = tuple(r.__class__(**{**r.__dict__, "spec_name": name}) for r in RECORDS)
    c = curves.curves(matched, specs=specs)
    assert dict(c.peak_flops_per_s)["float32"] == specs[name].peak_flops("fp32")
    assert c.bytes_per_s == specs[name].memory_bytes_per_s and name in c.roofs_from


def test_no_kernels_records_no_curves():
    other = results.Record(**{**RECORDS[2].__dict__, "experiment": "sweep", "kernel": ""})
    assert curves.curves((other,), specs={}) is None


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_a_curves_results_file_round_trips(tmp_path, suffix):
    path = results.save_results(RECORDS, tmp_path / f"curves{suffix}")
    loaded = results.load_results(path)
    assert loaded == RECORDS
    assert curves.curves(loaded, specs={}) == curves.curves(RECORDS, specs={})


NEW_KINDS = (
    # 1e7 FLOPs in 211 - 11 µs: 0.5 of the 1e11 FLOP/s roof
    record("convolution", "convolution 8x32x32x64", [211e-6], 1e7, 1e5, 1e7),
    record("convolution filter", "convolution filter 64x32x32x8", [411e-6], 1e7, 1e5, 1e7),
    # one argument each: 1e5 bytes in 10 + 99 µs, 1e6 bytes in 10 + 990 µs
    record("sort", "sort 12500 elements", [109e-6], 1.7e5, 1e5, 1e5, n_args=1),
    record("reduce-window", "reduce-window", [1e-3], 1.5e5, 1e6, 1e6, n_args=1),
)


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_a_file_with_convolution_sort_and_reduce_window_curves_round_trips(tmp_path, suffix):
    both = (*RECORDS, *NEW_KINDS)
    loaded = results.load_results(results.save_results(both, tmp_path / f"curves{suffix}"))
    assert loaded == both
    c = curves.curves(loaded, specs={})
    assert c == curves.curves(both, specs={})
    assert c.curve("convolution", "float32")[0].efficiency == pytest.approx(0.5)
    assert c.curve("convolution filter", "float32")[0].efficiency == pytest.approx(0.25)
    sort = c.curve("sort", "float32")[0]
    assert (sort.size, sort.efficiency) == (1e5, pytest.approx(1e5 / c.bytes_per_s / 99e-6))
    assert c.curve("reduce-window", "float32")[0].size == 1e6


def test_the_curves_carry_the_host_threads_and_cache_and_what_a_fresh_byte_costs():
    # 64 MiB of fresh pages touched by 2 threads at once in 20 ms at best: 40 core-ms, 0.6 ns
    # of core time per byte; not a kernel point
    every = record("page faults, every core", "by 2", [0.02, 0.03], n_bytes=2.0**26, size=2.0**26)
    threaded = [dataclasses.replace(r, threads=2, cache_bytes=2**25) for r in (*RECORDS, every)]
    c = curves.curves(tuple(threaded), specs={})
    assert c.threads == 2 and c.fresh_s_per_byte == pytest.approx(0.04 / 2**26)
    assert c.cache_bytes == 2**25
    assert {p.kind for p in c.points} == {"matmul", "copy"}
    # a file written before: one thread took the faults, its fastest call is the core time
    one = record("page faults", "first touch", [0.032, 0.04], n_bytes=2.0**26, size=2.0**26)
    before = curves.curves(tuple(dataclasses.replace(r, threads=2) for r in (*RECORDS, one)), {})
    assert before.fresh_s_per_byte == pytest.approx(0.032 / 2**26)
    both = curves.curves(tuple(threaded) + (dataclasses.replace(one, threads=2),), specs={})
    assert both.fresh_s_per_byte == pytest.approx(0.04 / 2**26)  # every core's, where present
    old = curves.curves(RECORDS, specs={})  # a version 4 file: none of them
    assert (old.threads, old.fresh_s_per_byte, old.cache_bytes) == (0, 0.0, 0)


def test_a_fresh_byte_costs_what_it_adds_to_an_xla_op_where_a_file_holds_both_calls():
    """x + 1 over 64 MiB into a fresh output at best 30 ms, into its donated input 12 ms, on
    2 threads: 36 core-ms over 64 MiB, ahead of the every-core kernel's 40; with one of the
    pair missing, that kernel's again; an op into a fresh output no faster than into its
    donated input adds nothing, not less than nothing."""
    every = record("page faults, every core", "by 2", [0.02], n_bytes=2.0**26, size=2.0**26)
    fresh = record(curves.OP_FRESH, "x + 1 fresh", [0.03, 0.05], n_bytes=2.0**26, size=2.0**26)
    donated = record(curves.OP_DONATED, "x + 1 donated", [0.014, 0.012], n_bytes=2.0**26)
    on_two = [dataclasses.replace(r, threads=2) for r in (*RECORDS, every, fresh, donated)]
    c = curves.curves(tuple(on_two), specs={})
    assert c.fresh_s_per_byte == pytest.approx(2 * (0.03 - 0.012) / 2**26)
    assert {p.kind for p in c.points} == {"matmul", "copy"}  # neither call is a kernel point
    half = curves.curves(tuple(on_two[:-1]), specs={})
    assert half.fresh_s_per_byte == pytest.approx(0.04 / 2**26)
    slow = dataclasses.replace(on_two[-1], measurement=fresh.measurement)
    assert curves.curves((*on_two[:-1], slow), specs={}).fresh_s_per_byte == 0.0


def test_a_loop_bodys_kernel_pays_no_dispatch_and_sets_no_roof():
    """A copy timed inside a loop: 1e6 bytes in 20 µs an iteration (no dispatch taken off),
    5 times the best copy's rate; it is a loop point at that efficiency, and the memory roof
    stays the program copy's 1e6 / 101 µs."""
    body = record("copy", "copy in a loop", [20e-6, 22e-6], 0.0, 1e6, 1e6, n_args=1)
    body = dataclasses.replace(
        body, measurement=dataclasses.replace(body.measurement, method=harness.IN_PROGRAM)
    )
    c = curves.curves((*RECORDS, body), specs={})
    assert c.bytes_per_s == pytest.approx(1e6 / 101e-6)
    (point,) = c.curve("copy", "float32", loop=True)
    assert point.loop and point.efficiency == pytest.approx(101e-6 / 20e-6)
    assert curves.kernel_seconds(body, curves.dispatch_fit(RECORDS)) == 20e-6


def test_a_loop_iteration_is_the_long_loop_less_the_short_over_the_iterations_between():
    """(10-iteration calls 110 and 130 µs) - (fastest 2-iteration call 30 µs), over 8."""
    long, short = Measurement(samples=(110e-6, 130e-6)), Measurement(samples=(30e-6, 35e-6))
    m = harness.in_program(long, short, 8)
    assert m.samples == pytest.approx((10e-6, 12.5e-6)) and m.method == harness.IN_PROGRAM


def test_on_an_accelerator_a_loop_timed_kernel_prices_any_op_and_sets_the_roofs():
    """On a TPU every kernel is timed in a loop (a call times its launch): a matmul of 2e9
    FLOPs at 10 µs an iteration and a copy of 1e6 bytes at 20 µs are program points, and
    set the measured roofs (2e14 FLOP/s, 5e10 bytes/s), no launch taken off."""

    def on_tpu(r):
        looped = dataclasses.replace(r.measurement, method=harness.IN_PROGRAM)
        return dataclasses.replace(r, device="TPU v5 lite", backend="tpu", measurement=looped)

    copy = on_tpu(record("copy", "copy", [20e-6, 22e-6], 0.0, 1e6, 1e6, n_args=1))
    matmul = on_tpu(record("matmul", "matmul", [10e-6], 2e9, 1e6, 2e9))
    c = curves.curves((copy, matmul), specs={})
    assert c.bytes_per_s == pytest.approx(5e10) and c.peak("float32") == pytest.approx(2e14)
    (point,) = c.curve("copy", "float32")
    assert not point.loop and point.efficiency == pytest.approx(1.0)
    assert c.curve("copy", "float32", loop=True) == ()


@pytest.mark.parametrize(
    "kind, shapes, narrow",
    [
        ("matmul", ((32, 1024), (1024, 1024)), 32),  # X·W over 32 rows
        ("matmul transposed", ((64, 2048), (64, 2048)), 64),  # Xᵀ·dY over a batch of 64
        ("matmul rhs transposed", ((128, 1024), (1024, 1024)), 128),  # dY·Wᵀ
        ("matmul", ((1024, 1024), (1024, 1024)), 0),  # square
        ("matmul transposed", ((256, 1024), (256, 1024)), 0),  # K = N/4: not narrow
        ("batched matmul", ((16, 1024, 64), (16, 64, 1024)), 0),  # not a kind swept narrow
        # the suite's filter gradient (C, 32, 32, batch) ⊛ (32, 32, batch, C): 32 x 32 x 16
        ("convolution filter", ((64, 32, 32, 16), (32, 32, 16, 64)), 16384),
        ("column reduction", ((1024, 4096),), 4096),  # x.sum(0): what it keeps
        ("strided transpose", ((16, 256, 256),), 256),  # a walk spans one 256² of floats: KiB
        ("strided transpose", ((256, 3072),), 3072),  # an older file's (R, C): the whole of it
        ("matvec", ((8, 1024), (1024, 1024)), 8),  # a decode batch of 8 rows: its rows
        ("matvec", ((1, 4096), (4096, 4096)), 1),
    ],
)
def test_a_points_second_coordinate_comes_from_its_operands_shapes(kind, shapes, narrow):
    mm = record(kind, "mm", [211e-6, 230e-6], 2e7, 1e5, 2e7)
    c = curves.curves((*RECORDS, dataclasses.replace(mm, shapes=shapes)), specs={})
    assert [p.sweep for p in c.curve(kind, "float32") if p.size == 2e7] == [narrow]


LOOPED = Measurement(samples=(0.02,), method=harness.IN_PROGRAM)


def _stream(kernel, elements, n_args, **kw):
    """A stream record over `n_args` float32 operands of `elements` each, one output as large."""
    n_bytes = 4.0 * elements * (n_args + (kernel != "reduction"))
    fields = {"shapes": ((elements,),) * n_args, **kw}
    return dataclasses.replace(
        record(kernel, f"{kernel} {elements}", [0.02], 0.0, n_bytes, n_bytes), **fields
    )


@pytest.mark.parametrize(
    "r, fresh",
    [
        # a 64 MiB output on the host: malloc maps it fresh every call, its faults the time
        (_stream("elementwise", 2**24, 2), True),
        (_stream("plain copy", 2**23, 1), True),  # exactly 32 MiB: mapped too
        (_stream("plain copy", 2**22, 1), False),  # 16 MiB: from the heap
        (_stream("reduction", 2**24, 1), False),  # a 64 MiB input, a small output
        (_stream("fft", 2**24, 1), True),  # a real FFT's 64 MiB of complex outputs
        (_stream("elementwise", 2**24, 2, backend="tpu"), False),  # device memory
        (_stream("elementwise", 2**24, 2, measurement=LOOPED), False),  # a loop body's
    ],
)
def test_a_host_stream_whose_output_malloc_maps_fresh_is_no_kernel_point(r, fresh):
    """Its time is the first touch of its output's pages, which a prediction adds on its own:
    elementwise over 2 x 64 MiB into 64 MiB took 15.5 ms against 1.0 ms over 2 x 16 MiB, and
    kept in the curve it priced a 64 MiB scale at +41 % and tanh(x) + y at +121 %."""
    assert curves.fresh_output(r) is fresh
    c = curves.curves((*RECORDS, r), specs={})
    assert any(p.size == r.size for p in c.points if p.kind == r.kernel) is (not fresh)
