"""What a published run's efficiency is conditioned on, and one run priced.

A Setting is a cell: regime × attention-heavy × FP8 × framework family (× batching, static or
in-flight, where a serving candidate splits by it), with its parents (chain). A training step
is attention-heavy where the attention core is ATTENTION_HEAVY or more of its model FLOPs (a
small model at a long sequence: MPT-1B at 8K is 24 %, Llama-3.1-8B at 8K 13 %, Llama-3.1-70B
at 8K 7 %); a serving phase where its context is LONG_CONTEXT_TOKENS or more. A Sample is one
run priced: its bound, its measured time and what an expected figure adds to the bound before
dividing (an Exposure; a serving run's kernel boundaries and no-overlap). Cells, their
efficiencies and the held-out error: perfcore.model.runs.efficiency.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perfcore.model.runs.rows import Run

LONG_CONTEXT_TOKENS = 16384
ATTENTION_HEAVY = 0.10  # a training step's attention share of its model FLOPs (docs/plans.md)
# How a serving engine batches (docs/plans.md, "Serving: batching"): a static batch runs the
# shapes a pricer prices; in-flight batching changes the running batch every step.
BATCHING = {"static": "static batches", "in-flight": "in-flight batching"}


def batching(run: Run) -> str:
    """How a serving run batched (a BATCHING key): its static batch, or in-flight batching."""
    return "static" if run.batch_mode == "static" else "in-flight"


@dataclass(frozen=True)
class Setting:
    """What an efficiency is conditioned on; None: any (the parent cell)."""

    regime: str
    attention_heavy: bool | None = None
    fp8: bool | None = None
    framework: str | None = None
    batching: str | None = None  # serving: "static" or "in-flight" (BATCHING)

    def chain(self) -> tuple[Setting, ...]:
        """This setting and its parents, finest first (framework, FP8, attention-heavy, then
        batching dropped)."""
        r, lc, f8, b = self.regime, self.attention_heavy, self.fp8, self.batching
        steps = (
            self,
            Setting(r, lc, f8, batching=b),
            Setting(r, lc, batching=b),
            Setting(r, batching=b),
            Setting(r),
        )
        return tuple(dict.fromkeys(steps))

    def label(self) -> str:
        """The setting in words, e.g. 'train, attention ≥ 25 % of the FLOPs, FP8, Megatron'."""
        words = [self.regime]
        if self.attention_heavy is not None:
            words.append(_heavy_words(self.regime, self.attention_heavy))
        if self.fp8 is not None:
            words.append("FP8 or narrower" if self.fp8 else "16-bit")
        if self.batching is not None:
            words.append(BATCHING[self.batching])
        return ", ".join(words + ([self.framework] if self.framework else []))


def _heavy_words(regime: str, heavy: bool) -> str:
    """What attention-heavy means in a regime's cell, in words."""
    if regime == "train":
        side = "≥" if heavy else "<"
        return f"attention {side} {ATTENTION_HEAVY:.0%} of the FLOPs".replace("%", " %")
    return "≥ 16K tokens" if heavy else "< 16K tokens"


def setting(
    regime: str,
    heavy: bool,
    bits: int,
    framework: str | None = None,
    batching: str | None = None,
) -> Setting:
    """The cell of a run or a plan: its regime, whether attention weighs (`heavy`: a training
    step's attention share of its model FLOPs, a serving phase's context), narrowest bits,
    framework and (serving) batching.

    Both are the setting's (its model and sequence, a request's input + output), not the
    layout's: CP splits the sequence but leaves each query's keys, and so attention's share of
    the FLOPs, as they were, and its ring passes are priced. A cell chosen by CP degree would
    rank a CP layout on another cell's efficiency than the layout beside it.
    """
    return Setting(regime, heavy, bits <= 8, framework, batching)


@dataclass(frozen=True)
class Exposure:
    """What an expected figure adds to its bound before the efficiency divides it: kappa x the
    communication the bound's overlap rule hides (of `parts`, every part where None), with
    `bf16` the seconds FP8's non-GEMM math adds at the BF16 peak, with `elementwise` the
    seconds of the memory-bound math between the GEMMs (train_cost.elementwise_bytes), and
    `attention` x the attention core's seconds at the peak (1: the core runs at half the rate
    the GEMMs run at; docs/plans.md, "The attention core's rate"), with `kernels` that core
    at its kernel's slowdown (attention_slowdown: an Ampere kernel on a Hopper)."""

    kappa: float = 1.0
    bf16: bool = True
    parts: frozenset | None = None
    elementwise: bool = False
    attention: float = 0.0
    contention: float = 0.0
    kernels: bool = False

    def added_s(
        self,
        hidden_by: tuple[tuple[str, float], ...],
        bf16_s: float,
        elementwise_s: float = 0.0,
        attention_s: float = 0.0,
        slowdown: float = 1.0,
    ) -> float:
        """Seconds added to the bound: kappa x the hidden parts (+ bf16_s with bf16, +
        elementwise_s with elementwise, + contention x the hidden parts not in `parts`), and
        the attention core's (1 + attention) x attention_s, x its kernel's `slowdown` with
        kernels, less the attention_s the bound holds."""
        hidden = sum(v for k, v in hidden_by if self.parts is None or k in self.parts)
        rest = sum(v for k, v in hidden_by if self.parts is not None and k not in self.parts)
        extra = (bf16_s if self.bf16 else 0.0) + (elementwise_s if self.elementwise else 0.0)
        core = (1 + self.attention) * (slowdown if self.kernels else 1.0) - 1
        return self.kappa * hidden + extra + core * attention_s + self.contention * rest


