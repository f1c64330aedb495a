"""The kernels experiment on CPU JAX (a tiny suite), and a program predicted from its curves.

jax tier: runs JAX on its default device. No timing thresholds: only which records, kinds,
fields and labels come back.
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from perfcore.measure import results
from perfcore.measure.clock import harness
from perfcore.measure.experiments import kernels as kernel_suite
from perfcore.measure.experiments import runner
from perfcore.measure.experiments.env import compile_case, random_inputs
from perfcore.measure.experiments.kernels import functions as kernel_functions
from perfcore.measure.experiments.kernels import launches as kernel_launches
from perfcore.measure.experiments.kernels import loops as kernel_loops
from perfcore.measure.experiments.kernels import sweeps as kernel_plan
from perfcore.measure.experiments.suites import SUITES
from perfcore.measure.profile import hlo
from perfcore.measure.profile.hlo import xla_private
from perfcore.measure.profile.judge import records as profile_records
from perfcore.measure.profile.predict import program as predict
from perfcore.measure.profile.predict import versus
from perfcore.measure.profile.run import profile
from perfcore.measure.results import curves
from perfcore.model.chip import kernel_kinds, kernel_lapack, kernels
from perfcore.model.chip.ops import Cost

TINY = dataclasses.replace(
    SUITES["quick"],
    kernel_dtypes=("float32",),
    kernel_sides=(32, 256),
    kernel_rows=(1,),
    kernel_seqs=(64,),
    kernel_head_dims=(16,),
    kernel_elements=(2**16, 2**18),
    kernels_budget_s=60.0,
    repeats=3,
)


@pytest.fixture(scope="module")
def measured():
    """The tiny kernels suite's records."""
    return runner.run_suite(TINY, experiments=("kernels",))


def test_the_tiny_suite_yields_records_of_every_kind(measured):
    kinds = {r.kernel for r in measured}
    launches = ("dispatch", curves.DISPATCH_RESULTS, "page faults, every core", *curves.FAULT_PAIR)
    assert kinds == {*kernel_kinds.KINDS, *launches} - {"collective"}  # one CPU
    env = runner.Env(jax, jnp, runner.detect({}), TINY, lambda message: None)
    cache = kernel_launches.host_columns(env)["cache_bytes"]  # this host's, as sysfs reports it
    for r in measured:
        assert r.experiment == "kernels" and r.measurement.n >= 1 and r.threads >= 1
        faults = ("page faults, every core", *curves.FAULT_PAIR)
        assert r.cache_bytes == (cache if r.kernel not in faults else None)
        if r.kernel not in launches:
            # a copy or a top-k (a custom call on XLA:CPU) does no FLOPs: cost_analysis
            # reports none and the model's 0 stands in; a LAPACK routine's are its textbook
            # count, an FFT's 8 N log2 N of its points (XLA's in one dimension, not in two)
            none = (*kernel_suite.COPIES, "top-k", "fft", *kernel_lapack.FACTORIZATIONS)
            assert r.flops_source == ("model" if r.kernel in none else "cost_analysis")
            assert r.bytes
            assert r.size_kind == kernel_kinds.SIZE_UNIT[r.kernel]


def test_the_page_faults_are_timed_before_the_sweeps_and_again_after_them(measured):
    """One record, both passes' calls in it: a slow spell in one pass no longer sets the
    cost of every fresh page a prediction adds."""
    (r,) = [r for r in measured if r.kernel == "page faults, every core"]
    assert r.measurement.n == 2 * TINY.repeats
    assert "samples of two passes" in r.notes


def test_the_faults_an_op_takes_are_timed_as_its_fresh_output_against_its_donated_input(
    measured,
):
    """The same op's calls taken in turn, 64 MiB each, on the host's threads (the pair whose
    fastest calls' difference curves.fresh_s_per_byte takes: tests/test_curves.py)."""
    pair = {r.kernel: r for r in measured if r.kernel in curves.FAULT_PAIR}
    assert set(pair) == set(curves.FAULT_PAIR)
    assert {(r.bytes, r.measurement.n) for r in pair.values()} == {(2.0**26, TINY.repeats)}
    env = runner.Env(jax, jnp, runner.detect({}), TINY, lambda message: None)
    assert {r.threads for r in pair.values()} == {kernel_launches.host_threads(env)}


