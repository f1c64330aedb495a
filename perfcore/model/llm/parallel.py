"""Where a parallel group sits, and the collectives it adds, priced by perfcore.model.chip.comm.

Ranks are numbered with the innermost dimension first (TP, then CP, then DP, then PP, as
Megatron places them), so a group whose members are `stride` ranks apart holds
domain // stride of them in each scale-up domain (an HGX board: 8 GPUs; a GB200 NVL72 rack:
72). A group that fits in one domain runs on the scale-up link; a larger one runs its first
leg in the domain and its second across domains over the scale-out network. Tensor
parallelism (Megatron): two all-reduces of the layer's activations per layer forward.
"""

from __future__ import annotations

import math

from perfcore.errors import NotPublished
from perfcore.model.chip import ops
from perfcore.model.chip.comm import (
    CALL_LATENCY_S,
    HierarchicalAllReduce,
    Leg,
    hierarchical,
    link_bytes_per_s,
)
from perfcore.model.chip.specs import Device
from perfcore.model.llm.workloads import Op, Precisions

TP_ALLREDUCES_PER_LAYER = 2
# Bytes per element on the TP wire: engines all-reduce the 16-bit residual stream whatever
# the GEMMs run in (TensorRT-LLM and vLLM quantise to FP8 at each GEMM's input, after the
# all-reduce), so FP8 and FP4 rows send 2 bytes, not their activation storage width.
RESIDUAL_BYTES = 2
# Training TP communication as a multiple of the forward's: the backward repeats the forward's
# two all-reduces per layer; full recomputation runs the forward's once more (selective
# recomputation recomputes attention inside the TP region, with no communication).
TP_COMM_FACTOR = {"none": 2, "selective": 2, "full": 3}
ADAM_STATE_BYTES = 12  # per parameter: fp32 master copy + two fp32 moments
ADAM_FLOPS = 10  # per parameter per update (moments, bias correction, step)


def scaleup_bytes_per_s(device: Device) -> float | None:
    """The in-domain link per direction: scale-up (NVLink...), else PCIe; None if neither."""
    marketed = device.scaleup_bytes_per_s or device.pcie_bytes_per_s
    return None if marketed is None else link_bytes_per_s(marketed, "per-direction")


def per_domain(device: Device, ranks: int, stride: int) -> int:
    """Members of a group of `ranks` GPUs, `stride` ranks apart, inside one scale-up domain."""
    if ranks < 2:
        return 1
    if device.scaleup_domain is None:
        raise NotPublished(
            device.name,
            ("scaleup_domain",),
            "scale-up domain size (column scaleup_domain)",
            f"so a group of {ranks} GPUs cannot be placed; give one, e.g. what-if scaleup_domain=8",
        )
    return min(ranks, max(1, device.scaleup_domain // stride))


def placed(
    device: Device, collective: str, buffer_bytes: float, ranks: int, stride: int = 1
) -> HierarchicalAllReduce:
    """`collective` over `ranks` GPUs `stride` apart: in the domain, then across domains."""
    g = per_domain(device, ranks, stride)
    up = (scaleup_bytes_per_s(device), CALL_LATENCY_S["scale-up"])
    out = (device.scaleout_bytes_per_s, CALL_LATENCY_S["scale-out"])
    return hierarchical(collective, buffer_bytes, g, math.ceil(ranks / g), up, out)


def seconds(
    device: Device, collective: str, buffer_bytes: float, ranks: int, stride: int = 1
) -> float:
    """Seconds of one placed collective, its legs pipelined (comm.HierarchicalAllReduce.
    pipelined_s); NotPublished naming a link the device lacks."""
    if ranks < 2:
        return 0.0
    c = placed(device, collective, buffer_bytes, ranks, stride)
    if c.pipelined_s is None:
        intra = c.intra.seconds is None
        link = "scale-up (or PCIe)" if intra else "scale-out"
        fields = ("scaleup_bytes_per_s", "pcie_bytes_per_s") if intra else ("scaleout_bytes_per_s",)
        domains = f"{c.inter.ranks} scale-up domain{'s' if c.inter.ranks > 1 else ''}"
        raise NotPublished(
            device.name,
            fields,
            f"{link} bandwidth",
            f"for a {collective} over {ranks} GPUs ({domains})",
        )
    return c.pipelined_s


def hop_seconds(device: Device, n_bytes: float, ranks: int, stride: int = 1) -> float:
    """One send between neighbours of a ring of `ranks` GPUs `stride` apart (PP stages, CP).

    The ring's slowest hop sets its pace: the scale-out link once the ring leaves the domain.
    """
    inside = per_domain(device, ranks, stride) == ranks
    kind = "scale-up" if inside else "scale-out"
    bw = scaleup_bytes_per_s(device) if inside else device.scaleout_bytes_per_s
    if bw is None:
        fields = (
            ("scaleup_bytes_per_s", "pcie_bytes_per_s") if inside else ("scaleout_bytes_per_s",)
        )
        raise NotPublished(device.name, fields, f"{kind} bandwidth", f"for a ring of {ranks} GPUs")
    return Leg("hop", 2, n_bytes, bw, 0.0, CALL_LATENCY_S[kind], "broadcast").seconds


def tp_seconds(model, device: Device, tokens: float, tp: int) -> float:
    """Seconds of TP all-reduces in one forward pass over `tokens` tokens, at the residual
    stream's RESIDUAL_BYTES whatever the activations are stored in; 0 at t = 1."""
    if tp < 2:
        return 0.0
    one = seconds(device, "all-reduce", tokens * model.hidden * RESIDUAL_BYTES, tp)
    return TP_ALLREDUCES_PER_LAYER * model.layers * one


def gradient_bytes(model, p: Precisions, tp: int) -> float:
    """Bytes of gradients each GPU holds (at the weight precision), 1/t of the model."""
    return model.params() / tp * p.w


def dp_seconds(model, device: Device, p: Precisions, tp: int, dp: int) -> float:
    """Seconds of the gradient all-reduce of one training step over DP groups t ranks apart."""
    return seconds(device, "all-reduce", gradient_bytes(model, p, tp), dp, stride=tp)


def optimizer_op(model, p: Precisions, tp: int) -> Op:
    """Adam over this GPU's 1/t of the parameters; all its bytes count as weights."""
    n = model.params() / tp
    n_bytes = n * (p.w + ADAM_STATE_BYTES) + n * (ADAM_STATE_BYTES + p.w)
    cost = ops.Cost(ADAM_FLOPS * n, n_bytes, "optimizer step (Adam)")
    return Op("optimizer step (Adam)", "optimizer", cost, 1, weights=n_bytes)
