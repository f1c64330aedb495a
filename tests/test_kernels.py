"""model.chip.kernels: interpolation in log size, the nearest point outside, the fallback."""

import dataclasses
import math

import pytest

from perfcore.model.chip import kernel_kinds, kernels
from perfcore.model.chip.roofline import t_lower

FALLBACK = kernels.Efficiency(0.5, kernels.PUBLISHED, "bound ÷ 0.50, published runs")
CURVES = kernels.Curves(
    "cpu",
    "2026-01-31",
    (
        kernels.Point("matmul", "float32", 1e5, 0.6),
        kernels.Point("matmul", "float32", 1e3, 0.2),
        kernels.Point("copy", "float32", 1e6, 0.9),
    ),
    (("float32", 1e11),),
    2e10,
    "best measured in the suite",
    dispatch_s=8e-6,
    dispatch_per_arg_s=1e-6,
)


def test_interpolation_is_linear_in_log_size_between_the_points_around():
    # 1e4 sits halfway between 1e3 and 1e5 in log size: (0.2 + 0.6) / 2
    e = kernels.efficiency(CURVES, "matmul", "float32", 1e4, FALLBACK)
    assert e.value == pytest.approx(0.4)
    assert e.source == kernels.MEASURED
    # a quarter of the way (log10 1e3.5): 0.2 + 0.25 * 0.4
    quarter = kernels.efficiency(CURVES, "matmul", "float32", 10**3.5, FALLBACK)
    assert quarter.value == pytest.approx(0.3)


def test_a_measured_size_gets_its_own_efficiency():
    assert kernels.efficiency(CURVES, "matmul", "float32", 1e3, FALLBACK).value == 0.2
    assert kernels.interpolate(CURVES.curve("matmul", "float32"), 1e5) == (0.6, True)


@pytest.mark.parametrize(("size", "value"), [(10.0, 0.2), (1e9, 0.6)])
def test_outside_the_measured_range_the_nearest_point_is_used_and_said(size, value):
    e = kernels.efficiency(CURVES, "matmul", "float32", size, FALLBACK)
    assert (e.value, e.source) == (value, kernels.NEAREST)
    assert "outside the measured 1e+03-1e+05" in e.derived_from
    assert "measured kernels on cpu, 2026-01-31" in e.derived_from


@pytest.mark.parametrize(
    ("curves", "kind", "dtype"),
    [(None, "matmul", "float32"), (CURVES, "matmul", "bfloat16"), (CURVES, "reduction", "float32")],
)
def test_without_a_curve_for_the_kind_and_dtype_the_published_fallback_is_used(curves, kind, dtype):
    e = kernels.efficiency(curves, kind, dtype, 1e4, FALLBACK)
    assert e is FALLBACK and e.source == kernels.PUBLISHED


def test_expected_time_is_the_bound_over_the_efficiency():
    bound = t_lower(1e7, 1e5, 1e11, 2e10)  # t_math 1e-4 s > t_memory 5e-6 s
    assert bound == pytest.approx(1e-4)
    e = kernels.expected(bound, "matmul", "float32", 1e7, CURVES, FALLBACK)
    assert e.seconds == pytest.approx(1e-4 / 0.6) and e.efficiency.source == kernels.NEAREST


def test_skinny_matmuls_are_matvecs():
    assert kernel_kinds.matmul_kind(1, 4096) == kernel_kinds.matmul_kind(4096, 16) == "matvec"
    assert kernel_kinds.matmul_kind(17, 4096) == "matmul"


def test_dispatch_grows_with_the_arguments_and_roofs_fall_back_to_float32():
    assert CURVES.dispatch(1) == pytest.approx(8e-6)
    assert CURVES.dispatch(5) == pytest.approx(12e-6)
    assert CURVES.peak("bfloat16") == 1e11
    assert CURVES.label == "measured kernels on cpu, 2026-01-31"


@pytest.mark.parametrize(
    ("kind", "size", "eff"), [("gemm", 1.0, 0.5), ("matmul", 0.0, 0.5), ("copy", 1.0, -1.0)]
)
def test_a_bad_point_is_refused_naming_it(kind, size, eff):
    with pytest.raises(ValueError, match="kernel"):
        kernels.Point(kind, "float32", size, eff)


def test_curves_sort_each_curve_by_size():
    assert [p.size for p in CURVES.curve("matmul", "float32")] == [1e3, 1e5]
    assert math.isclose(CURVES.curve("copy", "float32")[0].efficiency, 0.9)


