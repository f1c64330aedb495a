"""Cold operands: the suite's cold points, their rates in the curves, an op's cold bytes priced
(perfcore.model.chip.cold, measure.experiments.kernel_cold, results.curves, predict.program)."""

import dataclasses
import math
from pathlib import Path

import pytest

from perfcore.measure.clock import host
from perfcore.measure.experiments.kernels import cold as kernel_cold
from perfcore.measure.experiments.kernels.windows import Planned
from perfcore.measure.profile import hlo
from perfcore.measure.profile.predict import reuse
from perfcore.measure.profile.predict.op import OpPrediction
from perfcore.measure.profile.predict.program import with_cold
from perfcore.measure.results import curves
from perfcore.model.chip import cold, kernels, ops
from tests.support.kernel_records import record

MIB = 2**20
RATES = (("matvec", 4 * MIB, 6e-11), ("matvec", 64 * MIB, 2e-11), ("elementwise", 8 * MIB, 3e-11))


def _curves(cache_bytes: int = 0) -> kernels.Curves:
    """Curves holding RATES' cold points, measured on a host with that last-level cache."""
    return kernels.Curves(
        "cpu", "2026-12-07", (), (), 1e10, "t", cold_s_per_byte=RATES, cache_bytes=cache_bytes
    )


def test_a_cold_operand_costs_its_kinds_rate_at_its_size_in_log_bytes_the_nearest_outside():
    """A matvec at 16 MiB cold: halfway in log bytes from 4 to 64 MiB, so 4e-11 s/B: 16 MiB x
    4e-11 = 0.671 ms. Below 4 MiB and above 64 the nearest end's rate; a transcendental op
    takes the elementwise one; a matmul, none."""
    assert cold.extra_s("matvec", 16 * MIB, RATES) == pytest.approx(16 * MIB * 4e-11)
    assert cold.extra_s("matvec", MIB, RATES) == pytest.approx(MIB * 6e-11)
    assert cold.extra_s("matvec", 256 * MIB, RATES) == pytest.approx(256 * MIB * 2e-11)
    assert cold.extra_s("transcendental", MIB, RATES) == pytest.approx(MIB * 3e-11)
    assert cold.extra_s("matmul", 16 * MIB, RATES) == 0.0
    assert cold.extra_s("matvec", 0.0, RATES) == 0.0


