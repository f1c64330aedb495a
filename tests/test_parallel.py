"""Tensor- and data-parallel communication, priced with the existing all-reduce model."""

import pytest

from perfcore.model import parallel
from perfcore.model.comm import ring_allreduce_bytes
from perfcore.model.models import load_models
from perfcore.model.workloads import Precisions

H100 = "NVIDIA H100 SXM"


def test_tp_is_two_ring_all_reduces_per_layer_on_the_link_per_direction(specs):
    m, h100 = load_models()["Llama-3.1-8B"], specs[H100]
    buffer = 16 * 4096 * 2
    one = ring_allreduce_bytes(buffer, 4) / (h100.scaleup_bytes_per_s / 2)
    assert parallel.tp_seconds(m, h100, 16, Precisions(), 4) == pytest.approx(2 * 32 * one)
    assert parallel.tp_seconds(m, h100, 16, Precisions(), 1) == 0


def test_dp_layout_fills_nodes_of_eight_after_tp():
    assert parallel.dp_layout(1, 4) == (4, 1)
    assert parallel.dp_layout(2, 16) == (4, 4)
    assert parallel.dp_layout(8, 3) == (1, 3)


def test_dp_gradient_all_reduce_grows_with_nodes(specs):
    m, h100 = load_models()["Llama-3.1-8B"], specs[H100]
    in_node = parallel.dp_seconds(m, h100, Precisions(), 1, 8)
    across = parallel.dp_seconds(m, h100, Precisions(), 1, 64)
    assert 0 < in_node < across
