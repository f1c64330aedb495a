"""Each profiled op against the roofs of the device it ran on, and what to change.

The roofs are a specs row's (a published ceiling) or this machine's measured roofline (the
`roofline` experiment's records); attainable = min(peak, bandwidth x intensity). An op's
fraction is its achieved rate over the roof that bounds it: FLOP/s over the flat roof when
compute-bound, bytes/s over the bandwidth when memory-bound. The diagnosis names the lever
the performance model points at: fuse a memory-bound elementwise chain, batch or fuse an op
too small to reach either roof, lower the precision or fix the tiles of a slow matmul.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from perfcore import format as fmt
from perfcore.measure.clock.devices import match_device
from perfcore.measure.profile import hlo
from perfcore.measure.profile.judge.joined import Op, Program
from perfcore.measure.profile.judge.price import (
    ASYNC_MOVE,
    ASYNC_WAIT,
    IN_BODY,
    NO_COST,
    NOT_IN_HLO,
)
from perfcore.measure.results.empirical import MeasuredRoofline, measured_roofline
from perfcore.model.chip.roofline import attainable
from perfcore.model.chip.specs import Device

FAR_BELOW = 0.1  # fraction of its roof under which an op is far below it
SMALL_OP_S = 20e-6  # an occurrence this short is dominated by launch/dispatch overhead
LOW_COMPUTE = 0.5  # a compute-bound op under this fraction of its roof leaves compute unused
IDLE_SHARE = 0.2  # device idle over this share of a step points at the host
DISPATCH_BOUND = 2  # a host wall this many times the device span: the host sets the pace
MEMORY_KINDS = (hlo.ELEMENTWISE, hlo.DATA, hlo.REDUCTION)


@dataclass(frozen=True)
class Roofs:
    """A device's flat roofs (precision -> FLOP/s) and its memory roof (bytes/s), and whence."""

    label: str
    flops_per_s: tuple[tuple[str, float], ...]
    bytes_per_s: float | None  # device memory's
    levels: tuple[tuple[str, float, float], ...] = ()  # (name, largest working set, bytes/s)
    source: str = ""  # where the figures come from (a datasheet, an experiment)

    def peak(self, precision: str) -> float | None:
        """The flat roof at precision (else fp32's, the vector roof); None when neither."""
        roofs = dict(self.flops_per_s)
        return roofs.get(precision) or roofs.get("fp32")

    def bandwidth(self, working_set: float) -> tuple[str, float | None]:
        """The memory level a working set (bytes) fits in, fastest first, and its bytes/s."""
        fits = [(name, bw) for name, hi, bw in self.levels if working_set <= hi]
        return fits[0] if fits else ("memory", self.bytes_per_s)


def spec_roofs(device: Device) -> Roofs:
    """A specs row's published roofs."""
    peaks = tuple((p, device.peak_flops(p)) for p in device.published_precisions())
    return Roofs(
        f"{device.name} spec",
        peaks,
        device.memory_bytes_per_s,
        source=device.source or "data/specs.csv",
    )


def measured_roofs(roofline: MeasuredRoofline, device: str) -> Roofs | None:
    """The measured roofline's best flat roofs and its slowest (device-memory) level."""
    if not roofline.roofs and not roofline.levels:
        return None
    peaks = tuple((r.name, r.flops_per_s) for r in roofline.roofs)
    bandwidth = roofline.levels[-1].bytes_per_s if roofline.levels else None
    levels = tuple((lv.name, lv.plateau.hi_bytes, lv.bytes_per_s) for lv in roofline.levels)
    return Roofs(f"{device} measured roofline", peaks, bandwidth, levels, "roofline experiment")


@dataclass(frozen=True)
class Assessment:
    """An op on its roofline: which roof bounds it, that roof there (FLOP/s), the fraction."""

    bound: str  # "compute", "memory" or "" (no roof)
    roof_flops_per_s: float | None
    fraction: float | None
    diagnosis: str


def _placed(op: Op, roofs: Roofs) -> tuple[str, float | None, float | None]:
    """(bound, attainable FLOP/s, fraction of the bounding roof) of an op with a cost."""
    working_set = (op.bytes or 0.0) / max(op.occurrences, 1)
    peak, (_, bandwidth) = roofs.peak(op.precision), roofs.bandwidth(working_set)
    if peak is None or not bandwidth or op.intensity is None:
        return "", None, None
    roof, bound = attainable(op.intensity, peak, bandwidth)
    if bound == "memory":
        return bound, roof, (op.bytes_per_s or 0.0) / bandwidth
    return bound, roof, (op.flops_per_s or 0.0) / peak