def _point(kind: str, elements: int) -> Planned:
    """An elementwise or reduction point of `elements` float32s (two operands, one)."""
    n_in = 2 if kind == "elementwise" else 1
    shapes = ((elements // 256, 256),) * n_in
    return Planned(kind, f"{kind} {elements}", "float32", shapes, kind, ops.Cost(0, 0))


def test_the_suite_times_a_cold_point_per_size_only_where_a_sweep_comes_within_a_factor_2():
    """Elementwise points of 2^18-2^22 floats have operands of 2, 4, 8, 16 and 32 MiB: the 4,
    16 and 32 MiB ones stand for 4, 16 and 64 MiB. A reduction sweep that stops at 1 MiB of
    operands has none (a quick suite's): no cold point is timed. Each cold point cycles enough
    copies that each is read after 96 MiB of the others: 4 MiB, 25 copies; 32 MiB, 4."""
    elementwise = [_point("elementwise", 2**k) for k in range(18, 23)]
    short = [_point("reduction", 2**k) for k in range(14, 19)]
    chosen = kernel_cold.points([elementwise, short], "float32")
    assert [kernel_cold.operand_bytes(p) / MIB for p in chosen] == [4, 16, 32]
    assert [kernel_cold.copies(p) for p in chosen] == [25, 7, 4]
    assert all(
        (kernel_cold.copies(p) - 1) * kernel_cold.operand_bytes(p) >= cold.DISTANCE for p in chosen
    )


def test_the_curves_take_a_cold_points_time_less_the_warm_curves_over_its_operands():
    """Warm: a 1-argument copy of 1e6 bytes in 111 - 10 µs (the roof) and an elementwise
    point of 1e6 bytes at the same rate. Cold: the elementwise kernel over its two (4, 4) float32
    operands (128 bytes), 10 µs dispatch, 2 arguments (+1 µs): its fastest call 112.1 µs is
    101.1 µs of kernel, where the warm curve expects 101 µs of a 1e6-byte elementwise op: 0.1
    µs over 128 bytes. A cold record stays off the warm points."""
    warm = (
        record("dispatch", "dispatch, 1 argument", [10e-6], n_args=1),
        record("dispatch", "dispatch, 16 arguments", [25e-6], n_args=16),
        record("copy", "copy", [111e-6], 0.0, 1e6, 1e6, n_args=1),
        record("matmul", "matmul", [111e-6], 1e7, 1e5, 1e7),
        record("elementwise", "elementwise", [112e-6], 0.0, 1e6, 1e6),
    )
    hot = curves.curves(warm, specs={})
    coldly = record("elementwise", "elementwise, cold", [112.1e-6], 0.0, 1e6, 1e6, level=cold.LEVEL)
    got = curves.curves((*warm, coldly), specs={})
    assert got.points == hot.points
    ((kind, operands, rate),) = got.cold_s_per_byte
    assert (kind, operands) == ("elementwise", 128.0)
    assert rate == pytest.approx(0.1e-6 / 128, rel=1e-6)


W = "f32[8,1048576]{1,0}"  # 32 MiB
MODULE = "\n".join(
    [
        "HloModule m",
        "",
        "ENTRY %main (w: f32[8,1048576], x: f32[1,8]) -> f32[1,1048576] {",
        f"  %w = {W} parameter(0)",
        "  %x = f32[1,8]{1,0} parameter(1)",
        f"  %big = {W} add({W} %w, {W} %w)",
        f"  %more = {W} multiply({W} %big, {W} %big)",
        f"  %again = {W} add({W} %more, {W} %more)",
        f"  ROOT %d = f32[1,1048576]{{1,0}} dot(f32[1,8]{{1,0}} %x, {W} %w), "
        "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        "}",
    ]
)


def _op(name: str, kernel: str, seconds: float, runs: int = 1, moved: float = 1e12) -> OpPrediction:
    """An op predicted at `seconds` a step, bound half of it, run `runs` times a step, moving
    `moved` bytes a step (by default more than any operand it reads cold)."""
    return OpPrediction(
        name,
        "x",
        "c",
        kernel,
        "float32",
        "s",
        runs,
        0.0,
        moved,
        seconds / 2,
        seconds,
        0.5,
        "m",
        "warm",
    )


def test_an_op_adds_the_operands_it_reads_cold_at_its_kinds_rate():
    """w is 32 MiB. The first add reads it twice and writes 32 MiB; the multiply and the
    second add each read 64 MiB and write 32; the dot (a matvec) then reads w 192 MiB after the
    add last touched it, and x (32 bytes) a step after it last did: both cold, 32 MiB + 32 B.
    Its rate at that size, in log bytes between 6e-11 s/B at 4 MiB and 2e-11 at 64 MiB:
    6e-11 - 4e-11 x log(8)/log(16) = 3e-11. The first add reads w right after the dot read it
    in the step before (the dot is the last op): 0 bytes between, warm."""
    module = hlo.parse_module(MODULE)
    group = [_op("big", "elementwise", 1e-3), _op("d", "matvec", 2e-3)]
    priced = with_cold(module, group, _curves())
    cold_bytes = 32 * MIB + 32
    rate = 6e-11 - 4e-11 * math.log(cold_bytes / (4 * MIB)) / math.log(16)
    assert priced[0] == group[0]
    assert priced[1].predicted_s == pytest.approx(2e-3 + cold_bytes * rate)
    assert priced[1].efficiency == pytest.approx(1e-3 / priced[1].predicted_s)
    assert "32.0 MiB of operands last touched 96 MiB or more before" in priced[1].derived_from
    assert (
        dataclasses.replace(priced[1], predicted_s=2e-3, efficiency=0.5, derived_from="warm")
        == (group[1])
    )


TWO_WEIGHTS = "\n".join(
    [
        "HloModule m",
        "",
        "ENTRY %main (w1: f32[1024,4096], w2: f32[4096,1024], x: f32[8,1024]) -> f32[8,1024] {",
        "  %w1 = f32[1024,4096]{1,0} parameter(0)",
        "  %w2 = f32[4096,1024]{1,0} parameter(1)",
        "  %x = f32[8,1024]{1,0} parameter(2)",
        "  %h = f32[8,4096]{1,0} dot(f32[8,1024]{1,0} %x, f32[1024,4096]{1,0} %w1), "
        "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        "  ROOT %y = f32[8,1024]{1,0} dot(f32[8,4096]{1,0} %h, f32[4096,1024]{1,0} %w2), "
        "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        "}",
    ]
)