LOOPED = kernels.Curves(
    "cpu",
    "2026-01-31",
    (*CURVES.points, kernels.Point("copy", "float32", 1e6, 3.0, loop=True)),
    (("float32", 1e11),),
    2e10,
    "best measured in the suite",
)


def test_a_loop_bodys_op_takes_the_curve_timed_as_one_and_says_so():
    """A copy in a loop's body: the loop curve's 3.0 (no launch, warm threads); at a
    program's top level the program curve's 0.9."""
    body = kernels.efficiency(LOOPED, "copy", "float32", 1e6, FALLBACK, loop=True)
    assert (body.value, body.source) == (3.0, kernels.MEASURED)
    assert "as a loop body's op" in body.derived_from
    assert kernels.efficiency(LOOPED, "copy", "float32", 1e6, FALLBACK).value == 0.9
    assert LOOPED.curve("copy", "float32") == (CURVES.points[2],)


def test_a_loop_bodys_op_without_a_loop_curve_takes_the_programs():
    e = kernels.efficiency(LOOPED, "matmul", "float32", 1e5, FALLBACK, loop=True)
    assert (e.value, e.source) == (0.6, kernels.MEASURED)
    assert "loop body" not in e.derived_from


def test_an_op_after_its_programs_first_reads_the_faster_of_its_two_curves():
    """A copy of 1e6 bytes: 0.9 alone, 3.0 as a loop body's op: a later op takes 3.0 and says
    so; where the loop body's is the slower (0.3), the program curve's 0.9; a matmul with no
    loop curve its own 0.6. kernels.expected with later: bound ÷ that."""
    later = kernels.later_efficiency(LOOPED, "copy", "float32", 1e6, FALLBACK)
    assert (later.value, later.source) == (3.0, kernels.MEASURED)
    assert "as a loop body's op" in later.derived_from
    assert "a later op of its program (as a program of its own 0.90)" in later.derived_from
    slow = dataclasses.replace(
        LOOPED, points=(*CURVES.points, kernels.Point("copy", "float32", 1e6, 0.3, loop=True))
    )
    assert kernels.later_efficiency(slow, "copy", "float32", 1e6, FALLBACK).value == 0.9
    matmul = kernels.later_efficiency(LOOPED, "matmul", "float32", 1e5, FALLBACK)
    assert matmul == kernels.efficiency(LOOPED, "matmul", "float32", 1e5, FALLBACK)
    e = kernels.expected(1e-3, "copy", "float32", 1e6, LOOPED, FALLBACK, later=True)
    assert e.seconds == pytest.approx(1e-3 / 3.0)
    assert kernels.expected(1e-3, "copy", "float32", 1e6, LOOPED, FALLBACK).seconds == (
        pytest.approx(1e-3 / 0.9)
    )


def test_a_kind_an_older_file_lacks_takes_its_base_kinds_curve_in_turn_and_says_so():
    """A weight gradient's convolution with neither convolution curve: the matmul's (through
    `convolution`); a sort with no sort curve and no elementwise curve: the fallback."""
    e = kernels.efficiency(CURVES, "convolution filter", "float32", 1e5, FALLBACK)
    assert (e.value, e.source) == (0.6, kernels.MEASURED)
    assert e.derived_from.startswith("matmul (no convolution filter curve measured) float32")
    assert kernels.efficiency(CURVES, "sort", "float32", 1e6, FALLBACK) is FALLBACK


def test_a_kind_sized_by_bytes_without_the_ops_dtype_takes_float32s_and_says_so():
    """A bfloat16 copy, on curves measured in float32 only: the float32 copy's 0.9 per byte;
    a bfloat16 matmul (sized by FLOPs) does not borrow float32's."""
    e = kernels.efficiency(CURVES, "copy", "bfloat16", 1e6, FALLBACK)
    assert (e.value, e.source) == (0.9, kernels.MEASURED)
    assert "copy (no bfloat16 curve measured: float32's, by bytes) float32" in e.derived_from
    assert kernels.efficiency(CURVES, "matmul", "bfloat16", 1e5, FALLBACK) is FALLBACK


