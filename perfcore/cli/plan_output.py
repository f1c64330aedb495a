"""What `plan train|serve` prints: a priced layout or serving plan as JSON (SI units), and the
JSON result as text without --json."""

from __future__ import annotations

from perfcore import format as fmt
from perfcore.explain.plans import expected
from perfcore.model.plans import rank, serve_plan, train_plan


def train_dict(plan: train_plan.TrainPlan, table: dict, framework: str | None = None) -> dict:
    """One priced layout as the JSON shows it (SI units; null where a figure is missing)."""
    eff = expected.train_cell(table, plan, framework)
    step_e = expected.train_step(eff, plan) if eff else None
    out = {
        "layout": plan.layout.as_dict(),
        "label": plan.layout.label(),
        "step_expected_s": step_e,
        "step_expected_band_s": list(expected.train_band(eff, plan)) if eff else None,
        "expected_error": eff.error() if eff else None,
        "expected_from": eff.derived_from() if eff else "no published runs loaded",
        "mfu_expected": plan.mfu * plan.step_s / step_e if eff else None,
        "hidden_s_by": plan.hidden_s_by,
        "bf16_s": plan.bf16_s,
        "elementwise_s": plan.elementwise_s,
        "attention_s": plan.attention_s,
        "step_s": plan.step_s,
        "step_no_overlap_s": plan.step_no_overlap_s,
        "mfu": plan.mfu,
        "tokens_per_s": plan.tokens_per_s,
        "time_s_by": plan.time_s_by,
        "dp_s": {"overlapped": plan.time_s_by["dp"], "not_overlapped": plan.dp_s},
        "memory_bytes": plan.memory_bytes,
        "grad_accum": plan.training.grad_accum,
        "memory_total_bytes": plan.memory_total,
        "capacity_bytes": plan.training.device.memory_bytes,
        "fits": plan.fits,
        "cross_node_collectives": rank.cross_node(plan),
    }
    totals = train_plan.run_totals(plan)
    if totals and eff:
        totals["train_days_expected"] = totals["train_days"] * out["step_expected_s"] / plan.step_s
    return {**out, **totals}


def serve_dict(p: serve_plan.ServePlan, cells: dict) -> dict:
    """One serving plan as the JSON shows it, with its expected figures where runs inform them
    (expected.serve_expected: the rule the limits are judged on)."""
    ttft, tpot = cells["ttft"], cells["tpot"]
    both = expected.serve_expected({"prefill": ttft, "decode": tpot}, p)
    added = expected.serve_added(p)
    ttft_e, tpot_e = (e if c else None for e, c in zip(both, (ttft, tpot), strict=True))
    rate_e = None if tpot_e is None else p.rate(*both)
    request_e = None if tpot_e is None else p.request(*both)
    return {
        "layout": {"tp": p.tp, "replicas": p.replicas, "batch": p.batch},
        "ttft_s_expected": ttft_e,
        "tpot_s_expected": tpot_e,
        "output_tokens_per_s_expected": rate_e,
        "per_gpu_expected": None if rate_e is None else rate_e / (p.tp * p.replicas),
        "expected_band_s": {
            "ttft": list(ttft.band_s(p.ttft_s, added["prefill"])) if ttft else None,
            "tpot": list(tpot.band_s(p.tpot_s, added["decode"])) if tpot else None,
        },
        "expected_added_s": {"ttft": added["prefill"], "tpot": added["decode"]},
        "expected_error": {k: e.error() if e else None for k, e in cells.items()},
        "expected_from": {
            k: e.derived_from() if e else "no published runs loaded" for k, e in cells.items()
        },
        "request_s_expected": request_e,
        "ttft_s": p.ttft_s,
        "tpot_s": p.tpot_s,
        "request_s": p.request_s,
        "output_tokens_per_s": p.output_tokens_per_s,
        "per_gpu": p.per_gpu,
        "max_batch": p.max_batch,
        "fits": p.fits,
        "joules_per_token": p.joules_per_token,
    }


