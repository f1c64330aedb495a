"""A fusion's transcendentals evaluated again: XLA's cost model counts one per element, but a
fused result is computed where it is used, and a reduce's loop runs apart from the loop that
writes the fusion's output. A softmax's exp, summed over each row and then divided by that sum,
is evaluated twice; a log-softmax's exp, only summed, once; an exp two elementwise ops use in
the same loop, once.

Pure: hand-written HLO (three fusions over an 8×128 float32 array) and a stub priced op;
the oracle is the elements counted by hand (8 × 128 = 1,024 a pass)."""

from types import SimpleNamespace

from perfcore.measure.profile import hlo
from perfcore.measure.profile.predict import kinds

MODULE = """HloModule softmaxes

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}

%softmax (p: f32[8,128]) -> f32[8,128] {
  %p = f32[8,128]{1,0} parameter(0)
  %e = f32[8,128]{1,0} exponential(%p)
  %zero = f32[] constant(0)
  %s = f32[8]{0} reduce(%e, %zero), dimensions={1}, to_apply=%add
  %b = f32[8,128]{1,0} broadcast(%s), dimensions={0}
  ROOT %d = f32[8,128]{1,0} divide(%e, %b)
}

%logsumexp (p.1: f32[8,128]) -> f32[8] {
  %p.1 = f32[8,128]{1,0} parameter(0)
  %e.1 = f32[8,128]{1,0} exponential(%p.1)
  %zero.1 = f32[] constant(0)
  %s.1 = f32[8]{0} reduce(%e.1, %zero.1), dimensions={1}, to_apply=%add
  ROOT %l = f32[8]{0} log(%s.1)
}

%twice (p.2: f32[8,128]) -> f32[8,128] {
  %p.2 = f32[8,128]{1,0} parameter(0)
  %e.2 = f32[8,128]{1,0} exponential(%p.2)
  %m = f32[8,128]{1,0} multiply(%e.2, %p.2)
  ROOT %a.2 = f32[8,128]{1,0} add(%e.2, %m)
}

ENTRY %main (x: f32[8,128]) -> (f32[8,128], f32[8], f32[8,128]) {
  %x = f32[8,128]{1,0} parameter(0)
  %f0 = f32[8,128]{1,0} fusion(%x), kind=kLoop, calls=%softmax
  %f1 = f32[8]{0} fusion(%x), kind=kLoop, calls=%logsumexp
  %f2 = f32[8,128]{1,0} fusion(%x), kind=kLoop, calls=%twice
  ROOT %t = (f32[8,128]{1,0}, f32[8]{0}, f32[8,128]{1,0}) tuple(%f0, %f1, %f2)
}
"""
ROW_PASS = 8 * 128


def _fusions() -> tuple[hlo.Module, dict[str, hlo.Instruction]]:
    module = hlo.parse_module(MODULE)
    entry = module.computations[module.entry]
    return module, {i.name.lstrip("%"): i for i in entry if i.opcode == "fusion"}


def test_a_softmax_exp_is_evaluated_again_for_the_output_after_its_sum():
    module, fusions = _fusions()
    assert kinds.again(module, fusions["f0"]) == {"exponential": ROW_PASS}


def test_an_exp_only_summed_or_used_in_one_loop_is_evaluated_once():
    module, fusions = _fusions()
    assert kinds.again(module, fusions["f1"]) == {}
    assert kinds.again(module, fusions["f2"]) == {}


def test_the_softmax_takes_the_chain_curve_for_both_evaluations():
    """XLA counts 1,024 exps (one per element); the chain prices 2,048."""
    module, fusions = _fusions()
    priced = SimpleNamespace(transcendentals=float(ROW_PASS), category=hlo.REDUCTION)
    assert kinds.evaluations(module, fusions["f0"], priced) == {"transcendental": 2 * ROW_PASS}
    assert kinds.evaluations(module, fusions["f1"], priced) == {"transcendental": ROW_PASS}
