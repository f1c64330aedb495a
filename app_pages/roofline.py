"""Roofline: the chosen device's roofs, catalog ops on them, measured points overlaid."""

import streamlit as st

import ui
from perfcore.explain.chip import roofline as view
from perfcore.explain.chip import what_if
from perfcore.figures import roofline_figure
from perfcore.model.chip import ops
from perfcore.model.llm.phases import BATCH, CONTEXT


def layer_controls() -> tuple:
    """The model, phase, batch and context of "a model's layer" (URL-bound)."""
    models = ui.models()
    model = models[ui.choice("model", list(models), "rf_layer_model")]
    phase = ui.choice("phase", view.LAYER_PHASES, "rf_layer_phase")
    return model, phase, ui.size(BATCH, "rf_layer_batch"), ui.size(CONTEXT, "rf_layer_context")


def priced_points(precision: str) -> list:
    """The catalog ops, then the model's layer ops, at `precision`."""
    extra = view.layer_points(ctx.device, precision, *layer) if layer else []
    return view.op_points(ctx.device, precision, sizes) + extra


ctx = ui.context()
st.title("Roofline")
st.latex(r"\text{attainable} = \min(P_{\text{peak}},\; I \cdot \beta)")
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

points = priced_points(ctx.precision)
previous_precision = st.session_state.get("rf_previous_precision", ctx.precision)
previous = priced_points(previous_precision)
st.session_state["rf_previous_precision"] = ctx.precision
with st.expander("Overlay measured points", expanded=False):
    measured = ui.results_upload("rf_results", ctx.base, ctx.specs)
compare = ctx.base if measured and ctx.what_if else ctx.compare
if compare is ctx.base:
    st.caption(what_if.roofline_note(ctx.base))
ui.chart(
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
ui.table(view.table(points), "roofline")
ui.takeaway(view.takeaway(points, ctx.device, ctx.precision))
ui.spec_caption(ctx.device, compare)