def test_a_batched_matmul_record_is_sized_by_one_of_its_matmuls(measured):
    """16 matmuls of 256×64·64×256 in one dot: the record's size is one's FLOPs (as the
    prediction sizes a batched dot), its FLOPs the dot's (cost_analysis)."""
    (r,) = [r for r in measured if r.kernel == "batched matmul"]
    assert r.shapes == ((16, 256, 64), (16, 64, 256))
    assert r.size == pytest.approx(2 * 256 * 64 * 256) == pytest.approx(r.flops / 16)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_random_inputs_are_varied_arrays_of_each_shape_mean_0_variance_1(dtype):
    """Drawn once per call (by numpy on a CPU, uniform): each shape and dtype asked for, the
    two arrays different, mean about 0 and deviation about 1 over 2^16 draws, within the
    uniform's bounds of ±sqrt 3 and varied (float32's nearly all distinct)."""
    env = runner.Env(jax, jnp, runner.detect({}), TINY, lambda message: None)
    a, b = random_inputs(env, ((256, 256), (256, 256)), dtype)
    assert a.shape == b.shape == (256, 256) and str(a.dtype) == str(b.dtype) == dtype
    x = np.asarray(a, np.float32)
    assert not np.array_equal(x, np.asarray(b, np.float32))
    assert abs(x.mean()) < 0.02 and abs(x.std() - 1) < 0.02
    distinct = 0.99 * x.size if dtype == "float32" else 1000  # bfloat16 holds fewer values
    assert np.abs(x).max() <= 3**0.5 * 1.01 and len(np.unique(x)) > distinct  # bfloat16 rounds


def test_its_results_file_round_trips_to_the_same_curves(measured, tmp_path):
    loaded = results.load_results(results.save_results(measured, tmp_path / "k.json"))
    assert loaded == measured
    c = curves.curves(loaded)
    assert c == curves.curves(measured) and c.device == measured[0].device
    assert c.dispatch_s > 0 and {p.kind for p in c.points} <= set(kernel_kinds.KINDS)
    assert c.threads >= 1 and c.fresh_s_per_byte > 0


def tiny(x, w):
    return (x @ w).sum() + x.sum()


@pytest.fixture(scope="module")
def inputs():
    import jax.numpy as jnp

    return jnp.ones((64, 256)), jnp.ones((256, 256))


def test_predict_gives_one_prediction_per_launched_hlo_op_with_its_source(measured, inputs):
    import jax

    c = curves.curves(measured)
    got = predict.predict(tiny, *inputs, curves=c)
    texts = xla_private.compiled_texts(jax.jit(tiny).lower(*inputs).compile())
    launched = [i for t in texts for i in predict.launched(hlo.parse_module(t))]
    assert [o.name for o in got.ops] == [i.name.lstrip("%") for i in launched]
    priced = [o for o in got.ops if o.predicted_s is not None]
    assert priced
    assert all(o.efficiency_source in (kernels.MEASURED, kernels.NEAREST) for o in priced)
    assert all(c.label in o.derived_from for o in priced)
    assert any(o.kernel == "matmul" for o in priced)
    assert got.step_s == pytest.approx(got.op_s + c.dispatch(2))
    assert "2 argument(s) and 1 result(s)" in got.dispatch_from


def test_a_program_returning_a_tuple_adds_the_launch_of_several_results(measured, inputs):
    """The suite times a program of 1 argument and 4 results beside the 1-argument one; a
    program of two results launches at dispatch(args, 2), one of one result without it."""
    c = curves.curves(measured)
    assert c.dispatch_results_s >= 0
    (four,) = [r for r in measured if r.kernel == curves.DISPATCH_RESULTS]
    assert four.label == "dispatch, 1 argument, 4 results" and four.shapes == ((1,),)
    got = predict.predict(lambda x, w: (x @ w, x.sum()), *inputs, curves=c)
    assert got.dispatch_s == pytest.approx(c.dispatch(2, 2))
    assert "2 argument(s) and 2 result(s)" in got.dispatch_from


