"""Efficiency per cell from published runs, its fallback and its leave-one-framework-out error."""

from dataclasses import dataclass, replace

import pytest

from perfcore.model.runs import candidates, efficiency, sample
from perfcore.model.runs.efficiency import MIN_RUNS
from perfcore.model.runs.sample import Sample, Setting


@dataclass(frozen=True)
class Row:
    """A run as the runs loader gives it (only what efficiency needs, plus the figures)."""

    source: str
    regime: str
    bound_s: float
    measured_s: float


ROWS = [
    Row("paper A", "train", 1.0, 2.0),
    Row("paper A", "train", 1.0, 2.5),
    Row("bench B", "train", 2.0, 5.0),
    Row("bench C", "train", 1.0, 1.6),
    Row("bench B", "decode", 1.0, 1.25),
]


def priced(row):
    return row.regime, row.bound_s, row.measured_s


def test_the_efficiency_is_the_median_of_bound_over_measured():
    """train efficiencies 0.5, 0.4, 0.4, 0.625 -> median 0.45; decode one run, 0.8."""
    table = efficiency.efficiencies(efficiency.samples(ROWS, priced))
    assert table["train"].value == pytest.approx(0.45)
    assert (table["train"].runs, table["train"].sources) == (4, 3)
    assert table["decode"].value == pytest.approx(0.8)
    assert table["decode"].error_median is None and list(table) == ["train", "decode"]


def test_leave_one_framework_out_predicts_each_family_from_the_others():
    """No framework given: each source is its own family. Leaving out A: median(0.4, 0.625) =
    0.5125 -> A's runs expected 1.951 s (measured 2.0: 2.44 %; 2.5: 21.95 %). B: median(0.5,
    0.4, 0.625) = 0.5 -> 4.0 s (5.0: 20 %). C: median(0.5, 0.4, 0.4) = 0.4 -> 2.5 s (1.6:
    56.25 %). Median of the four 20.98 %; p90 (inclusive) 21.95 + 0.7 x (56.25 - 21.95) =
    45.96 %."""
    table = efficiency.efficiencies(efficiency.samples(ROWS, priced))
    assert table["train"].error_median == pytest.approx((0.2 + 0.2195122) / 2, rel=1e-5)
    assert table["train"].error_p90 == pytest.approx(0.2195122 + 0.7 * (0.5625 - 0.2195122))
    assert table["train"].error() == {
        "median": table["train"].error_median,
        "p90": table["train"].error_p90,
    }


def cell_runs(n: int, eff: float, family: str, long: bool) -> list[Sample]:
    """n training runs of one family at efficiency `eff` (bound 1 s)."""
    return [Sample(None, "train", family, 1.0, 1 / eff, long, False, family) for _ in range(n)]


def test_a_cell_with_enough_runs_from_two_families_speaks_else_its_parent():
    """Long context: 3 runs of X at 0.4 and 3 of Y at 0.5 (6 runs, 2 families: trusted,
    median 0.45); short: 10 of X at 0.6. X's own long cell has 3 < MIN_RUNS runs, so a long
    setting naming X gets the pooled long cell; short naming X gets X's own (10 runs)."""
    runs = cell_runs(3, 0.4, "X", True) + cell_runs(3, 0.5, "Y", True)
    runs += cell_runs(10, 0.6, "X", False)
    table = efficiency.efficiencies(runs)
    assert MIN_RUNS == 5
    assert table.of(Setting("train", True, False, "X")).value == pytest.approx(0.45)
    own = table.of(Setting("train", False, False, "X"))
    assert own.value == pytest.approx(0.6) and own.setting.framework == "X"
    assert table.of(Setting("prefill")) is None


def test_a_cell_of_one_family_is_not_trusted_above_the_framework_level():
    """6 long runs of X alone at 0.3 and 6 short of Y at 0.7: the long cell (one family)
    falls back to the regime's median, 0.5 (of 0.3 x 6 and 0.7 x 6)."""
    table = efficiency.efficiencies(cell_runs(6, 0.3, "X", True) + cell_runs(6, 0.7, "Y", False))
    assert table.of(Setting("train", True, False)).value == pytest.approx(0.5)


