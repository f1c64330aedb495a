"""The layout search: every layout it returns exists and fits, ranked; weak scaling holds."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfcore.model.llm.models import load_models
from perfcore.model.plans import rank, search, train_plan
from perfcore.model.plans.layout import Layout, problems
from perfcore.model.plans.train_plan import Training

H100 = "NVIDIA H100 SXM"
MODELS = load_models()


def test_every_candidate_exists_fits_and_they_come_fastest_first(specs):
    t = Training(MODELS["Llama-3.1-70B"], specs[H100], 64, 4096, 256 * 4096)
    found = search.search(t)
    assert found.candidates and found.considered >= len(found.candidates)
    for plan in found.candidates:
        assert problems(plan.layout, t.model, 64, 4096, 256) == []
        assert plan.fits and plan.memory_total <= specs[H100].memory_bytes
    times = [p.step_s for p in found.candidates]
    assert times == sorted(times)
    assert found.best is found.candidates[0]


def test_the_best_is_no_slower_than_any_layout_priced_by_hand(specs):
    """A hand-picked layout (TP 8, DP 8, ZeRO-1, selective recompute) is a searched one, so
    the best layout's step is at most its step."""
    t = Training(MODELS["Llama-3.1-70B"], specs[H100], 64, 4096, 256 * 4096)
    hand = train_plan.price(t, Layout(tp=8, dp=8, zero=1, recompute="selective"))
    assert hand.fits
    assert search.search(t).best.step_s <= hand.step_s


def test_fixed_fields_hold_in_every_candidate(specs):
    t = Training(MODELS["Llama-3.1-8B"], specs[H100], 16, 2048, 64 * 2048)
    found = search.search(t, {"tp": 2, "zero": 1})
    assert found.candidates
    assert {(p.layout.tp, p.layout.zero) for p in found.candidates} == {(2, 1)}


def test_pp_not_dividing_the_layers_is_searched(specs):
    """Llama-3.1-405B (126 layers) on 8,192 H100s at TP 8: PP 16, as Llama 3 ran it, is among
    the layouts searched though 16 does not divide 126; given, it is the only pp priced."""
    t = Training(MODELS["Llama-3.1-405B"], specs[H100], 8192, 8192, 2048 * 8192)
    free = search.search(t, {"tp": 8, "cp": 1})
    assert 16 in {p.layout.pp for p in free.candidates}
    found = search.search(t, {"tp": 8, "pp": 16, "cp": 1})
    assert {(p.layout.pp, p.layout.dp) for p in found.candidates} == {(16, 64)}


def test_a_model_too_big_for_the_gpus_returns_no_best_and_the_leanest_misfit(specs):
    t = Training(MODELS["Llama-3.1-405B"], specs[H100], 2, 4096, 2 * 4096)
    found = search.search(t)
    assert found.best is None
    assert found.leanest is not None and found.leanest.fits is False
    assert isinstance(found.leanest, train_plan.TrainPlan) and found.leanest.step_s > 0