def test_without_curves_for_the_device_a_cpu_op_says_it_has_no_roof(measured, inputs):
    other = dataclasses.replace(curves.curves(measured), device="another device")
    for given in (None, other):
        got = predict.predict(tiny, *inputs, curves=given)
        assert got.curves_label == kernels.PUBLISHED and got.dispatch_s == 0
        assert all(o.predicted_s is None and o.derived_from for o in got.ops)


def test_the_profile_holds_every_predicted_op_beside_its_measured_time(measured, inputs):
    c = curves.curves(measured)
    got = predict.predict(tiny, *inputs, curves=c)
    joined = profile(tiny, *inputs, steps=2)
    held = versus.versus(got, joined, versus.step_wall(tiny, *inputs, repeats=3))
    assert {o.name for o in held.ops} | set(held.unmatched) == {o.name for o in joined.ops}
    assert held.ops and all(o.measured_s > 0 and o.predicted_s > 0 for o in held.ops)
    written = versus.with_prediction(profile_records.to_records(joined, None), got)
    step = [r for r in written if r.category == profile_records.STEP]
    assert step and step[0].predicted_s == got.step_s and c.label in step[0].predicted_from
    assert any(r.predicted_s is not None and r.kernel for r in written if r not in step)


def test_every_stream_kind_and_the_small_square_matmuls_are_timed_as_loop_bodys_ops_too(measured):
    """Each stream sweep and the square matmuls up to LOOP_MATMUL_MAX again inside one
    program's loop, and the scatters only there (into a carried table): per-iteration
    seconds, no launch; a matmul's sized by its FLOPs."""
    bodies = [r for r in measured if r.measurement.method == harness.IN_PROGRAM]
    assert {r.kernel for r in bodies} == {*kernel_plan.STREAMS, "matmul", *kernel_suite.CARRIED}
    placed = [r for r in bodies if curves.in_place(r)]  # the streams again, written in place
    assert {r.kernel for r in placed} == set(kernel_plan.STREAMS)
    assert all(r.label.endswith(curves.IN_LOOP_IN_PLACE) for r in placed)
    assert all(
        r.label.endswith(kernel_suite.IN_LOOP) and r.bytes for r in bodies if r not in placed
    )
    assert {r.label.removesuffix(curves.IN_LOOP_IN_PLACE) for r in placed} <= {
        r.label.removesuffix(kernel_suite.IN_LOOP) for r in bodies if r not in placed
    }
    squares = [r for r in bodies if r.kernel == "matmul"]
    assert all(r.size == r.flops and r.size_kind == "flops" for r in squares)
    assert all(r.shapes[0][0] <= kernel_plan.LOOP_MATMUL_MAX for r in squares)
    c = curves.curves(measured)
    assert {p.kind for p in c.points if p.loop} <= {*kernel_plan.STREAMS, "matmul", "scatter"}
    assert {p.kind for p in c.points if p.in_place} == {p.kind for p in c.points if p.loop} & set(
        kernel_plan.STREAMS
    )


@pytest.mark.parametrize(
    ("probe_s", "trips", "lengths"),
    [
        (0.5e-3, 10, (5, 45)),  # 50 µs an iteration: 2 ms / 50 µs = 40 extra, an eighth 5
        (0.3e-3, 256, (32, 288)),  # 1.2 µs: 1,707 extra capped at 256, an eighth 32
        (0.14, 10, (2, 10)),  # 14 ms: 1 extra wanted, 8 at least, short 2
    ],
)
def test_a_loop_body_is_timed_over_extra_iterations_that_outlast_its_launchs_noise(
    probe_s, trips, lengths
):
    """The loop lengths come from the probe's time an iteration (trip_counts): extra
    iterations worth EXTRA_S (2 ms), 8 to 256 of them, the short loop an eighth (at least 2)."""
    assert kernel_loops.trip_counts(probe_s, trips) == lengths


