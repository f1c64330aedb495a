"""Pitfalls: five wrong beliefs, each priced with the chosen device's numbers.

Each belief is a page part (st.fragment): a change to one of its inputs reruns that belief
and the summary under them, not the other four or the sidebar. Each part keeps its priced
section in session state for the summary.
"""

import streamlit as st

import ui
from perfcore.explain.chip import pitfalls as view
from perfcore.figures import faster_chip_figure
from perfcore.model.chip.specs import PRECISIONS

SECTIONS = "_pf_sections"  # belief number -> its priced view.Section, for the summary
SUMMARY = "pf_summary"

ctx = ui.context()
st.title("Five things that feel true and are not")
st.caption(
    f"Each belief priced on {ctx.device.name} at the inputs below (sidebar: {ctx.precision})."
)
formulas = ui.toggle("Show the formulas", "pf_formulas")  # the verdicts say the result first


def show(section: view.Section, formulas: bool) -> None:
    """Keep the priced section for the summary, then show the belief in quotes, its headline
    number, its one-line verdict with the other numbers, and its formula when asked for."""
    st.session_state.setdefault(SECTIONS, {})[section.number] = section
    st.markdown(section.quote)
    for q in section.headline:  # one metric, no columns: each costs the browser a redraw
        st.metric(q.label, q.text, help=q.help or None, width="content")
    st.markdown(f"**{section.verdict}**  \n{section.details}")
    if formulas:
        st.latex(view.FORMULAS[section.number])


def inputs(n: int):
    """A row for a section's inputs, under its title."""
    st.subheader(view.TITLES[n])
    return st.container(horizontal=True)


def bound(n: int) -> dict:
    """An input of belief n: ui.INPUT wide; a change reruns belief n, then the summary."""
    return {"width": ui.INPUT, **ui.reruns(f"pf_{n}", SUMMARY)}


@st.fragment(key="pf_1")
def faster_chip(formulas: bool) -> None:
    with st.container(border=True):
        with inputs(1):
            params = ui.param_count("Decode params", "pf_params", **bound(1))
            decode_batch = ui.number("Decode batch", "pf_decode_batch", 1, 1, 65536, **bound(1))
        ctx = ui.context()
        one = view.faster_chip(ctx.device, ctx.precision, params, decode_batch)
        show(one, formulas)
        ui.chart("pf_chart", faster_chip_figure, ctx.device, ctx.precision, one.result)


@st.fragment(key="pf_2")
def batch_one(formulas: bool) -> None:
    with st.container(border=True):
        with inputs(2):
            batch = ui.number("Batch (blocks)", "pf_batch", 1, 1, 1_000_000, **bound(2))
        show(view.batch_one(ui.context().device, batch), formulas)


@st.fragment(key="pf_3")
def fp32_path(formulas: bool) -> None:
    with st.container(border=True):
        with inputs(3):
            n = ui.number("Matmul n (n x n x n)", "pf_n", 4096, 1, 65536, **bound(3))
            half = ui.choice("Half precision", view.HALF_PRECISIONS, "pf_half", "fp16", **bound(3))
        show(view.fp32_path(ui.context().device, n, half), formulas)


@st.fragment(key="pf_4")
def copy_in_loop(formulas: bool) -> None:
    with st.container(border=True):
        with inputs(4):
            elements = ui.number(
                "Tensor elements", "pf_elements", view.DEFAULT_ELEMENTS, 1, 1e12, **bound(4)
            )
            dtype = ui.choice("Tensor dtype", PRECISIONS, "pf_copy_dtype", "fp16", **bound(4))
            iterations = ui.number("Iterations", "pf_iters", 1000, 1, 1e9, **bound(4))
        show(view.copy_in_loop(ui.context().device, elements, dtype, iterations), formulas)


@st.fragment(key="pf_5")
def shard_across_nodes(formulas: bool) -> None:
    with st.container(border=True):
        with inputs(5):
            params = ui.param_count("Params", "pf_shard_params", **bound(5))
            dtype = ui.choice("Weights dtype", PRECISIONS, "pf_shard_dtype", "bf16", **bound(5))
            gpus = ui.number("GPUs per node", "pf_gpus", 8, 1, 72, **bound(5))
            nodes = ui.number("Nodes", "pf_nodes", 2, 1, 1024, **bound(5))
        device = ui.context().device
        show(view.shard_across_nodes(device, params, dtype, gpus, nodes), formulas)


@st.fragment(key=SUMMARY)
def summary() -> None:
    """The five beliefs' numbers in one table, and what they say together."""
    sections = [st.session_state[SECTIONS][n] for n in sorted(view.TITLES)]
    ui.table(view.table(sections), "pitfalls")
    ui.takeaway(view.takeaway(sections, ui.context().device))


for part in (faster_chip, batch_one, fp32_path, copy_in_loop, shard_across_nodes):
    part(formulas)
summary()
ui.spec_caption(ctx.device)
