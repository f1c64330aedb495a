"""Memory per GPU as stacked bars against the capacity: the Workloads chart (weights, KV cache,
activations, gradients and optimizer per device, capacity × GPUs drawn across, the first
device's verdict as the title), and ticks in binary units that the Plan chart shares.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.figures.chip.style import HALF_WIDTH, LIGHT, Theme, base_layout, color, fitted

MEMORY_COLORS = {"weights": 0, "KV cache": 1, "activations": 2, "gradients + optimizer": 3}


@fitted(width=HALF_WIDTH)
def memory_figure(
    bars: Sequence[tuple[str, dict[str, float], float | None, int]], theme: Theme = LIGHT
) -> go.Figure:
    """Stacked bytes (weights, KV, activations, optimizer) per device against capacity × GPUs.

    bars: (device name, {part: bytes on all GPUs}, capacity per GPU or None, GPUs).
    """
    labels = [name for name, *_ in bars]
    fig = go.Figure(layout=base_layout(_memory_title(bars), "", "", 420, theme))
    for part, i in MEMORY_COLORS.items():
        fig.add_trace(
            go.Bar(
                x=labels,
                y=[parts[part] for _, parts, *_ in bars],
                name=part,
                marker={"color": color(i)},
                hovertext=[fmt.capacity(parts[part]) for _, parts, *_ in bars],
                hoverinfo="text+name",
            )
        )
    known = [(name, cap * n) for name, _, cap, n in bars if cap is not None]
    if known:
        fig.add_trace(_capacity(known, theme))
    top = max([sum(parts.values()) for _, parts, *_ in bars] + [v for _, v in known] + [1.0])
    fig.update_layout(barmode="stack", yaxis={"title": {"text": "memory"}, **gib_ticks(top)})
    return fig


def gib_ticks(top: float, most: int = 6) -> dict:
    """Ticks in binary units (GiB, TiB), as capacities are sized: 1-2-5 steps up to `top`,
    about `most` of them."""
    steps = (m * 10**e * 2**30 for e in range(12) for m in (1, 2, 5))
    step = next(s for s in steps if top / s <= most)
    ticks = [i * step for i in range(math.ceil(top / step) + 1)]
    return {"tickvals": ticks, "ticktext": [fmt.capacity(t) if t else "0" for t in ticks]}


def _capacity(known: list[tuple[str, float]], theme: Theme) -> go.Scatter:
    """A wide tick at each device's capacity × GPUs."""
    # An open symbol draws only its line: colour and line both take the theme's ink.
    marker = {
        "symbol": "line-ew-open",
        "size": 70,
        "color": theme.ink,
        "line": {"width": 3, "color": theme.ink},
    }
    hover = [fmt.capacity(v) for _, v in known]
    return go.Scatter(
        x=[k for k, _ in known],
        y=[v for _, v in known],
        mode="markers",
        name="capacity × GPUs",
        marker=marker,
        hovertext=hover,
        hoverinfo="text+name",
    )


def _memory_title(bars) -> str:
    """The first device's verdict, said plainly: fits on N GPUs, or does not."""
    if not bars:
        return "Memory"
    name, parts, cap, n = bars[0]
    gpus = f"{n} GPU{'s' if n > 1 else ''}"
    if cap is None:
        return f"{name} publishes no capacity: the fit is unknown"
    total = sum(parts.values())
    verdict = "fits on" if total <= cap * n else "does not fit on"
    return f"{fmt.capacity(total)} {verdict} {gpus} ({n} × {fmt.capacity(cap)})"
