"""Every training layout that fits N GPUs, priced and ranked by step time (the expected one).

Degrees run over divisors only: tp of the GPUs (the heads decide which exist), cp of what
is left (sequences split in 2 x cp chunks of at least CP_MIN_TOKENS), pp of what is left
up to the layers (stages need not be even), dp the rest; ep over the experts dividing
dp x cp; micro-batches over divisors of each replica's sequences up to MICRO_BATCH_MAX;
interleaving up to one layer per chunk (layout.interleaves). Dominated variants are not
priced: a higher recompute mode or ZeRO-2/3 only where the cheaper variants do not fit
(they add compute or communication, nothing else); with dp x cp > 1 the ladder starts at
ZeRO-1 (the bytes of ZeRO-0's all-reduce, Adam's update split over the replicas, less memory).
The ranking (rank.ranked) lists each parallel layout (its degrees) once, at its best variant.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from perfcore.model.plans import train_plan
from perfcore.model.plans.layout import RECOMPUTE, Layout, interleaves, problems
from perfcore.model.plans.rank import Expected, ranked
from perfcore.model.plans.train_plan import Training, TrainPlan

TP_MAX = 128
CP_MAX, CP_MIN_TOKENS = 32, 1024
MICRO_BATCH_MAX = 16
EP_MAX = 256
FIELDS = ("tp", "pp", "dp", "cp", "ep", "zero", "micro_batch", "recompute", "interleave")
DEGREES = FIELDS[:5]  # what makes a parallel layout; the rest are its variants


@dataclass(frozen=True)
class Search:
    """The parallel layouts that fit, best expected first, each once at its best variant; how
    many variants were priced and fit; the leanest misfit."""

    candidates: tuple[TrainPlan, ...]
    considered: int
    leanest: TrainPlan | None  # the smallest memory per GPU among those that do not fit
    expected_s: tuple[float, ...] = ()  # each candidate's expected step (rank.ranked)
    ties: tuple[int, ...] = ()  # each candidate's tie group: 0 for those tied with the best
    fitting: int = 0  # variants priced that fit (every ZeRO, recompute, micro-batch, interleave)

    @property
    def best(self) -> TrainPlan | None:
        """The fastest layout that fits; None when none does."""
        return self.candidates[0] if self.candidates else None


def divisors(n: int, limit: int | None = None) -> list[int]:
    """Divisors of n in increasing order, up to `limit`."""
    top = n if limit is None else min(n, limit)
    return [d for d in range(1, top + 1) if n % d == 0]


def _choices(name: str, fixed: dict, options: list[int]) -> list[int]:
    """options, or the one fixed value when the user gave it (checked later with a reason)."""
    return [fixed[name]] if name in fixed else options


def degrees(t: Training, fixed: dict) -> Iterator[tuple[int, int, int, int]]:
    """(tp, cp, pp, dp) over the divisors of the GPUs."""
    m, n = t.model, t.gpus
    tps = [d for d in divisors(n, TP_MAX) if m.heads % d == 0]
    for tp in _choices("tp", fixed, tps):
        rest = n // tp if n % tp == 0 else 0
        cps = [
            c
            for c in divisors(rest, CP_MAX)
            if c == 1 or t.seq % (2 * c) == 0 and t.seq // c >= CP_MIN_TOKENS
        ]
        for cp in _choices("cp", fixed, cps):
            left = rest // cp if cp and rest % cp == 0 else 0
            pps = divisors(left, m.layers)  # uneven stages too: Llama 3 405B's 126 over 16
            for pp in _choices("pp", fixed, pps):
                dp = left // pp if pp and left % pp == 0 else 0
                yield tp, cp, pp, fixed.get("dp", dp)


def shapes(t: Training, fixed: dict) -> Iterator[tuple[dict, list[int]]]:
    """Every degree, expert and micro-batch choice, with the interleaves to try (ascending)."""
    for tp, cp, pp, dp in degrees(t, fixed):
        if dp < 1 or t.sequences % dp:
            continue
        eps = [e for e in divisors(t.model.experts, EP_MAX) if (dp * cp) % e == 0]
        per_replica = t.sequences // dp
        for ep in _choices("ep", fixed, eps):
            for mb in _choices("micro_batch", fixed, divisors(per_replica, MICRO_BATCH_MAX)):
                vs = [
                    v
                    for v in interleaves(t.model.layers, pp)
                    if v == 1 or (per_replica // mb) % pp == 0
                ]
                shape = {"tp": tp, "cp": cp, "pp": pp, "dp": dp, "ep": ep, "micro_batch": mb}
                yield shape, _choices("interleave", fixed, vs)


def pipelined(t: Training, shape: dict, vs: list[int], fixed: dict) -> Iterator[TrainPlan | Misfit]:
    """The shape's variants at each interleave in `vs`, stopping at the first v whose fastest
    fitting variant is slower than the previous v's (past it more chunks add sends faster
    than they cut the bubble: the bubble shrinks as 1/v, the sends grow as v), or after v = 1
    when nothing fits (interleaving holds more activations, never fewer)."""
    previous, start = None, (0, 0)
    for v in vs:
        plans = list(variants(t, {**shape, "interleave": v}, fixed, start))
        yield from plans
        fitting = [p for p in plans if p.fits is not False]
        if not fitting and v == 1:
            return
        fastest = min((p.step_s for p in fitting), default=None)
        if fastest is not None and previous is not None and fastest > previous:
            return
        if fitting and v == 1:  # a rung that misfits at v = 1 misfits at every v
            start = rung(fitting[0].layout)
        previous = fastest if fastest is not None else previous


def rung(layout: Layout) -> tuple[int, int]:
    """The layout's place on the (recompute, ZeRO) ladder: cheaper rungs sort first."""
    return RECOMPUTE.index(layout.recompute), layout.zero


