"""The Plan page, serving: every TP x batch on the GPUs priced, the best within the TTFT and
TPOT limits, the throughput-latency frontier, memory per GPU and a computed takeaway.

A ServeSetup (the page's controls) and a Model on a Device give a ServeView from
perfcore.model.plans.serve_plan. Every figure is a bound; expected ones follow
explain.plans.expected.serve_expected ((bound + kernel boundaries + no-overlap) ÷ the prefill
or decode efficiency published runs give), and say so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pandas as pd

from perfcore import format as fmt
from perfcore.explain.plans import expected
from perfcore.model.chip.ops import Param
from perfcore.model.chip.specs import Device
from perfcore.model.llm import serving
from perfcore.model.llm.models import Model
from perfcore.model.llm.values import Precisions
from perfcore.model.plans import serve_plan
from perfcore.model.plans.serve_plan import ServePlan, Serving
from perfcore.model.runs.efficiency import Efficiency, Table

SERVE_NUMBERS = (
    Param("gpus", 8, "GPUs in all", hi=2**20),
    Param("input_tokens", 1024, "prompt tokens per request", hi=2**21),
    Param("output_tokens", 256, "generated tokens per request", hi=2**21),
    Param("ttft_ms", 1000, "time-to-first-token limit in ms; 0: none", False, 0, 1e9),
    Param("tpot_ms", 50, "time-per-output-token limit in ms; 0: none", False, 0, 1e9),
    Param("tp", 0, "tensor-parallel GPUs per replica; 0: searched", lo=0, hi=1024),
    Param("batch", 0, "requests in flight per replica; 0: searched", lo=0, hi=2**20),
)
SERVE_BITS = Precisions(8, 8, 8)  # FP8 serving, the page's opening view
LABELS = {
    "gpus": "GPUs",
    "input_tokens": "Input tokens",
    "output_tokens": "Output tokens",
    "ttft_ms": "TTFT limit (ms)",
    "tpot_ms": "TPOT limit (ms)",
    "tp": "TP",
    "batch": "Batch per replica",
}


@dataclass(frozen=True)
class ServeSetup:
    """The serving controls: GPUs, request lengths, limits (s; None: none), bits, fixed TP
    and batch (None: searched)."""

    gpus: int = 8
    input_tokens: int = 1024
    output_tokens: int = 256
    ttft_limit_s: float | None = 1.0
    tpot_limit_s: float | None = 0.05
    precisions: Precisions = Precisions(8, 8, 8)
    tp: int | None = None
    batch: int | None = None
    static: bool = False  # a fixed batch in and out together (serve_plan's static pricing)
    regimes: ClassVar = ("prefill", "decode")  # the published runs' regimes held against

    def setting(self) -> dict:
        """The settings a published run is near this one by (Run field -> value)."""
        return {
            "gpus": self.gpus,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
        }

    def serving(self, model: Model, device: Device) -> Serving:
        """The Serving these controls describe."""
        return Serving(
            model,
            device,
            self.gpus,
            self.input_tokens,
            self.output_tokens,
            self.precisions,
            self.ttft_limit_s,
            self.tpot_limit_s,
            self.static,
        )


def serve_setup(n: dict, precisions: Precisions, static: bool = False) -> ServeSetup:
    """The ServeSetup of the page's numbers: limits in ms (0: none), TP or batch 0: searched;
    a static batch or continuous batching."""
    return ServeSetup(
        n["gpus"],
        n["input_tokens"],
        n["output_tokens"],
        n["ttft_ms"] / 1e3 or None,
        n["tpot_ms"] / 1e3 or None,
        precisions,
        n["tp"] or None,
        n["batch"] or None,
        static,
    )


@dataclass(frozen=True)
class ServeView:
    """Every plan that fits, the best within the limits, the frontier, the efficiencies."""

    setup: ServeSetup
    candidates: tuple[ServePlan, ...]
    best: ServePlan | None
    frontier: tuple[ServePlan, ...]
    prefill: Efficiency | None
    decode: Efficiency | None
    bound_best: ServePlan | None  # the best were the limits judged on the bounds alone

    @property
    def cells(self) -> dict[str, Efficiency | None]:
        """{"prefill": its cell, "decode": its cell} (None: no runs), as serve_cells gives."""
        return {"prefill": self.prefill, "decode": self.decode}

    @property
    def judge(self):
        """What the limits are judged on, as `plan serve` judges them (serve_judge)."""
        return expected.serve_judge(self.cells)

    def expected(self, p: ServePlan) -> tuple[float, float]:
        """(TTFT, TPOT) expected (serve_expected); the bound where no run informs it."""
        return expected.serve_expected(self.cells, p)


def serve_view(model: Model, device: Device, s: ServeSetup, table: Table) -> ServeView:
    """Price every (TP, batch) within the fixed ones (LayoutError for a TP that cannot be);
    the best within the limits judged on the expected latencies where runs inform them, each
    from its setting's cell as `plan serve` takes it."""
    serving = s.serving(model, device)
    candidates = serve_plan.plans(serving, s.tp, s.batch)
    cells = expected.serve_cells(table, serving)
    return ServeView(
        s,
        tuple(candidates),
        serve_plan.best(candidates, expected.serve_judge(cells)),
        tuple(serve_plan.frontier(candidates)),
        cells["prefill"],
        cells["decode"],
        serve_plan.best(candidates),
    )


