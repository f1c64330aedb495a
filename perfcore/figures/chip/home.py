"""The landing page's small chart: the calculator's operation on the chosen device's roofline.

A thin variant of the roofline chart: the chosen precision's compute roof and the device
memory roof only (the full set of roofs is the Roofline page's job), the ridge, and one point.
"""

from __future__ import annotations

import plotly.graph_objects as go

from perfcore import format as fmt
from perfcore.figures.chip.roofline import op_traces
from perfcore.figures.chip.roofs import X_MAX, X_MIN, ridge_trace, roof_traces
from perfcore.figures.chip.style import HALF_WIDTH, LIGHT, Theme, base_layout, fitted, log_axis
from perfcore.model.chip.roofline import Estimate
from perfcore.model.chip.specs import Device

HEIGHT = 400  # small: the calculator's inputs and metrics stay in view beside it


@fitted(width=HALF_WIDTH)  # beside its inputs
def calculator_figure(
    device: Device, precision: str, point: Estimate, theme: Theme = LIGHT
) -> go.Figure:
    """Log-log roofline of `device` at `precision` with the calculator's operation on it."""
    top = point.peak_flops_per_s
    x_low, x_high = min(X_MIN, point.intensity / 3), max(X_MAX, point.intensity * 3)
    y_low = min(top / 1e6, point.attainable_flops_per_s / 3)
    fig = go.Figure(layout=base_layout("", "", "", height=HEIGHT, theme=theme))
    fig.add_traces(roof_traces(device, precision, brief=True, theme=theme))
    ridge = ridge_trace(device, precision, y_low, theme)
    fig.add_traces([ridge] if ridge is not None else [])
    fig.add_traces(op_traces([point], theme))
    fig.update_layout(
        xaxis=log_axis(x_low, x_high, "arithmetic intensity (FLOP/byte)", theme=theme),
        yaxis=log_axis(y_low, 10 * top, "attainable FLOP/s", fmt.flops_per_s, theme=theme),
        margin={"t": 10},
    )
    return fig
