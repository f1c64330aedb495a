"""The Profile page's bundled example and the roofs a profile is judged by: a specs row when
picked, else the file's own roofline, else the session's; the quick roofline said as such.

Oracles: the bundled example's own records (its device, date and roofline sweep)."""

from perfcore.explain.measure import profile as view
from perfcore.explain.measure import profile_example
from perfcore.measure.results.record import PROFILE
from perfcore.model.chip.specs import load_specs

BUNDLED = profile_example.bundled()
SPECS = load_specs()


def test_the_bundled_example_is_labelled_with_its_device_and_date():
    line = profile_example.bundled_line(BUNDLED)
    op = next(r for r in BUNDLED if r.experiment == PROFILE)
    assert line.startswith("Bundled example") and op.device in line and op.timestamp[:10] in line


def test_a_file_with_its_own_roofline_is_judged_against_it():
    roofs = profile_example.judge(view.MEASURED_ROOFS, SPECS, "cpu", BUNDLED, ())
    assert roofs.label == "measured roofline where it ran (cpu)"
    assert roofs.flops_per_s and roofs.bytes_per_s


def test_else_the_session_roofline_and_a_picked_spec_row_wins_over_both():
    ops = tuple(r for r in BUNDLED if r.experiment == PROFILE)
    session = profile_example.roofline_records(BUNDLED, "cpu")
    assert profile_example.judge(view.MEASURED_ROOFS, SPECS, "cpu", ops, session).label == (
        "cpu measured roofline"
    )
    assert profile_example.judge(view.MEASURED_ROOFS, SPECS, "cpu", ops, ()) is None
    h100 = "NVIDIA H100 SXM"
    assert profile_example.judge(h100, SPECS, "cpu", BUNDLED, session).label == f"{h100} spec"


def test_the_quick_roofline_says_quick_and_how_it_was_measured():
    label = "measured roofline of this machine"
    roofs = profile_example.roofline_roofs(BUNDLED, "cpu", label, quick=True)
    mine = profile_example.roofline_records(BUNDLED, "cpu")
    sides = [r.size for r in mine if r.size_kind == "side"]
    assert roofs.source.startswith("quick, best matmul of side")
    assert f"{int(max(sides))}" in roofs.source and "fastest call" in roofs.source
    line = view.roofs_line(roofs)
    assert "measured roofline of this machine (quick, best matmul" in line
    assert profile_example.roofline_roofs(BUNDLED, "a TPU", "its roofline", quick=True) is None


def test_the_bundled_example_has_every_op_below_the_roofline_it_is_shown_against():
    """The page's first view: each op judged against the file's own roofline, as the page
    judges it, sits under its roof (a roofline measured in a slow spell of a shared machine
    put 8 of 27 ops above it, 104-333 %; bench/bundled_profile.py is run again, when quiet)."""
    roofs = profile_example.judge(view.MEASURED_ROOFS, SPECS, "cpu", BUNDLED, ())
    table = view.op_table(BUNDLED, roofs)
    assert len(table) > 20
    judged = table["diagnosis"]
    assert not judged.str.contains("above its roof|no roof").any(), list(judged)
