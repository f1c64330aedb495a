"""Collectives: what each GPU sends, and how long the link takes to carry it.

A ring all-reduce sends 2(N-1)/N x S bytes per GPU (reduce-scatter then all-gather,
each (N-1)/N x S); this is bandwidth-optimal and what NCCL's ring does. Time is alpha-beta:
a call latency (per link kind) + steps x hop latency + bytes / bandwidth. nccl-tests
vocabulary: algbw = S / t, busbw = algbw x the collective's factor. Link figures marketed as
"both directions" (NVLink, PCIe) are halved under the per-direction convention; the round-figure
hand calculation uses them whole.
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


# Seconds of one small-message collective call, per link kind (nccl-tests, docs/plans.md):
# 8 x H100 HGX, NVLSTree all-reduce of 128 B: about 6 µs (NVIDIA/nccl#1259); two A100
# nodes over HDR InfiniBand, all-reduce of 8 B: 19-20 µs (NVIDIA/nccl-tests#150).
CALL_LATENCY_S = {"scale-up": 6e-6, "scale-out": 20e-6}


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
    """One ring leg over `ranks` GPUs: bytes always, a time where the link is known."""

    name: str
    ranks: int
    bytes_per_gpu: float
    bytes_per_s: float | None
    latency_s: float = 0.0  # per hop of the ring
    call_latency_s: float = 0.0  # once per call (a small message's whole time)
    collective: str = "all-reduce"

    @property
    def steps(self) -> int:
        """Latency hops of the ring (2(N-1) for an all-reduce), none for one rank."""
        return RING_STEPS[self.collective](self.ranks) if self.ranks > 1 else 0

    @property
    def seconds(self) -> float | None:
        """Alpha-beta time; 0 for one rank; None where the link's bandwidth is unpublished."""
        if self.ranks < 2:
            return 0.0
        if self.bytes_per_s is None:
            return None
        hops = alpha_beta_time(self.bytes_per_gpu, self.bytes_per_s, self.latency_s, self.steps)
        return self.call_latency_s + hops

    @property
    def transfer_s(self) -> float | None:
        """The bandwidth term alone, seconds; 0 for one rank; None where unpriced."""
        if self.ranks < 2:
            return 0.0
        return None if self.bytes_per_s is None else self.bytes_per_gpu / self.bytes_per_s


@dataclass(frozen=True)
class HierarchicalAllReduce:
    """A collective in the node over the scale-up link, then across nodes on the 1/g shard."""

    buffer_bytes: float
    intra: Leg
    inter: Leg
    collective: str = "all-reduce"

    @property
    def ranks(self) -> int:
        """GPUs taking part: gpus per node x nodes."""
        return self.intra.ranks * self.inter.ranks

    @property
    def seconds(self) -> float | None:
        """Total time, legs one after the other; None when a leg that runs is unpriced."""
        legs = (self.intra.seconds, self.inter.seconds)
        return None if None in legs else sum(legs)

    @property
    def pipelined_s(self) -> float | None:
        """Time with the legs pipelined, as NCCL runs them: the slower leg's bytes, both
        legs' latencies; None when a leg that runs is unpriced.

        NCCL splits the buffer into chunks and streams them through the in-domain and the
        network steps at once, so a rail-aligned ring reaches a bus bandwidth of
        min(scale-up, domain x NIC) (nccl-tests doc/PERFORMANCE.md's busbw): 8 x H100 over
        400 Gb/s NICs, min(450, 8 x 50) = 400 GB/s, where the legs in turn give about 225.
        """
        legs = (self.intra, self.inter)
        if None in (leg.seconds for leg in legs):
            return None
        latency = sum(leg.seconds - leg.transfer_s for leg in legs)
        return max(leg.transfer_s for leg in legs) + latency

    @property
    def network_share(self) -> float | None:
        """Fraction of the time spent on the scale-out leg; None with no total."""
        total = self.seconds
        return self.inter.seconds / total if total else None

    @property
    def algbw(self) -> float | None:
        """nccl-tests algbw of the whole operation, bytes/s: S / t."""
        total = self.seconds
        return algbw(self.buffer_bytes, total) if total else None

    @property
    def busbw(self) -> float | None:
        """nccl-tests busbw, bytes/s: algbw x the collective's factor (2(n-1)/n all-reduce)."""
        a = self.algbw
        return None if a is None else busbw(a, self.collective, self.ranks)

    @property
    def byte_share(self) -> float | None:
        """Network bytes per GPU over in-node bytes per GPU; None with no in-node leg."""
        if self.intra.ranks < 2:
            return None
        return self.inter.bytes_per_gpu / self.intra.bytes_per_gpu

    @property
    def link_ratio(self) -> float | None:
        """Scale-up bandwidth over scale-out bandwidth; None where either is unpublished."""
        up, out = self.intra.bytes_per_s, self.inter.bytes_per_s
        return up / out if up and out else None


def hierarchical_allreduce(
    buffer_bytes: float,
    gpus_per_node: int,
    nodes: int,
    scaleup_bytes_per_s: float | None,
    scaleout_bytes_per_s: float | None,
    scaleup_latency_s: float = 0.0,
    scaleout_latency_s: float = 0.0,
) -> HierarchicalAllReduce:
    """Ring all-reduce in each node, then a ring all-reduce of the 1/g shard across nodes."""
    g = gpus_per_node
    intra_bytes = ring_allreduce_bytes(buffer_bytes, g)
    intra = Leg("in-node leg", g, intra_bytes, scaleup_bytes_per_s, scaleup_latency_s)
    inter_bytes = ring_allreduce_bytes(buffer_bytes / g, nodes)
    inter = Leg("network leg", nodes, inter_bytes, scaleout_bytes_per_s, scaleout_latency_s)
    return HierarchicalAllReduce(buffer_bytes, intra, inter)


def hierarchical(
    collective: str,
    buffer_bytes: float,
    per_domain: int,
    domains: int,
    up: tuple[float | None, float],
    out: tuple[float | None, float],
) -> HierarchicalAllReduce:
    """`collective` over per_domain x domains GPUs: first in each domain, then across domains.

    up and out are (bytes/s, call latency s) of the scale-up and scale-out links. All-reduce,
    reduce-scatter and all-gather run the second leg on the 1/g shard; an all-to-all sends
    (g-1)/n of the buffer inside the domain and (n-g)/n across it, n = g x domains.
    """
    g, n = per_domain, per_domain * domains
    if collective == "all-to-all":
        inner, outer = buffer_bytes * (g - 1) / n, buffer_bytes * (n - g) / n
        legs = (g, inner), (domains, outer)
    else:
        inner = collective_bytes(collective, buffer_bytes, g)
        legs = (g, inner), (domains, collective_bytes(collective, buffer_bytes / g, domains))
    (ranks_in, bytes_in), (ranks_out, bytes_out) = legs
    intra = Leg("in-domain leg", ranks_in, bytes_in, up[0], 0.0, up[1], collective)
    inter = Leg("network leg", ranks_out, bytes_out, out[0], 0.0, out[1], collective)
    return HierarchicalAllReduce(buffer_bytes, intra, inter, collective)
