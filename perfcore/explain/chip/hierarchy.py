"""The hierarchy page: each level's figures and their kinds, FLOPs forgone, the takeaway.

A level with no published figure at all (no NVLink on an RTX card, no register file
figure for a TPU) is treated as absent: its FLOPs forgone is not published either,
although the literature latency exists for every level.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from perfcore import format as fmt
from perfcore.model.chip.hierarchy import ESTIMATE, LATENCY_S, UNKNOWN, Level, flops_forgone, levels
from perfcore.model.chip.specs import Device

METRICS = ("FLOPs forgone", "capacity", "bandwidth", "latency")
PER_UNIT = "per SM/CU"
FORGONE_KIND = "derived: peak (spec) × latency (estimate)"
NOT_A_STORE = "not applicable: a link"
FORGONE = "FLOPs forgone per trip"
UNITS = {"capacity": "capacity", "bandwidth": "bytes_per_s", "latency": "seconds", FORGONE: "flops"}
SHORT = {
    "registers": "registers",
    "shared memory/L1": "shared mem/L1",
    "L2 cache": "L2",
    "device memory": "device memory",
    "scale-up link": "scale-up link",
    "scale-out network": "scale-out net",
    "PCIe (host)": "PCIe (host)",
}
KINDS = """\
**Which numbers are which.** Capacities and off-chip bandwidths are **vendor specs**
(data/specs.csv). On-chip bandwidths (registers, shared memory, L2) are **estimates**
where a row carries them. Latencies are **order-of-magnitude estimates** from the
literature, the same for every device and good to about 2x: vendors do not publish them.
FLOPs forgone is **derived** from the published peak and the estimated latency.
Register and shared-memory capacities are **per SM/CU**, not per device. Link bandwidths
are **one direction**, the rate a GPU sends at: scale-up and PCIe are marketed as both
directions at once and are shown halved; scale-out is published one direction.
"""


@dataclass(frozen=True)
class LevelRow:
    """One level of one device, with the FLOPs its latency costs at the chosen peak."""

    level: Level
    flops_forgone: float | None

    def value(self, metric: str) -> float | None:
        """The level's figure for `metric` (FLOPs, bytes, bytes/s or s); None if unpublished."""
        lv = self.level
        figures = {
            "FLOPs forgone": self.flops_forgone,
            "capacity": lv.capacity_bytes,
            "bandwidth": lv.bytes_per_s,
            "latency": lv.latency_s,
        }
        return figures[metric]

    def kind(self, metric: str) -> str:
        """'vendor spec', 'estimate', 'derived: ...' or 'not published' for `metric`."""
        lv = self.level
        kinds = {
            "capacity": lv.capacity_kind,
            "bandwidth": lv.bandwidth_kind,
            "latency": lv.latency_kind,
            "FLOPs forgone": FORGONE_KIND,
        }
        if not self.applies(metric):
            return NOT_A_STORE
        return UNKNOWN if self.value(metric) is None else kinds[metric]

    def applies(self, metric: str) -> bool:
        """False for a link's capacity: a link stores nothing."""
        return not (metric == "capacity" and self.level.bandwidth_convention)

    def label(self, metric: str) -> str:
        """The level's name, with its per-unit or link convention where `metric` needs it."""
        lv, name = self.level, SHORT[self.level.name]
        if metric == "capacity" and lv.per_unit:
            return f"{name} ({PER_UNIT})"
        if metric == "bandwidth" and lv.bandwidth_convention:
            return f"{name} ({lv.bandwidth_convention.split(',')[0]})"
        return name


@dataclass(frozen=True)
class Hierarchy:
    """A device's levels at one precision, in perfcore.model.chip.hierarchy.levels' order."""

    device: Device
    precision: str
    peak_flops_per_s: float | None
    rows: tuple[LevelRow, ...]

    def row(self, name: str) -> LevelRow:
        """The row of the level called `name`."""
        return next(r for r in self.rows if r.level.name == name)


def _present(level: Level) -> bool:
    """True when the device publishes any figure for the level."""
    return level.capacity_bytes is not None or level.bytes_per_s is not None


def hierarchy(device: Device, precision: str) -> Hierarchy:
    """The device's levels with FLOPs forgone per trip at its `precision` peak."""
    peak = device.peak_flops(precision)
    rows = tuple(
        LevelRow(lv, flops_forgone(peak, lv.latency_s) if peak and _present(lv) else None)
        for lv in levels(device)
    )
    return Hierarchy(device, precision, peak, rows)


def _per(r: LevelRow) -> str:
    """What a capacity is counted per: 'per SM/CU', 'device', or '—' for a link."""
    if not r.applies("capacity"):
        return "—"
    return PER_UNIT if r.level.per_unit else "device"


