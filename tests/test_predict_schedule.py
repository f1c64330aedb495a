"""A step's ops scheduled over their graph, dots priced by operand layout, the transpose curve.

Pure: hand-made graphs and curves, and a hand-written HLO module (tests/data/profile/
layouts.hlo: a dot of each operand layout, a rank-4 permuting fusion, a plain copy) priced
with a stub cost model (the kernel kinds and curves chosen are under test, not XLA's costs).
"""

import dataclasses
from pathlib import Path

import pytest

from perfcore.measure.profile import hlo
from perfcore.measure.profile.predict import graph
from perfcore.measure.profile.predict import program as predict
from perfcore.measure.profile.predict.op import OpPrediction
from perfcore.model.chip import concurrency, kernels
from perfcore.model.chip.concurrency import Node

# a and b wait on nothing, c on both: a -> c is the longest chain (3 s)
CHAIN = (Node("a", 2.0, 1), Node("b", 2.0, 1), Node("c", 1.0, 1, ("a", "b", "not a node")))
# the same with a and b handing their work to the pool (Eigen dots, split loop kernels)
HANDED = tuple(dataclasses.replace(n, hands_off=n.name != "c") for n in CHAIN)


def test_ops_that_hold_their_thread_run_one_after_another_as_xla_cpus_executor_walks_its_queue():
    """a and b are ready at once, but the executor's one thread runs a, then b (each runs to
    its end on it), then c: the sum, though two cores sat half idle."""
    t = concurrency.step(CHAIN, cores=2)
    assert (t.critical_path_s, t.work_s, t.sum_s) == (3.0, 2.5, 5.0)  # work (2+2+1)/2
    assert (t.seconds, t.rule) == (5.0, concurrency.SHARED)
    assert concurrency.simulate(CHAIN, 2) == {"a": (0.0, 2.0), "b": (2.0, 4.0), "c": (4.0, 5.0)}


def test_ops_that_hand_off_run_beside_each_other_down_to_the_critical_path():
    t = concurrency.step(HANDED, cores=2)
    assert t.seconds == 3.0  # a, b at once on the pool's two threads, then c
    assert dict(t.durations) == {"a": 2.0, "b": 2.0, "c": 1.0}


def test_ops_that_fill_every_core_share_them_so_each_takes_longer_inside_the_step():
    wide = tuple(Node(n.name, n.seconds, 2, n.after, n.hands_off) for n in HANDED)
    t = concurrency.step(wide, cores=2)
    assert (t.work_s, t.seconds) == (5.0, 5.0)  # the work bound: no overlap gains anything
    assert dict(t.durations) == {"a": 4.0, "b": 4.0, "c": 1.0}  # a and b at half speed
    four = concurrency.step(tuple(dataclasses.replace(n, threads=4) for n in HANDED), cores=2)
    assert four.work_s == 5.0 and four.seconds == 5.0  # an op keeps at most every core busy


def test_a_hand_off_lets_its_thread_start_the_next_op_and_what_it_frees_runs_on_its_own():
    """a (a hand-off, 2 s) then b (3 s, holding the thread) start together; c waits on a
    alone, so it starts when a ends, on the thread that finished a, while b still runs."""
    nodes = (Node("a", 2.0, 1, (), True), Node("b", 3.0, 1), Node("c", 1.0, 1, ("a",)))
    assert concurrency.simulate(nodes, 2) == {"a": (0.0, 2.0), "b": (0.0, 3.0), "c": (2.0, 3.0)}


def test_a_queue_past_the_split_threshold_hands_its_later_half_to_another_thread():
    """Ten one-thread ops ready at once: after the first is taken, nine wait, more than
    ThunkExecutor's 8, so the later half goes to a second thread: two lanes of 1 s ops."""
    ten = tuple(Node(f"op{k}", 1.0, 1) for k in range(10))
    spans = concurrency.simulate(ten, 2)
    assert spans["op0"] == (0.0, 1.0) and spans["op5"] == (0.0, 1.0)  # op5: the tail's first
    assert max(end for _, end in spans.values()) == 5.0  # 1 + 4 on the first, 5 on the second


def test_a_simulated_step_lies_between_the_larger_bound_and_their_sum():
    mixed = (Node("a", 2.0, 2), Node("b", 1.0, 1), Node("c", 3.0, 1, ("b",)), Node("d", 1.0, 2))
    t = concurrency.step(mixed, cores=2)
    assert max(t.critical_path_s, t.work_s) <= t.seconds <= t.critical_path_s + t.work_s


