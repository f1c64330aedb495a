"""The Profile page's predicted-vs-measured chart: one point per op, the diagonal, the misses named.

Each op is a point at its measured time per step (x: its fastest profiled step, what the
curves' fastest calls predict; its median in the hover) and its predicted one (y), on log axes;
the diagonal is a perfect prediction, the dashed lines either side of it the kernel curves' own
spread, and the ops outside them are named (figures.measure.labels: none over another),
slowest first.
"""

from __future__ import annotations

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.figures.chip.style import LIGHT, Theme, base_layout, color, fitted, log_axis
from perfcore.figures.measure import labels
from perfcore.measure.profile.predict.versus import OpVersus

HEIGHT = 600
MARKER_PX = 10
X_TITLE = "measured time per step (fastest of the profiled steps)"
Y_TITLE = "predicted time per step (from kernel curves)"


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
    ops: tuple[OpVersus, ...], missed: tuple[str, ...], spread: float | None, theme: Theme = LIGHT
) -> go.Figure:
    """Log-log: each op's predicted time per step against its measured one, the diagonal, the
    curves' spread either side, the `missed` ops named; an op at 0 s either way has no place
    on log axes and is left off (the page's lines still count it)."""
    ops = tuple(o for o in ops if o.predicted_s > 0 and o.fastest_s > 0)
    missed = tuple(n for n in missed if n in {o.name for o in ops})
    fig = go.Figure(
        layout=base_layout(
            "Predicted against measured, per op",
            "",
            "",
            HEIGHT,
            theme,
        )
    )
    times = [t for o in ops for t in (o.predicted_s, o.fastest_s) if t > 0]
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
    kinds = list(dict.fromkeys(o.kernel or "not a kernel" for o in ops))
    for i, kind in enumerate(kinds):
        mine = [o for o in ops if (o.kernel or "not a kernel") == kind]
        fig.add_trace(
            go.Scatter(
                x=[o.fastest_s for o in mine],
                y=[o.predicted_s for o in mine],
                mode="markers",
                name=kind,
                text=[o.name for o in mine],
                marker={
                    "size": MARKER_PX,
                    "color": color(i),
                    "line": {"width": 1, "color": theme.text},
                },
                customdata=[
                    [f"{o.error:+.0%}", o.derived_from, fmt.seconds(o.measured_s)] for o in mine
                ],
                hovertemplate="%{text}: fastest step %{x:.3s}s (median %{customdata[2]}), "
                "predicted %{y:.3s}s (%{customdata[0]})<br>%{customdata[1]}<extra></extra>",
            )
        )
    fig.update_layout(
        xaxis=log_axis(low, high, X_TITLE, fmt.seconds, theme=theme),
        yaxis=log_axis(low, high, Y_TITLE, fmt.seconds, theme=theme),
    )
    by_name = {o.name: o for o in ops}
    named = [(by_name[n].fastest_s, by_name[n].predicted_s, n, MARKER_PX / 2) for n in missed]
    markers = tuple((o.fastest_s, o.predicted_s, MARKER_PX / 2) for o in ops)
    return labels.name_points(fig, named, theme, markers)
