"""Memory hierarchy: each level's capacity, bandwidth and latency, and what one trip costs."""

import streamlit as st

import ui
from perfcore.explain.chip import hierarchy as view
from perfcore.figures import hierarchy_figure

ctx = ui.context()
st.title("Memory hierarchy")
st.latex(r"\text{FLOPs forgone per trip} = P_{\text{peak}} \times t_{\text{latency}}")
metric = ui.choice("Chart", view.METRICS, "hi_metric", widget=st.radio, horizontal=True)
views = view.hierarchies(ctx.device, ctx.compare, ctx.precision)
ui.metrics(view.headline(views))
ui.chart("hi_chart", hierarchy_figure, views, metric)
st.markdown(view.KINDS)
ui.table(view.table(views), "hierarchy")
ui.takeaway(view.takeaway(*views))
ui.spec_caption(ctx.device, ctx.compare)