def variants(
    t: Training, shape: dict, fixed: dict, start: tuple[int, int] = (0, 0)
) -> Iterator[TrainPlan | Misfit]:
    """The shape's undominated (recompute, ZeRO) variants from rung `start` up, priced (a
    Misfit where its memory does not fit), cheapest first."""
    sharded = shape["dp"] * shape["cp"] > 1  # ZeRO-1 then stands in for ZeRO-0: never slower
    for recompute in _choices("recompute", fixed, list(RECOMPUTE)):
        fitted = False
        for zero in _choices("zero", fixed, [1, 2, 3] if sharded else [0, 1, 2, 3]):
            if zero == 3 and fitted and "zero" not in fixed:
                break
            layout = Layout(**shape, zero=zero, recompute=recompute)
            if rung(layout) < start:
                continue
            plan = _priced(t, layout)
            if plan is None:
                return
            fitted = fitted or plan.fits is not False
            yield plan
            if fitted and zero < 2 and "zero" not in fixed:
                break  # the next stage only saves memory
        if fitted and "recompute" not in fixed:
            return


@dataclass(frozen=True)
class Misfit:
    """A layout whose memory per GPU does not fit, priced no further: the search needs only
    that it misfits and by how much (of Mixtral-8x22B's 11,135 variants on 1,024 H100s, 4,554
    misfit: priced memory first, the search takes 0.77-0.84 of its time)."""

    layout: Layout
    memory_total: float  # bytes per GPU, all parts
    fits: bool = False


def _priced(t: Training, layout: Layout) -> TrainPlan | Misfit | None:
    """The plan of a layout the model can take (a Misfit where its memory does not fit);
    None where it cannot."""
    if problems(layout, t.model, t.gpus, t.seq, t.sequences):
        return None
    mem = train_plan.memory(t, layout)
    total = sum(mem.values())
    if train_plan.fits(t, total) is False:
        return Misfit(layout, total)
    return train_plan.price(t, layout, mem)


def search(
    t: Training,
    fixed: dict | None = None,
    top: int | None = None,
    expected: Expected | None = None,
    tie: float = 0.0,
) -> Search:
    """Every parallel layout within `fixed` (field -> value) that fits, ranked by `expected`
    seconds per step (the bound where None), plans within `tie` of each other tied
    (rank.ranked), each layout's degrees (DEGREES) once, at its first-ranked variant."""
    fixed = {k: v for k, v in (fixed or {}).items() if v is not None}
    fits, leanest, considered = [], None, 0
    for shape, vs in shapes(t, fixed):
        for plan in pipelined(t, shape, vs, fixed):
            considered += 1
            if plan.fits is not False:
                fits.append(plan)
            elif leanest is None or plan.memory_total < leanest.memory_total:
                leanest = plan
    rank_on = expected or (lambda p: p.step_s)
    order = ranked(distinct(fits, rank_on, tie), rank_on, tie)[:top]
    return Search(
        tuple(p for _, _, p in order),
        considered,
        None if leanest is None else train_plan.price(t, leanest.layout),
        tuple(e for _, e, _ in order),
        tuple(g for g, _, _ in order),
        len(fits),
    )


def distinct(plans: list[TrainPlan], expected: Expected, tie: float) -> list[TrainPlan]:
    """Each parallel layout's first-ranked variant: ten variants of one TP x PP x DP x CP x EP
    (micro-batches, ZeRO stages) are one choice a practitioner makes, and would crowd the
    other layouts out of any top N. Chosen before the layouts are ranked against each other,
    so that each tie group is formed of the variants shown."""
    variants: dict[tuple[int, ...], list[TrainPlan]] = {}
    for p in plans:
        variants.setdefault(tuple(getattr(p.layout, d) for d in DEGREES), []).append(p)
    return [ranked(group, expected, tie)[0][2] for group in variants.values()]
