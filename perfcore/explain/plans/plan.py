"""The Plan page, training: every layout that fits searched and ranked, or the one the fixed
fields leave, with where the best one's step goes, its memory per GPU and a computed takeaway.

A TrainSetup (the page's controls) and a Model on a Device give a TrainView: the Search
(perfcore.model.plans.search) within the fixed fields. Every figure is a bound; an expected one is
the bound ÷ the efficiency published runs give (perfcore.model.runs.efficiency) and says so.
Tables are SI numbers with df.attrs["units"]; the UI formats them. Serving: plan_serve.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from perfcore import format as fmt
from perfcore.errors import UserError
from perfcore.explain.chip.refusal import refusal
from perfcore.explain.plans import expected
from perfcore.model.chip.kernels import Curves
from perfcore.model.chip.ops import Param
from perfcore.model.chip.specs import Device
from perfcore.model.llm.models import Model
from perfcore.model.plans import train_plan
from perfcore.model.plans.layout import RECOMPUTE, Layout, LayoutError, problems
from perfcore.model.plans.search import Search, search
from perfcore.model.plans.train_plan import TRAIN_PRECISIONS, Training, TrainPlan
from perfcore.model.runs import kernel_train, published
from perfcore.model.runs.efficiency import Efficiency, Table
from perfcore.model.runs.kernel_train import KernelStep

MODES = ("train", "serve")
CONVENTIONS = (
    "Conventions: MFU counts 6N + attention FLOPs under the causal mask; the DP reduce "
    "overlaps the last micro-batch's backward (the table also shows it not overlapped); "
    "serving TPOT is a decode step at the mean context with its share of prefills (a static "
    "batch's: the step alone, its TTFT the batch's prefill) (docs/plans.md)."
)
PRECISIONS = TRAIN_PRECISIONS  # the training precisions offered
SEARCHED = "search"  # a choice left to the search; a degree of 0 says the same
TRAIN_NUMBERS = (
    Param("gpus", 1024, "GPUs in all", hi=2**20),
    Param("seq", 8192, "tokens per training sequence", hi=2**21),
    Param("global_batch_tokens", 2**24, "tokens per optimizer step over all GPUs", hi=2**40),
    Param("tokens", 15e12, "training tokens in all: days, GPU-hours, energy", False, 1e6, 1e17),
)
READABLE = ("global_batch_tokens", "tokens")  # typed and shown as counts: 16Mi, 15T
DEGREES = tuple(
    Param(name, 0, f"{what}; 0: searched", lo=0, hi=2**20)
    for name, what in (
        ("tp", "tensor-parallel GPUs"),
        ("pp", "pipeline stages"),
        ("dp", "data-parallel replicas"),
        ("cp", "context-parallel GPUs"),
        ("ep", "expert-parallel GPUs"),
        ("micro_batch", "sequences per micro-batch"),
        ("interleave", "model chunks per stage"),
    )
)
ZERO_CHOICES = (SEARCHED, 0, 1, 2, 3)
RECOMPUTE_CHOICES = (SEARCHED, *RECOMPUTE)
LAYOUT_CHOICES = {"zero": ZERO_CHOICES, "recompute": RECOMPUTE_CHOICES}  # field -> options
FIX_LABEL = "Fix layout fields"
FIX_HELP = (
    "Fix TP, PP, DP, CP, EP, micro-batch, interleave, ZeRO or recomputation (0 or 'search': "
    "the search chooses). Off: the search chooses them all."
)
LABELS = {
    "gpus": "GPUs",
    "seq": "Sequence (tokens)",
    "global_batch_tokens": "Batch (tokens)",
    "tokens": "Training tokens",
    "precision": "Training precision",
    "attention_kernel": "Attention kernel",
    "tp": "TP",
    "pp": "PP",
    "dp": "DP",
    "cp": "CP",
    "ep": "EP",
    "micro_batch": "Micro-batch",
    "zero": "ZeRO stage",
    "interleave": "Chunks per stage",
    "recompute": "Recompute",
}
# time_s_by's parts as a reader names them; every collective's is what the compute does not
# hide (docs/plans.md, "What overlaps")
PARTS = {
    "compute": "compute",
    "optimizer": "optimizer",
    "tp": "TP collectives (exposed)",
    "cp": "CP ring (exposed)",
    "ep": "EP all-to-all (exposed)",
    "pp_bubble": "pipeline bubble",
    "pp_p2p": "pipeline sends (exposed)",
    "dp": "DP reduce (exposed)",
}
MEMORY_BARS = 5  # the fastest layouts whose memory the chart sets side by side
TIE = 1e-3  # steps closer than this fraction read as a tie


@dataclass(frozen=True)
class TrainSetup:
    """The training controls: GPUs, sequence, batch, run length, precision, fixed fields."""

    gpus: int = 1024
    seq: int = 8192
    global_batch_tokens: int = 2**24
    tokens: float = 15e12
    precision: str = "bf16"
    attention_kernel: str = "fused"  # train_cost.ATTENTION_KERNELS
    fixed: tuple[tuple[str, object], ...] = ()  # (layout field, value) the user fixed
    curves: Curves | None = None  # this device's measured kernels, where they apply
    regimes: ClassVar = ("train",)  # the published runs' regimes this setup is held against

    def setting(self) -> dict:
        """The settings a published run is near this one by (Run field -> value)."""
        return {"gpus": self.gpus, "seq_len": self.seq}

    def training(self, model: Model, device: Device) -> Training:
        """The Training to search (LayoutError naming the setting that cannot be trained)."""
        return Training(
            model,
            device,
            self.gpus,
            self.seq,
            self.global_batch_tokens,
            self.precision,
            self.tokens,
            attention_kernel=self.attention_kernel,
        )


def fixed_fields(values: dict) -> tuple[tuple[str, object], ...]:
    """The layout fields a user fixed: degrees above 0, choices other than 'search'."""

    def given(field: str, value: object) -> bool:
        return value != SEARCHED if field in ("zero", "recompute") else value != 0

    return tuple((k, v) for k, v in values.items() if given(k, v))


@dataclass(frozen=True)
class TrainView:
    """The search's outcome on one device, and the published runs' efficiencies by cell."""

    found: Search
    table: Table  # empty: no published runs, no expected figure
    kernel: KernelStep | None = None  # the best layout's step from measured kernels

    @property
    def best(self) -> TrainPlan | None:
        """The layout with the fastest expected step (the bound's without runs) that fits."""
        return self.found.best

    @property
    def efficiency(self) -> Efficiency | None:
        """The best layout's cell (what its expected figures rest on); None without runs."""
        return self.cell(self.best) if self.best else None

    def cell(self, p: TrainPlan) -> Efficiency | None:
        """A layout's efficiency cell, as `plan train` picks it; None without runs."""
        return expected.train_cell(self.table, p)


def train_view(model: Model, device: Device, s: TrainSetup, table: Table) -> TrainView:
    """Every layout within the fixed fields, ranked on the expected step as `plan train` ranks
    them (the bound without published runs); LayoutError where none can exist."""
    t = s.training(model, device)
    fixed = dict(s.fixed)
    rank, tie = expected.train_ranking(table)
    found = search(t, fixed, expected=rank, tie=tie)
    if not found.candidates and found.leanest is None and fixed:
        raise _refusal(t, fixed)
    best, curves = found.best, s.curves
    kernel = kernel_train.expected_step(best, curves, table) if best and curves else None
    return TrainView(found, table, kernel)


def _refusal(t: Training, fixed: dict) -> LayoutError:
    """Why no layout with these fixed fields exists, named by its field: the first problem of
    a fixed field in the layout they make with the rest at 1 (dp from the GPUs); else fixed
    degrees that do not divide the GPUs; else the layout's first problem."""
    tp, pp, cp = (fixed.get(k, 1) for k in ("tp", "pp", "cp"))
    dp = fixed.get("dp", max(1, t.gpus // (tp * pp * cp)))
    layout = Layout(**{**fixed, "tp": tp, "pp": pp, "cp": cp, "dp": dp})  # may refuse itself
    found = problems(layout, t.model, t.gpus, t.seq, t.sequences)
    own = [e for e in found if e.field in fixed]  # dp and the GPU count follow from them
    if own or not t.gpus % (tp * pp * cp):
        return (own or found or [LayoutError("gpus", t.gpus, "leave no layout to search")])[0]
    field = next(k for k in ("pp", "tp", "cp") if k in fixed)
    return LayoutError(
        field,
        fixed[field],
        f"does not divide the {t.gpus:,} GPUs (tp x pp x cp = {tp * pp * cp:,})",
    )


def refusal_text(e: UserError) -> str:
    """A refusal in the page's words (markdown): a layout field by its control, value and why."""
    return refusal(e, LABELS)


def model_caption(model: Model, device: Device) -> str:
    """The model and device priced, its size, and what kind of figure the page shows."""
    return (
        f"{model.name} on {device.name}: {model.params() / 1e9:.2f}B parameters. Every figure "
        "is a bound unless it says expected (the bound ÷ an efficiency from published runs); "
        "the sidebar's precision is not used here."
    )


def time_parts(plan: TrainPlan) -> dict[str, float]:
    """Seconds of the step by what it waits on, in the reader's names (zeros left out)."""
    return {PARTS[k]: s for k, s in plan.time_s_by.items() if s > 0}


def memory_bars(v: TrainView) -> list[tuple[str, dict[str, float]]]:
    """(rank and shape, bytes per GPU by part) of the fastest few layouts."""
    return [
        (f"#{i} {shape(p.layout)}", dict(p.memory_bytes))
        for i, p in enumerate(v.found.candidates[:MEMORY_BARS], 1)
    ]


def shape(layout: Layout) -> str:
    """The degrees alone: 'TP 8 × PP 4 × DP 32'."""
    return layout.label().split(",")[0]


def train_metrics(v: TrainView) -> list[tuple[str, str, str, str | None]]:
    """The headline, each (label, value, what it is, its band or None): the best layout's
    expected step and MFU (with their bands) each before its bound, rate, days and memory."""
    p, eff = v.best, v.efficiency
    cap = p.training.device.memory_bytes
    days = train_plan.run_totals(p)["train_days"]
    run = f"{fmt.figures(p.training.tokens)} tokens"
    bounds = [
        ("Step (bound)", fmt.seconds(p.step_s), "the best layout's step, DP overlapped", None),
        ("MFU (bound)", fmt.percent(p.mfu), "6N + attention FLOPs ÷ (peak × GPUs × step)", None),
        ("Tokens/s (bound)", f"{p.tokens_per_s:,.0f}", "all GPUs", None),
        ("Days (bound)", f"{days:,.1f}", f"{run} at the bound's rate", None),
    ]
    memory = (
        "Memory per GPU",
        f"{fmt.capacity(p.memory_total)} of {fmt.capacity(cap)}",
        "weights, gradients, optimizer and activations",
        None,
    )
    step_k, mfu_k = _kernel_rows(v)
    if eff is None:
        return [*step_k, bounds[0], *mfu_k, *bounds[1:], memory]
    said, work = eff.derived_from(), p.mfu * p.step_s
    step_e, added = expected.train_step(eff, p), published.added_s(p)
    mfu = expected.rate_band(eff, p.step_s, work, added)
    return [
        (
            "Step (expected)",
            fmt.seconds(step_e),
            said,
            expected.band_text(eff, p.step_s, added),
        ),
        *step_k,
        bounds[0],
        ("MFU (expected)", fmt.percent(work / step_e), said, _rate_text(mfu, fmt.percent)),
        *mfu_k,
        *bounds[1:3],
        (
            "Days (expected)",
            f"{days * step_e / p.step_s:,.1f}",
            f"{run}; {days:,.1f} days at the bound's rate",
            _days_band(eff, p, days),
        ),
        memory,
    ]


def _kernel_rows(v: TrainView) -> tuple[list, list]:
    """([the step], [the MFU]) the best layout reaches at this device's measured kernels;
    ([], []) without curves."""
    k, p = v.kernel, v.best
    if k is None:
        return [], []
    said = f"expected from {k.derived_from}"
    return (
        [("Step (your kernels)", fmt.seconds(k.seconds), said, None)],
        [("MFU (your kernels)", fmt.percent(p.mfu * p.step_s / k.seconds), said, None)],
    )


def _rate_text(band: tuple[float | None, float], shown) -> str:
    """A rate's band as text, '29.1 %–50.3 %' ('0–50.3 %' where the band has no slow end)."""
    low, high = band
    return f"{'0' if low is None else shown(low)}–{shown(high)}"


def _days_band(eff: Efficiency, p: TrainPlan, days: float) -> str:
    """The run's days across the step's band, '29.6–91.0 days' ('≥ 29.6 days': no upper end)."""
    low_s, high_s = expected.train_band(eff, p)
    high = None if high_s is None else days * high_s / p.step_s
    return fmt.band(days * low_s / p.step_s, high, lambda d: f"{d:,.1f}") + " days"
