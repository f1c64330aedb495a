"""Memory per GPU against the capacity (perfcore.figures.llm.memory): the parts stacked in order,
the capacity drawn across, the verdict said plainly, ticks in binary units."""

import pytest

from perfcore.explain.llm import workloads as view
from perfcore.figures.llm.memory import gib_ticks, memory_figure
from perfcore.model.llm.models import load_models

H100 = "NVIDIA H100 SXM"


def test_memory_figure_says_does_not_fit_plainly(specs):
    m = load_models()["Llama-3.1-405B"]
    v = view.view(m, specs[H100], view.Setup())
    fig = memory_figure([(H100, view.memory_parts(v.memory), v.memory.capacity, 1)])
    assert "does not fit on 1 GPU" in fig.layout.title.text
    assert [t.name for t in fig.data][:4] == [
        "weights",
        "KV cache",
        "activations",
        "gradients + optimizer",
    ]
    assert fig.data[-1].y[0] == pytest.approx(specs[H100].memory_bytes)


def test_memory_ticks_are_binary_like_capacities():
    ticks = gib_ticks(86e9)
    assert ticks["ticktext"] == ["0", "20.0 GiB", "40.0 GiB", "60.0 GiB", "80.0 GiB", "100 GiB"]
    assert ticks["tickvals"][4] == 80 * 2**30
