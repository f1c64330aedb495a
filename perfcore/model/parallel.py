"""Tensor and data parallelism: the all-reduces they add, priced with perfcore.model.comm.

Tensor parallelism over t GPUs (Megatron): two all-reduces of the layer's activations per
layer (after the attention output and after the MLP down projection), a ring over the
scale-up link at its per-direction rate (PCIe where no scale-up link is published). Data
parallelism for training: one gradient all-reduce per step, hierarchical (in the node,
then across nodes) with GPUS_PER_NODE GPUs per node shared by the TP and DP groups.
"""

from __future__ import annotations

import math

from perfcore.errors import NotPublished
from perfcore.model import ops
from perfcore.model.comm import hierarchical_allreduce, link_bytes_per_s
from perfcore.model.specs import Device
from perfcore.model.workloads import Op, Precisions

GPUS_PER_NODE = 8
TP_ALLREDUCES_PER_LAYER = 2
ADAM_STATE_BYTES = 12  # per parameter: fp32 master copy + two fp32 moments
ADAM_FLOPS = 10  # per parameter per update (moments, bias correction, step)


def scaleup_bytes_per_s(device: Device) -> float | None:
    """The in-node link per direction: scale-up (NVLink...), else PCIe; None if neither."""
    marketed = device.scaleup_bytes_per_s or device.pcie_bytes_per_s
    return None if marketed is None else link_bytes_per_s(marketed, "per-direction")


def tp_seconds(model, device: Device, tokens: float, p: Precisions, tp: int) -> float:
    """Seconds of TP all-reduces in one forward pass over `tokens` tokens; 0 at t = 1."""
    if tp < 2:
        return 0.0
    buffer = tokens * model.hidden * p.a
    link = scaleup_bytes_per_s(device)
    if link is None:
        fields = ("scaleup_bytes_per_s", "pcie_bytes_per_s")
        raise NotPublished(device.name, fields, "scale-up or PCIe bandwidth", f"for TP {tp}")
    one = hierarchical_allreduce(buffer, tp, 1, link, None).seconds
    return TP_ALLREDUCES_PER_LAYER * model.layers * one


def dp_layout(tp: int, dp: int) -> tuple[int, int]:
    """(DP ranks per node, nodes) when each node holds GPUS_PER_NODE GPUs split into TP groups."""
    per_node = max(1, min(dp, GPUS_PER_NODE // tp))
    return per_node, math.ceil(dp / per_node)


def gradient_bytes(model, p: Precisions, tp: int) -> float:
    """Bytes of gradients each GPU holds (at the weight precision), 1/t of the model."""
    return model.params() / tp * p.w


def dp_seconds(model, device: Device, p: Precisions, tp: int, dp: int) -> float:
    """Seconds of the gradient all-reduce of one training step; 0 at d = 1."""
    if dp < 2:
        return 0.0
    per_node, nodes = dp_layout(tp, dp)
    up = scaleup_bytes_per_s(device)
    out = device.scaleout_bytes_per_s
    grads = gradient_bytes(model, p, tp)
    seconds = hierarchical_allreduce(grads, per_node, nodes, up, out).seconds
    if seconds is None:
        fields = ("scaleup_bytes_per_s", "scaleout_bytes_per_s")
        raise NotPublished(device.name, fields, "link bandwidth", f"for DP {dp} on {nodes} nodes")
    return seconds


def optimizer_op(model, p: Precisions, tp: int) -> Op:
    """Adam over this GPU's 1/t of the parameters; all its bytes count as weights."""
    n = model.params() / tp
    n_bytes = n * (p.w + ADAM_STATE_BYTES) + n * (ADAM_STATE_BYTES + p.w)
    cost = ops.Cost(ADAM_FLOPS * n, n_bytes, "optimizer step (Adam)")
    return Op("optimizer step (Adam)", "optimizer", cost, 1, weights=n_bytes)
