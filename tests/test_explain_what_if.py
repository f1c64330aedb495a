"""The what-if's words: its fields show the published figures, its caption says what changed."""

from perfcore.explain.chip import what_if as view
from perfcore.model.chip.whatif import apply_what_if
from tests.support.pages import ROUND_H100


def test_the_fields_show_the_published_figure_at_the_chosen_precision(specs):
    """The round-figure H100 row: 990 TFLOP/s FP16, 3.35 TB/s, 80 GB, domain 8."""
    rows = {
        column: (label, shown) for column, label, shown in view.fields(specs[ROUND_H100], "fp16")
    }
    assert rows["fp16_tflops"] == ("FP16 peak (TFLOP/s)", "990")
    assert rows["memory_bw_tbs"] == ("Memory (TB/s)", "3.35")
    assert rows["memory_gib"][1] == "80" and rows["scaleup_domain"][1] == "8"
    assert list(rows)[0] == "peak_x" and "bf16_tflops" not in rows


def test_a_peak_not_published_says_so(specs):
    rows = {c: shown for c, _, shown in view.fields(specs[ROUND_H100], "fp4")}
    assert specs[ROUND_H100].fp4_flops_per_s is None and rows["fp4_tflops"] == "not published"


def test_the_button_counts_the_changes_and_the_caption_names_them(specs):
    h100 = specs["NVIDIA H100 SXM"]
    assert view.label(h100) == "What-if"
    changed = apply_what_if(h100, "memory_bw_tbs=6.7,scaleup_domain=72")
    assert view.label(changed) == "What-if: 2 figures changed"
    caption = view.caption(changed)
    assert caption.startswith("What-if — NVIDIA H100 SXM, memory 2× → 6.7 TB/s")
    assert "`what_if=memory_bw_tbs=6.7,scaleup_domain=72`" in caption
    assert caption.endswith(h100.source)


def test_the_measurement_notes_name_the_published_row(specs):
    h100 = specs["NVIDIA H100 SXM"]
    changed = apply_what_if(h100, "memory_bw_tbs=6.7")
    assert f"here {h100.name})" in view.measured_note(h100, changed)
    assert view.roofline_note(h100).startswith(f"The measured points ran on {h100.name}, not")
