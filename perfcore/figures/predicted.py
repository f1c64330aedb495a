"""The Profile page's predicted-vs-measured chart: one point per op, the diagonal, the misses named.

Each op is a point at its measured time per step (x) and its predicted one (y), on log axes;
the diagonal is a perfect prediction, the dashed lines either side of it the kernel curves' own
spread, and the ops outside them are named (figures.labels: none over another), slowest first.
"""

from __future__ import annotations

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.figures import labels
from perfcore.figures.style import LIGHT, Theme, base_layout, color, fitted, log_axis

HEIGHT = 600
MARKER_PX = 10


def _line(low: float, high: float, factor: float, name: str, theme: Theme, dash: str) -> go.Scatter:
    """predicted = factor x measured, from low to high."""
    return go.Scatter(
        x=[low, high],
        y=[low * factor, high * factor],
        mode="lines",
        name=name,
        line={"color": theme.ink if dash == "solid" else theme.muted, "width": 1.5, "dash": dash},
        hoverinfo="skip",
    )


@fitted
def predicted_figure(
    rows: list[dict], missed: list[str], spread: float | None, theme: Theme = LIGHT
) -> go.Figure:
    """Log-log: each op's predicted time per step against its measured one (rows of
    explain.predict.versus_rows), the diagonal, the curves' spread, the `missed` ops named."""
    fig = go.Figure(
        layout=base_layout(
            "Predicted against measured, per op",
            "measured time per step",
            "predicted time per step",
            HEIGHT,
            theme,
        )
    )
    times = [t for r in rows for t in (r["predicted_s"], r["measured_s"]) if t > 0]
    low, high = min(times, default=1e-6) / 2, max(times, default=1e-3) * 2
    fig.add_trace(_line(low, high, 1.0, "predicted = measured", theme, "solid"))
    if spread:
        fig.add_trace(
            _line(
                low,
                high,
                1 + spread,
                f"± the curves' spread ({fmt.percent(spread)})",
                theme,
                "dash",
            )
        )
        fig.add_trace(_line(low, high, 1 - spread, "", theme, "dash").update(showlegend=False))
    kinds = list(dict.fromkeys(r["kernel"] or "not a kernel" for r in rows))
    for i, kind in enumerate(kinds):
        mine = [r for r in rows if (r["kernel"] or "not a kernel") == kind]
        fig.add_trace(
            go.Scatter(
                x=[r["measured_s"] for r in mine],
                y=[r["predicted_s"] for r in mine],
                mode="markers",
                name=f"{kind} (measured median step; predicted from kernel curves)",
                text=[r["op"] for r in mine],
                marker={
                    "size": MARKER_PX,
                    "color": color(i),
                    "line": {"width": 1, "color": theme.text},
                },
                customdata=[[f"{r['error']:+.0%}", r["derived_from"]] for r in mine],
                hovertemplate="%{text}: measured %{x:.3s}s, predicted %{y:.3s}s "
                "(%{customdata[0]})<br>%{customdata[1]}<extra></extra>",
            )
        )
    fig.update_layout(
        xaxis=log_axis(low, high, "measured time per step", fmt.seconds, theme=theme),
        yaxis=log_axis(low, high, "predicted time per step", fmt.seconds, theme=theme),
    )
    by_op = {r["op"]: r for r in rows}
    named = [(by_op[n]["measured_s"], by_op[n]["predicted_s"], n, MARKER_PX / 2) for n in missed]
    return labels.name_points(fig, named, theme)
