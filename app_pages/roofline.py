"""Roofline: the chosen device's roofs, catalog ops on them, measured points overlaid.

One page part (st.fragment): a change to one of its inputs reruns it, not the sidebar. Its
chart and its table are tabs (ui.tabs): only the open one is drawn."""

import functools

import streamlit as st

import ui
from perfcore.explain.chip import roofline as view
from perfcore.explain.chip import what_if
from perfcore.figures import roofline_figure
from perfcore.model.chip import ops
from perfcore.model.chip.device import Device
from perfcore.model.llm.phases import BATCH, CONTEXT


def layer_controls() -> tuple:
    """The model, phase, batch and context of "a model's layer" (URL-bound)."""
    models = ui.models()
    model = models[ui.choice("model", list(models), "rf_layer_model")]
    phase = ui.choice("phase", view.LAYER_PHASES, "rf_layer_phase")
    return model, phase, ui.size(BATCH, "rf_layer_batch"), ui.size(CONTEXT, "rf_layer_context")


def priced_points(device: Device, precision: str, sizes: dict, layer: tuple | None) -> list:
    """The catalog ops at their sizes, then the model's layer ops, on device at `precision`."""
    extra = view.layer_points(device, precision, *layer) if layer else []
    return view.op_points(device, precision, sizes) + extra


st.title("Roofline")
st.latex(r"\text{attainable} = \min(P_{\text{peak}},\; I \cdot \beta)")


@st.fragment(key="rf_view")
def roofline() -> None:
    """The ops and their sizes, then their points on the roofline, its table and takeaway."""
    ctx = ui.context()
    chosen_ops = ui.multi("Operations", view.OPTIONS, "rf_ops", view.DEFAULT_OPS)
    sizes, layer = {}, None
    for op, cols in zip(chosen_ops, st.columns(max(len(chosen_ops), 1)), strict=False):
        with cols:
            st.caption(op)
            if op == view.MODEL_LAYER:
                layer = layer_controls()
                continue
            params = ops.CATALOG[op][1]
            sizes[op] = {p.name: ui.size(p, f"rf_{op}_{p.name}") for p in params}

    points = priced_points(ctx.device, ctx.precision, sizes, layer)
    previous_precision = st.session_state.get("rf_previous_precision", ctx.precision)
    previous = priced_points(ctx.device, previous_precision, sizes, layer)
    st.session_state["rf_previous_precision"] = ctx.precision
    measured = ui.results_upload("Overlay measured points", "rf_results", ctx.base, ctx.specs)
    compare = ctx.base if measured and ctx.what_if else ctx.compare
    if compare is ctx.base:
        st.caption(what_if.roofline_note(ctx.base))
    chart = functools.partial(
        ui.chart,
        "rf_chart",
        roofline_figure,
        ctx.device,
        ctx.precision,
        points,
        compare,
        measured,
        previous,
        measured_on=ctx.base,
    )
    ui.tabs({"Chart": chart, "Table": lambda: ui.table(view.table(points), "roofline")}, "rf_tab")
    ui.takeaway(view.takeaway(points, ctx.device, ctx.precision))
    ui.spec_caption(ctx.device, compare)


roofline()
