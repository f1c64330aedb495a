"""Five beliefs that feel true and are not, each priced with a device's numbers.

All five are the same mistake: reasoning about the arithmetic and forgetting the trips.
Each function takes a Device and editable inputs and returns the priced numbers;
none of them prints or formats.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfcore.errors import NotPublished
from perfcore.model.chip import ops
from perfcore.model.chip.comm import link_bytes_per_s, ring_allreduce_bytes, transfer_time
from perfcore.model.chip.device import require as _require
from perfcore.model.chip.occupancy import idle_units, utilisation
from perfcore.model.chip.precision import BYTES_PER_ELEMENT
from perfcore.model.chip.roofline import Limiter, attainable
from perfcore.model.chip.specs import Device

__all__ = [
    "NotPublished",
    "batch_one",
    "copy_in_loop",
    "faster_chip",
    "fp32_path",
    "shard_across_nodes",
]


@dataclass(frozen=True)
class FasterChip:
    """(1) 'We'll buy the faster chip': a memory-bound op under 2x peak and 2x bandwidth."""

    cost: ops.Cost
    today: tuple[float, Limiter]
    double_peak: tuple[float, Limiter]
    double_bandwidth: tuple[float, Limiter]

    @property
    def gain_from_peak(self) -> float:
        """Extra FLOP/s bought by doubling the arithmetic peak."""
        return self.double_peak[0] - self.today[0]


def faster_chip(device: Device, precision: str, cost: ops.Cost) -> FasterChip:
    """Attainable FLOP/s today, with 2x the peak, and with 2x the bandwidth."""
    peak, bw = _peak(device, precision), _require(device, "memory_bytes_per_s")
    i = cost.intensity
    return FasterChip(
        cost, attainable(i, peak, bw), attainable(i, 2 * peak, bw), attainable(i, peak, 2 * bw)
    )


@dataclass(frozen=True)
class BatchOne:
    """(2) 'Batch size one is fine': one block on a machine of many units."""

    batch: int
    units: int
    utilisation: float
    idle_units: int


def batch_one(device: Device, batch: int = 1) -> BatchOne:
    """Utilisation and idle units with one block per sequence in the batch."""
    units = int(_require(device, "compute_units"))
    return BatchOne(batch, units, utilisation(batch, units), idle_units(batch, units))


@dataclass(frozen=True)
class Fp32Path:
    """(3) 'We cast to FP16': one op forced onto the FP32 vector path."""

    tensor_intensity: float
    tensor_ceiling: float
    fp32_intensity: float
    fp32_ceiling: float

    @property
    def ceiling_ratio(self) -> float:
        """How many times lower the FP32 path's ceiling is."""
        return self.tensor_ceiling / self.fp32_ceiling


def fp32_path(device: Device, n: int = 4096, precision: str = "fp16") -> Fp32Path:
    """An n x n x n matmul on the half-precision tensor path vs the FP32 vector path."""
    bw = _require(device, "memory_bytes_per_s")
    half = ops.matmul(n, n, n, BYTES_PER_ELEMENT[precision])
    full = ops.matmul(n, n, n, BYTES_PER_ELEMENT["fp32"])
    tensor = attainable(half.intensity, _peak(device, precision), bw)[0]
    vector = attainable(full.intensity, _peak(device, "fp32"), bw)[0]
    return Fp32Path(half.intensity, tensor, full.intensity, vector)


@dataclass(frozen=True)
class CopyInLoop:
    """(4) 'It's only a copy': a host-to-device transfer left inside the loop."""

    tensor_bytes: float
    iterations: int
    pcie_bytes_per_s: float
    pcie_s: float
    memory_s: float

    @property
    def total_bytes(self) -> float:
        """Bytes copied over all iterations."""
        return self.tensor_bytes * self.iterations

    @property
    def distance(self) -> float:
        """How many times longer the same bytes take over PCIe than device memory."""
        return self.pcie_s / self.memory_s


def copy_in_loop(device: Device, tensor_bytes: float, iterations: int = 1000) -> CopyInLoop:
    """Time for the loop's copies over PCIe (one direction) vs the same bytes in device memory."""
    total = tensor_bytes * iterations
    pcie = link_bytes_per_s(_require(device, "pcie_bytes_per_s"), "per-direction")
    memory = _require(device, "memory_bytes_per_s")
    return CopyInLoop(
        tensor_bytes, iterations, pcie, transfer_time(total, pcie), transfer_time(total, memory)
    )


@dataclass(frozen=True)
class ShardAcrossNodes:
    """(5) 'Shard it across nodes for headroom': interconnect that did not exist before."""

    weight_bytes: float
    fits: bool
    network_bytes: float
    network_s: float


def shard_across_nodes(
    device: Device, params: float, dtype_bytes: float = 2, gpus_per_node: int = 8, nodes: int = 2
) -> ShardAcrossNodes:
    """Per-step scale-out traffic of all-reducing the 1/g gradient shard across nodes."""
    weights = params * dtype_bytes
    network = ring_allreduce_bytes(weights / gpus_per_node, nodes)
    seconds = transfer_time(network, _require(device, "scaleout_bytes_per_s"))
    fits = weights <= _require(device, "memory_bytes")
    return ShardAcrossNodes(weights, fits, network, seconds)


def _peak(device: Device, precision: str) -> float:
    """The device's peak at `precision`; NotPublished where it has none."""
    return _require(device, f"{precision}_flops_per_s")