def test_held_out_a_family_is_predicted_from_the_others_cells():
    """Long: 5 of X at 0.4, 5 of Y at 0.5, 5 of Z at 0.8. Holding out X, the long cell holds
    Y and Z (10 runs, 2 families): median 0.65, X expected 1/0.65 against 1/0.4 measured:
    |0.4/0.65 - 1| = 38.46 %. Y: median of X, Z = 0.6: |0.5/0.6 - 1| = 16.67 %. Z: 0.45:
    |0.8/0.45 - 1| = 77.78 %. Median 38.46 %."""
    runs = cell_runs(5, 0.4, "X", True) + cell_runs(5, 0.5, "Y", True)
    runs += cell_runs(5, 0.8, "Z", True)
    got = sorted(set(round(e, 6) for e in efficiency.held_out_errors(runs)))
    assert got == pytest.approx([1 / 6, 1 - 0.4 / 0.65, 0.8 / 0.45 - 1], rel=1e-5)
    assert efficiency.efficiencies(runs)["train"].error_median == pytest.approx(1 - 0.4 / 0.65)


def test_the_band_is_the_expected_over_one_plus_and_minus_the_p90_never_below_the_bound():
    """Efficiency 0.5, p90 20 %: bound 4 s -> expected 8 s, band 8/1.2 = 6.67 s to 8/0.8 =
    10 s. p90 150 %: 8/2.5 = 3.2 s is below the bound (4 s), so 4 s; no upper end."""
    eff = efficiency.Efficiency("train", 0.5, 10, 3, 0.3, 0.7, 0.1, 0.2)
    assert eff.band_s(4.0) == pytest.approx((8 / 1.2, 10.0))
    wide = efficiency.Efficiency("train", 0.5, 10, 3, 0.3, 0.7, 0.1, 1.5)
    assert wide.band_s(4.0) == (4.0, None)


def test_the_tie_is_the_median_error_of_one_sources_pairs_with_the_same_case():
    """Source S, case k: efficiencies 0.5, 0.55, 0.6 -> pairs |0.5/0.55 - 1| = 9.09 %,
    |0.5/0.6 - 1| = 16.67 %, |0.55/0.6 - 1| = 8.33 %: median 9.09 %. A run of another case
    or source pairs with nothing."""
    runs = [Sample(None, "train", "S", 1.0, 1 / e, case=("k",)) for e in (0.5, 0.55, 0.6)]
    runs += [Sample(None, "train", "S", 1.0, 2.0, case=("j",))]
    runs += [Sample(None, "train", "T", 1.0, 1.1, case=("k",))]
    assert efficiency.efficiencies(runs)["train"].tie == pytest.approx(1 - 0.5 / 0.55)


def test_expected_is_the_bound_over_the_efficiency_and_none_without_runs():
    table = efficiency.efficiencies(efficiency.samples(ROWS, priced))
    assert efficiency.expected(9.0, "train", table) == pytest.approx(20.0)
    assert efficiency.expected(9.0, "prefill", table) is None
    assert "median efficiency of 4 published train runs from 3 sources" in (
        table["train"].derived_from()
    )


def test_a_kernel_without_curves_says_its_bound_is_what_the_runs_median_divides():
    """A compute-bound op on a device with no curves takes the training runs' median (0.5
    here) as the efficiency of its roofline bound alone: the words say so, not the training
    step's basis (TP's communication and the rest are not in an op)."""
    table = efficiency.efficiencies(efficiency.samples(ROWS, priced))
    eff = efficiency.kernel_fallback(table, compute_bound=True)
    assert eff.value == table["train"].value
    assert eff.derived_from.startswith("no kernel curve for it here: the op's roofline bound ÷")
    assert "communication" not in eff.derived_from


def test_runs_the_pricer_cannot_price_are_left_out():
    got = efficiency.samples(ROWS, lambda r: None if r.source == "paper A" else priced(r))
    assert {s.source for s in got} == {"bench B", "bench C"}


