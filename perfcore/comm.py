"""Collectives: what each GPU sends, and how long the link takes to carry it.

A ring all-reduce sends 2(N-1)/N x S bytes per GPU (reduce-scatter then all-gather,
each (N-1)/N x S); this is bandwidth-optimal and what NCCL's ring does. Time is
alpha-beta: steps x latency + bytes / bandwidth. nccl-tests vocabulary: algbw = S / t,
busbw = algbw x the collective's factor. Link figures marketed as "both directions"
(NVLink, PCIe) are halved under the per-direction convention; the seed uses them whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Convention = Literal["as-marketed", "per-direction"]
CONVENTIONS: tuple[Convention, ...] = ("as-marketed", "per-direction")

# Bytes each rank sends, as a multiple of the buffer S, for N ranks (nccl-tests' factors).
COLLECTIVES = {
    "all-reduce": lambda n: 2 * (n - 1) / n,
    "reduce-scatter": lambda n: (n - 1) / n,
    "all-gather": lambda n: (n - 1) / n,
    "all-to-all": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
}

# Latency steps of the ring algorithm for N ranks.
RING_STEPS = {
    "all-reduce": lambda n: 2 * (n - 1),
    "reduce-scatter": lambda n: n - 1,
    "all-gather": lambda n: n - 1,
    "all-to-all": lambda n: n - 1,
    "broadcast": lambda n: n - 1,
}


def collective_factor(collective: str, n_ranks: int) -> float:
    """Bytes sent per rank divided by the buffer size; 0 for a single rank."""
    return 0.0 if n_ranks < 2 else COLLECTIVES[collective](n_ranks)


def collective_bytes(collective: str, buffer_bytes: float, n_ranks: int) -> float:
    """Bytes each rank sends for the collective over a buffer of buffer_bytes."""
    return collective_factor(collective, n_ranks) * buffer_bytes


def ring_allreduce_bytes(buffer_bytes: float, n_ranks: int) -> float:
    """Bytes each rank sends in a ring all-reduce: 2(N-1)/N x S."""
    return collective_bytes("all-reduce", buffer_bytes, n_ranks)


def transfer_time(n_bytes: float, bytes_per_s: float) -> float:
    """Seconds to move n_bytes at bytes_per_s (bandwidth term only)."""
    return n_bytes / bytes_per_s


def alpha_beta_time(n_bytes: float, bytes_per_s: float, latency_s: float, steps: int) -> float:
    """Seconds for `steps` latency-bound hops plus the bandwidth term."""
    return steps * latency_s + transfer_time(n_bytes, bytes_per_s)


def link_bytes_per_s(marketed_bytes_per_s: float, convention: Convention) -> float:
    """A both-directions marketed figure as used: whole (as marketed) or halved."""
    if convention not in CONVENTIONS:
        raise ValueError(f"unknown convention {convention!r}; expected one of {CONVENTIONS}")
    return marketed_bytes_per_s if convention == "as-marketed" else marketed_bytes_per_s / 2


def algbw(buffer_bytes: float, seconds: float) -> float:
    """nccl-tests algorithm bandwidth: buffer size over time, bytes/s."""
    return buffer_bytes / seconds


def busbw(algbw_bytes_per_s: float, collective: str, n_ranks: int) -> float:
    """nccl-tests bus bandwidth: algbw times the collective's factor, bytes/s."""
    return algbw_bytes_per_s * collective_factor(collective, n_ranks)


@dataclass(frozen=True)
class Leg:
    """One leg of a hierarchical collective: bytes per GPU over one link."""

    name: str
    bytes_per_gpu: float
    bytes_per_s: float
    latency_s: float = 0.0
    steps: int = 0

    @property
    def seconds(self) -> float:
        """Alpha-beta time of this leg."""
        return alpha_beta_time(self.bytes_per_gpu, self.bytes_per_s, self.latency_s, self.steps)


@dataclass(frozen=True)
class HierarchicalAllReduce:
    """All-reduce in the node over the scale-up link, then across nodes on the 1/g shard."""

    intra: Leg
    inter: Leg | None

    @property
    def seconds(self) -> float:
        """Total time, legs run one after the other."""
        return self.intra.seconds + (self.inter.seconds if self.inter else 0.0)

    @property
    def network_share(self) -> float:
        """Fraction of the time spent on the scale-out leg."""
        return self.inter.seconds / self.seconds if self.inter else 0.0


def hierarchical_allreduce(
    buffer_bytes: float,
    gpus_per_node: int,
    nodes: int,
    scaleup_bytes_per_s: float,
    scaleout_bytes_per_s: float,
    scaleup_latency_s: float = 0.0,
    scaleout_latency_s: float = 0.0,
) -> HierarchicalAllReduce:
    """Ring all-reduce in each node, then a ring all-reduce of the 1/g shard across nodes."""
    g = gpus_per_node
    intra = Leg("scale-up", ring_allreduce_bytes(buffer_bytes, g), scaleup_bytes_per_s,
                scaleup_latency_s, RING_STEPS["all-reduce"](g) if g > 1 else 0)  # fmt: skip
    if nodes < 2:
        return HierarchicalAllReduce(intra, None)
    shard = buffer_bytes / g
    inter = Leg("scale-out", ring_allreduce_bytes(shard, nodes), scaleout_bytes_per_s,
                scaleout_latency_s, RING_STEPS["all-reduce"](nodes))  # fmt: skip
    return HierarchicalAllReduce(intra, inter)
