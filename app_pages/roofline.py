"""Roofline: the chosen device's roofs, catalog ops on them, measured points overlaid."""

import streamlit as st

import ui
from perfcore.explain import roofline as view
from perfcore.figures import roofline_figure
from perfcore.model import ops

ctx = ui.context()
st.title("Roofline")
st.latex(r"\text{attainable} = \min(P_{\text{peak}},\; I \cdot \beta)")
chosen_ops = ui.multi("Operations", list(ops.CATALOG), "rf_ops", view.DEFAULT_OPS)
sizes = {}
for op, cols in zip(chosen_ops, st.columns(max(len(chosen_ops), 1)), strict=False):
    with cols:
        st.caption(op)
        params = ops.CATALOG[op][1]
        sizes[op] = {p.name: ui.size(p, f"rf_{op}_{p.name}") for p in params}
points = view.op_points(ctx.device, ctx.precision, sizes)
previous_precision = st.session_state.get("rf_previous_precision", ctx.precision)
previous = view.op_points(ctx.device, previous_precision, sizes)
st.session_state["rf_previous_precision"] = ctx.precision
with st.expander("Overlay measured points", expanded=False):
    measured = ui.results_upload("rf_results")
ui.chart("rf_chart", roofline_figure, ctx.device, ctx.precision, points, ctx.compare, measured,
         previous)  # fmt: skip
ui.table(view.table(points), "roofline")
ui.takeaway(view.takeaway(points, ctx.device, ctx.precision))
ui.spec_caption(ctx.device, ctx.compare)
