"""The Plan page's tables and takeaways (perfcore.explain.plans.plan, plan_serve), checked against
hand-worked figures where a number is asserted."""

import dataclasses

import pytest

from perfcore import format as fmt
from perfcore.explain.plans import plan, plan_takeaway
from perfcore.explain.plans import plan_serve as serve
from perfcore.model.plans import serve_basis
from perfcore.model.plans.layout import LayoutError
from perfcore.model.runs import published
from perfcore.model.runs.efficiency import Table
from tests.support.kernels import h100_curves
from tests.support.plans import H100, HALF, L8, L70, MODELS, SMALL, small_view


@pytest.fixture(scope="module")
def small(specs):
    """The shared small training view (tests.support.plans)."""
    return small_view(specs)


def test_a_degree_of_zero_and_search_are_left_to_the_search_and_zero_stage_0_is_not():
    given = {"tp": 0, "pp": 4, "dp": 0, "zero": 0, "recompute": plan.SEARCHED}
    assert plan.fixed_fields(given) == (("pp", 4), ("zero", 0))
    assert plan.fixed_fields({"zero": plan.SEARCHED, "recompute": "full"}) == (
        ("recompute", "full"),
    )


@pytest.mark.parametrize(
    ("fixed", "said"),
    [
        ((("tp", 3),), "**TP** = 3 does not divide the 64 attention heads."),  # 64 % 3 = 1
        ((("pp", 3),), "**PP** = 3 does not divide the 1,024 GPUs (tp x pp x cp = 3)."),
        ((("pp", 128),), "**PP** = 128 (pp = 128 stages) is more than the 80 layers."),
        ((("interleave", 2),), "**Chunks per stage** = 2 needs pp of 2 or more."),
    ],
)
def test_a_layout_that_cannot_exist_is_refused_naming_its_control(specs, fixed, said):
    with pytest.raises(LayoutError) as e:
        plan.train_view(L70, specs[H100], plan.TrainSetup(fixed=fixed), {})
    assert plan.refusal_text(e.value) == said


def test_a_batch_that_is_not_whole_sequences_is_refused_naming_the_batch(specs):
    with pytest.raises(LayoutError) as e:
        plan.train_view(L8, specs[H100], plan.TrainSetup(16, 4096, 4096 * 3 + 1), {})
    assert plan.refusal_text(e.value).startswith("**Batch (tokens)** = 12,289 is not a whole")


def test_fixed_fields_hold_for_every_candidate_and_the_rest_fill_the_gpus(specs):
    """TP 8 × PP 4 fixed on 1,024 GPUs: DP × CP = 1024 / 32 = 32 in every layout."""
    v = plan.train_view(L70, specs[H100], plan.TrainSetup(fixed=(("tp", 8), ("pp", 4))), {})
    assert v.found.candidates
    assert all((p.layout.tp, p.layout.pp) == (8, 4) for p in v.found.candidates)
    assert {p.layout.dp * p.layout.cp for p in v.found.candidates} == {32}


def test_the_headline_leads_with_the_expected_step_and_its_band_then_the_bound(small):
    """Efficiency 0.5, p90 error 0.2: expected 2 × (bound + what it hides), band 5/3 to 5/2 of
    that sum."""
    b = small.best.step_s
    e = b + published.added_s(small.best)
    (label, value, said, band), second = plan.train_metrics(small)[:2]
    assert (label, value) == ("Step (expected)", fmt.seconds(2 * e))
    assert band == f"{fmt.seconds(5 / 3 * e)}–{fmt.seconds(5 / 2 * e)}, p90 of held-out frameworks"
    assert "leave-one-framework-out error 10% median, 20% p90" in said
    assert second[:2] == ("Step (bound)", fmt.seconds(b)) and second[3] is None
    labels = [m[0] for m in plan.train_metrics(small)]
    assert labels.index("MFU (expected)") == labels.index("MFU (bound)") - 1
    without = plan.train_metrics(plan.TrainView(small.found, Table({})))
    assert [m[0] for m in without][:2] == ["Step (bound)", "MFU (bound)"]


def test_the_time_parts_add_up_to_the_step_and_leave_zeros_out(small):
    best = small.best
    parts = plan.time_parts(best)
    assert sum(parts.values()) == pytest.approx(best.step_s, rel=1e-12)
    assert 0 not in parts.values() and parts["compute"] == best.time_s_by["compute"]


