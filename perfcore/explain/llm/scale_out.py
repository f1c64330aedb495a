"""The scale-out page: a hierarchical all-reduce of a model's gradients, leg by leg.

In each node a ring all-reduce over the scale-up link sends 2(g-1)/g x S per GPU; across
nodes a ring all-reduce of the 1/g shard over the network sends 2(N-1)/N x S/g per GPU.
Each leg is alpha-beta timed; a leg whose link the device does not publish keeps its
bytes and has no time ("not published"), never a zero.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd

from perfcore import format as fmt
from perfcore.model.chip.comm import (
    Convention,
    HierarchicalAllReduce,
    hierarchical_allreduce,
    link_bytes_per_s,
)
from perfcore.model.chip.precision import BYTES_PER_ELEMENT
from perfcore.model.chip.specs import Device

# Node counts the chart and the table are drawn at: the table's powers of two, with
# points between them so the 2(N-1)/N curve stays smooth on a log axis.
LADDER = (1, 2, 4, 8, 16, 32, 64)
NODE_COUNTS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)
UNITS = {
    "in-node bytes per GPU": "traffic",
    "in-node time": "seconds",
    "network bytes per GPU": "traffic",
    "network time": "seconds",
    "all-reduce time": "seconds",
    "network share of time": "percent",
    "algbw": "bytes_per_s",
    "busbw": "bytes_per_s",
}
CONVENTION_NOTE = {
    "as-marketed": (
        "**As marketed**: the scale-up figure is used whole, as vendors quote it, although "
        "vendors count both directions at once, so the in-node leg comes out 2x optimistic. "
        "The scale-out figure is one direction either way."
    ),
    "per-direction": (
        "**Per direction** (physically right): a ring sends and receives at the same time, so "
        "each GPU sends at half the both-directions scale-up figure. The scale-out figure is "
        "already one direction and is kept."
    ),
}
ALPHA_LABEL = "Count the latency per hop (alpha)"
ALPHA_LABELS = ("Scale-up µs per hop (~2 µs NVLink)", "Network µs per hop (~5 µs)")
ALPHA_HELP = (
    "Estimate, not a published spec: about 2 µs per hop over NVLink-class links and about "
    "5 µs over the network. 0 counts the bandwidth term only."
)
# No \underbrace: the browser lays the formula out again on every rerun, and two stretched
# braces took 14 ms of a sidebar change's 70 (bench.pages); the caption names the legs.
FORMULA = (
    r"t = 2\tfrac{g-1}{g}\,\tfrac{S}{\beta_{\text{up}}} + 2(g-1)\,\alpha_{\text{up}}"
    r" + 2\tfrac{N-1}{N}\,\tfrac{S/g}{\beta_{\text{out}}} + 2(N-1)\,\alpha_{\text{out}}"
)
FORMULA_TERMS = (
    "The first two terms are the ring inside a node (g GPUs over the scale-up links); the last "
    "two send each GPU's shard of S/g across the N nodes (the scale-out links). As nccl-tests "
    "reports them: algbw = S / t, and busbw = algbw · 2(n − 1)/n over all n = g·N GPUs."
)


@dataclass(frozen=True)
class Setup:
    """The all-reduce asked for: `params` gradients at `precision` over gpus_per_node x nodes."""

    params: float
    precision: str
    gpus_per_node: int
    nodes: int
    convention: Convention = "per-direction"
    scaleup_latency_s: float = 0.0
    scaleout_latency_s: float = 0.0

    @property
    def buffer_bytes(self) -> float:
        """Gradient buffer S, bytes: params x bytes per element."""
        return self.params * BYTES_PER_ELEMENT[self.precision]

    @property
    def ranks(self) -> int:
        """GPUs taking part: gpus_per_node x nodes."""
        return self.gpus_per_node * self.nodes


def setup(
    params: float,
    precision: str,
    gpus_per_node: int,
    nodes: int,
    convention: Convention = "per-direction",
    scaleup_alpha_us: float = 0.0,
    scaleout_alpha_us: float = 0.0,
) -> Setup:
    """A Setup from the page's inputs; the per-hop latencies come in microseconds."""
    alphas_s = (scaleup_alpha_us * 1e-6, scaleout_alpha_us * 1e-6)
    return Setup(params, precision, int(gpus_per_node), int(nodes), convention, *alphas_s)


@dataclass(frozen=True)
class AllReduce(HierarchicalAllReduce):
    """The hierarchical all-reduce of one Setup on one device (comm's model, with its inputs)."""

    device: Device | None = None
    setup: Setup | None = None


def scaleup_used(device: Device, convention: Convention) -> float | None:
    """The scale-up bandwidth the model uses, bytes/s: marketed, or halved per direction."""
    marketed = device.scaleup_bytes_per_s
    return None if marketed is None else link_bytes_per_s(marketed, convention)