def plans_table(v: ServeView) -> pd.DataFrame:
    """One row per plan that fits, those within the limits first (judged as the best is),
    each group by output tokens/s: latencies, rates, memory limit, limits, the frontier."""
    judge = v.judge
    plans = sorted(v.candidates, key=lambda p: (not p.within(judge), -p.output_tokens_per_s))
    on = set(v.frontier)
    df = pd.DataFrame(
        {
            "TP": [p.tp for p in plans],
            "replicas": [p.replicas for p in plans],
            "batch": [p.batch for p in plans],
            "TTFT (bound)": [p.ttft_s for p in plans],
            "TPOT (bound)": [p.tpot_s for p in plans],
            "output (bound)": [p.output_tokens_per_s for p in plans],
            "output per GPU (bound)": [p.per_gpu for p in plans],
            "max batch (memory)": [p.max_batch for p in plans],
            "within limits (bound)": [p.within() for p in plans],
            "on the frontier": [p in on for p in plans],
        }
    )
    df.attrs["units"] = {
        "TTFT (bound)": "seconds",
        "TPOT (bound)": "seconds",
        "output (bound)": "tokens_per_s",
        "output per GPU (bound)": "tokens_per_s",
    }
    if v.decode is not None:  # no column of blanks without published runs
        df.insert(
            df.columns.get_loc("TPOT (bound)") + 1,
            "TPOT (expected)",
            [v.expected(p)[1] for p in plans],
        )
        df.attrs["units"]["TPOT (expected)"] = "seconds"
    if judge is not None:
        df.insert(
            df.columns.get_loc("within limits (bound)"),
            "within limits (expected)",
            [p.within(judge) for p in plans],
        )
    return df


def memory_per_gpu(p: ServePlan) -> dict[str, float]:
    """Bytes per GPU of a plan: its share of the weights and of its batch's KV cache."""
    s = p.serving
    ctx, prec = s.input_tokens + s.output_tokens, s.precisions
    return {
        "weights": s.model.params() * prec.w / p.tp,
        "KV cache": serving.kv_bytes(s.model, p.batch, ctx, prec, p.tp),
    }


def best_per_tp(v: ServeView) -> list[ServePlan]:
    """Each TP's plan with the most output tokens/s (within the limits where one is)."""
    out = []
    for tp in sorted({p.tp for p in v.candidates}):
        mine = [p for p in v.candidates if p.tp == tp]
        out.append(serve_plan.best(mine) or max(mine, key=lambda p: p.output_tokens_per_s))
    return out


def memory_bars(v: ServeView) -> list[tuple[str, dict[str, float]]]:
    """(TP and batch, bytes per GPU by part) of each TP's best plan."""
    return [(f"TP {p.tp}, batch {p.batch}", memory_per_gpu(p)) for p in best_per_tp(v)]


def layout_text(p: ServePlan) -> str:
    """'TP 2 × 4 replicas, batch 128'."""
    replicas = f"{p.replicas} replica{'s' if p.replicas > 1 else ''}"
    return f"TP {p.tp} × {replicas}, batch {p.batch}"


# What TPOT and TTFT are under each batching
WHAT_CONTINUOUS = ("a decode step with its share of prefills", "one request's prefill")
WHAT_STATIC = ("a decode step of the batch", "the batch's prompts prefilled in one pass")
STATIC_LABEL = "Static batch"
STATIC_HELP = (
    "A benchmark's fixed batch: its prompts prefilled together, then decoded together to the "
    "last token; TTFT is the batch's prefill and the batch must fit at its last token. Off: "
    "continuous batching at steady state, requests entering as others leave."
)


def serve_metrics(v: ServeView) -> list[tuple[str, str, str, str | None]]:
    """The headline, each (label, value, what it is, its band or None): the best plan's
    expected TPOT and TTFT (with their bands) each before its bound, a static batch's latency
    (expected, then bound), then its rates."""
    p = v.best
    step, first = WHAT_STATIC if v.setup.static else WHAT_CONTINUOUS
    out = [
        ("TPOT (bound)", fmt.seconds(p.tpot_s), step, None),
        ("TTFT (bound)", fmt.seconds(p.ttft_s), first, None),
        ("Output tokens/s (bound)", f"{p.output_tokens_per_s:,.0f}", layout_text(p), None),
        ("Per GPU (bound)", f"{p.per_gpu:,.0f}", "output tokens/s per GPU in use", None),
    ]
    ttft, tpot = v.expected(p)
    added = expected.serve_added(p)
    for r, name, bound_s, shown_s in (
        ("decode", "TPOT", p.tpot_s, tpot),
        ("prefill", "TTFT", p.ttft_s, ttft),
    ):
        eff = v.cells[r]
        if eff is not None:  # expected first, its bound after it
            at = [m[0] for m in out].index(f"{name} (bound)")
            band = expected.band_text(eff, bound_s, added[r])
            out.insert(at, (f"{name} (expected)", fmt.seconds(shown_s), eff.derived_from(), band))
    if v.setup.static:  # what a static benchmark reports: the batch's whole time
        at = [m[0] for m in out].index("Output tokens/s (bound)")
        whole = "its prompts in to its last token out: TTFT + (O − 1) × TPOT"
        rows = [("Batch latency (bound)", fmt.seconds(p.request_s), whole, None)]
        if all(v.cells.values()):
            said = "the expected TTFT + (O − 1) × the expected TPOT"
            rows.insert(
                0, ("Batch latency (expected)", fmt.seconds(p.request(ttft, tpot)), said, None)
            )
        out[at:at] = rows
    if p.joules_per_token is not None:
        out.append(("Energy per token", f"{p.joules_per_token:.3g} J", "every GPU at TDP", None))
    return out
