"""Scale-out: a hierarchical all-reduce of a model's gradients, in the node and across nodes.

One page part (st.fragment): a change to one of its inputs reruns it, not the sidebar. Its
chart and its table are tabs (ui.tabs): only the open one is drawn."""

import functools

import streamlit as st

import ui
from perfcore.explain.llm import scale_out as view
from perfcore.explain.llm import scale_out_metrics as metrics
from perfcore.figures import scale_out_figure
from perfcore.model.chip.comm import CONVENTIONS
from perfcore.model.chip.specs import PRECISIONS

st.title("Scale-out: all-reduce across GPUs and nodes")
ALPHAS = ("so_alpha_up_us", "so_alpha_out_us")  # in the node, over the network


def alpha_inputs() -> tuple[float, float]:
    """The latency per hop in the node and over the network, µs (estimates)."""
    with st.container(horizontal=True):
        return tuple(
            ui.number(label, key, 0.0, 0, 1e4, integer=False, help=view.ALPHA_HELP, width=ui.INPUT)
            for key, label in zip(ALPHAS, view.ALPHA_LABELS, strict=True)
        )


@st.fragment(key="so_view")
def scale_out() -> None:
    """The gradients and the GPUs, then the all-reduce they price, leg by leg."""
    ctx = ui.context()
    with st.container(horizontal=True):  # a row of inputs, not columns: see ui.INPUT
        params = ui.param_count("Parameters (gradients)", "so_params", width=ui.INPUT)
        dtype = ui.choice("Gradient dtype", PRECISIONS, "so_dtype", "bf16", width=ui.INPUT)
        gpus = ui.number("GPUs per node", "so_gpus", 8, 1, 72, width=ui.INPUT)
        nodes = ui.number("Nodes", "so_nodes", 2, 1, 1024, width=ui.INPUT)
    convention = ui.choice(
        "Bandwidth convention",
        CONVENTIONS,
        "so_convention",
        "per-direction",
        widget=st.radio,
        horizontal=True,
    )
    st.markdown(view.CONVENTION_NOTE[convention])
    # Drawn only when on (a closed expander's inputs are drawn all the same); off: 0 µs.
    latency = ui.toggle(view.ALPHA_LABEL, "so_alpha", ui.link_sets(ALPHAS), help=view.ALPHA_HELP)
    alphas = alpha_inputs() if latency else (0.0, 0.0)
    setup = view.setup(params, dtype, gpus, nodes, convention, *alphas)
    chosen = view.allreduce(ctx.device, setup)
    for shown in (
        metrics.link_metrics(chosen),
        metrics.leg_metrics(chosen),
        metrics.whole_metrics(chosen),
    ):
        ui.metrics((m.label, m.value, m.help) for m in shown)
    st.latex(view.FORMULA)
    st.caption(view.FORMULA_TERMS)
    rows = view.sweep(ctx.device, setup)
    compared = functools.partial(view.sweep, ctx.compare, setup)  # the chart's alone
    chart = functools.partial(ui.chart, "so_chart", scale_out_figure, rows, chosen)
    table = functools.partial(ui.table, view.table(rows, nodes), "scale_out")
    ui.tabs({"Chart": lambda: chart(compared()), "Table": table}, "so_view")
    ui.takeaway(view.takeaway(chosen))
    ui.spec_caption(ctx.device, ctx.compare)


scale_out()
