"""Occupancy charts: the utilisation sawtooth against blocks, and tile shapes compared.

The sawtooth is exact and lean: utilisation rises linearly inside a wave and drops
when one block spills into the next, so two corner points per wave draw it.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.explain.chip.occupancy import Occupancy
from perfcore.figures.chip.style import (
    LIGHT,
    SECOND_DEVICE_DASH,
    Theme,
    base_layout,
    color,
    fitted,
    grid,
    note,
)
from perfcore.model.chip.occupancy import TileQuantisation, utilisation, waves
from perfcore.model.chip.specs import Device

# Past this many waves a tooth is under 0.5 % deep: the rest is drawn as one segment
# to the exact end value, so a huge batch cannot bloat the figure.
MAX_TEETH = 200
SHOWN_WAVES = 4  # the x axis spans at least four waves of the widest device
MIN_BLOCKS = 16  # and at least this many blocks (a one-unit device has one-block waves)
EFFICIENCIES = (
    ("tile efficiency (edge padding)", "tile_efficiency"),
    ("utilisation (all waves)", "utilisation"),
    ("overall efficiency", "efficiency"),
)


def corners(units: int, max_blocks: int) -> list[int]:
    """Block counts at each tooth's foot and top from 1 to max_blocks (two per wave)."""
    n = min(waves(max_blocks, units), MAX_TEETH)
    feet_tops = [b for w in range(1, n + 1) for b in ((w - 1) * units + 1, w * units)]
    return [b for b in feet_tops if b < max_blocks] + [max_blocks]


def _count(k: int, word: str) -> str:
    """'1 unit', '132 units'."""
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


def _sawtooth(device: Device, max_blocks: int, dash=None, first: bool = True) -> go.Scatter:
    """Utilisation against blocks on the device's compute units."""
    units = device.compute_units
    xs = corners(units, max_blocks)
    return go.Scatter(
        x=xs,
        y=[utilisation(b, units) for b in xs],
        mode="lines",
        name=f"utilisation, {device.name} ({_count(units, 'unit')}, spec)",
        line={"color": color(0 if first else 3), "dash": dash},
        customdata=[waves(b, units) for b in xs],
        hovertemplate="%{x} blocks: %{customdata} waves, %{y:.1%}<extra></extra>",
    )


def _waves(device: Device, max_blocks: int, theme: Theme) -> go.Scatter:
    """Waves against blocks: a staircase, one step per wave (right axis)."""
    units = device.compute_units
    xs = corners(units, max_blocks)
    return go.Scatter(
        x=xs,
        y=[waves(b, units) for b in xs],
        mode="lines",
        name="waves (right axis)",
        yaxis="y2",
        line={"color": theme.muted, "width": 1},
        hovertemplate="%{x} blocks: %{y} waves<extra></extra>",
    )


def _waves_axis(most: int, theme: Theme) -> dict:
    """The right axis: whole waves from 0, about five ticks."""
    step = max(1, math.ceil(most / 5))
    place = {"overlaying": "y", "side": "right", "showgrid": False, **grid(theme)}
    return {"title": {"text": "waves"}, "range": [0, most * 1.1], "dtick": step, **place}


def _chosen(o: Occupancy) -> go.Scatter:
    """The chosen batch as a marker on the sawtooth."""
    label = f"batch {o.batch}: {fmt.percent(o.utilisation)}"
    return go.Scatter(
        x=[o.blocks],
        y=[o.utilisation],
        mode="markers+text",
        text=[label],
        textposition="top center",
        name=f"your batch ({_count(o.blocks, 'block')}, {_count(o.waves, 'wave')}, "
        f"{o.idle_units} units idle)",
        marker={"size": 13, "color": color(1), "symbol": "diamond"},
        hovertemplate=f"{label}, {o.waves} waves, {o.idle_units} idle<extra></extra>",
    )


@fitted
def occupancy_sawtooth_figure(
    device: Device,
    chosen: Occupancy | None,
    compare: Device | None = None,
    theme: Theme = LIGHT,
) -> go.Figure:
    """Utilisation and waves against blocks, 1 to 4+ waves, the chosen batch marked."""
    fig = go.Figure(layout=base_layout(f"The sawtooth — {device.name}", "", "", theme=theme))
    if device.compute_units is None:
        missing = f"{device.name}: compute units {fmt.NOT_PUBLISHED}"
        return fig.update_layout(annotations=[note(missing, 0.5, 0.5, theme)])
    others = [d for d in (compare,) if d is not None and d.compute_units is not None]
    widest = max(d.compute_units for d in (device, *others))
    # Fixed x range (four waves of the widest device) so the teeth hold still as the batch
    # moves; it widens only when the chosen blocks fall beyond it.
    x_max = max(SHOWN_WAVES * widest, MIN_BLOCKS, chosen.blocks if chosen else 0)
    fig.add_traces([_sawtooth(device, x_max), _waves(device, x_max, theme)])
    fig.add_traces([_sawtooth(d, x_max, SECOND_DEVICE_DASH, False) for d in others])
    if compare is not None and not others:
        fig.add_annotation(
            note(f"{compare.name}: compute units {fmt.NOT_PUBLISHED}", 0.5, 0.05, theme)
        )
    if chosen is not None:
        fig.add_trace(_chosen(chosen))
    fig.update_layout(
        xaxis={"title": {"text": "thread blocks launched"}, "range": [0, x_max * 1.08]},
        yaxis={"title": {"text": "utilisation"}, "range": [0, 1.1], "tickformat": ".0%"},
        yaxis2=_waves_axis(waves(x_max, device.compute_units), theme),
    )
    return fig


def _efficiency_bars(compared: dict[str, TileQuantisation], i: int) -> go.Bar:
    """One efficiency (tile, wave or overall) for every tile shape."""
    name, attr = EFFICIENCIES[i]
    values = [getattr(q, attr) for q in compared.values()]
    return go.Bar(
        x=list(compared),
        y=values,
        name=name,
        text=[fmt.percent(v) for v in values],
        textposition="outside",
        marker={"color": color(i)},
        customdata=[[q.tiles, q.waves] for q in compared.values()],
        hovertemplate=f"%{{x}}: %{{customdata[0]}} tiles, %{{customdata[1]}} waves, {name} "
        "%{y:.1%}<extra></extra>",
    )


@fitted
def tile_efficiency_figure(
    compared: dict[str, TileQuantisation], tile: str, theme: Theme = LIGHT
) -> go.Figure:
    """Tile, wave and overall efficiency per tile shape; the chosen shape marked."""
    layout = base_layout("Tile quantisation, by tile shape", "tile shape", "", theme=theme)
    fig = go.Figure(layout=layout)
    if not compared:
        missing = f"compute units {fmt.NOT_PUBLISHED}: no waves to count"
        return fig.update_layout(annotations=[note(missing, 0.5, 0.5, theme)])
    fig.add_traces([_efficiency_bars(compared, i) for i in range(len(EFFICIENCIES))])
    chosen = {"x": tile, "y": 1.12, "text": "<b>chosen</b>", "showarrow": False, "yref": "y"}
    # Fixed 0-115 % so the bars hold still as M and N move.
    fig.update_layout(
        barmode="group",
        yaxis={"title": {"text": "efficiency"}, "range": [0, 1.15], "tickformat": ".0%"},
        annotations=[chosen],
    )
    return fig