def test_on_a_known_cache_an_operand_is_cold_when_its_bytes_and_those_between_fill_it():
    """A decode step's MLP: two 16 MiB weights, each read once a step by a matvec. Each dot
    moves 16 MiB + 160 KiB (x 32 KiB or y 32 KiB, h 128 KiB, its weight). The second step's
    h reads w1 after the other dot's 16 MiB + 160 KiB: with its own 16 MiB, 32 MiB + 160 KiB
    (y's w2 the same): on a 32 MiB last-level cache cold, on a 64 MiB one warm; with no cache
    known, 16 MiB between is under the 96 MiB distance: warm. x (32 KiB + the same between)
    and h (read right after it is written) stay warm on 32 MiB. A matvec's rate at 16 MiB:
    4e-11 s/B (halfway in log bytes from 4 to 64 MiB), 0.671 ms a dot."""
    module = hlo.parse_module(TWO_WEIGHTS)
    group = [_op("h", "matvec", 1e-3), _op("y", "matvec", 1e-3)]
    assert reuse.cold_bytes(module, 32 * MIB) == {"h": 16 * MIB, "y": 16 * MIB}
    priced = with_cold(module, group, _curves(32 * MIB))
    assert [o.predicted_s for o in priced] == pytest.approx([1e-3 + 16 * MIB * 4e-11] * 2)
    said = "16.0 MiB of operands read whole after at least the host's 32 MiB last-level cache"
    assert all(said in o.derived_from for o in priced)
    assert with_cold(module, group, _curves(64 * MIB)) == group
    assert with_cold(module, group, _curves()) == group
    assert cold.read_cold(16 * MIB, 16 * MIB, 32 * MIB)
    assert not cold.read_cold(16 * MIB, 16 * MIB - 1, 32 * MIB)
    assert not cold.read_cold(16 * MIB, 95 * MIB, 0) and cold.read_cold(0, 96 * MIB, 0)


def test_the_hosts_last_level_cache_is_the_highest_data_cache_sysfs_reports(tmp_path):
    """An EPYC core's caches as Linux lists them: L1 data (32K) and instruction (64K), L2
    unified (1024K), L3 unified (32768K): 32 MiB. An instruction cache never counts, a cache
    whose size the OS left unreadable is passed over (the L2 then), and a CPU with no cache
    folder reports none."""
    caches = [(1, "Data", "32K"), (1, "Instruction", "64K"), (2, "Unified", "1024K")]
    for i, (level, kind, size) in enumerate([*caches, (3, "Unified", "32768K")]):
        folder = tmp_path / "cpu0" / "cache" / f"index{i}"
        folder.mkdir(parents=True)
        for name, text in (("level", str(level)), ("type", kind), ("size", f"{size}\n")):
            (folder / name).write_text(text)
    assert host.last_level_cache(tmp_path / "cpu0") == 32 * MIB
    (tmp_path / "cpu0" / "cache" / "index3" / "size").write_text("unknown")
    assert host.last_level_cache(tmp_path / "cpu0") == MIB
    assert host.last_level_cache(tmp_path / "cpu1") is None


SCAN = (Path(__file__).parent / "data" / "profile" / "cpu_scan.hlo").read_text("utf-8")


def test_a_loop_bodys_operand_is_cold_when_a_trips_bytes_and_its_own_fill_the_cache():
    """The scan of tests/data/profile/cpu_scan.hlo, 5 trips: its body copies the index (4 B
    read, 4 written), slices xs[i] out of xs (5,120 B and the index read, 1,024 written), adds
    one to the index (12 B), multiplies the carry c by the slice (512 + 1,024 read, 512
    written) and takes its tanh (512 + 512): 9,240 B a trip. In the second trip the slice
    reads xs, which the loop passes through unchanged, 3,092 B after the first trip's slice
    read it (its 3,084 B after it, then the copy's 8); the product reads c 6,168 B after the
    first trip's tanh wrote it (the trip's ops before the product). On an 8 KiB cache: xs is
    cold (5,120 + 3,092 = 8,212 B), c warm (512 + 6,168). Priced a run at most the bytes the
    op moves (a slice reads its slice: 2,048 B of XLA's count a run), each of its 5 runs."""
    module = hlo.parse_module(SCAN)
    body = "%region_0.3"
    moved, distances = reuse.reads(module, body)
    assert moved == 9240
    got = {(n, size): d for n, size, d in distances}
    assert got[("dynamic-slice_bitcast_fusion", 5120)] == 3092
    assert got[("ynn_fusion", 512)] == 6168
    assert reuse.cold_bytes(module, 8192).get("dynamic-slice_bitcast_fusion") == 5120
    assert "ynn_fusion" not in reuse.cold_bytes(module, 8192)
    assert "dynamic-slice_bitcast_fusion" not in reuse.cold_bytes(module, 8213)
    rates = (("elementwise", 1.0, 1e-9),)
    c = kernels.Curves(
        "cpu", "2026-12-07", (), (), 1e10, "t", cold_s_per_byte=rates, cache_bytes=8192
    )
    op = _op("dynamic-slice_bitcast_fusion", "elementwise", 1e-4, runs=5, moved=5 * 2048.0)
    (priced,) = with_cold(module, [op], c)
    assert priced.predicted_s == pytest.approx(1e-4 + 5 * 2048 * 1e-9)
    assert "0.0 MiB of operands a run, 5 runs" in priced.derived_from
