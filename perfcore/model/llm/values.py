"""The values whole-model pricing passes around: the bits of weights, activations and KV cache
(Precisions), what one pass processes (Pass: a prefill's prompts or a decode step), and one
named op on one GPU with its bytes split by what they are (Op).
"""

from __future__ import annotations

from dataclasses import dataclass

from perfcore.model.chip import ops

BITS = (16, 8, 4)


@dataclass(frozen=True)
class Precisions:
    """Bits per element of weights, activations and KV cache (16, 8 or 4 each)."""

    weights: int = 16
    activations: int = 16
    kv: int = 16

    @property
    def w(self) -> float:
        """Bytes per weight."""
        return self.weights / 8

    @property
    def a(self) -> float:
        """Bytes per activation element."""
        return self.activations / 8

    @property
    def kv_bytes_per_element(self) -> float:
        """Bytes per KV cache element."""
        return self.kv / 8


DEFAULT = Precisions()


@dataclass(frozen=True)
class Op:
    """One named op on one GPU, run `count` times per pass; bytes split by what they are."""

    name: str
    kind: str  # projection, attention, mlp, norm, residual, lm_head, embedding, optimizer
    cost: ops.Cost
    count: float = 1  # runs per pass (layers; a weight when steps are sampled)
    weights: float = 0.0  # bytes of weights read, per run
    kv_read: float = 0.0
    kv_write: float = 0.0
    params: float = 0.0  # weight elements this op holds (whole model, not per GPU)
    output: float = 0.0  # bytes of activation it writes (what training keeps for backward)

    @property
    def activations(self) -> float:
        """Bytes of activations read and written per run."""
        return self.cost.bytes - self.weights - self.kv_read - self.kv_write

    @property
    def flops(self) -> float:
        """FLOPs over all its runs in the pass."""
        return self.cost.flops * self.count

    @property
    def bytes(self) -> float:
        """Bytes over all its runs in the pass."""
        return self.cost.bytes * self.count


@dataclass(frozen=True)
class Pass:
    """What one pass processes: `batch` sequences of `q` new tokens attending to `kv` positions.

    Prefill: q = kv = prompt length, causal. Decode: q = 1, kv = context L. Training: as
    prefill, with no KV cache kept. tp: the tensor-parallel degree the ops are split over.
    """

    batch: int
    q: int
    kv: int
    causal: bool
    cache: bool = True
    fused: bool = True
    tp: int = 1

    @property
    def tokens(self) -> int:
        """New tokens in the pass, all sequences together."""
        return self.batch * self.q


def layer_pass(phase: str, batch: int, context: int, fused: bool = True, tp: int = 1) -> Pass:
    """The Pass of a prefill (batch prompts of `context`) or a decode step at context L."""
    if phase == "prefill":
        return Pass(batch, context, context, causal=True, fused=fused, tp=tp)
    return Pass(batch, 1, context, causal=False, fused=fused, tp=tp)
