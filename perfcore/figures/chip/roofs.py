"""Roofs as traces, for every chart that draws a roofline: each precision's flat compute roof
from its ridge, the memory roofs slanted up to it (device memory, L2, links), the other
published precisions and memory levels faint behind, and the ridge marked.
"""

from __future__ import annotations

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.figures.chip.style import ESTIMATE_DASH, LIGHT, Theme, color
from perfcore.model.chip.comm import link_bytes_per_s
from perfcore.model.chip.roofline import ridge_point, roofs
from perfcore.model.chip.specs import Device

# Fixed intensity range (FLOP/byte): elementwise ops near 0.1 to big matmuls near 1e4,
# so the axes hold still while the size sliders move.
X_MIN, X_MAX = 1e-2, 1e5


def memory_roofs(device: Device) -> list[tuple[str, float]]:
    """(label, bytes/s) for each memory roof the device has a figure for, device memory first."""
    d, half = device, lambda bw: bw and link_bytes_per_s(bw, "per-direction")
    roofs = [
        ("device memory", d.memory_bytes_per_s),
        ("L2 (estimate)", d.l2_bytes_per_s_est),
        ("scale-up link, per direction", half(d.scaleup_bytes_per_s)),
        ("PCIe, per direction", half(d.pcie_bytes_per_s)),
    ]
    return [(label, bw) for label, bw in roofs if bw]


def _flat_roof(device: Device, p: str, i: int, prefix: str, dash) -> go.Scatter:
    """The chosen precision's flat compute roof, from its ridge to the right edge."""
    peak, bw = device.peak_flops(p), device.memory_bytes_per_s
    return go.Scatter(
        x=[ridge_point(peak, bw) if bw else X_MIN, X_MAX],
        y=[peak, peak],
        mode="lines",
        name=f"{prefix}{p} roof {fmt.flops_per_s(peak)} (spec)",
        line={"color": color(i), "width": 3, "dash": dash},
        hovertemplate=f"{prefix}{p} peak (published spec): {fmt.flops_per_s(peak)}<extra></extra>",
    )


def slanted_roof(
    label: str, bw: float, top: float, first: bool, prefix: str, dash, theme: Theme = LIGHT
) -> go.Scatter:
    """A memory roof: bandwidth x intensity, up to the highest compute roof."""
    ink = theme.ink if first else theme.muted
    return go.Scatter(
        x=[X_MIN, top / bw],
        y=[bw * X_MIN, top],
        mode="lines",
        name=f"{prefix}{label} {fmt.bytes_per_s(bw)}",
        line={"color": ink, "width": 2 if first else 1, "dash": dash},
        hovertemplate=f"{prefix}{label}: {fmt.bytes_per_s(bw)} × intensity<extra></extra>",
    )


def _segments(name: str, parts: list[tuple[list, list, list]], line: dict) -> go.Scatter:
    """Several roofs as one trace: each part (xs, ys, texts) a line, named where its text is.
    One trace, not one per roof: every trace costs the browser a redraw."""
    x, y, text = [], [], []
    for xs, ys, texts in parts:
        x += [*xs, None]
        y += [*ys, None]
        text += [*texts, ""]
    return go.Scatter(
        x=x,
        y=y,
        mode="lines+text",
        text=text,
        textposition="top left",
        textfont={"size": 11, "color": line["color"]},
        name=name,
        line=line,
        hovertext=text,
        hoverinfo="text",
    )


def _other_precisions(device: Device, precision: str, theme: Theme) -> go.Scatter | None:
    """The other published precisions' flat roofs, thin, each named at its right end
    (precisions with the same peak share a name: 'fp8 = int8')."""
    by_peak: dict[float, list[str]] = {}
    for p in device.published_precisions():
        if p != precision:
            by_peak.setdefault(device.peak_flops(p), []).append(p)
    bw = device.memory_bytes_per_s
    parts = [
        (
            [ridge_point(peak, bw) if bw else X_MIN, X_MAX],
            [peak, peak],
            ["", f"{' = '.join(ps)} {fmt.flops_per_s(peak)}"],
        )
        for peak, ps in by_peak.items()
    ]
    line = {"color": theme.muted, "width": 1.2}
    return _segments("other precisions' roofs (spec)", parts, line) if parts else None


def _other_memory(memory: list[tuple[str, float]], top: float, theme: Theme) -> go.Scatter | None:
    """The memory roofs past device memory (L2, links), dotted, up to the highest compute
    roof, each named a decade below it (at the top the compute roofs are named)."""
    parts = [
        (
            [X_MIN, top / 10 / bw, top / bw],
            [bw * X_MIN, top / 10, top],
            ["", f"{label} {fmt.bytes_per_s(bw)}", ""],
        )
        for label, bw in memory
    ]
    line = {"color": theme.muted, "width": 1, "dash": ESTIMATE_DASH}
    return _segments("L2 and link roofs", parts, line) if parts else None


def roof_traces(
    device: Device,
    precision: str,
    prefix: str = "",
    dash=None,
    brief: bool = False,
    theme: Theme = LIGHT,
) -> list[go.Scatter]:
    """A device's roofs: unless brief (a compared device), every other precision's and memory
    level's, thin, one trace each kind; over them the chosen precision's and device memory's."""
    published = device.published_precisions()
    chosen = [precision] if precision in published else []
    top = max((device.peak_flops(p) for p in (chosen if brief else published)), default=None)
    memory = memory_roofs(device)
    others = (
        []
        if brief or top is None
        else [_other_precisions(device, precision, theme), _other_memory(memory[1:], top, theme)]
    )
    traces = [*others, *(_flat_roof(device, p, published.index(p), prefix, dash) for p in chosen)]
    if memory and top is not None:
        label, bw = memory[0]
        traces.append(slanted_roof(label, bw, top, True, prefix, dash, theme))
    return [t for t in traces if t is not None]


def ridge_trace(
    device: Device, precision: str, y_min: float, theme: Theme = LIGHT
) -> go.Scatter | None:
    """A vertical marker at the ridge of the chosen precision; None where unpublished."""
    roof = roofs(device, precision)
    if roof is None:
        return None
    peak, ridge = roof[0], ridge_point(*roof)
    return go.Scatter(
        x=[ridge, ridge],
        y=[y_min, peak],
        mode="lines+markers",
        marker={"size": [0, 10], "symbol": "diamond"},
        line={"color": theme.muted, "dash": "dot", "width": 1},
        name=f"ridge {fmt.intensity(ridge)} ({precision})",
        hovertemplate=f"ridge = peak / bandwidth = {fmt.intensity(ridge)}<extra></extra>",
    )
