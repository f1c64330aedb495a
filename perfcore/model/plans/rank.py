"""Layouts ranked on their expected step, with differences inside the expected error as ties.

A plan's expected step is its bound ÷ an efficiency (perfcore.model.runs gives it; here it
is any function of the plan, the bound itself by default). Sorted by it, the plans fall in
tie groups: each group is every plan within (1 + tie) of the fastest plan not yet grouped,
tie the expected figure's error. Inside a group the model cannot tell the plans apart, so
they are ordered by what a practitioner prefers: fewer collectives leaving the scale-up
domain, then the smallest model-parallel size (tp x pp x cp: Narayanan et al. 2021,
takeaway 2, "a total model-parallel size ... so that the model's parameters and intermediate
metadata fit in GPU memory; data parallelism can be used to scale up training to more GPUs"),
then less communication left to hide behind compute (the bound charges only what
cannot overlap, so TP 8 and DP 8 of a small model tie exactly), then more memory headroom,
then the expected step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from perfcore.model.llm.parallel import per_domain
from perfcore.model.plans.train_plan import TrainPlan

Expected = Callable[[TrainPlan], float]  # expected seconds per step of a plan


def groups(plan: TrainPlan) -> tuple[tuple[str, int, int], ...]:
    """(collective group, ranks, stride) of each parallel degree, as train_comm places them."""
    lay = plan.layout
    return (
        ("tp", lay.tp, 1),
        ("cp", lay.cp, lay.tp),
        ("ep", lay.ep, lay.tp * lay.cp),
        ("dp", lay.dp * lay.cp, lay.tp),
        ("pp", lay.pp, lay.tp * lay.cp * lay.dp),
    )


def cross_node(plan: TrainPlan) -> int:
    """How many of the layout's collective groups leave the scale-up domain (0-5)."""
    device = plan.training.device
    return sum(ranks > per_domain(device, ranks, stride) for _, ranks, stride in groups(plan))


def model_parallel(plan: TrainPlan) -> int:
    """GPUs one replica's model and sequence are split over: tp x pp x cp."""
    lay = plan.layout
    return lay.tp * lay.pp * lay.cp


def headroom(plan: TrainPlan) -> float:
    """Bytes per GPU left free (0 where the capacity is unpublished)."""
    cap = plan.training.device.memory_bytes
    return 0.0 if cap is None else cap - plan.memory_total


def ranked(
    plans: Iterable[TrainPlan], expected: Expected, tie: float
) -> list[tuple[int, float, TrainPlan]]:
    """(tie group, expected seconds, plan), best first: groups by expected step, each group
    by fewer cross-node collectives, the smallest model-parallel size, less traffic to hide,
    more headroom, the expected step."""
    order = sorted(((expected(p), p) for p in plans), key=lambda ep: ep[0])
    out, start, group = [], 0, 0
    while start < len(order):
        edge = order[start][0] * (1 + tie)
        end = start
        while end < len(order) and order[end][0] <= edge:
            end += 1
        members = sorted(
            order[start:end],
            key=lambda ep: (
                cross_node(ep[1]),
                model_parallel(ep[1]),
                ep[1].hidden_s,
                -headroom(ep[1]),
                ep[0],
            ),
        )
        out += [(group, e, p) for e, p in members]
        start, group = end, group + 1
    return out
