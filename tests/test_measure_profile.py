"""Real captures on the CPU backend: each built-in example traced for 5 steps and joined.

Oracles: FLOPs counted by hand in each test's docstring, compiled.cost_analysis() (XLA's
whole-module count, computed apart from the per-op join), the dot shapes in the HLO, the
capture's raw events, and perf_counter around each call. No profiler is mocked.
"""

import math
import re

import jax
import pytest

from perfcore.measure import results
from perfcore.measure.profile import hlo, run
from perfcore.measure.profile.examples import EXAMPLES
from perfcore.measure.profile.hlo import xla_private
from perfcore.measure.profile.judge import records as profile_records
from perfcore.measure.profile.read.capture import read_capture

STEPS = 5


@pytest.fixture(scope="module")
def profiles(tmp_path_factory):
    """Each example's Profile, its compiled cost_analysis() and its capture's events."""
    out = {}
    for name, make in EXAMPLES.items():
        example = make()
        folder = tmp_path_factory.mktemp(name)
        p = run.profile(example.fn, *example.args, steps=STEPS, trace_dir=folder)
        compiled = jax.jit(example.fn).lower(*example.args).compile()
        out[name] = (p, compiled.cost_analysis(), read_capture(folder))
    return out


def _program(p):
    (program,) = p.programs
    return program


def _module(p, capture):
    """The profiled program's HLO module, read from the capture."""
    g = _program(p)
    return hlo.parse_module(xla_private.module_text(capture.modules[(g.module, g.program_id)]))


def test_mlp_op_flops_equal_the_hand_count_and_cost_analysis(profiles):
    """MLP of widths 256 -> 512 -> 512 -> 256 on a batch of 128, x -> tanh(x @ w + b):
    matmuls 2·128·(256·512 + 512·512 + 512·256) = 2·128·524,288 = 134,217,728 FLOPs;
    bias adds 128·(512 + 512 + 256) = 163,840; tanh is a transcendental, not a FLOP.
    Total 134,381,568 FLOPs per step."""
    p, cost, _ = profiles["mlp"]
    total = sum(o.flops for o in p.ops)
    assert total == 134_381_568 == cost["flops"]
    assert sum(o.flops for o in p.ops if o.category == hlo.MATMUL) >= 134_217_728
    assert _program(p).module_flops == cost["flops"]


def test_transformer_matmul_flops_equal_the_hand_count(profiles):
    """Block with s = 128 tokens, d = 256, 4 heads of 64, FFN f = 1024 (2·M·N·K each):
    QKV 2·128·256·768 = 50,331,648; scores 2·4·128·128·64 = 8,388,608; attention x V
    8,388,608; out 2·128·256·256 = 16,777,216; up and down 2·128·256·1024 = 67,108,864 each.
    Matmuls: 218,103,808 FLOPs. Every op's FLOPs together equal cost_analysis()'s total
    (norms, softmax and GELU add elementwise FLOPs counted by XLA, not by hand)."""
    p, cost, capture = profiles["transformer"]
    assert sum(o.flops for o in p.ops) == cost["flops"]
    module = _module(p, capture)
    traced = {o.name for o in p.ops}
    dots = [
        i
        for name in traced
        for c in hlo.called(module, module.instructions["%" + name])
        for i in module.computations[c]
        if i.opcode == "dot"
    ]
    assert sum(hlo.dot_flops(module, d) for d in dots) == 218_103_808


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_every_matmul_costs_2mnk_from_its_shapes(profiles, name):
    """Each traced matmul's dot: XLA's cost model gives 2·M·N·K, where M·N (times any batch)
    is the result's element count and K the product of the lhs contracting dimensions."""
    p, _, capture = profiles[name]
    module = _module(p, capture)
    matmuls = [o for o in p.ops if o.category == hlo.MATMUL]
    assert matmuls
    for op in matmuls:
        (dot,) = [
            i
            for c in hlo.called(module, module.instructions["%" + op.name])
            for i in module.computations[c]
            if i.opcode == "dot"
        ]
        lhs = [
            int(d)
            for d in re.search(r"\[([\d,]+)\]", hlo.operand_shape(module, dot.operands[0]))
            .group(1)
            .split(",")
        ]
        contracting = [
            int(d)
            for d in re.search(r"lhs_contracting_dims=\{([\d,]+)\}", dot.attrs).group(1).split(",")
        ]
        result = [int(d) for d in re.search(r"\[([\d,]+)\]", dot.shape).group(1).split(",")]
        mnk = 2 * math.prod(result) * math.prod(lhs[d] for d in contracting)
        assert xla_private.cost(hlo.one_op_module(module, dot))[0] == mnk, op.name
        assert hlo.dot_flops(module, dot) == mnk
        assert op.flops >= mnk * op.occurrences