def test_the_expected_model_adds_critical_path_communication_and_fp8_bf16_parts_by_hand():
    """Two runs of two families. A: bound 2.0 s, TP hides 0.5 s (on the critical path),
    measured 5.0 s: basis 2.0 + 0.5 = 2.5 s, η = 2.5 / 5.0 = 0.5. B: bound 1.0 s, DP hides
    0.2 s (issued ahead: a quarter of it, 0.05 s, the SMs its kernels take), FP8's attention
    and lm_head add 0.3 s at the BF16 peak, measured 2.5 s: basis 1.35 s, η = 0.54. Held out
    by family, A is predicted from B's η: 2.5 / 0.54 = 4.6296 s, |4.6296 / 5 - 1| = 0.0741;
    B from A's: 1.35 / 0.5 = 2.7 s, |2.7 / 2.5 - 1| = 0.08. With the ideal overlap (κ = 0, no
    BF16 parts) both η are bound / measured = 0.4 and both errors 0; exposing every hidden
    part, B's basis is 1.0 + 0.2 + 0.3 = 1.5 s, η 0.6: A at 2.5 / 0.6 = 4.1667 s (error 1/6),
    B at 3.0 s (0.2)."""
    a = Sample(None, "train", "A", 2.0, 5.0, framework="F", hidden_by=(("tp", 0.5),))
    b = Sample(None, "train", "B", 1.0, 2.5, framework="G", hidden_by=(("dp", 0.2),), bf16_s=0.3)
    assert (a.basis_s, a.eta, b.basis_s, b.eta) == pytest.approx((2.5, 0.5, 1.35, 0.54))
    assert a.efficiency == pytest.approx(0.4)  # the bound's: what a violation is judged on
    assert efficiency.held_out_errors([a, b]) == pytest.approx([1 - 2.5 / 0.54 / 5, 0.08])
    ratios = efficiency.held_out_ratios([a, b])  # signed: A too fast, B too slow
    assert [s.source for s, _ in ratios] == ["A", "B"]
    assert [r for _, r in ratios] == pytest.approx([2.5 / 0.54 / 5, 1.08])
    ideal = [replace(s, exposure=sample.Exposure(0.0, bf16=False)) for s in (a, b)]
    assert efficiency.held_out_errors(ideal) == pytest.approx([0.0, 0.0])
    every = [replace(s, exposure=sample.Exposure()) for s in (a, b)]
    assert every[1].basis_s == pytest.approx(1.5)
    assert efficiency.held_out_errors(every) == pytest.approx([1 / 6, 0.2])
    eff = efficiency.efficiencies([a]).cells[Setting("train")]
    assert eff.expected_s(2.0, 0.5) == pytest.approx(5.0)


def test_the_attention_core_at_half_the_gemms_rate_adds_its_seconds_once_more_by_hand():
    """A run whose bound is 3.0 s, 1.0 s of it the attention core at the peak, measured 8.0 s:
    with the chosen exposure its basis is 3.0 + 1.0 = 4.0 s (the core at half the rate the
    rest runs at), η = 0.5; with the recomputed QKᵀ alone (1/6) 3.1667 s; without, 3.0 s."""
    run = Sample(None, "train", "A", 3.0, 8.0, attention_s=1.0)
    assert sample.EXPOSURE.attention == 1.0
    assert (run.basis_s, run.eta) == pytest.approx((4.0, 0.5))
    recomputed = sample.Exposure(parts=sample.CRITICAL_PATH, elementwise=True, attention=1 / 6)
    assert replace(run, exposure=recomputed).basis_s == pytest.approx(3.0 + 1 / 6)
    assert replace(run, exposure=sample.Exposure(parts=sample.CRITICAL_PATH)).basis_s == 3.0