def test_the_train_takeaway_names_the_winner_its_numbers_and_the_expected_step(small):
    best, text = small.best, plan_takeaway.train_takeaway(small)
    assert text.startswith(f"{plan.shape(best.layout)} wins")
    assert f"step {fmt.seconds(best.step_s)} and MFU {fmt.percent(best.mfu)}" in text
    assert f"{small.found.considered:,} layouts priced for 16 GPUs" in text
    e = best.step_s + published.added_s(best)
    assert f"a {fmt.seconds(2 * e)} step" in text  # (bound + what it hides) ÷ 0.5


def test_the_rival_is_the_fastest_other_shape_and_its_costlier_part_is_named(specs):
    """On real H100 links every collective of SMALL hides behind compute and shapes tie; on
    slow links (what-if: 20 GB/s scale-up, 1 GB/s scale-out) the DP reduce is exposed and
    the fastest other shape is clearly slower."""
    slow = specs[H100].replace(scaleup_bytes_per_s=2e10, scaleout_bytes_per_s=1e9)
    v = plan.train_view(L8, slow, SMALL, HALF)
    best = v.best
    rival = next(q for q in v.found.candidates if plan.shape(q.layout) != plan.shape(best.layout))
    won, lost = (2 * (p.step_s + published.added_s(p)) for p in (best, rival))  # efficiency 0.5
    assert lost > 1.01 * won
    text = plan_takeaway.train_takeaway(v)
    assert f"The fastest other shape, {plan.shape(rival.layout)}, is" in text
    slower = fmt.percent(lost / won - 1)
    assert f"is {slower} slower" in text


def test_a_model_that_fits_nowhere_says_what_the_leanest_layout_needs(specs):
    """Llama-3.1-405B on 8 H100s: 405e9 × 2 bytes of weights alone is 810 GB, over 8 × 80 GiB."""
    v = plan.train_view(MODELS["Llama-3.1-405B"], specs[H100], plan.TrainSetup(8, 4096, 2**20), {})
    assert v.best is None and v.found.leanest is not None
    text = plan_takeaway.no_fit_text(v)
    assert text.startswith("No layout fits") and fmt.capacity(v.found.leanest.memory_total) in text


@pytest.fixture(scope="module")
def served(specs):
    """Llama-3.1-70B in FP8 on 8 H100s, 1,024 in and 256 out, TPOT under 50 ms."""
    return serve.serve_view(L70, specs[H100], serve.ServeSetup(), {})


def test_serving_memory_is_the_weights_share_and_the_batchs_kv_cache(served):
    """TP 2, batch 128, context 1,024 + 256 = 1,280, FP8: KV per token 2 (K, V) × 8 KV heads ×
    128 × 80 layers × 1 byte = 163,840 B, half of it per GPU; × 1,280 × 128 = 13,421,772,800 B."""
    p = next(q for q in served.candidates if (q.tp, q.batch) == (2, 128))
    parts = serve.memory_per_gpu(p)
    assert parts["KV cache"] == 13_421_772_800
    assert parts["weights"] == L70.params() * 1 / 2


def test_the_best_plan_is_within_the_limits_and_the_table_lists_it_first(served):
    df = serve.plans_table(served)
    best = served.best
    assert best.tpot_s <= 0.05 and best.ttft_s <= 1.0
    first = df.iloc[0]
    assert (first["TP"], first["batch"]) == (best.tp, best.batch)
    assert first["within limits (bound)"] and "within limits (expected)" not in df
    assert df["on the frontier"].sum() == len(served.frontier)


def test_the_serve_takeaway_says_what_stops_the_batch_growing(served):
    best, text = served.best, plan_takeaway.serve_takeaway(L70, served)
    assert text.startswith(f"{serve.layout_text(best)} wins for Llama-3.1-70B")
    nxt = min(
        (q for q in served.candidates if q.tp == best.tp and q.batch > best.batch),
        key=lambda q: q.batch,
    )
    assert nxt.tpot_s > 0.05
    said = (
        f"batch {nxt.batch} would break the TPOT limit (bound {fmt.seconds(nxt.tpot_s)} > 50.0 ms)"
    )
    assert said in text  # no published runs given: the bound judges the limit


