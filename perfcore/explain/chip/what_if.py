"""A what-if device on the pages: what its caption says, the sidebar's fields for it, and why
a measurement is never held against it (a measurement meets only the spec of the device it ran
on: the published row the what-if was made from).
"""

from __future__ import annotations

from perfcore.model.chip.device import Device, column_value
from perfcore.model.chip.whatif import PEAK_SCALE, WHAT_IF, changes_of, peak_column

EXAMPLE = "memory_bw_tbs=6.7,scaleup_domain=72"
HELP = (
    "Change this device's figures, or start a device that does not exist yet from the row "
    "nearest it. A blank field keeps the published figure. The whole change is one line, "
    f"the link's `what_if` and `python -m perfcore plan ... --what-if` alike, e.g. `{EXAMPLE}`."
)


def fields(device: Device, precision: str) -> list[tuple[str, str, str]]:
    """The sidebar's what-if fields: (column, label, the published figure as a placeholder)."""
    shown = [
        peak_column(precision),
        "memory_bw_tbs",
        "memory_gib",
        "scaleup_gbs",
        "scaleup_domain",
        "scaleout_gbs",
    ]
    rows = [(PEAK_SCALE, "Every peak × (factor)", "1")]
    for column in shown:
        words, unit = WHAT_IF[column]
        value = column_value(device, column)
        label = f"{words[0].upper()}{words[1:]} ({unit})"
        rows.append((column, label, "not published" if value is None else f"{value:g}"))
    return rows


def label(device: Device) -> str:
    """The sidebar's what-if button: how many figures the device has changed."""
    n = len([p for p in changes_of(device).split(",") if p])
    return f"What-if: {n} figure{'s' if n != 1 else ''} changed" if n else "What-if"


def caption(device: Device) -> str:
    """Where a what-if device's figures come from: the changes, and the published row's source."""
    return (
        f"What-if — {device.name}: the changed figures are the sidebar's "
        f"(`what_if={changes_of(device)}`); every other figure is the published spec: "
        f"{device.source}"
    )


def measured_note(base: Device, device: Device) -> str:
    """Why the Measure page compares with the published row, not with the what-if."""
    return (
        f"A measurement is compared only with the spec of the device it ran on: this page uses "
        f"the published rows (here {base.name}), not the sidebar's what-if ({device.name})."
    )


def roofline_note(base: Device) -> str:
    """Why the Roofline's measured points are held against the published row's roofs."""
    return (
        f"The measured points ran on {base.name}, not on the what-if: they are held against "
        f"its published roofs (dashed, as the compared device), never against the what-if's."
    )
