"""The Workloads page's words (perfcore.explain.llm.workloads_text): the headline, the model's
caption, the serving curve's sentence and the takeaway, from the numbers priced."""

import re

import pytest

from perfcore.explain.llm import workloads as view
from perfcore.explain.llm import workloads_text as words
from perfcore.model.llm.models import load_models

H100, A100 = "NVIDIA H100 SXM", "NVIDIA A100 SXM4 80GB"


@pytest.fixture(scope="module")
def models():
    return load_models()


def test_takeaway_says_bound_top_kind_and_fit(specs, models):
    m = models["Llama-3.1-405B"]
    text = words.takeaway(m, view.view(m, specs[H100], view.Setup()), view.Setup())
    assert "memory-bound as a whole" in text and "does not fit on 1 GPU" in text
    # 405.85e9 weights x 2 bytes + 16 x 4096 tokens x 516 kB of KV = 846 GB over 85.9 GB: 10
    assert "it needs at least 10." in text


def test_serving_caption_names_the_capacity_and_the_crossover(specs, models):
    m, s = models["Llama-3.1-8B"], view.Setup(context=128)
    sv = view.serving_view(m, specs[H100], s)
    assert sv.crossover is not None and sv.crossover.bound == "compute"
    text = words.serving_caption(sv, 128)
    assert f"{sv.curve[-1].batch:,} sequences" in text
    assert f"from batch {sv.crossover_batch:,}" in text


def test_serving_caption_says_plainly_when_the_weights_fill_the_gpus(specs, models):
    sv = view.serving_view(models["Mixtral-8x7B"], specs[H100], view.Setup(context=128))
    assert sv.curve == ()
    assert words.serving_caption(sv, 128).startswith("No sequence at context 128 fits")


def test_the_headline_adds_ttft_and_tpot_only_when_generating(specs, models):
    decode = view.view(models["Llama-3.1-8B"], specs[H100], view.Setup())
    generate = view.view(models["Llama-3.1-8B"], specs[H100], view.Setup("generate"))
    shown, labels = (
        [lb for lb, _ in words.headline(decode)],
        [lb for lb, _ in words.headline(generate)],
    )
    assert (
        labels
        == shown[:3] + ["Time to first token (bound)", "Time per output token (bound)"] + shown[3:]
    )
    assert (
        "→" in dict(words.headline(generate))["Time per output token (bound)"]
    )  # first to last token


def test_the_model_caption_gives_the_published_billions_all_and_active(models):
    """Mixtral-8x7B publishes 46.7B parameters, 12.9B active per token."""
    said = words.model_caption(models["Mixtral-8x7B"])
    all_, active = re.search(r"([\d.]+)B parameters \(([\d.]+)B active\)", said).groups()
    assert float(all_) == pytest.approx(46.7, abs=0.05) and float(active) == pytest.approx(
        12.9, abs=0.05
    )


def test_an_expected_time_leads_and_adds_the_communication_to_the_ops(specs, models):
    """At TP 2 the expected time is the ops' expected times plus the all-reduces at their
    bound: the page's expected_s, shown first, with the bounds after it."""
    from perfcore.model.runs import published

    s = view.Setup(phase="prefill", tp=2)
    data = view.page(models["Llama-3.1-8B"], specs[H100], None, s, table=published.table())
    comm = data.views[0].phase.comm_s
    assert comm > 0
    assert data.expected_s == pytest.approx(data.ops["expected"].sum() + comm)
    shown = words.headline(data.views[0], data.expected_s, data.expected_from)
    assert [m[0] for m in shown[:3]] == [
        "Time (expected)",
        "Time (bound, sum of ops)",
        "Single-roofline bound",
    ]
    assert "published runs" in shown[0][2]