def test_the_bytes_a_sort_and_a_reduce_window_are_sized_by():
    """A sort: its keys read and written (1,024 floats: 8,192 bytes); a reduce-window: each
    output reading its window and written (1,000 outputs of a 16-window: 68,000 bytes)."""
    assert kernel_kinds.sort_bytes(1024, 4) == 8192
    assert kernel_kinds.window_bytes(1000, 16, 4) == 68_000
    for kind in ("convolution", "convolution filter"):
        assert kernel_kinds.SIZE_UNIT[kind] == "flops" and kind in kernel_kinds.BASE_KIND
    assert {kernel_kinds.SIZE_UNIT[k] for k in ("sort", "reduce-window")} == {"bytes"}


def test_above_a_loop_curves_largest_point_the_program_curve_prices_a_loop_bodys_op():
    """A matmul loop curve measured up to 1e4 FLOPs (efficiency 1.5): a body's matmul of 1e4
    takes it; one of 1e5, above it and within the program curve's range, the program's 0.6."""
    looped = kernels.Curves(
        "cpu",
        "2026-01-31",
        (
            *CURVES.points,
            *(kernels.Point("matmul", "float32", s, 1.5, loop=True) for s in (1e3, 1e4)),
        ),
        (("float32", 1e11),),
        2e10,
        "best measured in the suite",
    )
    small = kernels.efficiency(looped, "matmul", "float32", 1e4, FALLBACK, loop=True)
    assert small.value == 1.5 and "as a loop body's op" in small.derived_from
    large = kernels.efficiency(looped, "matmul", "float32", 1e5, FALLBACK, loop=True)
    assert large.value == 0.6 and "loop body" not in large.derived_from


def test_a_loop_bodys_op_reads_the_curve_written_in_place_and_a_later_op_the_copied_one():
    """Elementwise points as a program's (0.5), in a loop copying each result into the carry
    (0.8) and in a loop writing it in place (2.0): a loop body's op takes the in-place curve,
    said so; a later op of a program the faster of its own and the copied loop's; a file
    without in-place points prices a loop body's op by the copied one, as before."""
    points = [
        kernels.Point("elementwise", "float32", s, e, loop=loop, in_place=placed)
        for s in (1e3, 1e9)
        for e, loop, placed in ((0.5, False, False), (0.8, True, False), (2.0, True, True))
    ]
    c = kernels.Curves("cpu", "2026-12-07", tuple(points), (("float32", 1e11),), 2e10, "h")
    body = kernels.efficiency(c, "elementwise", "float32", 1e6, FALLBACK, loop=True)
    assert body.value == 2.0 and "as a loop body's op in place" in body.derived_from
    later = kernels.later_efficiency(c, "elementwise", "float32", 1e6, FALLBACK)
    assert later.value == 0.8 and "in place" not in later.derived_from
    older = dataclasses.replace(c, points=tuple(p for p in points if not p.in_place))
    copied = kernels.efficiency(older, "elementwise", "float32", 1e6, FALLBACK, loop=True)
    assert copied.value == 0.8 and "in place" not in copied.derived_from


# A layout's curve with wide points and two narrow sweeps: side 32 and side 64, over size.
NARROW = kernels.Curves(
    "cpu",
    "2026-12-05",
    (
        kernels.Point("matmul", "float32", 1e6, 0.6),
        kernels.Point("matmul", "float32", 1e9, 0.9),
        kernels.Point("matmul", "float32", 1e6, 0.2, sweep=32),
        kernels.Point("matmul", "float32", 1e8, 0.4, sweep=32),
        kernels.Point("matmul", "float32", 1e6, 0.3, sweep=64),
        kernels.Point("matmul", "float32", 1e8, 0.7, sweep=64),
    ),
    (("float32", 1e11),),
    2e10,
    "best measured in the suite",
)


@pytest.mark.parametrize(
    "sides, narrow",
    [((32, 1024, 1024), 32), ((1024, 128, 1024), 128), ((128, 1024, 512), 128)]
    + [((16, 4096, 4096), 0), ((256, 1024, 1024), 0), ((200, 1024, 1024), 0)],
)
def test_a_matmul_is_narrow_where_its_largest_side_is_8_times_its_smallest(sides, narrow):
    """16 rows is a matvec's; 1024 / 200 = 5.1 is not narrow; 1024 / 128 = 8 is."""
    assert kernel_kinds.narrow_side(*sides) == narrow


def test_a_wide_matmul_is_priced_on_the_layouts_other_points_alone():
    # 1e7.5 halfway between 1e6 and 1e9 in log size: (0.6 + 0.9) / 2; the sweeps not in it
    e = kernels.efficiency(NARROW, "matmul", "float32", 10**7.5, FALLBACK)
    assert e.value == pytest.approx(0.75) and e.source == kernels.MEASURED