def render_train(r: dict) -> str:
    """One priced layout as aligned lines: the expected figure first, then the bound."""
    rows = [("layout", r["label"])]
    if r["step_expected_s"] is not None:
        days = r.get("train_days_expected")
        rows += [
            (
                "expected",
                f"step {fmt.seconds(r['step_expected_s'])} "
                f"({fmt.band(*r['step_expected_band_s'])}, p90 of held-out frameworks), "
                f"MFU {r['mfu_expected']:.1%}" + (f", {days:,.1f} days" if days else ""),
            ),
            ("error", fmt.held_out_error(r["expected_error"])),
            ("from", r["expected_from"]),
        ]
    days = f", {r['train_days']:,.1f} days" if "train_days" in r else ""
    rows += [
        ("bound", f"step {fmt.seconds(r['step_s'])}, MFU {r['mfu']:.1%}{days} (bound)"),
        ("tokens/s", f"{r['tokens_per_s']:,.0f} (bound)"),
        (
            "memory",
            f"{fmt.capacity(r['memory_total_bytes'])} per GPU of "
            f"{fmt.capacity(r['capacity_bytes'])} ({r['grad_accum']} main gradients); "
            f"fits: {r['fits']}",
        ),
        *((k, _part(v, r["hidden_s_by"].get(k, 0.0))) for k, v in r["time_s_by"].items()),
    ]
    if "gpu_hours" in r:
        rows.append(("GPU-hours", f"{r['gpu_hours']:,.0f} (bound)"))
    return "\n".join(f"{k:<10} {v}" for k, v in rows)


def _part(exposed_s: float, hidden_s: float) -> str:
    """A part of the bound's step: the seconds it adds, and those of it the compute hides (a
    CP ring behind attention adds none though it runs: "none" alone would read as no CP)."""
    said = fmt.seconds(exposed_s) if exposed_s else "none"
    return f"{said} exposed, {fmt.seconds(hidden_s)} hidden behind compute" if hidden_s else said


def render_search(r: dict) -> str:
    """The ranked layouts, one line each (expected, then the bound), then the best in full."""
    if r["best"] is None:
        lean = r["leanest_misfit"]
        need = fmt.capacity(lean["memory_total_bytes"]) if lean else "?"
        return f"no layout fits ({r['considered']:,} looked at; the leanest needs {need} per GPU)"
    lines = [
        f"{fmt.seconds(c['step_expected_s'] or c['step_s']):>10}  "
        f"(bound {fmt.seconds(c['step_s'])})  tie {c['tie_group']:<3} {c['label']}"
        for c in r["candidates"]
    ]
    ties = (
        f"ranked on the {r['ranked_on']} step; within {r['tie_within']:.0%} of a group's "
        "fastest is a tie (same group), ordered by fewer cross-node collectives, then the "
        "smallest model-parallel size (TP × PP × CP), less communication to hide, more memory "
        "headroom"
    )
    return "\n".join(
        [f"{r['considered']:,} layouts priced; {ties}:", *lines, "best:", render_train(r["best"])]
    )


def render_serve(r: dict) -> str:
    """The best serving plan as aligned lines."""
    if r["layout"] is None:
        return f"{r['reason']} ({r['considered']} plans looked at)"
    lay = r["layout"]
    rows = [
        (
            "layout",
            f"TP {lay['tp']} × {lay['replicas']} replicas, batch {lay['batch']} "
            f"({r['batching']} batching)",
        ),
        ("TTFT", f"{fmt.seconds(r['ttft_s'])} (bound)"),
        ("TPOT", f"{fmt.seconds(r['tpot_s'])} (bound)"),
        ("request", f"{fmt.seconds(r['request_s'])}, its prompt in to its last token out (bound)"),
        ("tokens/s", f"{r['output_tokens_per_s']:,.0f} ({r['per_gpu']:,.0f} per GPU; bound)"),
        ("max batch", f"{r['max_batch']:,}"),
    ]
    limits = [
        f"{k} ≤ {fmt.seconds(r[f'{k.lower()}_limit_s'])}"
        for k in ("TTFT", "TPOT")
        if r[f"{k.lower()}_limit_s"] is not None
    ]
    if limits:
        judged = f"judged on the {r['limits_judged_on']} latencies"
        rows.append(("limits", f"{', '.join(limits)}, {judged}"))
    if r["tpot_s_expected"] is not None:
        band = r["expected_band_s"]
        rows = rows[:1] + [
            (
                "expected",
                f"TTFT {fmt.seconds(r['ttft_s_expected'])} ({fmt.band(*band['ttft'])}), TPOT "
                f"{fmt.seconds(r['tpot_s_expected'])} ({fmt.band(*band['tpot'])}), request "
                f"{fmt.seconds(r['request_s_expected'])}, "
                f"{r['output_tokens_per_s_expected']:,.0f} tokens/s "
                f"({r['per_gpu_expected']:,.0f} per GPU); ranges: p90 of held-out frameworks",
            ),
            ("TTFT error", fmt.held_out_error(r["expected_error"]["ttft"])),
            ("TPOT error", fmt.held_out_error(r["expected_error"]["tpot"])),
            ("TTFT from", r["expected_from"]["ttft"]),
            ("TPOT from", r["expected_from"]["tpot"]),
            *rows[1:],
        ]
    return "\n".join(f"{k:<10} {v}" for k, v in rows)