def test_at_half_the_bound_the_limits_judge_expected_latencies_and_the_bound_pick_is_named(
    specs,
):
    """Efficiency 0.5: a plan meets a 50 ms TPOT limit when 2 × (its bound TPOT + its kernel
    boundaries: one decode step's 80 × 12 kernels at 3.32 µs and its prefills') does."""
    v = serve.serve_view(L70, specs[H100], serve.ServeSetup(), HALF)

    def exp(q):
        ttft, tpot = serve_basis.plan_s(q)
        return 2 * (q.ttft_s + ttft), 2 * (q.tpot_s + tpot)

    ok = [q for q in v.candidates if exp(q)[1] <= 0.05 and exp(q)[0] <= 1.0]
    assert v.best == max(ok, key=lambda q: q.output_tokens_per_s)
    bound = v.bound_best
    assert bound != v.best and exp(bound)[1] > 0.05
    text = plan_takeaway.serve_takeaway(L70, v)
    ttft, tpot = exp(v.best)
    assert f"(expected {fmt.seconds(tpot)} and {fmt.seconds(ttft)}" in text
    assert f"On the bounds alone {serve.layout_text(bound)} would win" in text
    assert f"TPOT limit (expected {fmt.seconds(exp(bound)[1])} > 50.0 ms)" in text
    labels = [m[0] for m in serve.serve_metrics(v)]
    assert labels[:4] == ["TPOT (expected)", "TPOT (bound)", "TTFT (expected)", "TTFT (bound)"]
    shown = serve.serve_metrics(v)[0]
    low, high = tpot / 1.2, tpot / 0.8  # expected ÷ (1 ± 0.2)
    assert shown[3] == f"{fmt.seconds(low)}–{fmt.seconds(high)}, p90 of held-out frameworks"
    df = serve.plans_table(v)
    assert df["within limits (expected)"].iloc[0]
    by = {(q.tp, q.batch): q for q in v.candidates}
    rows = [by[tp, batch] for tp, batch in zip(df["TP"], df["batch"], strict=True)]
    assert list(df["TPOT (expected)"]) == pytest.approx([exp(q)[1] for q in rows])


def test_a_model_whose_weights_fill_every_gpu_has_no_plan(specs):
    """Llama-3.1-405B at 16 bits on 1 GPU: 810 GB of weights in 80 GiB."""
    s = serve.ServeSetup(gpus=1, precisions=serve.Precisions(16, 16, 16))
    v = serve.serve_view(MODELS["Llama-3.1-405B"], specs[H100], s, {})
    assert v.best is None and not v.candidates
    assert plan_takeaway.no_plan_text(v).startswith("No plan fits")


def test_a_rival_within_a_thousandth_of_the_step_reads_as_a_tie(specs):
    """Mixtral-8x7B on 64 H100s: DP 64 and DP 32 × CP 2 price within 0.1 % of each other."""
    v = plan.train_view(MODELS["Mixtral-8x7B"], specs[H100], plan.TrainSetup(64, 4096, 2**22), {})
    best = v.best
    rival = next(q for q in v.found.candidates if plan.shape(q.layout) != plan.shape(best.layout))
    assert rival.step_s - best.step_s <= 1e-3 * best.step_s
    text = plan_takeaway.train_takeaway(v)
    assert f"{plan.shape(rival.layout)}, ties it (within 0.100 %)" in text


def test_the_model_caption_gives_the_billions_and_says_the_sidebar_precision_is_unused(specs):
    """Llama-3.1-70B: 70.6B parameters (its model card's count)."""
    said = plan.model_caption(L70, specs[H100])
    assert said.startswith("Llama-3.1-70B on NVIDIA H100 SXM: 70.55B parameters")
    assert "sidebar's precision is not used" in said


def test_the_serving_inputs_read_limits_in_ms_and_zero_as_none_or_searched():
    n = {"gpus": 8, "input_tokens": 1024, "output_tokens": 256, "ttft_ms": 0, "tpot_ms": 50}
    s = serve.serve_setup(n | {"tp": 0, "batch": 4}, serve.SERVE_BITS)
    assert (s.ttft_limit_s, s.tpot_limit_s, s.tp, s.batch) == (None, 0.05, None, 4)


def test_measured_kernels_add_the_step_and_mfu_they_give_the_best_layout(specs):
    """Curves at half the roof: the best layout's step from them is above its bound, its MFU
    the bound's scaled by bound ÷ that step, both saying what they were derived from."""
    curves = h100_curves(0.5)
    with_curves = dataclasses.replace(SMALL, curves=curves)
    v = plan.train_view(L8, specs[H100], with_curves, HALF)
    p, k = v.best, v.kernel
    rows = {label: (value, said) for label, value, said, _ in plan.train_metrics(v)}
    assert rows["Step (your kernels)"][0] == fmt.seconds(k.seconds) and k.seconds > p.step_s
    assert rows["MFU (your kernels)"][0] == fmt.percent(p.mfu * p.step_s / k.seconds)
    assert "measured kernels on NVIDIA H100 80GB HBM3, 2026-01-31" in rows["Step (your kernels)"][1]
    labels = [label for label, *_ in plan.train_metrics(v)]
    assert labels.index("Step (expected)") < labels.index("Step (your kernels)")
    assert "Step (your kernels)" not in [m[0] for m in plan.train_metrics(small_view(specs))]
