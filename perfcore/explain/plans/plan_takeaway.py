"""The Plan page's takeaway in words: which plan wins and why, what the next shape pays, and
why nothing is shown when no plan fits or meets the limits (training and serving)."""

from __future__ import annotations

from perfcore import format as fmt
from perfcore.explain.plans import expected
from perfcore.explain.plans.plan import PARTS, TIE, TrainView, shape
from perfcore.explain.plans.plan_serve import ServeView, best_per_tp, layout_text
from perfcore.model.llm.models import Model
from perfcore.model.plans import train_plan
from perfcore.model.plans.serve_plan import ServePlan
from perfcore.model.plans.train_plan import TrainPlan
from perfcore.model.runs import published
from perfcore.model.runs.efficiency import Efficiency


def takeaway(model: Model, v: TrainView | ServeView) -> str:
    """The takeaway of a training or a serving view."""
    return train_takeaway(v) if isinstance(v, TrainView) else serve_takeaway(model, v)


def nothing_text(v: TrainView | ServeView) -> str:
    """Why no plan is shown, training or serving."""
    return no_fit_text(v) if isinstance(v, TrainView) else no_plan_text(v)


def train_takeaway(v: TrainView) -> str:
    """Which layout wins and why: its step, its costliest overhead, its activations, and
    what the next different shape pays instead."""
    p = v.best
    if p is None:
        return no_fit_text(v)
    t = p.training
    over = {k: s for k, s in p.time_s_by.items() if k != "compute"}
    worst = max(over, key=over.get)
    acts = p.memory_bytes["activations"]
    text = (
        f"{shape(p.layout)} wins ({p.layout.label().split(', ', 1)[1]}): step "
        f"{fmt.seconds(p.step_s)} and MFU {fmt.percent(p.mfu)} at the bound, fastest of "
        f"{v.found.considered:,} layouts priced for {t.gpus:,} GPUs. Its costliest overhead "
        f"is the {PARTS[worst]} ({fmt.seconds(over[worst])}, "
        f"{fmt.percent(over[worst] / p.step_s)} of the step); activations take "
        f"{fmt.capacity(acts)} of its {fmt.capacity(p.memory_total)} per GPU."
    )
    rival = next((q for q in v.found.candidates if shape(q.layout) != shape(p.layout)), None)
    text += " " + _rival_text(v, rival) if rival else ""
    return text + (" " + _train_expected_text(p, v.efficiency) if v.efficiency else "")


def _train_expected_text(p: TrainPlan, eff: Efficiency) -> str:
    """The best layout's figures at the efficiency published training runs reach."""
    days = train_plan.run_totals(p).get("train_days")
    step_e = expected.train_step(eff, p)
    run = f" and {days * step_e / p.step_s:,.1f} days" if days else ""
    band = expected.band_text(eff, p.step_s, published.added_s(p))
    return (
        f"Expected from published training runs ({eff.derived_from()}): a "
        f"{fmt.seconds(step_e)} step ({band}), MFU {fmt.percent(p.mfu * p.step_s / step_e)}{run}."
    )


def _rival_text(v: TrainView, q: TrainPlan) -> str:
    """What the fastest layout of another shape pays: its slowdown on the step the search
    ranks on and the part that grows most (or that it ties: in the best's tie group with
    published runs, within TIE of its bound without), and its memory against the winner's."""
    p, i = v.best, v.found.candidates.index(q)
    grew = {k: q.time_s_by[k] - p.time_s_by[k] for k in p.time_s_by}
    part = max(grew, key=grew.get)
    memory = (
        f"needs {fmt.ratio(q.memory_total / p.memory_total)} the memory per GPU "
        f"({fmt.capacity(q.memory_total)})"
    )
    head = f"The fastest other shape, {shape(q.layout)},"
    if v.table and v.found.ties[i] == 0:
        width = fmt.percent(v.table["train"].tie)
        return f"{head} ties it (expected steps within {width}) and {memory}."
    if not v.table and q.step_s - p.step_s <= TIE * p.step_s:
        return f"{head} ties it (within {fmt.percent(TIE)}) and {memory}."
    slower = v.found.expected_s[i] / v.found.expected_s[0] - 1
    return (
        f"{head} is {fmt.percent(slower)} slower{' expected' if v.table else ''}: it spends "
        f"{fmt.seconds(q.time_s_by[part])} on {PARTS[part]} against "
        f"{fmt.seconds(p.time_s_by[part])} (bounds), and {memory}."
    )


