"""The model on one screen, with a quick calculator on the chosen device."""

import streamlit as st

import ui
from perfcore import format as fmt
from perfcore.explain import home

ctx = ui.context()
st.title("The performance model")
st.markdown(
    "Every operation asks for **FLOPs** and **bytes**. Their ratio, the arithmetic "
    "**intensity**, decides which of two published ceilings limits it:"
)
st.latex(r"\text{attainable FLOP/s} = \min\left(P_{\text{peak}},\; I \cdot \beta\right),"
         r"\qquad I = \frac{\text{FLOPs}}{\text{bytes}},\qquad"
         r"I_{\text{ridge}} = \frac{P_{\text{peak}}}{\beta}")  # fmt: skip
left, right = st.columns(2)
left.markdown(home.KINDS_OF_NUMBER)
with right:
    st.subheader("Quick calculator")
    flops = ui.number("FLOPs", "calc_flops", 137.4e9, 1, 1e24, integer=False, format="%.4g")
    n_bytes = ui.number("Bytes moved", "calc_bytes", 100.7e6, 1, 1e24, integer=False, format="%.4g")
    result = home.quick_calc(ctx.device, ctx.precision, flops, n_bytes)
    if result is None:
        st.warning(f"{ctx.device.name}: {ctx.precision} peak or memory bandwidth not published.")
    else:
        cols = st.columns(4)
        cols[0].metric("Intensity", fmt.intensity(result.intensity))
        cols[1].metric("Bound by", result.limiter)
        cols[2].metric("Attainable", fmt.flops_per_s(result.attainable_flops_per_s))
        cols[3].metric("Time floor", fmt.seconds(result.time_floor_s))
        ui.takeaway(home.takeaway(result))
ui.spec_caption(ctx.device)
