"""Precision: one matmul at every precision the device publishes, vector and tensor paths apart.

Its two charts and its table are tabs (ui.tabs): only the open one is drawn."""

import streamlit as st

import ui
from perfcore.explain.chip import precision as view
from perfcore.figures import precision_bars_figure, precision_roofline_figure
from perfcore.model.chip import ops
from perfcore.model.chip.precision import matmul_sweep

# A link made before the tabs with ?pr_bars (the bar chart's toggle) opens this tab.
BARS = "Peak and time floor"

ctx = ui.context()
st.title("Precision is a throughput knob")
st.latex(
    r"I(b) = \frac{2mnk}{b\,(mk + kn + mn)},\qquad t_{\text{floor}}(b) = "
    r"\max\left(\frac{2mnk}{P_{\text{peak}}(b)},\; \frac{b\,(mk + kn + mn)}{\beta}\right)"
)
sizes = {}
with st.container(horizontal=True):  # a row of inputs, not columns: see ui.INPUT
    for param in ops.CATALOG["matmul"][1]:
        label = f"{param.name} ({param.help})"
        sizes[param.name] = ui.number(
            label, f"pr_{param.name}", param.default, 1, view.SIZE_MAX, width=ui.INPUT
        )
rows = matmul_sweep(ctx.device, **sizes)
span = view.span(rows)
ui.metrics(view.metrics(span))
st.caption(view.missing_note(ctx.device, rows))
parts = {
    "Roofline by precision": lambda: ui.chart(
        "pr_roofline", precision_roofline_figure, rows, ctx.device, span
    ),
    BARS: lambda: ui.chart("pr_bars_chart", precision_bars_figure, rows, view.not_published(rows)),
    "Table": lambda: ui.table(view.table(rows), "precision"),
}
ui.tabs(parts, "pr_view", {BARS: ("pr_bars",)})
ui.takeaway(view.takeaway(rows, ctx.device))
st.caption(view.NOTE)
ui.spec_caption(ctx.device)