def _lever(op: Op, bound: str, fraction: float | None) -> str:
    """The diagnosis of an op with a cost, placed on its roofs (or not: no roof)."""
    small = op.per_occurrence_s < SMALL_OP_S
    if small and (fraction is None or fraction < FAR_BELOW):
        where = "far below both roofs" if fraction is not None else "too short to reach a roof"
        return (
            f"overhead-bound: {fmt.seconds(op.per_occurrence_s)} a run, {where}; batch "
            "it or fuse it with its neighbours"
        )
    if fraction is None:
        return "no roof for this device: pick its specs row or measure its roofline"
    share = fmt.percent(fraction)
    if fraction > 1:
        return (
            f"above its roof ({share}): the roof is lower than what this op reached; "
            "measure the roofline again, or check the op's FLOPs and bytes"
        )
    if bound == "memory" and op.category in MEMORY_KINDS:
        return (
            f"memory-bound {op.category} at {share} of bandwidth: fuse it into the op "
            "that produces or consumes it (one round trip through memory fewer)"
        )
    if bound == "memory":
        return f"memory-bound at {share} of bandwidth: raise its intensity (bigger tiles, batch)"
    if fraction < LOW_COMPUTE:
        return (
            f"compute-bound at {share} of the {op.precision or 'compute'} roof: a lower "
            "precision (bf16) or tile shapes that fill the units"
        )
    return f"at {share} of its roof: only less work (fewer FLOPs or bytes) makes it faster"


OPEN_END = (
    "its end was not traced: XLA:CPU handed it to the thread pool and no op of the step reads "
    "its result, so its time is the hand-off's, a lower bound, and its rate an upper bound"
)


def assess(op: Op, roofs: Roofs | None) -> Assessment:
    """An op's bounding roof, its fraction of that roof and its diagnosis."""
    if op.cost_source == IN_BODY:
        return Assessment("", None, None, "loop control: the time around its body's ops")
    if op.cost_source == NOT_IN_HLO:
        return Assessment("", None, None, "not in the capture's HLO: its cost is unknown")
    if op.cost_source == NO_COST:
        return Assessment("", None, None, "no cost model (a custom kernel): time only")
    if op.cost_source == ASYNC_WAIT:
        return Assessment("", None, None, "an async op's wait: its work is timed at its start")
    if op.cost_source == ASYNC_MOVE:
        return Assessment("", None, None, "an async move's issue: its DMA runs beside the ops")
    bound, roof, fraction = _placed(op, roofs) if roofs else ("", None, None)
    if op.open_end:
        return Assessment(bound, roof, fraction, OPEN_END)
    return Assessment(bound, roof, fraction, _lever(op, bound, fraction))


def roofs_for(
    device: str, specs: dict[str, Device], spec: Device | None = None, roofline_records=()
) -> Roofs | None:
    """The roofs an op on device is held to: the row picked, else the row device names, else
    the measured roofline in roofline_records (the `roofline` experiment's); None if none."""
    row = spec or match_device(device, specs)
    if row is not None:
        return spec_roofs(row)
    return measured_roofs(measured_roofline(tuple(roofline_records)), device)


def program_diagnosis(program: Program) -> str:
    """What a program's step says about the host: idle device, or dispatch longer than work."""
    span, idle = statistics.median(program.span_s), statistics.median(program.idle_s)
    walls = [w for w in program.wall_s if w is not None]
    if span and idle / span > IDLE_SHARE:
        return (
            f"device idle {fmt.percent(idle / span)} of the step between ops: a host "
            "sync or dispatch between them; jit more of the step into one program"
        )
    if walls and statistics.median(walls) > DISPATCH_BOUND * span:
        return (
            f"host wall {fmt.seconds(statistics.median(walls))} a step for "
            f"{fmt.seconds(span)} of device work: dispatch-bound, do more work per call "
            "(batch, or loop on the device with lax.scan)"
        )
    return "the device is busy for the step: the ops' own roofs bound it"
