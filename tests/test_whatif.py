"""What-if devices (perfcore.model.chip.whatif): named as modified, the change carried as text
that parses back, every peak scaled at once, one typed line for a change that cannot apply."""

import pytest

from perfcore.model.chip.whatif import (
    WhatIfError,
    apply_what_if,
    changes_of,
    parse_what_if,
    what_if,
    what_if_text,
)


def test_what_if_names_the_device_as_modified(specs):
    h100 = specs["NVIDIA H100 SXM"]
    changed = what_if(h100, **parse_what_if("memory_bw_tbs=6.7,scaleup_domain=72"))
    assert changed.name == "NVIDIA H100 SXM, memory 2× → 6.7 TB/s; scale-up domain 8 → 72 GPUs"
    assert changed.memory_bytes_per_s == 6.7e12 and changed.scaleup_domain == 72
    assert changed.bf16_flops_per_s == h100.bf16_flops_per_s


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("memory_bw=6.7", "FIGURE one of"),
        ("memory_bw_tbs=fast", "'fast' is not a number"),
        ("memory_bw_tbs=-1", "positive"),
        ("scaleup_domain=7.5", "whole number"),
        ("tdp_w=1,tdp_w=2", "given twice"),
        ("memory_bw_tbs=nan", "positive"),
    ],
)
def test_a_bad_what_if_is_one_typed_line(specs, text, words):
    with pytest.raises(WhatIfError, match=words) as err:
        what_if(specs["NVIDIA H100 SXM"], **parse_what_if(text))
    assert "\n" not in str(err.value)


def test_peak_x_scales_every_published_peak_and_a_given_peak_wins(specs):
    """H100 SXM: BF16 989.4 and FP8 1978.9 TFLOP/s dense; ×2 gives 1978.8 and 3957.8, FP64 stays
    published ×2 too; bf16_tflops=1500 given beside it sets BF16 alone, 1500/989.4 = 1.52×."""
    h100 = specs["NVIDIA H100 SXM"]
    twice = apply_what_if(h100, "peak_x=2")
    for p in h100.published_precisions():
        assert twice.peak_flops(p) == pytest.approx(2 * h100.peak_flops(p), rel=1e-12), p
    assert twice.memory_bytes_per_s == h100.memory_bytes_per_s
    assert twice.name == "NVIDIA H100 SXM, every peak 2×"
    both = apply_what_if(h100, "bf16_tflops=1500,peak_x=2")
    assert both.bf16_flops_per_s == 1500e12
    assert both.fp8_flops_per_s == pytest.approx(2 * h100.fp8_flops_per_s, rel=1e-12)
    assert both.name.startswith("NVIDIA H100 SXM, BF16 peak 1.52× → 1500 TFLOP/s; every peak 2×")


def test_what_if_text_is_what_parse_what_if_reads():
    text = what_if_text({"memory_bw_tbs": 6.7, "scaleup_domain": 72.0, "peak_x": 1 / 3})
    assert text == "memory_bw_tbs=6.7,scaleup_domain=72,peak_x=0.333333333333333"
    assert parse_what_if(text) == {
        "memory_bw_tbs": 6.7,
        "scaleup_domain": 72.0,
        "peak_x": 0.333333333333333,
    }


def test_a_blank_what_if_is_the_published_row_and_a_change_is_marked(specs):
    h100 = specs["NVIDIA H100 SXM"]
    assert apply_what_if(h100, "  ") is h100 and changes_of(h100) == ""
    changed = apply_what_if(h100, "memory_gib=160")
    assert changes_of(changed) == "memory_gib=160" and changed.source == h100.source


@pytest.mark.parametrize("text", ["memory_bw_tbs=1e300", "peak_x=1e300"])
def test_a_what_if_past_the_float_range_is_refused(specs, text):
    """1e300 TB/s is 1e312 B/s: past the largest float (1.8e308), so inf, never a figure."""
    with pytest.raises(WhatIfError, match="finite"):
        apply_what_if(specs["NVIDIA H100 SXM"], text)
