"""The workloads page: a whole model on a device, its tables and computed takeaway.

One Setup (the page's controls) and one Model give a View per device: the phase priced
op by op, the memory it needs, and for generate the TTFT/TPOT figures. Tables are SI
numbers with df.attrs["units"]; the UI formats them.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from perfcore.errors import NotPublished
from perfcore.explain.llm import kernel_expected
from perfcore.model.chip.roofline import Estimate, estimate_on
from perfcore.model.chip.specs import Device
from perfcore.model.llm import phases, serving
from perfcore.model.llm.models import Model
from perfcore.model.llm.values import DEFAULT, Precisions, layer_pass
from perfcore.model.llm.workloads import layer_ops

# Op kinds as the "where the time goes" chart groups them.
# Norms, residual adds and the embedding read are all elementwise: "elementwise".
KIND_GROUPS = {
    "projection": "projections",
    "attention": "attention",
    "mlp": "MLP",
    "lm_head": "lm_head",
    "norm": "elementwise",
    "residual": "elementwise",
    "embedding": "elementwise",
    "optimizer": "optimizer",
}
COMMUNICATION = "communication"
CROSSOVER_CONTEXTS = (128, 1024, 8192, 32768)
# The page's charts, one at a time (the metrics above them say the result first): each name is
# the picker's label and the link's value, with the question the chart answers.
LAYER, SERVING, MEMORY, KINDS = "Ops on the roofline", "Serving curve", "Memory", "Time by kind"
CHARTS = {
    LAYER: "which bound each op of one layer meets",
    SERVING: "time per token against tokens/s: where latency turns up",
    MEMORY: "does it fit: weights, KV cache and activations per GPU",
    KINDS: "where the time goes: op groups and communication",
}


# The page opens on serving at a useful size: 16 sequences at a 4k context.
PAGE_DEFAULTS = {"batch": 16, "context": 4096}
LABELS = {
    "batch": "Batch (sequences)",
    "context": "Prompt / context tokens",
    "output_tokens": "Output tokens",
    "tp": "Tensor parallel (GPUs)",
    "dp": "Data parallel (train)",
}


@dataclass(frozen=True)
class Setup:
    """The page's controls: phase, sizes, precisions, attention form, parallelism."""

    phase: str = "decode"
    batch: int = 16
    context: int = 4096
    output_tokens: int = 256
    precisions: Precisions = DEFAULT
    fused: bool = True
    tp: int = 1
    dp: int = 1
    recompute: bool = False


@dataclass(frozen=True)
class View:
    """One model on one device under a Setup: the priced phase, memory, and generation."""

    device: Device
    phase: phases.Phase
    memory: serving.Memory
    tokens: float  # tokens the phase handles: output tokens (decode, generate) or processed
    generation: serving.Generation | None = None

    @property
    def tokens_per_s(self) -> float:
        """Tokens per second over the phase (generate: output tokens over the whole run)."""
        return self.generation.tokens_per_s if self.generation else self.tokens / self.phase.time_s


def view(model: Model, device: Device, s: Setup) -> View:
    """Price the Setup on `device`; NotPublished (naming the missing figure) where it cannot."""
    p, b, ctx = s.precisions, s.batch, s.context
    if s.phase == "train":
        step = phases.train(model, device, b, ctx, p, s.fused, s.tp, s.dp, s.recompute)
        mem = serving.train_memory(model, device, b, ctx, p, s.fused, s.tp, s.recompute)
        return View(device, step, mem, b * ctx)
    if s.phase == "generate":
        g = serving.generate(model, device, b, ctx, s.output_tokens, p, s.fused, s.tp)
        mem = serving.inference_memory(model, device, g.phase, b, ctx + s.output_tokens, p, s.tp)
        return View(device, g.phase, mem, b * s.output_tokens, g)
    run = phases.prefill if s.phase == "prefill" else phases.decode
    step = run(model, device, b, ctx, p, s.fused, s.tp)
    mem = serving.inference_memory(model, device, step, b, ctx, p, s.tp)
    return View(device, step, mem, b * ctx if s.phase == "prefill" else b)


def layer_points(model: Model, device: Device, s: Setup, phase: str) -> list[tuple[str, Estimate]]:
    """(kind, roofline estimate) of one full-attention layer's ops at prefill or decode."""
    precision = phases.math_precision(device, s.precisions)
    if precision is None or device.memory_bytes_per_s is None:
        return []
    one = layer_pass(phase, s.batch, s.context, s.fused, s.tp)
    return [
        (op.kind, estimate_on(device, precision, op.cost))
        for op in layer_ops(model, one, s.precisions)
    ]


def ops_table(v: View, expected: list | None = None) -> pd.DataFrame:
    """One row per named op of the phase: FLOPs, bytes by kind, intensity, time (the bound),
    bound, and where given each op's expected time (kernel_expected) and its efficiency."""
    merged = phases.by_name(v.phase)
    total = v.phase.time_s
    df = pd.DataFrame(
        {
            "op": [pr.op.name for pr in merged],
            "FLOPs": [pr.op.flops for pr in merged],
            "bytes": [pr.op.bytes for pr in merged],
            "weights read": [pr.op.weights * pr.op.count for pr in merged],
            "KV read": [pr.op.kv_read * pr.op.count for pr in merged],
            "intensity": [pr.op.flops / pr.op.bytes for pr in merged],
            "time": [pr.time_s for pr in merged],
            "share of time": [pr.time_s / total for pr in merged],
            "bound": [pr.bound for pr in merged],
        }
    )
    if expected is not None:
        df["expected"] = [e.seconds for e in expected]
        df["efficiency"] = [e.efficiency.value for e in expected]
    df.attrs["units"] = {
        "FLOPs": "flops",
        "bytes": "traffic",
        "weights read": "traffic",
        "KV read": "traffic",
        "intensity": "intensity",
        "time": "seconds",
        "share of time": "percent",
        "expected": "seconds",
        "efficiency": "percent",
    }
    return df


