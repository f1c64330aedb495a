"""The memory-hierarchy chart: one metric per level on a log axis, devices side by side."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.explain.chip.hierarchy import FORGONE_KIND, Hierarchy, LevelRow
from perfcore.figures.chip.style import LIGHT, Theme, base_layout, color, fitted, grid, log_axis
from perfcore.model.chip.hierarchy import ESTIMATE, SPEC

# Fixed log ranges per metric, so the axis holds still as device and precision change;
# they span every row of data/specs.csv and widen only for an uploaded outlier.
RANGES = {
    "FLOPs forgone": (1e3, 1e11),
    "capacity": (1e4, 1e12),
    "bandwidth": (1e9, 1e15),
    "latency": (1e-10, 1e-5),
}
TEXT = {
    "FLOPs forgone": fmt.flops,
    "capacity": fmt.capacity,
    "bandwidth": fmt.bytes_per_s,
    "latency": fmt.seconds,
}
# Estimates are hatched so they never pass for a vendor's figure.
STYLES = {SPEC: (color(0), ""), ESTIMATE: (color(4), "/"), FORGONE_KIND: (color(3), "/")}
NOT_PUBLISHED_TEXT = "not<br>published"


def y_title(metric: str, precision: str) -> str:
    """The y-axis title for `metric`, with its unit."""
    titles = {
        "FLOPs forgone": f"FLOPs forgone per trip (at the {precision} peak)",
        "capacity": "capacity (bytes)",
        "bandwidth": "bandwidth (bytes/s)",
        "latency": "latency (s, order-of-magnitude estimate)",
    }
    return titles[metric]


def _hover(h: Hierarchy, r: LevelRow, metric: str) -> str:
    """Hover text: device, level, the figure, its kind, and its unit or convention."""
    lv = r.level
    notes = [
        "per SM/CU, not per device" if lv.per_unit and metric == "capacity" else "",
        lv.bandwidth_convention if metric == "bandwidth" else "",
    ]
    extra = "".join(f"<br>{n}" for n in notes if n)
    value = TEXT[metric](r.value(metric))
    return f"<b>{h.device.name}</b> — {lv.name}<br>{metric}: {value} ({r.kind(metric)}){extra}"


def _bars(h: Hierarchy, metric: str, kind: str, legend: bool) -> go.Bar:
    """The levels whose `metric` figure is of `kind`, as bars, each value written above it."""
    rows = [r for r in h.rows if r.kind(metric) == kind]
    fill, pattern = STYLES[kind]
    return go.Bar(
        x=[r.label(metric) for r in rows],
        y=[r.value(metric) for r in rows],
        text=[TEXT[metric](r.value(metric)) for r in rows],
        # Above the bar in the page's text colour: inside a hatched bar no colour reads.
        textposition="outside",
        cliponaxis=False,
        marker={"color": fill, "pattern": {"shape": pattern}},
        name=kind,
        legendgroup=kind,
        showlegend=legend,
        hovertext=[_hover(h, r, metric) for r in rows],
        hoverinfo="text",
    )


def _not_published(h: Hierarchy, metric: str, y: float, theme: Theme) -> go.Scatter:
    """'not published' where an unpublished level's bar would stand (a link has no capacity)."""
    rows = [r for r in h.rows if r.value(metric) is None and r.applies(metric)]
    return go.Scatter(
        x=[r.label(metric) for r in rows],
        y=[y] * len(rows),
        mode="text",
        text=[NOT_PUBLISHED_TEXT] * len(rows),
        textfont={"color": theme.muted, "size": 10},
        name=f"{h.device.name}: {fmt.NOT_PUBLISHED}",
        showlegend=False,
        hovertext=[f"{h.device.name} — {r.level.name}: {fmt.NOT_PUBLISHED}" for r in rows],
        hoverinfo="text",
    )


def _y_range(views: Sequence[Hierarchy], metric: str) -> tuple[float, float]:
    """The metric's fixed range, widened to hold every shown value."""
    values = [r.value(metric) for h in views for r in h.rows if r.value(metric) is not None]
    low, high = RANGES[metric]
    return min([low] + [v / 2 for v in values]), max([high] + [v * 2 for v in values])


def _panel_title(text: str, x: float) -> dict:
    """A panel's title: an annotation just above the plot, centred on x (paper coordinates)."""
    return {
        "text": text,
        "x": x,
        "y": 1,
        "xref": "paper",
        "yref": "paper",
        "yanchor": "bottom",
        "showarrow": False,
    }


def _panels(views: Sequence[Hierarchy], metric: str, low: float, high: float, theme: Theme) -> dict:
    """One panel per device side by side, levels in the hierarchy's order, one shared log y axis."""
    n, gap = len(views), 0.02
    y_text = y_title(metric, views[0].precision)
    y_axis = log_axis(low, high, y_text, theme=theme)
    layout = {"barmode": "overlay", "yaxis": y_axis, "annotations": []}
    for i, h in enumerate(views):
        domain = [i / n + gap * i, (i + 1) / n - gap * (n - 1 - i)]
        order = [r.label(metric) for r in h.rows if r.applies(metric)]
        layout[f"xaxis{_axis(i)}"] = {
            "domain": domain,
            "anchor": f"y{_axis(i)}",
            "categoryorder": "array",
            "categoryarray": order,
            # Turned one way always, down to the left: left to
            # itself Plotly turns long names the other way, past
            # the right edge, and draws the chart twice to fit them.
            "tickangle": -30,
            **grid(theme),
        }
        title = f"{h.device.name} ({h.precision})"
        layout["annotations"].append(_panel_title(title, sum(domain) / 2))
    for i in range(1, n):
        layout[f"yaxis{_axis(i)}"] = {
            "anchor": f"x{_axis(i)}",
            "matches": "y",
            "type": "log",
            "showticklabels": False,
            **grid(theme),
        }
    return layout


def _axis(i: int) -> str:
    """Plotly's axis suffix for panel i: '' for the first, '2' for the second."""
    return str(i + 1) if i else ""


@fitted
def hierarchy_figure(views: Sequence[Hierarchy], metric: str, theme: Theme = LIGHT) -> go.Figure:
    """Bars of `metric` per level in the hierarchy's order, one panel per device, log y."""
    low, high = _y_range(views, metric)
    traces = []
    for i, h in enumerate(views):
        kinds = dict.fromkeys(r.kind(metric) for r in h.rows if r.value(metric) is not None)
        panel = [*(_bars(h, metric, k, i == 0) for k in kinds)]
        panel.append(_not_published(h, metric, low * 3, theme))
        traces += [t.update(xaxis=f"x{_axis(i)}", yaxis=f"y{_axis(i)}") for t in panel]
    layout = base_layout(f"Memory hierarchy — {metric} per level", "", "", theme=theme)
    fig = go.Figure(traces, layout)
    fig.update_layout(_panels(views, metric, low, high, theme))
    return fig
