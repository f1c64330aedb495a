"""A reduce of an array its fusion makes from less: priced by the bytes the reduce consumes.

Pure: tests/data/profile/pairwise.hlo is XLA:CPU's module of ((x[:, None] - y[None]) ** 2)
.sum(-1) over x of 64 × 16 and y of 32 × 16 floats (its metadata dropped): one YNNPACK fusion
that broadcasts both into 64 × 32 × 16, squares their difference and sums its rows. It moves
6 KiB (x 4 KiB, y 2 KiB read; 8 KiB written) and its reduce consumes 128 KiB. Measured on this
CPU before (stop 59, fastest of 30): at 1,024 × 512 × 64 it took 3.9 ms, priced 0.40 ms by its
2.5 MB; by the 134 MB its reduce consumes, 4.0 ms.
"""

import dataclasses
from pathlib import Path

import pytest

from perfcore.measure.profile import hlo
from perfcore.measure.profile.predict import kinds
from tests.support.kernels import cpu_curves, predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "pairwise.hlo").read_text("utf-8")
MOVED = (64 * 16 + 32 * 16 + 64 * 32) * 4.0  # x and y read, the distances written
VOLUME = 64 * 32 * 16 * 4.0  # the squared differences the reduce sums


def _host(efficiencies: dict[str, float]):
    """Flat hand-made curves (tests.support.kernels.cpu_curves) measured on a host of 2 threads."""
    return dataclasses.replace(cpu_curves(efficiencies), threads=2)


def xla_cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes, transcendentals) of the one-op module, as XLA's cost model counts it."""
    return 3.0 * 64 * 32 * 16, MOVED, 0.0


def test_the_bytes_a_reduce_consumes_are_read_from_its_fusion():
    module = hlo.parse_module(MODULE)
    assert kinds.reduced_volume(module, module.instructions["%ynn_fusion"]) == VOLUME
    assert kinds.reduced_volume(module, module.instructions["%x.1"]) == 0.0


def test_a_reduce_of_a_broadcast_product_is_priced_by_what_it_consumes_its_bound_by_what_it_moves():
    """Flat curves of a host at 1e9 FLOP/s and bytes/s, reductions at 0.5: the expected time is the
    131,072 bytes consumed at half the memory roof (262 µs), where the 14,336 it moves would
    take 29 µs; the bound stays the roofline's over what it moves and computes (98 µs of
    FLOPs), so the efficiency said is that bound over the expected time."""
    (op,) = predicted_ops(MODULE, _host({"reduction": 0.5}), 2, xla_cost).values()
    assert op.kernel == "reduction"
    assert op.predicted_s == pytest.approx(VOLUME / 1e9 / 0.5)
    assert op.bound_s == pytest.approx(max(3.0 * 64 * 32 * 16, MOVED) / 1e9)
    assert op.efficiency == pytest.approx(op.bound_s / op.predicted_s)
    assert "over the 1.31e+05 bytes its reduce consumes" in op.derived_from
    # curves of no host (a GPU's or TPU's, where a reduction makes them in registers): as before
    (device,) = predicted_ops(MODULE, cpu_curves({"reduction": 0.5}), 2, xla_cost).values()
    assert device.predicted_s == pytest.approx(max(3.0 * 64 * 32 * 16, MOVED) / 1e9 / 0.5)
    assert "consumes" not in device.derived_from


def test_a_reduce_of_what_it_reads_is_priced_by_its_bytes_as_before():
    """A row sum of its own operand (its reduce consumes what it reads): the stream's time over
    what it moves, nothing said of a volume."""
    text = "\n".join(
        [
            "HloModule m",
            "%add (a: f32[], b: f32[]) -> f32[] {",
            "  %a = f32[] parameter(0)",
            "  %b = f32[] parameter(1)",
            "  ROOT %s = f32[] add(%a, %b)",
            "}",
            "ENTRY %main (x: f32[2048,16]) -> f32[2048] {",
            "  %x = f32[2048,16]{1,0} parameter(0)",
            "  %zero = f32[] constant(0)",
            "  ROOT %r = f32[2048]{0} reduce(%x, %zero), dimensions={1}, to_apply=%add",
            "}",
        ]
    )
    moved = (2048 * 16 + 2048) * 4.0
    ops = predicted_ops(text, _host({"reduction": 0.5}), 1, lambda t: (2048 * 16.0, moved, 0.0))
    assert ops["r"].predicted_s == pytest.approx(moved / 1e9 / 0.5)
    assert "consumes" not in ops["r"].derived_from
