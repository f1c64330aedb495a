"""The roofline page: op points on the chosen device, their table and takeaway."""

from __future__ import annotations

import pandas as pd

from perfcore import format as fmt
from perfcore.model.chip import ops
from perfcore.model.chip.precision import BYTES_PER_ELEMENT
from perfcore.model.chip.roofline import Estimate, estimate_on
from perfcore.model.chip.specs import Device
from perfcore.model.llm import values, workloads

DEFAULT_OPS = ("add", "matvec", "matmul", "attention", "decode")
MODEL_LAYER = "a model's layer"  # the Workloads page's layer ops, for a chosen model
OPTIONS = (*ops.CATALOG, MODEL_LAYER)
LAYER_PHASES = ("decode", "prefill")
UNITS = {
    "FLOPs": "flops",
    "bytes": "traffic",
    "intensity": "intensity",
    "attainable": "flops_per_s",
    "share of peak": "percent",
    "time floor": "seconds",
}


def op_points(device: Device, precision: str, chosen: dict[str, dict]) -> list[Estimate]:
    """Each chosen catalog op (op -> sizes) priced at `precision`; [] where unpublished."""
    bpe = BYTES_PER_ELEMENT[precision]
    costs = [ops.build(op, bpe, **sizes) for op, sizes in chosen.items()]
    points = [estimate_on(device, precision, c) for c in costs]
    return [p for p in points if p is not None]


def layer_points(
    device: Device, precision: str, model, phase: str, batch: int, context: int
) -> list[Estimate]:
    """One layer of `model` (the Workloads page's ops) at `precision`; [] where unpublished."""
    bits = 8 * BYTES_PER_ELEMENT[precision]
    one = values.layer_pass(phase, batch, context)
    layer = workloads.layer_ops(model, one, values.Precisions(bits, bits, bits))
    named = [
        ops.Cost(op.cost.flops, op.cost.bytes, f"{model.name} {phase}: {op.name}") for op in layer
    ]
    points = [estimate_on(device, precision, c) for c in named]
    return [p for p in points if p is not None]


def table(points: list[Estimate]) -> pd.DataFrame:
    """One row per op point, SI numbers; attrs["units"] names their kinds."""
    df = pd.DataFrame(
        {
            "operation": [e.cost.name for e in points],
            "FLOPs": [e.cost.flops for e in points],
            "bytes": [e.cost.bytes for e in points],
            "intensity": [e.intensity for e in points],
            "attainable": [e.attainable_flops_per_s for e in points],
            "bound by": [e.limiter for e in points],
            "share of peak": [e.fraction_of_peak for e in points],
            "time floor": [e.time_floor_s for e in points],
        }
    )
    df.attrs["units"] = UNITS
    return df


def takeaway(points: list[Estimate], device: Device, precision: str) -> str:
    """Which ops are memory-bound on this device, and by how far."""
    if not points:
        return f"{device.name} publishes no {precision} peak: pick another precision."
    memory = [e for e in points if e.limiter == "memory"]
    worst = min(points, key=lambda e: e.fraction_of_peak)
    ridge = fmt.intensity(points[0].ridge)
    return (
        f"On {device.name} at {precision} the ridge is {ridge}. {len(memory)} of {len(points)} "
        f"ops sit below it and are memory-bound; the worst, {worst.cost.name}, can reach only "
        f"{fmt.percent(worst.fraction_of_peak)} of peak whatever the arithmetic units do. "
        "Count bytes first."
    )