def test_an_ampere_attention_kernel_on_a_hopper_runs_the_core_slower_by_hand():
    """The same run (bound 3.0 s, 1.0 s of it the attention core at the peak) with a kernel
    written for Ampere on a Hopper (slowdown 1.75): the core at half the GEMMs' rate takes
    2.0 s, 1.75 x that 3.5 s, so the basis is 3.0 - 1.0 + 3.5 = 5.5 s and η = 5.5 / 8.0;
    the candidate without kernels keeps 4.0 s. The slowdown: 1.75 for flash2 on a Hopper, 1
    for the device's own kernel, on an Ampere (FlashAttention-2 is its own) and on Blackwell
    (no published figure)."""
    run = Sample(None, "train", "A", 3.0, 8.0, attention_s=1.0, attention_slowdown=1.75)
    assert (run.basis_s, run.eta) == pytest.approx((5.5, 5.5 / 8.0))
    before = replace(sample.EXPOSURE, kernels=False)
    assert replace(run, exposure=before).basis_s == pytest.approx(4.0)
    assert sample.EXPOSURE.added_s((), 0.0, 0.0, 2.0, 1.75) == pytest.approx(5.0)
    got = [
        sample.attention_slowdown(kernel, arch)
        for kernel, arch in (
            ("flash2", "Hopper"),
            ("fused", "Hopper"),
            ("flash2", "Ampere"),
            ("flash2", "Blackwell"),
        )
    ]
    assert got == [1.75, 1.0, 1.0, 1.0]


def test_a_training_cell_is_attention_heavy_by_its_share_of_the_flops_not_its_tokens():
    """MPT-1B at 8,192 tokens (24 layers of 2,048, 16 heads of 128, vocab 50,368): layers 2 x
    24 x 12 x 2,048² = 2,415,919,104 FLOPs a token, attention 4 x 16 x 128 x 8,193 / 2 x 24 =
    805,404,672, head 2 x 50,368 x 2,048 = 206,307,328: 23.5 %, heavy. Llama-3.1-70B at the
    same 8,192 tokens: 7.2 %, not; a serving phase is heavy by its context alone."""
    from perfcore.model.llm.models import load_models
    from perfcore.model.runs import published

    models = load_models()
    share = 805_404_672 / (2_415_919_104 + 805_404_672 + 206_307_328)
    assert share == pytest.approx(0.23497, rel=1e-4) and share >= sample.ATTENTION_HEAVY
    assert published.attention_heavy(models["MPT-1B"], 8192)
    assert not published.attention_heavy(models["Llama-3.1-70B"], 8192)
    cell = sample.setting("train", True, 16)
    assert cell.label() == "train, attention ≥ 10 % of the FLOPs, 16-bit"
    assert sample.setting("decode", True, 16).label() == "decode, ≥ 16K tokens, 16-bit"


def test_kappa_estimated_as_a_median_by_hand():
    """Quiet run Q (no hidden communication): bound 1.0 s, measured 2.0 s, η₀ = 0.5. Loud runs
    L1: bound 1.0 s, hides 0.5 s, measured 3.0 s: κ = (3.0 x 0.5 - 1.0) / 0.5 = 1.0; L2: bound
    1.0 s, hides 1.0 s, measured 2.5 s: κ = (1.25 - 1.0) / 1.0 = 0.25; L3 hides 1.0 s,
    measured 1.5 s: κ = -0.25. κ̂ = median(1.0, 0.25, -0.25) = 0.25."""
    q = Sample(None, "train", "Q", 1.0, 2.0)
    loud = [
        Sample(None, "train", "L", 1.0, m, hidden_by=(("dp", h),))
        for h, m in ((0.5, 3.0), (1.0, 2.5), (1.0, 1.5))
    ]
    assert candidates.estimated_kappa([q, *loud]).kappa == pytest.approx(0.25)


def test_a_serving_cell_drops_its_batching_last_before_the_regime():
    """(decode, long, FP8, X, static) -> framework dropped, then FP8, then long context,
    then batching; a cell without batching keeps training's chain."""
    got = Setting("decode", True, True, "X", "static").chain()
    assert got == (
        Setting("decode", True, True, "X", "static"),
        Setting("decode", True, True, batching="static"),
        Setting("decode", True, batching="static"),
        Setting("decode", batching="static"),
        Setting("decode"),
    )
    assert Setting("train", True, False, "X").chain() == (
        Setting("train", True, False, "X"),
        Setting("train", True, False),
        Setting("train", True),
        Setting("train"),
    )
    assert "static batches" in got[1].label()
