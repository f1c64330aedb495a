"""A prediction held against its profile, as rows, lines and one JSON-ready summary.

Each op: predicted (inside the step, sharing the cores with the ops beside it, where the step
was scheduled; its time alone beside it) and measured time per step (seconds: its fastest and
its median profiled step), the signed error against the fastest (what the curves' fastest calls
predict) and against the median, and what the prediction was derived from; the step:
predicted (its ops scheduled, fresh pages, dispatch) against the untraced wall and the traced
one; the fresh pages a step took (its minor page faults) beside those it priced. Ops that
miss by more than the curves' own spread are named (`missed`).
"""

from __future__ import annotations

from perfcore import format as fmt
from perfcore.measure.clock import faults
from perfcore.measure.profile.predict.versus import Versus

LEEWAY_BYTES = 2**20  # faults beyond the priced fresh pages worth naming: a MiB of pages


def versus_rows(held: Versus) -> list[dict]:
    """One row per matched op, slowest measured first: SI seconds and a signed error."""
    return [
        {
            "op": o.name,
            "category": o.category,
            "kernel": o.kernel,
            "predicted_s": o.predicted_s,
            "alone_s": o.alone_s,
            "measured_s": o.measured_s,
            "fastest_s": o.fastest_s,
            "error": o.error,
            "median_step_error": o.median_step_error,
            "source": o.source,
            "derived_from": o.derived_from,
        }
        for o in sorted(held.ops, key=lambda o: -o.measured_s)
    ]


def missed(held: Versus, spread: float) -> list[str]:
    """The ops whose |error| exceeds the curves' own spread (a fraction), slowest first."""
    return [r["op"] for r in versus_rows(held) if abs(r["error"]) > spread]


def summary(held: Versus, spread: float) -> dict:
    """The step's totals, the matmul ops' median error, every op row and the ops missed."""
    return {
        "step": {
            "predicted_s": held.predicted_step_s,
            "wall_s": held.wall_s,
            "wall_median_s": held.wall_median_s,
            "traced_wall_s": held.traced_wall_s,
            "error": held.step_error,
        },
        "matmul_median_error": held.median_error(),
        "matmul_median_error_of_median_steps": held.median_error(of_median=True),
        "curves_spread": spread,
        "ops": versus_rows(held),
        "missed": missed(held, spread),
        "unmatched": list(held.unmatched),
        "unmatched_s": held.unmatched_s,
        "counted": list(held.counted),
        "counted_s": held.counted_s,
        "unended": list(held.unended),
        "fresh_pages": {
            "predicted_bytes": held.fresh_bytes,
            "measured_faults": held.faults,
            "measured_bytes": None if held.faults is None else held.faults * faults.page_bytes(),
        },
    }


def _median(held: Versus) -> str:
    """`; median 1.2 ms` where the median wall is known, else nothing."""
    m = held.wall_median_s
    return "" if m is None else f"; median {fmt.seconds(m)}"


def matmul_errors(held: Versus) -> str:
    """The matmul ops' median |error| against each op's fastest step and its median step."""
    fastest, median = held.median_error(), held.median_error(of_median=True)
    if fastest is None or median is None:
        return "no matmul ops"
    return (
        f"matmul ops' median |error| {fmt.percent(fastest)} against each op's fastest step "
        f"({fmt.percent(median)} against its median step)"
    )


def lines(held: Versus, top: int) -> list[str]:
    """The step predicted beside measured, then the slowest `top` ops, one line each."""
    head = [
        f"step: predicted {fmt.seconds(held.predicted_step_s)}, measured wall "
        f"{fmt.seconds(held.wall_s)} (untraced, fastest call{_median(held)}), error "
        f"{held.step_error:+.0%}; {matmul_errors(held)}",
        f"{'op':<30} {'kernel':<18} {'predicted':>10} {'fastest':>10} {'median':>10} "
        f"{'error':>7}  from",
    ]
    rows = [
        f"{r['op']:<30.30} {r['kernel']:<18} {fmt.seconds(r['predicted_s']):>10} "
        f"{fmt.seconds(r['fastest_s']):>10} {fmt.seconds(r['measured_s']):>10} "
        f"{r['error']:>+7.0%}  {r['derived_from']}"
        for r in versus_rows(held)[:top]
    ]
    tails = unended_lines(held) + unmatched_lines(held) + counted_lines(held) + fault_lines(held)
    return head + rows + tails


def fault_lines(held: Versus) -> list[str]:
    """The fresh pages a step took, measured (its minor page faults), beside those the
    prediction priced; where it took more than LEEWAY_BYTES beyond them, what the rest is;
    none where faults were not counted."""
    if held.faults is None:
        return []
    taken = held.faults * faults.page_bytes()
    counted = f"{held.faults:,.0f}" if held.faults >= 100 else f"{held.faults:.3g}"
    line = (
        f"fresh pages a step: {counted} minor page faults measured "
        f"({fmt.capacity(taken)}), {fmt.capacity(held.fresh_bytes)} predicted"
    )
    if taken > held.fresh_bytes + LEEWAY_BYTES:
        line += (
            ": the rest is heap memory malloc handed back to the kernel between steps and "
            "took again, which depends on what this process ran before; no prediction "
            "prices it"
        )
    return [line]


def counted_lines(held: Versus) -> list[str]:
    """The ops of loops whose trip count was unknown before the run: priced once a step, held
    at the runs the profile counted, and the step at those counts; none when there are none."""
    if not held.counted:
        return []
    names = _listed(held.counted)
    at = held.predicted_step_s + held.counted_s
    return [
        f"priced once a step before it ran ({len(held.counted)}, in loops whose trip count "
        f"depends on the data): {names}; held at the runs a step the profile counted, they "
        f"add {fmt.seconds(held.counted_s)}: the step at those counts about {fmt.seconds(at)} "
        f"({at / held.wall_s - 1:+.0%} against the wall; those ops taken in series)"
    ]


def unmatched_lines(held: Versus) -> list[str]:
    """The profiled ops with no prediction, named with their measured time: the predicted step
    leaves them out; none when there are none."""
    if not held.unmatched:
        return []
    names = _listed(held.unmatched)
    share = held.unmatched_s / held.wall_s if held.wall_s else 0.0
    return [
        f"not predicted ({len(held.unmatched)}, {fmt.seconds(held.unmatched_s)} a step "
        f"measured, {fmt.percent(share)} of the step's wall): {names}: no prediction (a "
        "custom kernel XLA has no cost model for, or no roof), so the predicted step leaves "
        "them out"
    ]


def unended_lines(held: Versus) -> list[str]:
    """The ops not held because their end was not traced, named; none when there are none."""
    if not held.unended:
        return []
    names = ", ".join(held.unended)
    return [
        f"not held ({len(held.unended)}): {names}: XLA:CPU handed each to its thread pool and "
        "no op of the step reads its result, so its trace ends at the hand-off"
    ]


def _listed(names: tuple[str, ...], shown: int = 8) -> str:
    """The first `shown` names, comma-separated, `and more` after them where there are more."""
    return ", ".join(names[:shown]) + (" and more" if len(names) > shown else "")
