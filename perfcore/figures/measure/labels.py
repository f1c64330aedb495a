"""Labels beside their points, no two overlapping: a small, deterministic placement in pixels.

A label is a box (width, height) put beside its anchor (the point it names) at one of a fixed
list of spots: above, right, below, left, then the four corners, each at a gap from the anchor,
then a label's height further out each ring (labels on one point stack). Labels are placed in
the order given (the most important first); each takes the first spot whose box stays inside
the plot and meets neither a box already placed nor an obstacle (the labelled points' own
markers) at any width the plot is drawn, a 420 px screen's to the main column's (a label
keeps its pixel offset as its anchor moves with the width). A label with no free spot is left
out (None) rather than drawn over another. Same inputs, same placement.

Coordinates are pixels with y growing upward (as a plot's axes do), boxes (x0, y0, x1, y1).
"""

from __future__ import annotations

import math

import plotly.graph_objects as go

from perfcore.figures.chip.style import CHAR_PX, FIT_WIDTH, LINE_PX, Theme, fit_margins

Box = tuple[float, float, float, float]  # x0, y0, x1, y1, pixels
GAP_PX = 6.0  # the first ring's distance between a label's box and its anchor
RINGS = 6  # distances tried: the gap, then a label's height further out each ring
SPOTS = ((0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1))  # up, right, ...
PAD_PX = 6.0  # a label's horizontal padding
NARROW_WIDTH = 388  # a chart's width on a 420 px screen (STYLE.md: legible at 420 px)


def text_size(text: str) -> tuple[float, float]:
    """The (width, height) in pixels of a one-line label at the charts' font, padded."""
    return CHAR_PX * len(text) + PAD_PX, LINE_PX


def intersects(a: Box, b: Box) -> bool:
    """True when two boxes share some area (touching edges do not count)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def inside(box: Box, bounds: Box) -> bool:
    """True when the box lies wholly within bounds."""
    x0, y0, x1, y1 = bounds
    return x0 <= box[0] and box[2] <= x1 and y0 <= box[1] and box[3] <= y1


def box_at(anchor: tuple[float, float], size: tuple[float, float], spot, distance: float) -> Box:
    """The box of a label of `size` at `spot` (a direction, e.g. (0, 1) above) from anchor."""
    (x, y), (w, h), (dx, dy) = anchor, size, spot
    cx, cy = x + dx * (w / 2 + distance), y + dy * (h / 2 + distance)
    return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def stretched(box: Box, anchor_x: float, stretch: float) -> Box:
    """The box of a label whose anchor sits at anchor_x, the plot drawn `stretch` times wider
    (anchors move with the plot's width; a label keeps its pixel offset from its anchor)."""
    shift = anchor_x * (stretch - 1)
    return (box[0] + shift, box[1], box[2] + shift, box[3])


def _clash(a: Box, ax: float, b: Box, bx: float, stretch: float) -> bool:
    """True when two labels share area at some width from the narrowest to `stretch` times it:
    rows apart never do; else they must be apart at both ends, on the same side at both (the
    gap between them changes linearly with the width)."""
    if not (a[1] < b[3] and b[1] < a[3]):
        return False
    wa, wb = stretched(a, ax, stretch), stretched(b, bx, stretch)
    return intersects(a, b) or intersects(wa, wb) or (a[0] < b[0]) != (wa[0] < wb[0])


def place(
    anchors: list[tuple[float, float]],
    sizes: list[tuple[float, float]],
    bounds: Box,
    obstacles: tuple[Box, ...] = (),
    gap: float = GAP_PX,
    stretch: float = 1.0,
) -> list[Box | None]:
    """Each label's box at the narrowest width (in the order given, first placed first), or
    None where no spot is free. Anchors, bounds and obstacles are given at the narrowest width
    the plot is drawn at; no two boxes meet at any width up to `stretch` times it (obstacles
    move with their centres)."""
    if len(anchors) != len(sizes):
        raise ValueError(f"{len(anchors)} anchors but {len(sizes)} label sizes")
    wide = (bounds[0] * stretch, bounds[1], bounds[2] * stretch, bounds[3])
    taken = [(o, (o[0] + o[2]) / 2) for o in obstacles]
    out: list[Box | None] = []
    for (x, y), size in zip(anchors, sizes, strict=True):
        rings = (gap + k * size[1] for k in range(RINGS))
        candidates = (box_at((x, y), size, s, d) for d in rings for s in SPOTS)
        found = next(
            (
                b
                for b in candidates
                if inside(b, bounds)
                and inside(stretched(b, x, stretch), wide)
                and not any(_clash(b, x, o, ox, stretch) for o, ox in taken)
            ),
            None,
        )
        out.append(found)
        if found is not None:
            taken.append((found, x))
    return out


def name_points(
    fig: go.Figure,
    points: list[tuple[float, float, str, float]],
    theme: Theme,
    others: tuple[tuple[float, float, float], ...] = (),
):
    """fig (its log axes' ranges set) with points named: (x, y in data units, text, marker
    radius in px), first named first, over no other label nor marker (theirs, and the `others`
    points' (x, y, radius)) at any width from a 420 px screen's to the main column's; a point
    with no room is left unnamed (its hover names it). The plot area is the figure's own,
    inside the margins fitted first (style.fit_margins)."""
    m = fit_margins(fig).layout.margin
    (x0, x1), (y0, y1) = fig.layout.xaxis.range, fig.layout.yaxis.range
    narrow, wide = (w - m.l - m.r for w in (NARROW_WIDTH, FIT_WIDTH))
    tall = fig.layout.height - m.t - m.b

    def px(x: float, y: float) -> tuple[float, float]:
        return narrow * (math.log10(x) - x0) / (x1 - x0), tall * (math.log10(y) - y0) / (y1 - y0)

    anchors = [px(x, y) for x, y, *_ in points]
    markers = tuple(
        (u - d, v - d, u + d, v + d)
        for (u, v), d in [*zip(anchors, [p[3] for p in points], strict=True)]
        + [(px(x, y), d) for x, y, d in others]
    )
    sizes = [text_size(t) for _, _, t, _ in points]
    boxes = place(anchors, sizes, (0, 0, narrow, tall), markers, stretch=wide / narrow)
    notes = [
        {
            "x": math.log10(x),  # a log axis places annotations by log10
            "y": math.log10(y),
            "text": text,
            "ax": (b[0] + b[2]) / 2 - ux,
            "ay": uy - (b[1] + b[3]) / 2,  # pixels, down
            "xanchor": "center",
            "yanchor": "middle",
            "showarrow": True,
            "arrowhead": 0,
            "arrowwidth": 1,
            "arrowcolor": theme.muted,
            "font": {"color": theme.text},
        }
        for (x, y, text, _), (ux, uy), b in zip(points, anchors, boxes, strict=True)
        if b is not None
    ]
    return fig.update_layout(annotations=notes)
