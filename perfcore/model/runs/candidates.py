"""The expected models compared for training, each scored leave-one-framework-out.

Every candidate is an sample.Exposure: what the expected figure adds to the bound before
the cell's median efficiency divides it (docs/plans.md, "Which expected model"). Fixed ones
take kappa from an accounting (0: the bound's ideal overlap; 1: every collective after the
compute it could hide behind, as the Megatron papers charge it; or only the collectives on
the critical path, sample.CRITICAL_PATH); one estimates kappa from the
runs, inside each fold from the other families' runs only (`estimated_kappa`).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable

from perfcore.model.runs.efficiency import HeldOut, held_out, replace
from perfcore.model.runs.sample import CRITICAL_PATH, EXPOSURE, Exposure, Sample, Setting

QUIET = 0.05  # a run whose hidden communication is under 5 % of its bound: compute alone
LOUD = 0.10  # one whose hidden communication is 10 % or more: it informs kappa
IDEAL = Exposure(kappa=0.0, bf16=False)

FIXED = {
    "bound ÷ η (the ideal overlap)": IDEAL,
    "bound + FP8's BF16 parts, ÷ η": Exposure(kappa=0.0),
    "bound + ½ hidden, ÷ η": Exposure(kappa=0.5, bf16=False),
    "bound + hidden (in series), ÷ η": Exposure(kappa=1.0, bf16=False),
    "bound + ½ hidden + FP8's BF16 parts, ÷ η": Exposure(kappa=0.5),
    "bound + TP's hidden + FP8's BF16 parts, ÷ η": Exposure(parts=frozenset({"tp", "pp_bubble"})),
    "bound + hidden + FP8's BF16 parts, ÷ η": Exposure(),
    "bound + the critical path's hidden (TP, EP, PP sends) + FP8's BF16 parts, ÷ η": Exposure(
        parts=CRITICAL_PATH
    ),
    "bound + hidden + FP8's BF16 parts + memory-bound math, ÷ η": Exposure(elementwise=True),
    "bound + the critical path's hidden + FP8's BF16 parts + memory-bound math, ÷ η (chosen)": (
        EXPOSURE
    ),
}


def _hidden(s: Sample) -> float:
    """Seconds of the run's communication the overlap rule hides."""
    return sum(v for _, v in s.hidden_by)


def estimated_kappa(group: list[Sample], bf16: bool = True) -> Exposure:
    """kappa as a median: each loud run's (measured x η - basis) ÷ hidden, η the median
    efficiency of the quiet runs of its (long context, FP8) cell (its regime's where that
    cell has none); never below 0."""
    base = [replace(s, exposure=Exposure(0.0, bf16)) for s in group]
    quiet: dict[Setting, list[float]] = {}
    for s in base:
        if _hidden(s) < QUIET * s.bound_s:
            for cell in (Setting(s.regime, s.long_context, s.fp8), Setting(s.regime)):
                quiet.setdefault(cell, []).append(s.eta)
    kappas = []
    for s in (s for s in base if _hidden(s) >= LOUD * s.bound_s):
        effs = quiet.get(Setting(s.regime, s.long_context, s.fp8)) or quiet.get(Setting(s.regime))
        if effs:
            kappas.append((s.measured_s * statistics.median(effs) - s.basis_s) / _hidden(s))
    kappa = max(0.0, statistics.median(kappas)) if kappas else 0.0
    return Exposure(kappa, bf16)


ESTIMATED = "bound + κ̂ hidden + FP8's BF16 parts, ÷ η (κ̂ a median per fold)"


def scores(samples: Iterable[Sample], regimes=("train",)) -> dict[str, HeldOut]:
    """Each candidate's leave-one-framework-out figures on `samples` of `regimes`."""
    group = list(samples)
    out = {
        name: held_out([replace(s, exposure=ex) for s in group], regimes)
        for name, ex in FIXED.items()
    }
    fit: Callable[[list[Sample]], Exposure] = estimated_kappa
    out[ESTIMATED] = held_out(group, regimes, fit)
    return out
