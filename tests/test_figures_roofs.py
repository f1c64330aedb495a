"""Roofs as traces (perfcore.figures.chip.roofs): the memory roofs the device publishes, links per
direction; the chosen precision's flat roof at its peak from its ridge; the ridge marked where
the precision is published, nothing where it is not."""

import pytest

from perfcore.figures.chip.roofs import X_MAX, memory_roofs, ridge_trace, roof_traces
from perfcore.model.chip.roofline import ridge_point


def test_memory_roofs_include_the_links_per_direction(h100):
    labels = dict(memory_roofs(h100))
    assert labels["device memory"] == 3.35e12
    assert labels["scale-up link, per direction"] == 450e9
    assert labels["PCIe, per direction"] == 64e9
    assert labels["L2 (estimate)"] == 10e12


def test_the_chosen_roof_is_flat_at_its_peak_from_its_ridge_to_the_right_edge(h100):
    flat = next(t for t in roof_traces(h100, "fp16") if t.name.startswith("fp16 roof"))
    assert list(flat.y) == [990e12, 990e12]
    assert list(flat.x) == [pytest.approx(ridge_point(990e12, 3.35e12)), X_MAX]


def test_the_ridge_is_marked_where_the_precision_is_published_and_not_where_it_is_not(specs):
    assert ridge_trace(specs["NVIDIA V100 SXM2"], "fp8", 1e9) is None
    ridge = ridge_trace(specs["NVIDIA H100 SXM"], "bf16", 1e9)
    assert ridge.y[0] == 1e9 and ridge.x[0] == ridge.x[1]