def test_a_looped_kernel_stays_in_the_loop_body():
    """XLA hoists a loop-invariant kernel out of a fori_loop (an optimization barrier on the
    arguments alone was hoisted with it): the looped program's while body must hold it."""
    import jax
    import jax.numpy as jnp

    fn = lambda x: jnp.exp(-x) * jnp.tanh(x)  # noqa: E731
    trips, x = jnp.int32(10), jnp.ones((64, 256))
    text = kernel_loops.looped(jax, fn).lower(trips, x).compile().as_text()
    module = hlo.parse_module(text)
    (loop,) = [i for i in module.computations[module.entry] if i.opcode == "while"]
    body = [c for c in hlo.called(module, loop) if "tanh" in module.texts[c]]
    assert body, "the kernel was hoisted out of the loop"
    assert not any("tanh" in i.line for i in module.computations[module.entry])
    # the body reads the carry it writes: its result is copied into the carry every trip,
    # which a point then holds (looped's docstring says why it is kept)
    inside = [i for c in hlo.called(module, loop) for i in module.computations[c]]
    assert [i for i in inside if i.opcode == "copy" and "64,256" in i.shape]


def test_a_kernel_written_in_place_stays_in_the_loop_body_and_copies_nothing():
    """Tied to the iteration's index, the kernel is not hoisted out of the loop either, and
    its result goes into the carry in place: no copy of it in the loop (looped has one)."""
    import jax
    import jax.numpy as jnp

    fn = lambda x: jnp.exp(-x) * jnp.tanh(x)  # noqa: E731
    trips, x = jnp.int32(10), jnp.ones((64, 256))
    module = hlo.parse_module(kernel_loops.in_place(jax, fn).lower(trips, x).compile().as_text())
    (loop,) = [i for i in module.computations[module.entry] if i.opcode == "while"]
    assert [c for c in hlo.called(module, loop) if "tanh" in module.texts[c]]
    assert not any("tanh" in i.line for i in module.computations[module.entry])
    inside = [i for c in hlo.called(module, loop) for i in module.computations[c]]
    assert not [i for i in inside if i.opcode == "copy" and "64,256" in i.shape]


def test_a_scatter_is_timed_in_a_loop_carrying_its_table_and_as_a_program_donating_it(measured):
    """The donated program's calls each update the table the call before returned, in place
    (no copy of the table in its HLO); both kinds of point are recorded, at the model's bytes."""
    env = runner.Env(jax, jnp, runner.detect({}), TINY, lambda message: None)
    fn = kernel_functions.function(jax, jnp, "scatter")
    table, rows = jnp.zeros((4096, 16)), jnp.ones((256, 16))
    plain = compile_case(env, fn, (table, rows), Cost(0, 1), matmul=False)
    case = kernel_suite._in_place(env, fn, (table, rows), plain)
    for _ in range(3):
        done = case.run()
    assert float(done.sum()) == 3 * 256 * 16  # each call added to the last one's table
    assert float(table.sum()) == 0.0  # the caller's table untouched
    text = jax.jit(fn, donate_argnums=0).lower(table, rows).compile().as_text()
    assert "input_output_alias" in text and not hlo.parse_module(text).instructions.get("%copy")
    scatters = [r for r in measured if r.kernel == "scatter"]
    looped = [r for r in scatters if r.label.endswith(kernel_suite.IN_LOOP)]
    assert looped and len(looped) < len(scatters)
    planned = {p.label: p.model.bytes for s in kernel_suite._carried(TINY) for p in s}
    assert all(
        r.bytes == planned[r.label.removesuffix(" " + kernel_suite.IN_LOOP)] for r in scatters
    )


def test_a_carried_scatter_updates_its_table_in_place_in_the_loop_body():
    """A scatter into the loop's carry: the while body holds the scatter and copies no table
    (the table given is copied into the carry once, before the loop)."""
    import jax
    import jax.numpy as jnp

    fns = kernel_functions.function(jax, jnp, "scatter")
    trips, table, rows = jnp.int32(10), jnp.zeros((4096, 64)), jnp.ones((16, 64))
    text = kernel_loops.carried(jax, fns).lower(trips, table, rows).compile().as_text()
    module = hlo.parse_module(text)
    (loop,) = [i for i in module.computations[module.entry] if i.opcode == "while"]
    inside = [i for c in hlo.called(module, loop) for i in module.computations[c]]
    assert any(i.opcode == "scatter" for i in inside)
    assert not [i for i in inside if i.opcode == "copy" and "4096,64" in i.shape]
