"""The Plan page's published-runs chart: each run's measured time against its bound, the
expected line and its held-out error band per regime, the runs nearest the setting numbered."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.figures.chip.style import (
    ESTIMATE_DASH,
    LIGHT,
    Theme,
    base_layout,
    color,
    fitted,
    log_axis,
    point_labels,
    translucent,
)
from perfcore.model.runs.efficiency import Efficiency
from perfcore.model.runs.sample import Sample


@fitted
def published_runs_figure(
    samples: Sequence[Sample],
    nearest: Sequence[Sample],
    efficiencies: Sequence[Efficiency],
    theme: Theme = LIGHT,
) -> go.Figure:
    """Each published run's measured time against its bound (log-log): the diagonal is the
    bound, a dotted line per regime its expected figure; the runs nearest the setting named."""
    fig = go.Figure(
        layout=base_layout("Published runs: measured against the bound", "", "", 480, theme)
    )
    chosen = set(map(id, nearest))
    rest = [s for s in samples if id(s) not in chosen]
    if rest:
        fig.add_trace(_runs(rest, "other published runs", theme.muted, {"mode": "markers"}))
    if nearest:
        # Numbered as the table below numbers them: names would overlap where runs cluster.
        labels = point_labels([str(i) for i in range(1, len(nearest) + 1)], "middle right")
        fig.add_trace(
            _runs(nearest, "nearest this setting (numbered as in the table)", color(1), labels)
        )
    every = [v for s in samples for v in (s.bound_s, s.measured_s)] or [1e-3, 1.0]
    low, high = min(every) / 2, max(every) * 2
    fig.add_trace(
        go.Scatter(
            x=[low, high],
            y=[low, high],
            mode="lines",
            name="at the bound",
            line={"color": theme.ink, "width": 1.5},
            hoverinfo="name",
        )
    )
    for i, e in enumerate(efficiencies):
        if e.error_p90 is not None:
            _band(fig, e, (low, high), color(2 + i))
        fig.add_trace(
            go.Scatter(
                x=[low, high],
                y=[low / e.value, high / e.value],
                mode="lines",
                name=f"expected {e.regime} (bound ÷ {e.value:.2f})",
                line={"color": color(2 + i), "dash": ESTIMATE_DASH},
                hoverinfo="name",
            )
        )
    fig.update_layout(
        xaxis=log_axis(low, high, "bound", fmt.seconds, theme),
        yaxis=log_axis(low, high, "measured", fmt.seconds, theme),
    )
    return fig


def _band(fig: go.Figure, e: Efficiency, xs: tuple[float, float], colour: str) -> None:
    """Shade where a measured time lies when the expected one is off by the regime's p90
    held-out error or less (Efficiency.band_s; up to the axis's top where it has no upper end)."""
    ends = [e.band_s(x) for x in xs]
    lower = [low for low, _ in ends]
    upper = [xs[-1] if high is None else high for _, high in ends]
    name = f"expected {e.regime}: {fmt.percent(e.error_p90, 2)} p90 error of held-out frameworks"
    for y, fill in ((lower, None), (upper, "tonexty")):  # the upper edge fills down to the lower
        fig.add_trace(
            go.Scatter(
                x=list(xs),
                y=y,
                mode="lines",
                name=name,
                legendgroup=name,
                showlegend=fill is not None,
                line={"width": 0, "color": colour},
                fill=fill,
                fillcolor=translucent(colour),
                hoverinfo="skip",
            )
        )


def _runs(samples: Sequence[Sample], name: str, colour: str, labels: dict) -> go.Scatter:
    """Runs as points at (bound, measured), each named in the hover with its source."""
    return go.Scatter(
        x=[s.bound_s for s in samples],
        y=[s.measured_s for s in samples],
        name=name,
        marker={"size": 9, "color": colour},
        **labels,
        textfont={"size": 11},
        hovertext=[
            f"<b>{s.run.name}</b><br>{s.regime}: measured "
            f"{fmt.seconds(s.measured_s)}, bound {fmt.seconds(s.bound_s)}"
            f" (efficiency {fmt.percent(s.efficiency)})<br>{s.source[:80]}"
            for s in samples
        ],
        hoverinfo="text",
    )