def no_fit_text(v: TrainView) -> str:
    """Why nothing is shown: no layout fits, and what the leanest one needs."""
    lean = v.found.leanest
    cap = lean.training.device.memory_bytes
    return (
        f"No layout fits: {v.found.considered:,} priced, the leanest "
        f"({lean.layout.label()}) needs {fmt.capacity(lean.memory_total)} per GPU of "
        f"{fmt.capacity(cap)}. Add GPUs, shorten the sequence or fix ZeRO 3 and full "
        "recompute."
    )


def serve_takeaway(model: Model, v: ServeView) -> str:
    """Which plan wins, what stops it growing (a limit or memory), the other TPs, and the
    plan the bounds alone would have picked where published runs say it misses a limit."""
    p = v.best
    if p is None:
        return no_plan_text(v)
    bigger = [q for q in v.candidates if q.tp == p.tp and q.batch > p.batch]
    if not bigger:
        stop = f"memory stops it there: {p.max_batch:,} requests' KV cache fit per replica"
    else:
        q = min(bigger, key=lambda q: q.batch)
        stop = f"batch {q.batch} would break the {_broken(v, q)}"
    others = [q for q in best_per_tp(v) if q.tp != p.tp and q.within(v.judge)]
    rival = max(others, key=lambda q: q.output_tokens_per_s, default=None)
    rest = (
        ""
        if rival is None
        else (
            f" The best TP {rival.tp} plan gives {rival.per_gpu:,.0f} per GPU, "
            f"{fmt.percent(1 - rival.per_gpu / p.per_gpu)} less."
        )
    )
    return (
        f"{layout_text(p)} wins for {model.name}: {p.output_tokens_per_s:,.0f} output "
        f"tokens/s ({p.per_gpu:,.0f} per GPU) at a {fmt.seconds(p.tpot_s)} TPOT and a "
        f"{fmt.seconds(p.ttft_s)} TTFT, bounds{_serve_expected_text(v, p)}; {stop}.{rest}"
        f"{_bound_pick_text(v)}"
    )


def _serve_expected_text(v: ServeView, p: ServePlan) -> str:
    """', expected X TPOT and Y TTFT ((bound + kernel boundaries + no-overlap) ÷ e)' where published
    runs inform them."""
    if v.judge is None:
        return ""
    ttft, tpot = v.expected(p)
    effs = [(r, e) for r, e in v.cells.items() if e is not None]
    said = " and ".join(f"{r} {e.value:.2f}" for r, e in reversed(effs))
    return (
        f" (expected {fmt.seconds(tpot)} and {fmt.seconds(ttft)}: (bound + kernel boundaries "
        "+ no-overlap) "
        f"÷ the published {said} efficiency)"
    )


def _bound_pick_text(v: ServeView) -> str:
    """The plan the bounds alone pick, where it is not the best: it misses a limit expected."""
    q = v.bound_best
    if q is None or q == v.best:
        return ""
    return (
        f" On the bounds alone {layout_text(q)} would win with "
        f"{q.output_tokens_per_s:,.0f} tokens/s, but published runs say it would break the "
        f"{_broken(v, q)}."
    )


def _broken(v: ServeView, q: ServePlan) -> str:
    """The limit a plan breaks, judged as the best is, with its figure against the limit."""
    s, (ttft, tpot) = q.serving, v.expected(q)
    kind = "bound" if v.judge is None else "expected"
    if s.tpot_limit_s is not None and tpot > s.tpot_limit_s:
        return f"TPOT limit ({kind} {fmt.seconds(tpot)} > {fmt.seconds(s.tpot_limit_s)})"
    return f"TTFT limit ({kind} {fmt.seconds(ttft)} > {fmt.seconds(s.ttft_limit_s)})"


def no_plan_text(v: ServeView) -> str:
    """Why no plan is shown: none fits in memory, or none meets the limits."""
    if not v.candidates:
        return (
            "No plan fits: the weights leave no room for one request's KV cache on any TP "
            "that divides the GPUs. Add GPUs or narrow the weights."
        )
    fastest = min(v.candidates, key=lambda p: (p.tpot_s, p.ttft_s))
    ttft, tpot = v.expected(fastest)
    kind = "bound" if v.judge is None else "expected"
    return (
        f"No plan meets the limits: the fastest, {layout_text(fastest)}, takes "
        f"{fmt.seconds(tpot)} per output token and {fmt.seconds(ttft)} to the first "
        f"({kind}). Raise a limit, add GPUs or narrow the weights."
    )
