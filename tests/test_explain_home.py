"""The home page's quick calculator and its computed takeaway."""

import re

from perfcore.explain.chip import generations, home, pitfalls
from perfcore.explain.llm import scale_out


def test_quick_calc_reproduces_the_printed_matmul(h100):
    e = home.quick_calc(h100, "fp16", 2 * 4096**3, 3 * 4096**2 * 2)
    assert (round(e.intensity), e.limiter, e.attainable_flops_per_s) == (1365, "compute", 990e12)


def test_unpublished_peak_gives_no_verdict(specs):
    assert home.quick_calc(specs["NVIDIA V100 SXM2"], "fp8", 1e9, 1e6) is None


def test_takeaway_follows_the_numbers(h100):
    memory = home.takeaway(home.quick_calc(h100, "fp16", 1e9, 1e9))
    compute = home.takeaway(home.quick_calc(h100, "fp16", 1e12, 1e9))
    assert "memory-bound" in memory and "296x below" in memory
    assert "compute-bound" in compute and "3.4x above" in compute


def test_the_formulas_have_no_qquad_run_into_a_letter():
    formulas = [home.FORMULA, generations.FORMULA, scale_out.FORMULA, *pitfalls.FORMULAS.values()]
    assert not [f for f in formulas if re.search(r"\\qquad[A-Za-z]", f)]
    assert r"\qquad I_{\text{ridge}}" in home.FORMULA


def test_metrics_are_short_enough_for_a_four_column_row(h100):
    shown = home.metrics(home.quick_calc(h100, "fp16", 137.4e9, 100.7e6))
    assert [v for _, v in shown] == ["1,364", "compute", "990 TFLOP/s", "139 µs"]
    assert max(len(v) for _, v in shown) <= 11


def test_the_kinds_of_number_are_as_many_as_the_heading_says():
    """The heading counts the kinds in words; the list below it holds one bullet per kind."""
    words = {"Two": 2, "Three": 3, "Four": 4}
    heading = re.match(r"\*\*(\w+) kinds of number", home.KINDS_OF_NUMBER)
    bullets = re.findall(r"^- \*\*", home.KINDS_OF_NUMBER, re.MULTILINE)
    assert heading and words[heading[1]] == len(bullets) == 3
