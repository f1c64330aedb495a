"""Ops priced by what they hold: a fusion of several matmuls (XLA:CPU's YNNPACK fuses a chain of
them) as the sum of its matmuls, each on its own curve at its own size; a batched dot at the
size of one of its matmuls; transcendentals (which the roofline counts no FLOPs for) at the
transcendental curve's kernel (exp and tanh: 2 per element) as many times as they take it, a
sine on the sine curve's (one per element), beyond that kernel's own stream where the op
streams its own bytes.

Pure: a hand-written HLO module (tests/data/profile/fusions.hlo: `two`, a fusion of a
64×32·32×48 dot, its exponential and a 64×48·48×24 dot; `sines`, three sines of a 64×32 array;
`batched`, four 64×32·32×48 dots in one; `rows`, four 1×32·32×48 in one, a matvec) with a stub
cost model, on hand-made curves (1e9 FLOP/s, 1e9 bytes/s; the matmul curve 0.25 up to 150,000
FLOPs and 0.5 from 160,000; the matvec curve, by bytes, 0.2 up to 10,000 and 0.8 from 20,000).
"""

import dataclasses
from pathlib import Path

import pytest

from perfcore.measure.profile.predict import program as predict
from perfcore.measure.profile.predict.op import OpPrediction
from perfcore.model.chip import kernels

MODULE = (Path(__file__).parent / "data" / "profile" / "fusions.hlo").read_text("utf-8")
SIN_ELEMENTS, SIN_BYTES = 64 * 32, 2 * 64 * 32 * 4  # one read and one write of each element
DOT_FLOPS = 4e5  # the stub's for any one-op module holding a dot


