"""Expected figures of a plan, as `plan train|serve` and the Plan page both state them.

A plan's expected figure is its bound (a training step's with the critical path's hidden
communication, FP8's BF16 parts, the memory-bound math and the attention core once more, at its
kernel's slowdown, added:
published.added_s) ÷ the efficiency of its cell in the published runs' Table
(perfcore.model.runs.efficiency: regime × attention-heavy × FP8 × framework, with fallback),
and its band is where the measured figure lies when the expected one is off by the regime's
p90 leave-one-framework-out error or less (Efficiency.band_s). A serving plan's
TTFT and TPOT: (bound + what its passes do not overlap, serve_basis.plan_s) ÷ its prefill
and decode cells (serve_expected), the one rule `plan serve`, the Plan page's tables, headline,
takeaway and frontier chart all judge and show. An empty table: no expected figure.
"""

from __future__ import annotations

from collections.abc import Callable

from perfcore import format as fmt
from perfcore.model.plans import serve_basis
from perfcore.model.plans.serve_plan import ServePlan, Serving
from perfcore.model.plans.train_plan import TrainPlan
from perfcore.model.runs import published
from perfcore.model.runs.efficiency import Efficiency, Table
from perfcore.model.runs.sample import FLASH2_ON_HOPPER

BAND = "p90 of held-out frameworks"  # what a band's ends mean, said beside it
# What the choice of train_cost.ATTENTION_KERNELS does, for the Plan page and `plan train
# --attention-kernel`.
ATTENTION_HELP = (
    "The attention kernel the expected figure prices: fused, the device's own (cuDNN's or "
    "FlashAttention-3 on a Hopper, FlashAttention-2 on an Ampere; Transformer Engine picks "
    "cuDNN's), or flash2, FlashAttention-2 or another kernel written for Ampere (PyTorch "
    f"SDPA's default), {FLASH2_ON_HOPPER:g}x slower on a Hopper. The bound is the same."
)


def train_cell(table: Table, plan: TrainPlan, framework: str | None = None) -> Efficiency | None:
    """The efficiency cell of a training plan; None with no published runs."""
    if not table:
        return None
    return table.of(published.train_setting(plan.training, framework))


def train_step(eff: Efficiency, plan: TrainPlan) -> float:
    """The expected step of a training plan at its cell's efficiency, seconds."""
    return eff.expected_s(plan.step_s, published.added_s(plan))


def train_band(eff: Efficiency, plan: TrainPlan) -> tuple[float, float | None]:
    """(low, high) seconds of a training plan's step across its cell's held-out error."""
    return eff.band_s(plan.step_s, published.added_s(plan))


def train_ranking(
    table: Table, framework: str | None = None
) -> tuple[Callable[[TrainPlan], float] | None, float]:
    """(expected seconds of a plan, the tie width) to rank a search on: None and 0 (the
    bound, no ties) with no published runs."""
    if not table:
        return None, 0.0
    return (lambda p: train_step(train_cell(table, p, framework), p)), table["train"].tie


def serve_cells(table: Table, s: Serving, framework: str | None = None) -> dict:
    """{"prefill": its cell, "decode": its cell} of a serving setting (None: no runs)."""
    context = s.input_tokens + s.output_tokens
    return {
        regime: table.of(published.serve_setting(regime, s.precisions, context, framework))
        if table
        else None
        for regime in ("prefill", "decode")
    }


def serve_added(p: ServePlan) -> dict[str, float]:
    """{"prefill": TTFT's, "decode": TPOT's} seconds a serving plan adds to its bounds before
    the efficiency divides: kernel boundaries and no-overlap (serve_basis.plan_s)."""
    ttft, tpot = serve_basis.plan_s(p)
    return {"prefill": ttft, "decode": tpot}


def serve_expected(cells: dict, p: ServePlan) -> tuple[float, float]:
    """(TTFT, TPOT) expected seconds of a serving plan: (bound + serve_added) ÷ its regime's
    cell of `cells` (serve_cells); the bound where no published run informs the regime."""
    added = serve_added(p)
    ttft, tpot = (
        bound_s if cells[r] is None else cells[r].expected_s(bound_s, added[r])
        for r, bound_s in (("prefill", p.ttft_s), ("decode", p.tpot_s))
    )
    return ttft, tpot


def serve_judge(cells: dict) -> Callable[[ServePlan], tuple[float, float]] | None:
    """What a serving plan's limits are judged on (ServePlan.within): serve_expected where
    published runs inform a regime, None (the bounds) where none does."""
    if not any(cells.values()):
        return None
    return lambda p: serve_expected(cells, p)


def tpot_limit_on_bound(eff: Efficiency, p: ServePlan, limit_s: float) -> float:
    """Where a TPOT limit falls on the bound's axis for plan `p`: the bound TPOT whose
    expected TPOT is the limit, limit × efficiency − what p adds (≤ 0: none)."""
    return limit_s * eff.value - serve_added(p)["decode"]


def band_text(eff: Efficiency, bound_s: float, added_s: float = 0.0) -> str:
    """'8.86 s–27.2 s, p90 of held-out frameworks', or that the error was never held out."""
    if eff.error_p90 is None:
        return fmt.held_out_error(eff.error())
    return f"{fmt.band(*eff.band_s(bound_s, added_s))}, {BAND}"


def rate_band(
    eff: Efficiency, bound_s: float, work: float, added_s: float = 0.0
) -> tuple[float | None, float]:
    """(low, high) of `work` ÷ the measured seconds across the band: None below where the
    band has no upper end."""
    low_s, high_s = eff.band_s(bound_s, added_s)
    return (None if high_s is None else work / high_s), work / low_s