def test_a_misfit_is_priced_no_further_than_its_memory_which_is_the_whole_plans(specs):
    """Every variant the search prices is either a whole plan that fits or a Misfit whose
    memory is what price() gives the same layout (which does not fit); the counts add up."""
    t = Training(MODELS["Llama-3.1-70B"], specs[H100], 64, 4096, 256 * 4096)
    seen = [p for shape, vs in search.shapes(t, {}) for p in search.pipelined(t, shape, vs, {})]
    misfits = [p for p in seen if isinstance(p, search.Misfit)]
    assert misfits and len(seen) - len(misfits) == search.search(t).fitting
    for m in misfits[:: max(len(misfits) // 20, 1)]:
        whole = train_plan.price(t, m.layout)
        assert whole.fits is False and m.memory_total == pytest.approx(whole.memory_total)


@settings(max_examples=12, deadline=None)
@given(st.sampled_from([8, 16, 32, 64]), st.sampled_from([1, 2, 4]))
def test_weak_scaling_twice_the_gpus_and_batch_never_lowers_the_best_tokens_per_s(specs, n, k):
    """Any layout on N GPUs exists on 2N with twice the DP degree and the same work per
    replica; only its gradient reduce grows, by less than 2x, so the best rate cannot drop."""
    model, h100 = MODELS["Llama-3.1-8B"], specs[H100]
    one = search.search(Training(model, h100, n, 2048, n * k * 2048)).best
    two = search.search(Training(model, h100, 2 * n, 2048, 2 * n * k * 2048)).best
    assert two.tokens_per_s >= one.tokens_per_s * (1 - 1e-12)


@pytest.mark.parametrize("n", [12, 1000])
def test_degrees_are_divisors_of_the_gpus(specs, n):
    t = Training(MODELS["Llama-3.1-8B"], specs[H100], n, 2048, 4 * n * 2048)
    assert all(n % (tp * cp * pp) == 0 for tp, cp, pp, _ in search.degrees(t, {}))


def test_llama_405b_at_pp_16_is_offered_interleaves_up_to_8_layers_a_chunk_of_one():
    """126 layers over PP 16: the fullest stage holds 8; interleaves 1, 2, 3, 4, 8 (5-7
    give the same largest chunk, 2 layers, as 4)."""
    assert search.interleaves(126, 16) == [1, 2, 3, 4, 8]
    assert search.interleaves(80, 1) == [1]


def test_zero_1_stands_in_for_a_zero_0_that_fits(specs):
    """Llama-3.2-3B on 8 H100s fits at ZeRO-0 with DP 8; the search lists ZeRO-1 instead
    (never slower: the same bytes, Adam's update split over the replicas)."""
    t = Training(MODELS["Llama-3.2-3B"], specs[H100], 8, 4096, 64 * 4096)
    zero0 = train_plan.price(t, Layout(dp=8, recompute="selective"))
    assert zero0.fits
    found = search.search(t, {"tp": 1, "recompute": "selective", "micro_batch": 1})
    sharded = [p for p in found.candidates if p.layout.dp * p.layout.cp > 1]
    assert sharded and all(p.layout.zero >= 1 for p in sharded)
    assert found.best.step_s <= zero0.step_s


def test_stopping_at_the_interleave_that_gets_slower_loses_no_fastest_layout(specs):
    """Llama-3.1-70B on 64 H100s at PP 4: the search's best equals the best of every
    interleave priced one by one (1 to the 20 layers of a stage) at that shape."""
    t = Training(MODELS["Llama-3.1-70B"], specs[H100], 64, 4096, 256 * 4096)
    fixed = {"tp": 8, "pp": 4, "cp": 1, "micro_batch": 1, "zero": 1, "recompute": "selective"}
    best = search.search(t, fixed).best
    every = [
        train_plan.price(t, Layout(**fixed, dp=2, interleave=v))
        for v in range(1, 21)
        if not problems(Layout(**fixed, dp=2, interleave=v), t.model, 64, 4096, 256)
    ]
    assert best.step_s == pytest.approx(min(p.step_s for p in every if p.fits))


def test_ranked_on_an_expected_step_ties_go_to_fewer_cross_node_collectives(specs):
    """Expected = the bound; a 100 % tie width makes every plan within 2x of the fastest one
    group, ordered by cross-node collectives: the first has the fewest of them."""
    t = Training(MODELS["Llama-3.1-70B"], specs[H100], 64, 4096, 256 * 4096)
    found = search.search(t, expected=lambda p: p.step_s, tie=1.0)
    group = [p for p, g in zip(found.candidates, found.ties, strict=True) if g == 0]
    assert len(group) > 1
    crossing = [rank.cross_node(p) for p in group]
    assert crossing == sorted(crossing)
    assert all(p.step_s <= 2 * min(q.step_s for q in group) for p in group)


def test_each_parallel_layout_is_listed_once_at_its_fastest_variant(specs):
    """Llama-3.1-70B on 64 H100s: no two candidates share TP, PP, DP, CP and EP (micro-batches
    and ZeRO stages of one layout would crowd the others out of a top 10), each is the fastest
    of its layout's variants priced one by one, and fewer layouts are listed than variants fit."""
    t = Training(MODELS["Llama-3.1-70B"], specs[H100], 64, 4096, 256 * 4096)
    found = search.search(t)
    keys = [tuple(getattr(p.layout, d) for d in search.DEGREES) for p in found.candidates]
    assert len(keys) == len(set(keys)) and len(keys) < found.fitting
    tp8 = search.search(t, {"tp": 8, "pp": 1, "cp": 1})
    (only,) = tp8.candidates
    every = [
        train_plan.price(t, Layout(tp=8, dp=8, zero=z, micro_batch=mb, recompute=r))
        for z in (1, 2, 3)
        for mb in (1, 2, 4, 8, 16)
        for r in ("none", "selective", "full")
    ]
    assert only.step_s == pytest.approx(min(p.step_s for p in every if p.fits))