def summary_table(views: list[View]) -> pd.DataFrame:
    """One row per device: both times, intensity, bound, tokens/s, memory and fit."""
    df = pd.DataFrame(
        {
            "device": [v.device.name for v in views],
            "math precision": [v.phase.precision for v in views],
            "time (sum of ops)": [v.phase.time_s for v in views],
            "time (single roofline)": [v.phase.time_bound_s for v in views],
            "communication": [v.phase.comm_s for v in views],
            "intensity": [v.phase.intensity for v in views],
            "bound": [v.phase.bound for v in views],
            "tokens/s": [v.tokens_per_s for v in views],
            "memory per GPU": [v.memory.total for v in views],
            "capacity per GPU": [v.memory.capacity for v in views],
            "GPUs needed": [v.memory.gpus_needed for v in views],
        }
    )
    df.attrs["units"] = {
        "time (sum of ops)": "seconds",
        "time (single roofline)": "seconds",
        "communication": "seconds",
        "intensity": "intensity",
        "memory per GPU": "capacity",
        "capacity per GPU": "capacity",
    }
    return df


def time_by_kind(v: View) -> dict[str, float]:
    """Seconds by op group (projections, attention, MLP, lm_head, ...) and communication."""
    out: dict[str, float] = {}
    for pr in v.phase.ops:
        group = KIND_GROUPS[pr.op.kind]
        out[group] = out.get(group, 0.0) + pr.time_s
    out[COMMUNICATION] = v.phase.comm_s
    return out


def memory_parts(m: serving.Memory) -> dict[str, float]:
    """Bytes on all t GPUs together by what they hold."""
    parts = {
        "weights": m.weights,
        "KV cache": m.kv_cache,
        "activations": m.activations,
        "gradients + optimizer": m.optimizer,
    }
    return {k: v * m.tp for k, v in parts.items()}


def crossover_table(model: Model, device: Device, s: Setup) -> pd.DataFrame:
    """The decode batch that turns compute-bound, per KV precision and context (None: never)."""
    rows = []
    for ctx in CROSSOVER_CONTEXTS:
        row = {"context": ctx}
        for bits in (16, 8, 4):
            p = Precisions(s.precisions.weights, s.precisions.activations, bits)
            row[f"KV {bits}-bit"] = serving.crossover_batch(model, device, ctx, p, s.fused, s.tp)
        rows.append(row)
    df = pd.DataFrame(rows)
    return df.astype({c: "Float64" for c in df.columns if c != "context"})


@dataclass(frozen=True)
class Serving:
    """Decode at the Setup's context from batch 1 to the memory limit, and the crossover."""

    curve: tuple[serving.ServingPoint, ...]
    crossover_batch: int | None
    crossover: serving.ServingPoint | None  # on the curve's axes, when memory allows it


def serving_view(model: Model, device: Device, s: Setup) -> Serving:
    """The throughput-latency curve at context L and where decode turns compute-bound."""
    p, ctx = s.precisions, s.context
    curve = tuple(serving.serving_curve(model, device, ctx, p, s.fused, s.tp))
    b = serving.crossover_batch(model, device, ctx, p, s.fused, s.tp)
    if b is None or not curve or b > curve[-1].batch:
        return Serving(curve, b, None)
    step = phases.decode(model, device, b, ctx, p, s.fused, s.tp)
    return Serving(curve, b, serving.ServingPoint(b, step.time_s, b / step.time_s, step.bound))


@dataclass(frozen=True)
class Page:
    """Everything the workloads page shows for one input, both devices."""

    views: tuple[View, ...]  # the sidebar's device, then the compare device if it prices
    left_out: str | None  # why the compare device is missing, when it is
    serving: tuple[Serving, ...]
    layer: tuple[list, list]  # one layer's (kind, Estimate) at prefill and at decode
    crossover: pd.DataFrame
    summary: pd.DataFrame
    ops: pd.DataFrame  # the sidebar device's ops
    expected_from: str = kernel_expected.PUBLISHED_LABEL  # what the ops' expected times rest on

    @property
    def expected_s(self) -> float | None:
        """The ops' expected times plus the communication at its bound, seconds; None where
        the ops have none (no published runs given)."""
        if "expected" not in self.ops:
            return None
        return float(self.ops["expected"].sum()) + self.views[0].phase.comm_s


def page(
    model: Model, device: Device, compare: Device | None, s: Setup, curves=None, table=None
) -> Page:
    """The page's numbers; NotPublished (naming the missing figure) where `device` cannot price.

    curves: the device's kernel curves (kernel_expected.curves_for), table: the published
    runs' efficiencies; with a table the ops get expected times, from the curves where given.
    A compare device that cannot price is left out, saying why; any other error is a bug and
    propagates (it is not dressed up as a missing figure)."""
    views, left_out = [view(model, device, s)], None
    if compare is not None:
        try:
            views.append(view(model, compare, s))
        except NotPublished as e:
            left_out = f"{compare.name} is left out: {e}."
    serving_views = tuple(serving_view(model, v.device, s) for v in views)
    layer = tuple(layer_points(model, device, s, p) for p in ("prefill", "decode"))
    cross = crossover_table(model, device, s)
    expected = None
    if table is not None:
        expected = kernel_expected.expected_times(views[0].phase, s.precisions.w, curves, table)
    return Page(
        tuple(views),
        left_out,
        serving_views,
        layer,
        cross,
        summary_table(views),
        ops_table(views[0], expected),
        kernel_expected.expected_from(curves),
    )
