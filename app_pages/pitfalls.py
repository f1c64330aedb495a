"""Pitfalls: five wrong beliefs, each priced with the chosen device's numbers.

One belief at a time (ui.tabs: only the open tab is drawn, and a link names it); each is a
page part (st.fragment): a change to one of its inputs reruns that belief alone. The last tab
holds the five together, at their default inputs.
"""

import functools

import streamlit as st

import ui
from perfcore.explain.chip import pitfalls as view
from perfcore.explain.chip import pitfalls_summary as five
from perfcore.figures import faster_chip_figure
from perfcore.model.chip.specs import PRECISIONS

D = view.DEFAULTS
# Each belief's link keys, in the order its inputs take them (next(key)): a link made before
# the tabs opens on the belief it set.
KEYS = {
    1: ("pf_params", "pf_decode_batch"),
    2: ("pf_batch",),
    3: ("pf_n", "pf_half"),
    4: ("pf_elements", "pf_copy_dtype", "pf_iters"),
    5: ("pf_shard_params", "pf_shard_dtype", "pf_gpus", "pf_nodes"),
}

ctx = ui.context()
st.title("Five things that feel true and are not")
st.caption(f"Each belief priced on {ctx.device.name} at its inputs (sidebar: {ctx.precision}).")
formulas = ui.toggle("Show the formulas", "pf_formulas")  # the verdicts say the result first


def show(section: view.Section, formulas: bool) -> None:
    """The belief in quotes, its headline number, its one-line verdict with the other
    numbers, and its formula when asked for."""
    st.markdown(section.quote)
    for q in section.headline:  # one metric, no columns: each costs the browser a redraw
        st.metric(q.label, q.text, help=q.help or None, width="content")
    st.markdown(f"**{section.verdict}**  \n{section.details}")
    if formulas:
        st.latex(view.FORMULAS[section.number])


def bound(n: int) -> dict:
    """An input of belief n: ui.INPUT wide; a change reruns belief n alone."""
    return {"width": ui.INPUT, **ui.reruns(f"pf_{n}")}


@st.fragment(key="pf_1")
def faster_chip(formulas: bool) -> None:
    key = iter(KEYS[1])
    with st.container(horizontal=True):  # a row of inputs, not columns: see ui.INPUT
        params = ui.param_count("Decode params", next(key), D[1]["params"], **bound(1))
        batch = ui.number("Decode batch", next(key), D[1]["batch"], 1, 65536, **bound(1))
    ctx = ui.context()
    one = view.faster_chip(ctx.device, ctx.precision, params, batch)
    show(one, formulas)
    ui.chart("pf_chart", faster_chip_figure, ctx.device, ctx.precision, one.result)


@st.fragment(key="pf_2")
def batch_one(formulas: bool) -> None:
    batch = ui.number("Batch (blocks)", KEYS[2][0], D[2]["batch"], 1, 1_000_000, **bound(2))
    show(view.batch_one(ui.context().device, batch), formulas)


@st.fragment(key="pf_3")
def fp32_path(formulas: bool) -> None:
    key, d = iter(KEYS[3]), D[3]
    with st.container(horizontal=True):
        n = ui.number("Matmul n (n x n x n)", next(key), d["n"], 1, 65536, **bound(3))
        half = ui.choice("Half precision", view.HALF_PRECISIONS, next(key), d["half"], **bound(3))
    show(view.fp32_path(ui.context().device, n, half), formulas)


@st.fragment(key="pf_4")
def copy_in_loop(formulas: bool) -> None:
    key, d = iter(KEYS[4]), D[4]
    with st.container(horizontal=True):
        elements = ui.number("Tensor elements", next(key), d["elements"], 1, 1e12, **bound(4))
        dtype = ui.choice("Tensor dtype", PRECISIONS, next(key), d["dtype"], **bound(4))
        iterations = ui.number("Iterations", next(key), d["iterations"], 1, 1e9, **bound(4))
    show(view.copy_in_loop(ui.context().device, elements, dtype, iterations), formulas)


@st.fragment(key="pf_5")
def shard_across_nodes(formulas: bool) -> None:
    key, d = iter(KEYS[5]), D[5]
    with st.container(horizontal=True):
        params = ui.param_count("Params", next(key), d["params"], **bound(5))
        dtype = ui.choice("Weights dtype", PRECISIONS, next(key), d["dtype"], **bound(5))
        gpus = ui.number("GPUs per node", next(key), d["gpus_per_node"], 1, 72, **bound(5))
        nodes = ui.number("Nodes", next(key), d["nodes"], 1, 1024, **bound(5))
    device = ui.context().device
    show(view.shard_across_nodes(device, params, dtype, gpus, nodes), formulas)


PARTS = (faster_chip, batch_one, fp32_path, copy_in_loop, shard_across_nodes)
titles = view.TITLES


def summary() -> None:
    """The five beliefs' numbers at their default inputs, and what they say together."""
    defaults = five.at_defaults(ctx.device, ctx.precision)
    ui.table(five.table(defaults), "pitfalls")
    ui.takeaway(five.takeaway(defaults, ctx.device))


beliefs = {t: functools.partial(p, formulas) for t, p in zip(titles.values(), PARTS, strict=True)}
linked = {titles[n]: keys for n, keys in KEYS.items()}
ui.tabs({**beliefs, five.SUMMARY: summary}, "pf_belief", linked)
ui.spec_caption(ctx.device)
