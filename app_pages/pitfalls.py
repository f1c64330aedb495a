"""Pitfalls: five wrong beliefs, each priced with the chosen device's numbers."""

import streamlit as st

import ui
from perfcore.explain import pitfalls as view
from perfcore.figures import faster_chip_figure
from perfcore.model.specs import PRECISIONS

ctx = ui.context()
st.title("Five things that feel true and are not")
st.caption(
    f"Each belief priced on {ctx.device.name} at the inputs below (sidebar: {ctx.precision})."
)
formulas = ui.toggle("Show the formulas", "pf_formulas")  # the verdicts say the result first


def show(section: view.Section) -> None:
    """The belief in quotes, its headline number, its one-line verdict with the other
    numbers, and its formula when asked for."""
    st.markdown(section.quote)
    for q in section.headline:  # one metric, no columns: each costs the browser a redraw
        st.metric(q.label, q.text, help=q.help or None, width="content")
    st.markdown(f"**{section.verdict}**  \n{section.details}")
    if formulas:
        st.latex(view.FORMULAS[section.number])


def inputs(n: int) -> list:
    """Columns for a section's inputs, under its title."""
    st.subheader(view.TITLES[n])
    return st.columns(4)


with st.container(border=True):
    c = inputs(1)
    with c[0]:
        params = ui.param_count("Decode params", "pf_params")
    with c[1]:
        decode_batch = ui.number("Decode batch", "pf_decode_batch", 1, 1, 65536)
    one = view.faster_chip(ctx.device, ctx.precision, params, decode_batch)
    show(one)
    ui.chart("pf_chart", faster_chip_figure, ctx.device, ctx.precision, one.result)
with st.container(border=True):
    with inputs(2)[0]:
        batch = ui.number("Batch (blocks)", "pf_batch", 1, 1, 1_000_000)
    two = view.batch_one(ctx.device, batch)
    show(two)
with st.container(border=True):
    c = inputs(3)
    with c[0]:
        n = ui.number("Matmul n (n x n x n)", "pf_n", 4096, 1, 65536)
    with c[1]:
        half = ui.choice("Half precision", view.HALF_PRECISIONS, "pf_half", "fp16")
    three = view.fp32_path(ctx.device, n, half)
    show(three)
with st.container(border=True):
    c = inputs(4)
    with c[0]:
        elements = ui.number("Tensor elements", "pf_elements", view.DEFAULT_ELEMENTS, 1, 1e12)
    with c[1]:
        copy_dtype = ui.choice("Tensor dtype", PRECISIONS, "pf_copy_dtype", "fp16")
    with c[2]:
        iterations = ui.number("Iterations", "pf_iters", 1000, 1, 1e9)
    four = view.copy_in_loop(ctx.device, elements, copy_dtype, iterations)
    show(four)
with st.container(border=True):
    c = inputs(5)
    with c[0]:
        shard_params = ui.param_count("Params", "pf_shard_params")
    with c[1]:
        shard_dtype = ui.choice("Weights dtype", PRECISIONS, "pf_shard_dtype", "bf16")
    with c[2]:
        gpus = ui.number("GPUs per node", "pf_gpus", 8, 1, 72)
    with c[3]:
        nodes = ui.number("Nodes", "pf_nodes", 2, 1, 1024)
    five = view.shard_across_nodes(ctx.device, shard_params, shard_dtype, gpus, nodes)
    show(five)
sections = [one, two, three, four, five]
ui.table(view.table(sections), "pitfalls")
ui.takeaway(view.takeaway(sections, ctx.device))
ui.spec_caption(ctx.device)