def test_a_scan_of_n_steps_counts_n_times_its_body(profiles):
    """lax.scan of 8 steps of h -> tanh(h @ w + x_t), h 32 x 256, w 256 x 256:
    body 2·32·256·256 = 4,194,304 matmul FLOPs + 32·256 = 8,192 adds + 1 counter add
    = 4,202,497; 8 steps = 33,619,976. cost_analysis() counts the body once, plus the loop
    condition's compare: 4,202,498."""
    p, cost, _ = profiles["scan"]
    assert cost["flops"] == 4_202_498
    assert sum(o.flops for o in p.ops if o.flops is not None) == 33_619_976
    (matmul,) = [o for o in p.ops if o.category == hlo.MATMUL]
    assert matmul.occurrences == 8 and matmul.flops == 8 * 4_194_304
    assert "loop body" in " ".join(_program(p).notes)


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_every_traced_instruction_appears_once_per_step(profiles, name):
    """Each step (run) holds each instruction once, a scan's body 8 times: raw events."""
    p, _, capture = profiles[name]
    runs = {}
    for e in capture.events:
        if e.module == _program(p).module:
            runs.setdefault(e.run_id, []).append(e.op)
    assert len(runs) == STEPS
    body = {o.name for o in p.ops if o.occurrences > 1}
    for ops in runs.values():
        for op in set(ops):
            assert ops.count(op) == (8 if op in body else 1), op
    assert bool(body) == (name == "scan")


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_op_time_device_time_host_wall_and_clock_nest(profiles, name):
    """Per step: op time sum <= device busy <= device span <= host wall <= perf_counter."""
    p, _, _ = profiles[name]
    g = _program(p)
    assert g.steps == STEPS == len(p.call_s)
    for step in range(STEPS):
        assert g.op_s[step] <= g.busy_s[step] * (1 + 1e-9) <= g.span_s[step] * (1 + 1e-9)
        assert g.span_s[step] <= g.wall_s[step] <= p.call_s[step]


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_ops_cover_at_least_90_percent_of_device_time(profiles, name):
    p, _, _ = profiles[name]
    assert _program(p).coverage >= 0.9


def test_sources_name_the_example_lines(profiles):
    p, _, _ = profiles["mlp"]
    matmul = next(o for o in p.ops if o.category == hlo.MATMUL)
    assert matmul.source.endswith("profile/examples.py:" + matmul.source.rsplit(":", 1)[1])
    assert "profile/examples.py" in matmul.source


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_a_profile_round_trips_through_a_results_file(profiles, tmp_path, suffix):
    """Version 3: one record per op plus the step; flops per step, occurrences, samples."""
    p, _, _ = profiles["scan"]
    records = profile_records.to_records(p)
    loaded = results.load_results(results.save_results(records, tmp_path / f"p{suffix}"))
    assert loaded == records
    ops = profile_records.profile_records(loaded)
    assert len(ops) == len(p.ops) and all(r.experiment == "profile" for r in ops)
    matmul = next(r for r in ops if r.category == hlo.MATMUL)
    assert matmul.occurrences == 8 and matmul.flops == 8 * 4_194_304
    assert len(matmul.measurement.samples) == STEPS
    (step,) = profile_records.step_records(loaded)
    assert step.flops == sum(r.flops for r in ops if r.flops is not None)


