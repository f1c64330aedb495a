"""The expected models compared for training and serving, each scored leave-one-framework-out.

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

from perfcore.model.plans import serve_basis
from perfcore.model.runs.efficiency import HeldOut, held_out, replace
from perfcore.model.runs.sample import (
    CRITICAL_PATH,
    EXPOSURE,
    FLASH2_ON_HOPPER,
    Exposure,
    Sample,
    Setting,
    batching,
)

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
    "bound + the critical path's hidden + FP8's BF16 parts + memory-bound math, ÷ η": Exposure(
        parts=CRITICAL_PATH, elementwise=True
    ),
    "… + FlashAttention's backward recomputing QKᵀ (the attention core at 7/6 its FLOPs), ÷ η": (
        Exposure(parts=CRITICAL_PATH, elementwise=True, attention=1 / 6)
    ),
    "… + the attention core at half the GEMMs' rate, ÷ η": Exposure(
        parts=CRITICAL_PATH, elementwise=True, attention=1.0
    ),
    "… + a quarter of the hidden DP, ZeRO and CP traffic (its kernels' SMs), ÷ η": replace(
        EXPOSURE, kernels=False
    ),
    f"… + an Ampere attention kernel's core {FLASH2_ON_HOPPER:g}× slower on a Hopper, ÷ η "
    "(chosen)": EXPOSURE,
}


def _hidden(s: Sample) -> float:
    """Seconds of the run's communication the overlap rule hides."""
    return sum(v for _, v in s.hidden_by)


def estimated_kappa(group: list[Sample], bf16: bool = True) -> Exposure:
    """kappa as a median: each loud run's (measured x η - basis) ÷ hidden, η the median
    efficiency of the quiet runs of its (attention-heavy, FP8) cell (its regime's where that
    cell has none); never below 0."""
    base = [replace(s, exposure=Exposure(0.0, bf16)) for s in group]
    quiet: dict[Setting, list[float]] = {}
    for s in base:
        if _hidden(s) < QUIET * s.bound_s:
            for cell in (Setting(s.regime, s.attention_heavy, s.fp8), Setting(s.regime)):
                quiet.setdefault(cell, []).append(s.eta)
    kappas = []
    for s in (s for s in base if _hidden(s) >= LOUD * s.bound_s):
        cell = Setting(s.regime, s.attention_heavy, s.fp8)
        effs = quiet.get(cell) or quiet.get(Setting(s.regime))
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


# Serving, in the order the changes were made: what a forward pass's kernel boundaries add, by
# the seconds a kernel costs (the runs' launch_s is at serve_basis.KERNEL_S; each candidate
# scales it), whether the cells tell static batches from in-flight batching, and whether the
# ops' no-overlap (serial_s) is added.
LAUNCH_ONLY_S = 1.3e-6  # CUDA graphs' launch alone on an H100 (Spector et al. 2025)
SERVE_FIXED = {
    "bound ÷ η": (0.0, False, False),
    "bound + launches (1.3 µs a kernel), ÷ η": (LAUNCH_ONLY_S, False, False),
    "bound + kernel boundaries (3.3 µs a kernel), ÷ η": (serve_basis.KERNEL_S, False, False),
    "bound ÷ η, cells by batching": (0.0, True, False),
    "bound + kernel boundaries, ÷ η, cells by batching": (serve_basis.KERNEL_S, True, False),
    "bound + kernel boundaries + no-overlap, ÷ η, cells by batching": (
        serve_basis.KERNEL_S,
        True,
        True,
    ),
    "bound + kernel boundaries + no-overlap, ÷ η (chosen)": (serve_basis.KERNEL_S, False, True),
}


def _served(s: Sample, kernel_s: float, by_batching: bool, serial: bool) -> Sample:
    """A serving run at `kernel_s` a kernel, its batching kept in its cell or not, its ops'
    no-overlap added or not."""
    return replace(
        s,
        launch_s=s.launch_s * kernel_s / serve_basis.KERNEL_S,
        batching=batching(s.run) if by_batching else None,
        serial_s=s.serial_s if serial else 0.0,
    )


def serve_scores(samples: Iterable[Sample]) -> dict[str, HeldOut]:
    """Each serving candidate's leave-one-framework-out figures on the prefill and decode runs."""
    group = [s for s in samples if s.regime in ("prefill", "decode")]
    return {
        name: held_out([_served(s, *how) for s in group], ("prefill", "decode"))
        for name, how in SERVE_FIXED.items()
    }