def allreduce(device: Device, s: Setup) -> AllReduce:
    """Ring all-reduce in each node, then a ring all-reduce of the 1/g shard across nodes."""
    up, out = scaleup_used(device, s.convention), device.scaleout_bytes_per_s
    latencies = (s.scaleup_latency_s, s.scaleout_latency_s)
    m = hierarchical_allreduce(s.buffer_bytes, s.gpus_per_node, s.nodes, up, out, *latencies)
    return AllReduce(m.buffer_bytes, m.intra, m.inter, device=device, setup=s)


def sweep(device: Device | None, s: Setup) -> list[AllReduce]:
    """The all-reduce at each of NODE_COUNTS and at s.nodes, in node order; [] for no device."""
    if device is None:
        return []
    counts = sorted(set(NODE_COUNTS) | {s.nodes})
    return [allreduce(device, dataclasses.replace(s, nodes=n)) for n in counts]


def _ladder_rows(rows: list[AllReduce], nodes: int) -> list[AllReduce]:
    """The rows at the table's node counts and the chosen one, in node order."""
    wanted = set(LADDER) | {nodes}
    return [r for r in rows if r.setup.nodes in wanted]


def table(rows: list[AllReduce], nodes: int) -> pd.DataFrame:
    """The all-reduce at 1, 2, 4, ... 64 nodes and the chosen count, SI numbers (NaN where a
    link is not published); attrs["units"] names their kinds."""
    shown = _ladder_rows(rows, nodes)
    df = pd.DataFrame(
        {
            "nodes": [r.setup.nodes for r in shown],
            "GPUs": [r.setup.ranks for r in shown],
            "in-node bytes per GPU": [r.intra.bytes_per_gpu for r in shown],
            "in-node time": [r.intra.seconds for r in shown],
            "network bytes per GPU": [r.inter.bytes_per_gpu for r in shown],
            "network time": [r.inter.seconds for r in shown],
            "all-reduce time": [r.seconds for r in shown],
            "network share of time": [r.network_share for r in shown],
            "algbw": [r.algbw for r in shown],
            "busbw": [r.busbw for r in shown],
        }
    ).astype({c: float for c in UNITS})
    df.attrs["units"] = UNITS
    return df


def _missing(ar: AllReduce) -> list[str]:
    """The links a running leg needs that the device does not publish."""
    legs = (("scale-up", ar.intra), ("scale-out (network)", ar.inter))
    return [name for name, leg in legs if leg.ranks > 1 and leg.bytes_per_s is None]


def _unpriced(ar: AllReduce, missing: list[str]) -> str:
    """Takeaway when a needed link is not published: what is counted and what is not."""
    priced = [leg for leg in (ar.intra, ar.inter) if leg.ranks > 1 and leg.bytes_per_s]
    told = "; ".join(f"the {leg.name} takes {fmt.seconds(leg.seconds)}" for leg in priced)
    return (
        f"{ar.device.name} publishes no {' or '.join(missing)} link figure, so the total is not "
        f"published: the bytes are still {fmt.traffic(ar.intra.bytes_per_gpu)} per GPU in the "
        f"node and {fmt.traffic(ar.inter.bytes_per_gpu)} across nodes"
        + (f"; {told}." if told else ".")
    )


def _one_node(ar: AllReduce) -> str:
    """Takeaway on one node: everything stays on the scale-up link."""
    ratio = ar.link_ratio
    more = (
        f"A second node adds a network leg over a link {fmt.ratio(ratio)} slower."
        if ratio
        else f"{ar.device.name} publishes no network figure to price a second node."
    )
    return (
        f"On one node the all-reduce never leaves the scale-up link: "
        f"{fmt.traffic(ar.intra.bytes_per_gpu)} per GPU in {fmt.seconds(ar.seconds)}. {more}"
    )


def _network(ar: AllReduce) -> str:
    """Takeaway across nodes: the network leg's share of bytes against its share of time."""
    n, share = ar.setup.nodes, fmt.percent(ar.network_share, 2)
    if ar.byte_share is None:
        return (
            f"With one GPU per node every byte crosses the network: "
            f"{fmt.traffic(ar.inter.bytes_per_gpu)} per GPU in {fmt.seconds(ar.seconds)}."
        )
    most = "the majority" if ar.network_share > 0.5 else "a minority"
    return (
        f"At {n} nodes the network leg carries {fmt.percent(ar.byte_share, 2)} of the bytes the "
        f"in-node leg does, yet takes {share} of the time ({most}), because the scale-out link "
        f"is {fmt.ratio(ar.link_ratio)} slower than the scale-up link ({ar.setup.convention}). "
        f"Inside a node the GPUs are nearly one machine; across nodes they post parcels."
    )


def takeaway(ar: AllReduce) -> str:
    """The page's 'read this', computed from the current all-reduce."""
    if ar.setup.ranks < 2:
        return "One GPU: there is nothing to all-reduce. Add GPUs per node or nodes."
    missing = _missing(ar)
    if missing:
        return _unpriced(ar, missing)
    return _one_node(ar) if ar.setup.nodes < 2 else _network(ar)