def test_a_narrow_matmul_is_read_along_the_sweeps_around_its_side_then_between_them():
    # side 45 at 1e7: on the side-32 sweep 0.3 (halfway 0.2-0.4), on the side-64 one 0.5;
    # log(45 / 32) / log(2) = 0.492 of the way: 0.3 + 0.492 x 0.2
    e = kernels.efficiency(NARROW, "matmul", "float32", 1e7, FALLBACK, at=45)
    t = math.log(45 / 32) / math.log(2)
    assert e.value == pytest.approx(0.3 + t * 0.2) and e.source == kernels.MEASURED
    assert "smallest side 45, between the 32 sweep and the 64 sweep" in e.derived_from
    on = kernels.efficiency(NARROW, "matmul", "float32", 1e8, FALLBACK, at=64)
    assert on.value == pytest.approx(0.7) and "smallest side 64, on the 64 sweep" in on.derived_from


def test_past_the_widest_sweep_a_narrow_matmul_nears_the_wide_points():
    """The wide points stand at twice the widest sweep's side (128): side 90 at 1e8 lies
    log(90/64)/log(2) of the way from the side-64 sweep (0.7) to the wide points (0.8)."""
    e = kernels.efficiency(NARROW, "matmul", "float32", 1e8, FALLBACK, at=90)
    t = math.log(90 / 64) / math.log(2)
    assert e.value == pytest.approx(0.7 + t * (0.8 - 0.7)) and e.source == kernels.MEASURED
    wide = kernels.efficiency(NARROW, "matmul", "float32", 1e8, FALLBACK, at=256)
    assert wide.value == pytest.approx(0.8) and "on the points outside sweeps" in wide.derived_from


def test_below_the_narrowest_sweep_its_efficiency_is_the_nearest_said_so():
    e = kernels.efficiency(NARROW, "matmul", "float32", 1e8, FALLBACK, at=20)
    assert e.value == pytest.approx(0.4) and e.source == kernels.NEAREST
    assert "smallest side 20, on the 32 sweep (smallest side outside the swept 32-64)" in (
        e.derived_from
    )
    # past the sweep's sizes: the range it read, not the whole curve's
    big = kernels.efficiency(NARROW, "matmul", "float32", 1e10, FALLBACK, at=32)
    assert "outside the measured 1e+06-1e+08 flops" in big.derived_from


def test_a_curve_without_narrow_sweeps_prices_a_narrow_matmul_as_a_wide_one():
    """An older results file: the whole curve, as before narrow sweeps were measured."""
    assert kernels.efficiency(CURVES, "matmul", "float32", 1e4, FALLBACK, at=32).value == (
        pytest.approx(0.4)
    )
    # a kind not swept narrow (the batched matmul, here on its base kind's curve) ignores
    # the side: the wide points at 1e7, a third of the way from 1e6 to 1e9: 0.6 + 0.1
    batched = kernels.efficiency(NARROW, "batched matmul", "float32", 1e7, FALLBACK, at=32)
    assert batched.value == pytest.approx(0.7) and "side" not in batched.derived_from


# A filter gradient's curve: every point in a sweep of its reduced volume (batch x image).
FILTER = kernels.Curves(
    "cpu",
    "2026-12-05",
    tuple(
        kernels.Point("convolution filter", "float32", size, e, sweep=v)
        for v, e in ((4096, 0.6), (8192, 0.3), (16384, 0.15))
        for size in (1e7, 1e9)
    ),
    (("float32", 1e11),),
    2e10,
    "best measured in the suite",
)


def test_a_filter_gradient_is_read_between_the_sweeps_of_its_reduced_volume():
    """12,000 lies log(12000/8192)/log(2) of the way from the 8,192 sweep (0.3) to the
    16,384 one (0.15)."""
    e = kernels.efficiency(FILTER, "convolution filter", "float32", 1e8, FALLBACK, at=12000)
    t = math.log(12000 / 8192) / math.log(2)
    assert e.value == pytest.approx(0.3 - t * 0.15) and e.source == kernels.MEASURED
    assert "reduced volume 12,000, between the 8,192 sweep and the 16,384 sweep" in e.derived_from


def test_past_the_largest_reduced_volume_the_nearest_sweep_said_so():
    e = kernels.efficiency(FILTER, "convolution filter", "float32", 1e8, FALLBACK, at=65536)
    assert e.value == pytest.approx(0.15) and e.source == kernels.NEAREST