def stub_cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes, transcendentals) of a one-op module: `two`'s exponential evaluates once
    per 64×48 element; `sines` 3 per element (one per sine, as XLA counts them)."""
    if " dot(" in text:
        return DOT_FLOPS, 3e4, (64.0 * 48 if " exponential(" in text else 0.0)
    return (0.0, SIN_BYTES, 3.0 * SIN_ELEMENTS) if " sine(" in text else (0.0, 1e3, 0.0)


def _flat(kind: str, efficiency: float, lo: float, hi: float) -> tuple[kernels.Point, ...]:
    return tuple(kernels.Point(kind, "float32", s, efficiency) for s in (lo, hi))


CURVES = kernels.Curves(
    "cpu",
    "2026-12-02",
    (
        *_flat("matmul", 0.25, 1e3, 1.5e5),
        *_flat("matmul", 0.5, 1.6e5, 1e8),
        *_flat("transcendental", 0.25, 1e2, 1e8),
        *_flat("matvec", 0.2, 1e2, 1e4),
        *_flat("matvec", 0.8, 2e4, 1e8),
    ),
    (("float32", 1e9),),
    1e9,
    "hand",
    threads=2,
)


def _ops(curves: kernels.Curves = CURVES) -> dict[str, OpPrediction]:
    got = predict.predict_modules([MODULE], "cpu", curves, 5, stub_cost)
    return {o.name: o for o in got.ops}


def test_a_fusion_of_two_matmuls_is_the_sum_of_each_on_its_curve_and_its_exponentials():
    """By hand: 2·64·48·32 = 196,608 FLOPs (compute-bound at 1e9 FLOP/s: efficiency 0.5 from
    160,000) and 2·64·24·48 = 147,456 (0.25 up to 150,000); the exponential's 3,072
    evaluations over the fusion's largest array (a: 2,048 elements) are 3,072 / (2 · 2,048) =
    0.75 of the transcendental kernel over 2,048 elements (2 · 4 · 2,048 bytes at 0.25)."""
    two = _ops()["two"]
    dots = 196_608 / 1e9 / 0.5 + 147_456 / 1e9 / 0.25
    assert two.kernel == "matmul"
    assert two.predicted_s == pytest.approx(dots + 0.75 * 2 * 4 * 2048 / 1e9 / 0.25)
    assert two.derived_from.startswith("the sum of its 2 matmuls: matmul float32 at 1.97e+05")
    assert "and 0.75 x the transcendental curve's kernel over its 2,048 elements" in (
        two.derived_from
    )
    assert two.efficiency == pytest.approx(two.bound_s / two.predicted_s)


def test_a_batched_dot_is_priced_at_one_of_its_matmuls():
    """4 matmuls in one dot of 400,000 FLOPs: each 100,000, where the curve is 0.25 (at
    400,000 it would be 0.5); bound 400,000 / 1e9 s."""
    batched = _ops()["batched"]
    assert batched.predicted_s == pytest.approx(DOT_FLOPS / 1e9 / 0.25)
    assert "at 1e+05 flops" in batched.derived_from


def test_a_batched_matvec_streams_all_its_bytes_on_its_curve():
    """A matvec's curve is by bytes, and a batched one (read on it: the curves hold no batched
    matvec) streams every instance's: 30,000 bytes (0.8), not a quarter of them (0.2); bound
    400,000 / 1e9 s (the stub's FLOPs)."""
    rows = _ops()["rows"]
    assert rows.kernel == "batched matvec"
    assert rows.predicted_s == pytest.approx(DOT_FLOPS / 1e9 / 0.8)


def test_a_sine_takes_its_own_curves_kernel_as_often_as_it_evaluates():
    """Three sines per element against the sine kernel's one. With u = 16,384 bytes / 1e9
    bytes/s: the op streams its bytes at 0.5 on the elementwise curve (2u) and adds, 3 times,
    the sine kernel over its 2,048 elements (at 0.05: 20u) less that kernel's own stream
    (2u): 2u + 3 × 18u = 56u. Where the curves have no sine curve, on the exp·tanh chain's
    (0.25: its kernel 4u, taken as one sine an element, less 2u): 2u + 3 × 2u = 8u, said."""
    u = SIN_BYTES / 1e9
    streams = (*CURVES.points, *_flat("elementwise", 0.5, 1e2, 1e8))
    sine = dataclasses.replace(CURVES, points=(*streams, *_flat("sine", 0.05, 1e2, 1e8)))
    sines = _ops(sine)["sines"]
    assert sines.kernel == "transcendental"
    assert sines.predicted_s == pytest.approx(56 * u)
    assert "and 3 x the sine curve's kernel over its 2,048 elements" in sines.derived_from
    assert "beyond its own stream" in sines.derived_from
    older = _ops(dataclasses.replace(CURVES, points=streams))["sines"]
    assert older.predicted_s == pytest.approx(8 * u)
    assert "transcendental (no sine curve measured)" in older.derived_from


def test_an_op_of_a_loops_body_takes_the_loop_curve():
    """tests/data/profile/cpu_scan.hlo: a scan whose body runs a tanh (8×16) each step. With a
    transcendental curve timed as a loop body's op (efficiency 2.0, beside the program curve's
    0.25) and an elementwise one (8.0), the body's tanh is priced on them: its data streamed
    at 8.0 (u / 8, u = 1,024 bytes / 1e9 bytes/s), plus its 128 evaluations, half the chain's
    kernel over its 128 elements at 2.0 (u / 2) less that kernel's stream (u / 8): u / 8 +
    0.5 × 3u / 8 = 0.3125 u."""
    scan = (Path(__file__).parent / "data" / "profile" / "cpu_scan.hlo").read_text("utf-8")
    looped = kernels.Curves(
        "cpu",
        "2026-12-02",
        (
            *CURVES.points,
            *_flat("transcendental", 2.0, 1e2, 1e8),
            *_flat("elementwise", 8.0, 1, 1e8),
        ),
        (("float32", 1e9),),
        1e9,
        "hand",
        threads=2,
    )
    looped = dataclasses.replace(
        looped,
        points=tuple(
            dataclasses.replace(p, loop=True) if p.efficiency >= 2.0 else p for p in looped.points
        ),
    )

    def cost(text: str) -> tuple[float, float, float]:
        return (0.0, 1024.0, 128.0) if " tanh(" in text else (0.0, 1024.0, 0.0)

    ops = {o.name: o for o in predict.predict_modules([scan], "cpu", looped, 3, cost).ops}
    tanh = ops["wrapped_tanh"]
    assert tanh.kernel == "transcendental" and "as a loop body's op" in tanh.derived_from
    assert tanh.predicted_s / tanh.occurrences == pytest.approx(0.3125 * 1024 / 1e9)


ROOTS = """HloModule roots

%fused_roots (v: f32[64,32]) -> f32[64,32] {
  %v = f32[64,32]{1,0} parameter(0)
  %root = f32[64,32]{1,0} sqrt(%v)
  %e = f32[64,32]{1,0} exponential(%v)
  ROOT %sum = f32[64,32]{1,0} add(%root, %e)
}

%fused_root (w: f32[64,32]) -> f32[64,32] {
  %w = f32[64,32]{1,0} parameter(0)
  ROOT %root.1 = f32[64,32]{1,0} sqrt(%w)
}

ENTRY %main (p: f32[64,32]) -> (f32[64,32], f32[64,32]) {
  %p = f32[64,32]{1,0} parameter(0)
  %both = f32[64,32]{1,0} fusion(%p), kind=kLoop, calls=%fused_roots
  %only = f32[64,32]{1,0} fusion(%p), kind=kLoop, calls=%fused_root
  ROOT %out = (f32[64,32], f32[64,32]) tuple(%both, %only)
}
"""


def test_a_square_root_is_elementwise_math_not_a_transcendental_evaluation():
    """XLA counts sqrt and exp alike (2 per element for `both`, 1 for `only`); a square root is
    one vector instruction, so `both` evaluates its exponential's 2,048 alone and `only` none:
    an elementwise op."""
    from perfcore.measure.profile import hlo
    from perfcore.measure.profile.predict import kinds

    module = hlo.parse_module(ROOTS)
    ops = {i.name: i for i in module.computations["%main"]}
    both = dataclasses.make_dataclass("P", ["category", "transcendentals"])
    got = kinds.evaluations(module, ops["%both"], both(hlo.ELEMENTWISE, 2.0 * 2048))
    assert got == {"transcendental": 2048}
    only = both(hlo.ELEMENTWISE, 2048.0)
    assert kinds.evaluations(module, ops["%only"], only) == {}
    assert kinds.kernel_kind(module, ops["%only"], only) == "elementwise"
    assert kinds.kernel_kind(module, ops["%both"], both(hlo.ELEMENTWISE, 4096.0)) == (
        "transcendental"
    )


UPDATE = (Path(__file__).parent / "data" / "profile" / "update.hlo").read_text("utf-8")
DOT_BYTES = 4 * (64 * 32 + 32 * 48 + 64 * 48)  # x, w and the dot's result g
UPDATE_BYTES = 4 * (64 * 32 + 32 * 48 + 4 * 64 * 48)  # x, w, p and m read, p and m written


def test_a_fusion_moving_more_than_its_dot_adds_the_rest_on_the_elementwise_curve():
    """An optimizer's update fused with its dot (XLA:TPU fuses Adam's into the weight
    gradient's): 2·64·48·32 = 196,608 FLOPs at 0.5 of 1e9 FLOP/s, then the 63,488 - 26,624 =
    36,864 bytes it moves beyond the dot's operands and result (p and m read and written: four
    64×48 arrays, less the dot's result g, never written) at 0.5 of 1e9 bytes/s on the
    elementwise curve."""

    def cost(text: str) -> tuple[float, float, float]:
        return (196_608.0, float(UPDATE_BYTES), 0.0) if " dot(" in text else (0.0, 1e3, 0.0)

    points = (*CURVES.points, *_flat("elementwise", 0.5, 1e2, 1e8))
    curves = dataclasses.replace(CURVES, points=points)
    got = predict.predict_modules([UPDATE], "cpu", curves, 4, cost)
    (update,) = [o for o in got.ops if o.name == "update"]
    extra = UPDATE_BYTES - DOT_BYTES
    assert extra == 36_864
    assert update.predicted_s == pytest.approx(196_608 / 1e9 / 0.5 + extra / 1e9 / 0.5)
    assert "and 0.0369 MB its fusion moves beyond its dots' operands and results" in (
        update.derived_from
    )
