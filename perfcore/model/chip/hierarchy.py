"""The memory hierarchy as a supply chain: each level's capacity, bandwidth, latency.

Capacities and off-chip bandwidths are vendor specs (from data/specs.csv). On-chip
bandwidths are estimates where a row carries them. Latencies are order-of-magnitude
figures from the literature, good to about a factor of two, the same for every
device, and NOT vendor specs. FLOPs forgone per trip = peak FLOP/s x latency.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfcore.model.chip.specs import Device

SPEC, ESTIMATE, UNKNOWN = "vendor spec", "estimate", "not published"

# Order-of-magnitude latencies in seconds (literature, not vendor specs).
LATENCY_S = {
    "registers": 1e-9,
    "shared memory/L1": 30e-9,
    "L2 cache": 200e-9,
    "device memory": 500e-9,
    "scale-up link": 2000e-9,
    "scale-out network": 5000e-9,
    "PCIe (host)": 1000e-9,
}

# Links are shown per direction, the rate one GPU sends at: scale-up and PCIe are marketed
# as both directions at once and are halved; the scale-out network is published per direction.
PER_DIRECTION = "one direction, half the marketed both-directions figure"
ONE_DIRECTION = "one direction"


@dataclass(frozen=True)
class Level:
    """One level of the hierarchy; None where a figure is not known."""

    name: str
    capacity_bytes: float | None
    bytes_per_s: float | None
    latency_s: float
    capacity_kind: str
    bandwidth_kind: str
    per_unit: bool = False
    bandwidth_convention: str = ""
    latency_kind: str = ESTIMATE


def _kind(value: float | None, kind: str) -> str:
    """The label for a figure: its kind where present, 'not published' where None."""
    return UNKNOWN if value is None else kind


def _level(name: str, capacity, bandwidth, bw_kind: str, **kw) -> Level:
    """A Level with its kinds derived from which figures are present."""
    cap_kind = _kind(capacity, SPEC)
    return Level(
        name, capacity, bandwidth, LATENCY_S[name], cap_kind, _kind(bandwidth, bw_kind), **kw
    )


def _per_direction(marketed_bytes_per_s: float | None) -> float | None:
    """A both-directions marketed link figure as one GPU sends: halved; None stays None."""
    return None if marketed_bytes_per_s is None else marketed_bytes_per_s / 2


def levels(device: Device) -> list[Level]:
    """The device's levels, registers to device memory nearest first, then its links out."""
    d = device
    return [
        _level("registers", d.regs_bytes_per_unit, d.regs_bytes_per_s_est, ESTIMATE, per_unit=True),
        _level(
            "shared memory/L1",
            d.smem_bytes_per_unit,
            d.smem_bytes_per_s_est,
            ESTIMATE,
            per_unit=True,
        ),
        _level("L2 cache", d.l2_bytes, d.l2_bytes_per_s_est, ESTIMATE),
        _level("device memory", d.memory_bytes, d.memory_bytes_per_s, SPEC),
        _level(
            "scale-up link",
            None,
            _per_direction(d.scaleup_bytes_per_s),
            SPEC,
            bandwidth_convention=PER_DIRECTION,
        ),
        _level(
            "scale-out network",
            None,
            d.scaleout_bytes_per_s,
            SPEC,
            bandwidth_convention=ONE_DIRECTION,
        ),
        _level(
            "PCIe (host)",
            None,
            _per_direction(d.pcie_bytes_per_s),
            SPEC,
            bandwidth_convention=PER_DIRECTION,
        ),
    ]


def flops_forgone(peak_flops_per_s: float, latency_s: float) -> float:
    """FLOPs the device could have done at peak while one request is in flight."""
    return peak_flops_per_s * latency_s
