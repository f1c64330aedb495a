"""Memory hierarchy: each level's capacity, bandwidth and latency, and what one trip costs.

Its chart and its table are tabs (ui.tabs): only the open one is drawn."""

import streamlit as st

import ui
from perfcore.explain.chip import hierarchy as view
from perfcore.figures import hierarchy_figure

ctx = ui.context()
st.title("Memory hierarchy")
st.latex(r"\text{FLOPs forgone per trip} = P_{\text{peak}} \times t_{\text{latency}}")
views = view.hierarchies(ctx.device, ctx.compare, ctx.precision)
ui.metrics(view.headline(views))


def chart() -> None:
    """The chart of the metric picked above it."""
    metric = ui.choice(
        "Plotted per level", view.METRICS, "hi_metric", widget=st.radio, horizontal=True
    )
    ui.chart("hi_chart", hierarchy_figure, views, metric)


def table() -> None:
    """Every level's numbers, after what kind each is."""
    st.markdown(view.KINDS)
    ui.table(view.table(views), "hierarchy")


ui.tabs({"Chart": chart, "Table": table}, "hi_tab")
ui.takeaway(view.takeaway(*views))
ui.spec_caption(ctx.device, ctx.compare)