def test_work_no_op_holds_is_spread_over_the_cores():
    t = concurrency.step(HANDED, cores=2, extra_work_s=3.0)  # e.g. first touch of fresh pages
    assert t.seconds == 4.5 and t.work_s == 4.0  # 3 + 3 / 2; (5 + 3) / 2
    in_order = concurrency.step(HANDED, cores=2, sequential=True, extra_work_s=3.0)
    assert in_order.seconds == 6.5  # 5 + 3 / 2


@pytest.mark.parametrize(("cores", "sequential"), [(2, True), (0, False)])
def test_run_in_order_or_on_unknown_cores_the_step_is_the_sum(cores, sequential):
    t = concurrency.step(CHAIN, cores=cores, sequential=sequential)
    assert (t.seconds, t.rule) == (5.0, concurrency.SUM)


MODULE = (Path(__file__).parent / "data" / "profile" / "layouts.hlo").read_text("utf-8")
FLOPS, BYTES = 1e6, 1e5


def stub_cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes, transcendentals) of a one-op module: a dot does FLOPS, the rest none."""
    return (FLOPS if " dot(" in text else 0.0), BYTES, 0.0


def curves(*points: kernels.Point, threads: int = 2) -> kernels.Curves:
    """Hand-made CPU curves (1e9 FLOP/s, 1e9 bytes/s) of the points given."""
    return kernels.Curves(
        "cpu", "2026-12-01", points, (("float32", 1e9),), 1e9, "hand", 0, 0, "", threads
    )


def flat(kind: str, efficiency: float, size: float) -> tuple[kernels.Point, ...]:
    """A curve of kind at one efficiency over a decade around size."""
    return tuple(kernels.Point(kind, "float32", s, efficiency) for s in (size / 10, size * 10))


EVERY = curves(
    *flat("matmul", 0.6, FLOPS),
    *flat("matmul transposed", 0.3, FLOPS),
    *flat("matmul rhs transposed", 0.4, FLOPS),
    *flat("copy", 0.8, BYTES),
    *flat("transpose", 0.1, BYTES),
)


def predicted(given: kernels.Curves) -> dict[str, OpPrediction]:
    got = predict.predict_modules([MODULE], "cpu", given, 5, stub_cost)
    return {o.name: o for o in got.ops}


def test_each_dot_takes_the_curve_of_its_operand_layout_and_a_permuting_copy_the_transpose():
    ops = predicted(EVERY)
    kinds = {n: o.kernel for n, o in ops.items()}
    assert kinds == {
        "nn": "matmul",
        "tn": "matmul transposed",
        "nt": "matmul rhs transposed",
        "perm": "transpose",
        "plain": "plain copy",  # its layout kept: priced on the copy's curve, EVERY has no other
    }
    bound_dot, bound_move = FLOPS / 1e9, BYTES / 1e9
    for name, eff in (("nn", 0.6), ("tn", 0.3), ("nt", 0.4)):
        assert ops[name].predicted_s == pytest.approx(bound_dot / eff)
    assert ops["perm"].predicted_s == pytest.approx(bound_move / 0.1)
    assert ops["plain"].predicted_s == pytest.approx(bound_move / 0.8)
    assert ops["perm"].derived_from.startswith("transpose float32")


def test_curves_without_a_layouts_own_curve_price_it_from_the_base_kind_and_say_so():
    ops = predicted(curves(*flat("matmul", 0.6, FLOPS), *flat("copy", 0.8, BYTES)))
    assert ops["tn"].predicted_s == pytest.approx(FLOPS / 1e9 / 0.6)
    assert "no matmul transposed curve measured" in ops["tn"].derived_from
    assert "no transpose curve measured" in ops["perm"].derived_from


def test_the_step_is_the_programs_graph_scheduled_on_the_curves_threads():
    got = predict.predict_modules([MODULE], "cpu", EVERY, 5, stub_cost)
    (schedule,) = got.schedule
    module = hlo.parse_module(MODULE)
    nodes = graph.nodes(module, {o.name: o.predicted_s for o in got.ops}, 2)
    assert schedule == concurrency.step(nodes, 2, graph.sequential(module))
    assert got.step_s == pytest.approx(schedule.seconds + got.dispatch_s)
    threads = {n.name: n.threads for n in nodes}
    assert threads["nn"] == 2 and threads["perm"] == 2 and threads["plain"] == 1
    unscheduled = predict.predict_modules(
        [MODULE], "cpu", curves(*EVERY.points, threads=0), 5, stub_cost
    )
    assert unscheduled.schedule == () and unscheduled.ops_step_s == unscheduled.op_s


def test_few_ops_run_in_order_as_xla_cpu_does():
    module = hlo.parse_module(MODULE)  # 5 ops: at most graph.SEQUENTIAL_OPS
    assert graph.sequential(module)


def test_only_buffers_at_or_above_the_mmap_threshold_are_fresh_each_step():
    module = hlo.parse_module(MODULE)  # outputs of 0.5 MiB at most
    assert graph.fresh_bytes(module, graph.MMAP_MAX - 2**20) == 0  # below: the heap reused
    # exactly at it: malloc's header puts the request above (a 32 MiB arena faulted 8,296
    # times a step here, a 30.5 MiB one 1,248)
    assert graph.fresh_bytes(module, graph.MMAP_MAX) == graph.MMAP_MAX
    assert graph.fresh_bytes(module, 2 * graph.MMAP_MAX) == 2 * graph.MMAP_MAX


def test_fresh_pages_are_charged_as_work_at_the_curves_rate():
    rate = 1e-9  # seconds per byte
    fresh = dataclasses.replace(EVERY, fresh_s_per_byte=rate)
    temp = 2.0 * graph.MMAP_MAX
    got = predict.predict_modules([MODULE], "cpu", fresh, 5, stub_cost, temp_bytes=temp)
    assert got.fresh_s == pytest.approx(temp * rate) and "fresh pages" in got.fresh_from
    base = predict.predict_modules([MODULE], "cpu", EVERY, 5, stub_cost)
    assert got.step_s == pytest.approx(base.step_s + temp * rate / 2)  # in order: over 2 cores


def test_the_op_that_writes_the_fresh_arena_takes_its_faults_and_the_rest_are_spread():
    """perm's 0.5 MiB result lies in a 32 MiB arena malloc maps fresh: perm (a loop fusion on
    2 threads) faults its pages itself, the arena's other 31.5 MiB are spread over the cores
    as before; the step's fresh-page work is the same."""
    rate = 1e-9  # seconds per byte
    fresh = dataclasses.replace(EVERY, fresh_s_per_byte=rate)
    perm = 8 * 8 * 64 * 32 * 4
    dump = (
        f"BufferAssignment:\nallocation 0: size {graph.MMAP_MAX}, preallocated-temp:\n"
        f" value: <9 perm @0> (size={perm},offset=0): f32[8,8,64,32]{{3,2,1,0}}\n"
    )
    temp = float(graph.MMAP_MAX)
    args = ([MODULE], "cpu", fresh, 5, stub_cost)
    spread = predict.predict_modules(*args, temp_bytes=temp)
    placed = predict.predict_modules(*args, temp_bytes=temp, assignments={"t": dump})
    assert placed.fresh_s == spread.fresh_s == pytest.approx(temp * rate)
    inside = dict(placed.schedule[0].durations)
    alone = {o.name: o.predicted_s for o in placed.ops}
    assert inside["perm"] == pytest.approx(alone["perm"] + perm * rate / 2)
    assert inside["plain"] == pytest.approx(alone["plain"])  # in order: nothing beside it
    assert placed.step_s == pytest.approx(spread.step_s)  # in order, the same work either way


def test_a_launch_adds_what_its_results_bytes_cost_where_the_curves_timed_large_results():
    """The module returns 12,288 + 6,144 + 8,192 + 524,288 + 524,288 = 1,075,200 bytes; the
    curves' one large-result size, 2 MiB, added 200 µs to its launch: linear from nothing,
    1,075,200 / 2,097,152 of it."""
    timed = dataclasses.replace(EVERY, dispatch_bytes=((2.0**21, 200e-6),))
    base = predict.predict_modules([MODULE], "cpu", EVERY, 5, stub_cost)
    got = predict.predict_modules([MODULE], "cpu", timed, 5, stub_cost)
    assert got.dispatch_s - base.dispatch_s == pytest.approx(200e-6 * 1_075_200 / 2**21)
    assert "+103 µs for results of 1 MiB" in got.dispatch_from
    assert "results of" not in base.dispatch_from
