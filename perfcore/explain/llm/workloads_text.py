"""The Workloads page's words: its headline metrics, the model's caption, the serving curve's
sentence and the takeaway, each computed from the numbers perfcore.explain.llm.workloads prices.
"""

from __future__ import annotations

from perfcore import format as fmt
from perfcore.explain.llm.workloads import Serving, Setup, View, time_by_kind
from perfcore.model.llm import phases, serving
from perfcore.model.llm.models import Model

CONVENTIONS = (
    "Conventions: 2 FLOPs per multiply-add; decode reads every weight and the whole KV "
    "cache once per step; prefill runs lm_head on the last position only; TP all-reduces "
    "use the scale-up link per direction (docs/workloads.md)."
)


def serving_caption(sv: Serving, context: int) -> str:
    """The capacity and the crossover in one sentence."""
    limit = sv.curve[-1].batch if sv.curve else 0
    if not limit:
        return (
            f"No sequence at context {context:,} fits: the weights leave no room for "
            "its KV cache on these GPUs. Raise tensor parallelism or narrow the "
            "weights."
        )
    if sv.crossover_batch is None:
        cross = "decode never turns compute-bound at this context (the KV read grows as fast)"
    elif sv.crossover is None:
        cross = f"decode would turn compute-bound only at batch {sv.crossover_batch:,}, past it"
    else:
        cross = f"decode turns compute-bound from batch {sv.crossover_batch:,}"
    return (
        f"At context {context:,}, {limit:,} sequences' KV caches fit beside the weights; {cross}."
    )


def headline(v: View, expected_s: float | None = None, expected_from: str = "") -> list[tuple]:
    """The main device's metrics (label, text[, help]): the expected time first where there is
    one (`expected_s`, resting on `expected_from`), then the bounds, intensity, rates, memory."""
    expected = []
    if expected_s is not None:
        how = (
            f"{expected_from[:1].upper()}{expected_from[1:]}: each op's roofline time over its "
            "efficiency (the op table's `expected`), summed, plus the communication at its bound."
        )
        expected = [("Time (expected)", fmt.seconds(expected_s), how)]
    metrics = [
        *expected,
        ("Time (bound, sum of ops)", fmt.seconds(v.phase.time_s)),
        ("Single-roofline bound", fmt.seconds(v.phase.time_bound_s)),
        (f"Intensity ({v.phase.bound}-bound)", fmt.intensity(v.phase.intensity, unit="FLOP/B")),
        ("Tokens/s (bound)", f"{v.tokens_per_s:,.0f}"),
        ("Memory per GPU", fmt.capacity(v.memory.total)),
    ]
    if v.generation:
        g = v.generation
        metrics[len(expected) + 3 : len(expected) + 3] = [
            ("Time to first token (bound)", fmt.seconds(g.ttft_s)),
            (
                "Time per output token (bound)",
                f"{fmt.seconds(g.tpot_first_s)} → {fmt.seconds(g.tpot_last_s)}",
            ),
        ]
    return metrics


def model_caption(model: Model) -> str:
    """The model's KV rule and size (all and active parameters), and the precision rule."""
    return (
        f"{model.name}: {model.kv_rule()}; {model.params() / 1e9:.2f}B parameters "
        f"({model.active_params() / 1e9:.2f}B active). Precision: {phases.ROOF_RULE}; the "
        "sidebar's precision is not used here."
    )


def takeaway(model: Model, v: View, s: Setup) -> str:
    """What bounds the phase, what dominates its time, and whether it fits."""
    kinds = time_by_kind(v)
    top = max(kinds, key=kinds.get)
    memory_ops = [pr for pr in v.phase.ops if pr.bound == "memory"]
    share = sum(pr.time_s for pr in memory_ops) / v.phase.time_s
    fit = _fit_sentence(v.memory)
    return (
        f"{model.name} {s.phase} on {v.device.name} is {v.phase.bound}-bound as a whole "
        f"(intensity {fmt.intensity(v.phase.intensity)}, math at {v.phase.precision}); "
        f"{fmt.percent(share)} of its time is in memory-bound ops and {top} takes the most "
        f"({fmt.percent(kinds[top] / v.phase.time_s)}). {fit}"
    )


def _fit_sentence(m: serving.Memory) -> str:
    """'Fits on 1 GPU' / 'Does not fit on 1 GPU: needs N' in words."""
    gpus = f"{m.tp} GPU{'s' if m.tp > 1 else ''}"
    if m.fits is None:
        return "The device publishes no memory capacity, so the fit is unknown."
    if m.fits:
        return f"It fits on {gpus} ({fmt.capacity(m.total)} of {fmt.capacity(m.capacity)} each)."
    return f"It does not fit on {gpus}: it needs at least {m.gpus_needed}."
