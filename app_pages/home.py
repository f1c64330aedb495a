"""The model on one screen: a quick calculator on the chosen device, and what each page answers."""

import streamlit as st

import ui
from perfcore.explain.chip import home
from perfcore.figures.chip.home import calculator_figure

ctx = ui.context()
st.title("The performance model")
st.markdown(
    "Every operation asks for **FLOPs** and **bytes**. Their ratio, the arithmetic "
    "**intensity**, decides which of two published ceilings limits it:"
)
st.latex(home.FORMULA)
st.subheader(f"Quick calculator: {ctx.device.name} at {ctx.precision}")
left, right = st.columns([2, 3])
with left:
    flops = ui.number("FLOPs", "calc_flops", 137.4e9, 1, 1e24, integer=False, format="%.4g")
    n_bytes = ui.number("Bytes moved", "calc_bytes", 100.7e6, 1, 1e24, integer=False, format="%.4g")
result = home.quick_calc(ctx.device, ctx.precision, flops, n_bytes)
if result is None:
    st.warning(f"{ctx.device.name}: {ctx.precision} peak or memory bandwidth not published.")
else:
    with right:
        ui.chart("home_chart", calculator_figure, ctx.device, ctx.precision, result)
    ui.metrics(home.metrics(result))
    ui.takeaway(home.takeaway(result))
ui.spec_caption(ctx.device)
st.markdown(home.KINDS_OF_NUMBER)
st.subheader("What each page answers")
for page in ui.pages():
    if page.url_path:  # every page but this one
        st.page_link(page, label=f"{page.title}: {page.help}", icon=page.icon)