def test_the_cli_reads_a_trace_folder_and_prints_the_top_ops(profiles, tmp_path, capsys):
    from perfcore.cli import main

    p, _, _ = profiles["mlp"]
    out = tmp_path / "mlp.csv"
    assert main(["profile", "--trace", p.trace_dir, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert p.ops[0].name in printed and f"wrote {out}" in printed
    loaded = profile_records.profile_records(results.load_results(out))
    assert {r.label for r in loaded} == {o.name for o in p.ops}


def test_perfcore_profile_is_the_stable_name():
    import perfcore

    assert perfcore.profile is run.profile


def test_each_op_says_what_it_does_and_where_and_its_record_keeps_it(profiles):
    """The MLP's first matmul, x (128 x 256) @ w (256 x 512), is named by its operands and its
    line in examples.py; its record and the command line's top ops carry the same words."""
    p, _, _ = profiles["mlp"]
    first = [o for o in p.ops if o.what.startswith("dot 128×256·256×512, examples.py:")]
    assert len(first) == 1 and first[0].what.endswith(first[0].source.rsplit("/", 1)[-1])
    records = profile_records.profile_records(profile_records.to_records(p))
    assert {profile_records.what(r) for r in records} == {o.what for o in p.ops}
    from perfcore.cli.profile import top_lines

    printed = "\n".join(top_lines(profile_records.to_records(p), 10))
    assert first[0].what in printed and first[0].name in printed


def test_an_example_with_no_roof_is_judged_against_this_machines_quick_roofline(
    tmp_path, capsys, monkeypatch
):
    """No specs row matches the CPU and no --roofline is given: the command measures the quick
    roofline (here stood in for by the bundled example's, measured on a CPU) and every op gets
    a roof from it, said as such."""
    from perfcore.cli import main
    from perfcore.explain.measure import profile_example
    from perfcore.measure.experiments import runner

    measured = tuple(r for r in profile_example.bundled() if r.experiment == "roofline")
    asked = []
    monkeypatch.setattr(runner, "run_suite", lambda *a, **k: asked.append((a, k)) or measured)
    out = tmp_path / "mlp.json"
    assert main(["profile", "--example", "mlp", "--steps", "2", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert asked == [(("quick",), {"experiments": ("roofline",)})]
    assert "roofs: measured roofline of this machine" in printed.splitlines()[0]
    ops = profile_records.profile_records(results.load_results(out))
    assert ops and not [r.label for r in ops if r.diagnosis.startswith("no roof")]


def test_a_program_that_donates_its_arguments_is_profiled_and_timed_on_fresh_copies(tmp_path):
    """jax.jit(..., donate_argnums=0) deletes the buffer each call takes: every profiled step
    and every timed call gets copies, the caller's arrays stay whole, the result is right."""
    from perfcore.measure.profile.predict import versus

    step = jax.jit(lambda w, x: (w - 0.1 * (x.T @ (x @ w)), (x @ w).sum()), donate_argnums=0)
    w, x = jax.numpy.ones((64, 64)), jax.numpy.ones((8, 64))
    p = run.profile(step, w, x, steps=3, trace_dir=tmp_path)
    assert len(p.call_s) == 3 and p.ops
    wall = versus.step_wall(step, w, x, repeats=4)
    assert wall.n == 4 and not w.is_deleted()
    assert float(step(w.copy(), x)[1]) == 8 * 64 * 64
    plain = jax.jit(lambda w, x: x @ w)
    assert run.arguments(jax, plain, (w, x))() == (w, x)  # no copies where nothing is donated
