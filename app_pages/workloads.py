"""Workloads: a whole model on the sidebar's device (and the compare device), every phase.

Two page parts (st.fragment): the workload (its inputs, then its numbers, chart and tables)
reruns alone when one of its inputs changes, not the sidebar; inside it, the chart reruns
alone when the chart picker changes. The chart and the three tables are tabs (ui.tabs), under
the numbers and their takeaway: only the open one is drawn.
"""

import plotly.graph_objects as go
import streamlit as st

import ui
from perfcore.explain.chip.refusal import refusal
from perfcore.explain.llm import workloads as view
from perfcore.explain.llm import workloads_text as words
from perfcore.figures.llm import workloads as charts
from perfcore.model.llm.phases import NUMBERS, PHASES
from perfcore.model.llm.values import DEFAULT

DEFAULT_MODEL = "Llama-3.1-8B"


@ui.per_input()
def priced(model, device, compare, setup, curves=None) -> view.Page | str:
    """The page's numbers, once per input (shared, read-only); or the line saying why none."""
    where = f"the Workloads page, pricing {model.name} on {device.name}"
    table = ui.published_runs()[1]
    return ui.priced(where, view.page, model, device, compare, setup, curves, table, say=refusal)


@ui.per_input()
def figure(model, device, compare, setup, which, theme) -> go.Figure:
    """The chart `which` of priced(...), once per input."""
    return charts.page_figure(priced(model, device, compare, setup), which, setup.tp, theme)


st.title("Workloads: a whole model on a whole machine")


def inputs(models: dict) -> tuple[str, view.Setup]:
    """The model's name and the setup the inputs choose, in rows of inputs."""
    names = list(models)
    with st.container(horizontal=True, gap="medium"):  # rows of inputs, not columns: ui.INPUT
        name = ui.choice(
            "Model",
            names,
            "wl_model",
            DEFAULT_MODEL if DEFAULT_MODEL in models else names[0],
            width=2 * ui.INPUT,
        )
        phase = ui.choice("Phase", PHASES, "wl_phase", "decode", widget=st.radio, horizontal=True)
    with st.container(horizontal=True):
        n = ui.numbers(NUMBERS, view.LABELS, "wl_", view.PAGE_DEFAULTS)
    with st.container(horizontal=True, vertical_alignment="center"):
        bits = ui.precisions("wl_", DEFAULT)
        fused = ui.toggle("Fused attention", "wl_fused", True, help="FlashAttention-style")
        recompute = ui.toggle("Recompute (train)", "wl_recompute", False)
    setup = view.Setup(phase, precisions=bits, fused=fused, recompute=recompute, **n)
    return name, setup


@st.fragment(key="wl_charts")
def chart(model, setup: view.Setup, data: view.Page) -> None:
    """One chart at a time, the picker beside it: the metrics say the results, each chart
    answers one question."""
    ctx = ui.context()
    left, right = st.columns(2)
    with right:
        captions = list(view.CHARTS.values())
        which = ui.choice(
            "Chart", list(view.CHARTS), "wl_chart", widget=st.radio, captions=captions
        )
        if which == view.SERVING:
            st.caption(words.serving_caption(data.serving[0], setup.context))
    with left:
        fig = figure(model, ctx.device, ctx.compare, setup, which, ui.theme())
        ui.plot("wl_chart_figure", fig)


def ops(data: view.Page) -> None:
    """Every op of the workload, and what its time and expected time are."""
    st.caption(f"Time is the bound; {data.expected_from} in `expected`.")
    ui.table(data.ops, "workloads_ops")


@st.fragment(key="wl_workload")
def workload() -> None:
    """The inputs, then what they price: numbers and takeaway, the chart or a table."""
    ctx, models = ui.context(), ui.models()
    name, setup = inputs(models)
    model = models[name]
    st.caption(words.model_caption(model))
    curves = ui.kernel_curves("wl_curves", ctx.device, ctx.specs)
    data = priced(model, ctx.device, ctx.compare, setup, curves)
    if ui.refused(data):
        return
    if data.left_out:
        st.warning(data.left_out)
    ui.metrics(words.headline(data.views[0], data.expected_s, data.expected_from))
    ui.takeaway(words.takeaway(model, data.views[0], setup))
    ui.tabs(
        {
            "Chart": lambda: chart(model, setup, data),
            "Phases": lambda: ui.table(data.summary, "workloads_summary"),
            "Ops": lambda: ops(data),
            "Decode crossover batch by KV precision and context": lambda: ui.table(
                data.crossover, "workloads_crossover", empty="never"
            ),
        },
        "wl_table",
    )


workload()
st.caption(words.CONVENTIONS)
ctx = ui.context()
ui.spec_caption(ctx.device, ctx.compare)
