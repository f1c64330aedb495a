"""A model's expected op times on a device: from its measured kernel curves, else published runs.

Curves apply to the specs row their device matched, as published: a what-if device (any
figure changed) keeps the published runs' efficiencies, as does a device without curves.
Every figure says what it was derived from (perfcore.model.runs.kernel_ops).
"""

from __future__ import annotations

from perfcore.model.chip import kernels
from perfcore.model.chip.specs import Device
from perfcore.model.llm import phases
from perfcore.model.runs import kernel_ops
from perfcore.model.runs.efficiency import Efficiency

PUBLISHED_LABEL = "expected from published runs"


def curves_for(
    curves: kernels.Curves | None, device: Device, specs: dict[str, Device]
) -> kernels.Curves | None:
    """The curves when they were measured on this specs row and the device is as published."""
    if curves is None or not curves.spec_name or curves.spec_name != device.name:
        return None
    return curves if specs.get(device.name) == device else None


def expected_from(curves: kernels.Curves | None) -> str:
    """What the expected figures rest on, in words."""
    return f"expected from {curves.label}" if curves is not None else PUBLISHED_LABEL


def expected_times(
    phase: phases.Phase, weight_bytes: float, curves, table: dict[str, Efficiency]
) -> list[kernels.Expected]:
    """Each op of the phase merged by name (phases.by_name's order): its expected time, each
    run priced at its own size, the runs' times summed, the slowest run's efficiency kept."""
    merged: dict[str, list[kernels.Expected]] = {}
    for pr in phase.ops:
        one = kernel_ops.expected_op(pr, phase.precision, weight_bytes, curves, table)
        merged.setdefault(pr.op.name, []).append(one)
    return [
        kernels.Expected(
            sum(e.seconds for e in group),
            sum(e.bound_s for e in group),
            max(group, key=lambda e: e.seconds).efficiency,
        )
        for group in merged.values()
    ]