# How much slower than the device's own fused attention a kernel written for Ampere runs the
# attention core on a Hopper: the middle of the 1.5-2.0x by which FlashAttention-3 runs an
# H100's faster than FlashAttention-2 (Shah et al. 2024, arXiv:2407.08608). cuDNN's fused
# attention matches FlashAttention-3 there (631 and 632 TFLOP/s against PyTorch SDPA's
# FlashAttention-2 at 329, pytorch/pytorch#142132). Not applied on Blackwell, where no
# published figure compares them; on Ampere FlashAttention-2 is the generation's own.
FLASH2_ON_HOPPER = 1.75


def attention_slowdown(kernel: str, architecture: str) -> float:
    """The attention core's time with `kernel` (train_cost.ATTENTION_KERNELS) over the device's
    own fused kernel's, on a device of `architecture`: FLASH2_ON_HOPPER for "flash2" on a
    Hopper, else 1."""
    return FLASH2_ON_HOPPER if kernel == "flash2" and architecture == "Hopper" else 1.0


# The collectives whose result the next operation waits on (docs/plans.md, "Which expected
# model"): TP's all-gathers and reduce-scatters (the GEMM beside them needs their output; with
# their share of the bubble), EP's dispatch and combine (the experts need their tokens) and
# PP's sends (the next stage needs the activations). DP and ZeRO (gradient buckets reduced as
# the backward makes them, weights prefetched a layer ahead) and CP's ring (the next KV block
# passed while this one is computed) are issued ahead by design and stay hidden.
CRITICAL_PATH = frozenset({"tp", "ep", "pp_p2p", "pp_bubble"})
# The share of the SMs a collective's kernels take from the compute it overlaps: NCCL runs one
# thread block per channel, up to 32 channels (MAXCHANNELS), 24 % of an H100's 132 SMs and 30 %
# of an A100's 108 (docs/plans.md, "Contention").
CONTENTION = 0.25
# The model chosen: the critical path's collectives, FP8's BF16 parts, the memory-bound math,
# the attention core at half the GEMMs' rate (docs/plans.md, "The attention core's rate") and
# at its kernel's slowdown ("The attention kernel"), and a quarter of the DP, ZeRO and CP
# traffic the compute hides.
EXPOSURE = Exposure(
    parts=CRITICAL_PATH, elementwise=True, attention=1.0, contention=CONTENTION, kernels=True
)


@dataclass(frozen=True)
class Sample:
    """One run priced: its regime, its bound and its measured time (seconds), its setting."""

    run: Run
    regime: str
    source: str
    bound_s: float
    measured_s: float
    attention_heavy: bool = False
    fp8: bool = False
    framework: str | None = None  # the framework family; None: the source stands for it
    case: tuple = ()  # what two runs share to be compared as layouts: model, device, ...
    hidden_by: tuple[tuple[str, float], ...] = ()  # (part, seconds the overlap rule hides)
    bf16_s: float = 0.0  # seconds FP8's non-GEMM math adds at the BF16 peak
    elementwise_s: float = 0.0  # seconds of the memory-bound math between the GEMMs
    attention_s: float = 0.0  # the attention core's seconds at its peak (BF16's in FP8)
    attention_slowdown: float = 1.0  # its kernel's time over the device's own (attention_slowdown)
    exposure: Exposure = EXPOSURE
    launch_s: float = 0.0  # a serving run's seconds at kernel boundaries (plans.serve_basis)
    serial_s: float = 0.0  # and what its ops add with loads and math not overlapped
    batching: str | None = None  # a serving cell split by batching (candidates only)

    @property
    def efficiency(self) -> float:
        """Bound time over measured time (1 = at the bound; above 1 the bound is beaten)."""
        return self.bound_s / self.measured_s

    @property
    def basis_s(self) -> float:
        """Seconds the expected figure divides by the efficiency: bound + Exposure's added
        (+ a serving run's kernel boundaries and no-overlap)."""
        parts = (self.hidden_by, self.bf16_s, self.elementwise_s, self.attention_s)
        added = self.exposure.added_s(*parts, self.attention_slowdown)
        return self.bound_s + added + self.launch_s + self.serial_s

    @property
    def eta(self) -> float:
        """The efficiency expected figures use: basis over measured time."""
        return self.basis_s / self.measured_s

    @property
    def family(self) -> str:
        """What a leave-one-framework-out error holds out together."""
        return self.framework or self.source

    @property
    def setting(self) -> Setting:
        """The finest cell this run informs."""
        return Setting(self.regime, self.attention_heavy, self.fp8, self.framework, self.batching)