def _device_table(h: Hierarchy) -> pd.DataFrame:
    """One device's rows: SI figures beside the kind of each."""
    rows, lv = h.rows, [r.level for r in h.rows]
    return pd.DataFrame(
        {
            "device": h.device.name,
            "level": [x.name for x in lv],
            "capacity": [x.capacity_bytes for x in lv],
            "capacity per": [_per(r) for r in rows],
            "capacity kind": [r.kind("capacity") for r in rows],
            "bandwidth": [x.bytes_per_s for x in lv],
            "bandwidth kind": [r.kind("bandwidth") for r in rows],
            "bandwidth convention": [x.bandwidth_convention or "on device" for x in lv],
            "latency": [x.latency_s for x in lv],
            "latency kind": [x.latency_kind for x in lv],
            FORGONE: [r.flops_forgone for r in rows],
            "FLOPs forgone kind": [r.kind("FLOPs forgone") for r in rows],
        }
    ).astype({c: float for c in UNITS})


def table(views: list[Hierarchy]) -> pd.DataFrame:
    """Every level of every shown device, device by device, SI numbers (NaN where unpublished);
    attrs["units"] names their kinds."""
    df = pd.concat([_device_table(h) for h in views], ignore_index=True)
    df.attrs["units"] = UNITS
    return df


def memory_trip(h: Hierarchy) -> str:
    """FLOPs forgone per device-memory trip as text, or 'not published'."""
    return fmt.flops(h.row("device memory").flops_forgone)


def capacity_ratio(h: Hierarchy) -> float | None:
    """Device memory over shared memory per SM/CU (how much smaller the fast store is)."""
    smem, mem = (h.row(n).level.capacity_bytes for n in ("shared memory/L1", "device memory"))
    return None if smem is None or mem is None else mem / smem


def _trip_sentence(h: Hierarchy) -> str:
    """While one device-memory request is in flight, this device could have done N FLOPs."""
    mem, link = h.row("device memory"), h.row("scale-up link")
    name, p = h.device.name, h.precision
    if mem.flops_forgone is None:
        return f"{name} publishes no {p} peak, so no FLOPs forgone here; pick another precision."
    across = (
        f"reaching across its scale-up link costs about {fmt.flops(link.flops_forgone)}"
        if link.flops_forgone
        else "it publishes no scale-up link"
    )
    return (
        f"While one device-memory request is in flight (about {fmt.seconds(mem.level.latency_s)}, "
        f"an {ESTIMATE}), {name} at its {p} peak ({fmt.flops_per_s(h.peak_flops_per_s)}) could "
        f"have done about {fmt.flops(mem.flops_forgone)}; {across}. The chip is not slow at "
        "arithmetic: it is starving."
    )


def _compare_sentence(h: Hierarchy, other: Hierarchy) -> str:
    """How the compared device's device-memory trip compares, or ''."""
    mine, theirs = (v.row("device memory").flops_forgone for v in (h, other))
    if theirs is None:
        return f" {other.device.name} publishes no {h.precision} peak to compare with."
    if mine is None:
        return f" On {other.device.name} the same trip forgoes {fmt.flops(theirs)}."
    if theirs >= mine:
        times = f"{fmt.ratio(theirs / mine)} as many"
    else:
        times = f"{fmt.ratio(mine / theirs)} fewer"
    return (
        f" On {other.device.name} the same trip forgoes {fmt.flops(theirs)}, {times}: "
        "the latency is the same estimate, the peak is not."
    )


def _capacity_sentence(h: Hierarchy) -> str:
    """The asymmetry: shared memory per SM/CU against device memory."""
    ratio = capacity_ratio(h)
    if ratio is None:
        return f" {h.device.name} publishes no shared-memory figure to set against device memory."
    smem, mem = (h.row(n).level.capacity_bytes for n in ("shared memory/L1", "device memory"))
    return (
        f" Capacity runs the other way: {fmt.capacity(smem)} of shared memory {PER_UNIT} against "
        f"{fmt.capacity(mem)} of device memory, {fmt.ratio(ratio, 3)} smaller. That asymmetry is "
        "why kernels tile (FlashAttention exists because of it)."
    )


def takeaway(h: Hierarchy, other: Hierarchy | None = None) -> str:
    """The FLOPs one device-memory trip costs, against the compared device, and the asymmetry."""
    versus = _compare_sentence(h, other) if other is not None else ""
    return _trip_sentence(h) + versus + _capacity_sentence(h)


def hierarchies(device: Device, compare: Device | None, precision: str) -> list[Hierarchy]:
    """The chosen device's hierarchy, then the compared device's where there is one."""
    return [hierarchy(d, precision) for d in (device, compare) if d is not None]


def headline(views: list[Hierarchy]) -> list[tuple[str, str, str]]:
    """(label, value, help) for the page's metrics: each device's trip, the capacity asymmetry."""
    latency = fmt.seconds(LATENCY_S["device memory"])
    help_ = f"FLOPs forgone by one device-memory trip ({latency}): {FORGONE_KIND}"
    trips = [(f"{h.device.name}: one memory trip", memory_trip(h), help_) for h in views]
    ratio = fmt.ratio(capacity_ratio(views[0]), 3)
    asym = ("Device memory / shared mem per SM/CU", ratio, f"{views[0].device.name}, vendor specs")
    return [*trips, asym]
