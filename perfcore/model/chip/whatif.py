"""What-if devices: a published row with some figures changed (CSV column names, human
units), named as modified and carrying its change as text, so a link or a command line can
make it again; every published peak scaled at once (peak_x); one-line errors naming the fix.
"""

from __future__ import annotations

from perfcore.errors import UserError
from perfcore.model.chip.device import (
    NUMERIC_SI,
    PRECISIONS,
    WHOLE_COLUMNS,
    Device,
    column_value,
    is_positive_finite,
)


class WhatIfError(UserError):
    """A what-if change that cannot apply: one line naming the figure, the value, the fix."""


# Figures a what-if may change: CSV column -> (words in the device's new name, unit).
WHAT_IF = {
    "memory_bw_tbs": ("memory", "TB/s"),
    "memory_gib": ("capacity", "GiB"),
    **{f"{p}_tflops": (f"{p.upper()} peak", "TFLOP/s") for p in PRECISIONS if p != "int8"},
    "int8_tops": ("INT8 peak", "TOP/s"),
    "scaleup_gbs": ("scale-up", "GB/s"),
    "scaleup_domain": ("scale-up domain", "GPUs"),
    "scaleout_gbs": ("network", "GB/s"),
    "pcie_gbs": ("PCIe", "GB/s"),
    "tdp_w": ("TDP", "W"),
}
# Not a column: every published peak times this factor (a precision's own figure, given
# too, is set after it).
PEAK_SCALE = "peak_x"
FIGURES = (PEAK_SCALE, *WHAT_IF)
OUT_OF_RANGE = "expected a finite figure (this one is out of range)"
WHAT_IF_MARK = "what_if"  # the key in Device.extra of a what-if's changes, as text


def changes_of(device: Device) -> str:
    """The what-if text that made `device` from a published row; '' for a published row."""
    return dict(device.extra).get(WHAT_IF_MARK, "")


def peak_column(precision: str) -> str:
    """The specs.csv column of the peak at `precision` (int8's is in TOP/s)."""
    return "int8_tops" if precision == "int8" else f"{precision}_tflops"


def what_if(device: Device, **changes: float) -> Device:
    """device with figures changed (CSV column names, human units), named as modified."""
    fields, words = {}, []
    for column, value in changes.items():
        if column not in FIGURES:
            raise WhatIfError(
                f"what-if: unknown figure {column!r}; expected one of {', '.join(FIGURES)}"
            )
        if not (isinstance(value, int | float) and is_positive_finite(float(value))):
            raise WhatIfError(f"what-if: {column} = {value!r}: expected a positive number")
        if column == PEAK_SCALE:
            fields |= _scaled_peaks(device, float(value), fields)
            words.append(f"every peak {float(value):.3g}×")
            continue
        if column in WHOLE_COLUMNS and not float(value).is_integer():
            raise WhatIfError(f"what-if: {column} = {value!r}: expected a whole number")
        field, scale = NUMERIC_SI[column]
        fields[field] = int(value) if column in WHOLE_COLUMNS else float(value) * scale
        if not is_positive_finite(float(fields[field])):
            raise WhatIfError(f"what-if: {column} = {value!r}: {OUT_OF_RANGE}")
        words.append(_changed(column_value(device, column), float(value), *WHAT_IF[column]))
    if not words:
        return device
    extra = (*device.extra, (WHAT_IF_MARK, what_if_text(changes)))
    return device.replace(name=f"{device.name}, {'; '.join(words)}", extra=extra, **fields)


def _scaled_peaks(device: Device, factor: float, fields: dict) -> dict:
    """{peak field: published peak × factor} for the peaks not already set in `fields`."""
    kept = [p for p in device.published_precisions() if f"{p}_flops_per_s" not in fields]
    scaled = {f"{p}_flops_per_s": device.peak_flops(p) * factor for p in kept}
    if not all(is_positive_finite(v) for v in scaled.values()):
        raise WhatIfError(f"what-if: {PEAK_SCALE} = {factor!r}: {OUT_OF_RANGE}")
    return scaled


def _changed(old: float | None, new: float, label: str, unit: str) -> str:
    """'memory 2× → 6.7 TB/s', 'scale-up domain 8 → 72 GPUs', or 'network → 100 GB/s'."""
    if old is None:
        return f"{label} → {new:g} {unit}"
    if unit == "GPUs":
        return f"{label} {old:g} → {new:g} {unit}"
    return f"{label} {new / old:.3g}× → {new:g} {unit}"


def what_if_text(changes: dict[str, float]) -> str:
    """{column: value} -> 'memory_bw_tbs=6.7,scaleup_domain=72', as parse_what_if reads it."""
    return ",".join(f"{column}={value:.15g}" for column, value in changes.items())


def apply_what_if(device: Device, text: str) -> Device:
    """device changed by a what-if text (parse_what_if's); blank text: device unchanged."""
    return what_if(device, **parse_what_if(text)) if text.strip() else device


def parse_what_if(text: str) -> dict[str, float]:
    """'memory_bw_tbs=6.7,scaleup_domain=72' -> {column: value}; WhatIfError, one line, if not."""
    changes: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",")):
        column, eq, raw = part.partition("=")
        column = column.strip()
        if not eq or column not in FIGURES:
            got = column if eq else part
            raise WhatIfError(
                f"what-if {part[:40]!r}: expected FIGURE=VALUE with FIGURE one of "
                f"{', '.join(FIGURES)} (got {got[:40]!r})"
            )
        if column in changes:
            raise WhatIfError(f"what-if: {column} is given twice")
        try:
            changes[column] = float(raw)
        except ValueError:
            raise WhatIfError(
                f"what-if {part[:40]!r}: {raw.strip()[:20]!r} is not a number"
            ) from None
    return changes
