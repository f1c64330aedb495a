"""Plan: the best layout to train a model on N GPUs of the sidebar's device, or to serve it.
One page part (st.fragment); the search, its tables and each chart cached per input
(ui.planning); the ranked plans, the charts and the published runs are tabs (ui.tabs)."""

from functools import partial

import streamlit as st

import ui
from perfcore.explain.plans import expected, plan_runs
from perfcore.explain.plans import plan as view
from perfcore.explain.plans import plan_layouts as layouts
from perfcore.explain.plans import plan_serve as serve
from perfcore.explain.plans import plan_takeaway as words
from perfcore.figures.plans import plan as charts
from perfcore.model.plans.train_cost import ATTENTION_KERNELS
from ui import planning

DEFAULT_MODEL = "Llama-3.1-70B"
FIXED = [f"plan_{n}" for n in (*(p.name for p in view.DEGREES), *view.LAYOUT_CHOICES)]


st.title("Plan: the best layout to train or serve a model")


def train_inputs() -> view.TrainSetup:
    """The training controls, then the layout fields a user may fix (0 or 'search': searched)."""
    with st.container(horizontal=True):
        n = ui.numbers(view.TRAIN_NUMBERS, view.LABELS, "plan_", readable=view.READABLE)
        precision = ui.choice(
            view.LABELS["precision"], view.PRECISIONS, "plan_precision", width=ui.INPUT
        )
        kernel = ui.choice(
            view.LABELS["attention_kernel"],
            ATTENTION_KERNELS,
            "plan_attention",
            width=ui.INPUT,
            help=expected.ATTENTION_HELP,
        )
    # Drawn only when on (a closed expander's inputs are drawn all the same); on where the link
    # fixes a field, and off, the fields are the search's again.
    fixing = ui.toggle(view.FIX_LABEL, "plan_fix", ui.link_sets(FIXED), help=view.FIX_HELP)
    given = fixed_inputs() if fixing else {}
    curves = ui.kernel_curves("plan_curves", ui.context().device, ui.context().specs)
    fixed = view.fixed_fields(given)
    return view.TrainSetup(
        **n, precision=precision, attention_kernel=kernel, fixed=fixed, curves=curves
    )


def fixed_inputs() -> dict:
    """The layout fields a user may fix: field -> its input's value (0 or 'search': searched)."""
    with st.container(horizontal=True):
        given = ui.numbers(view.DEGREES, view.LABELS, "plan_")
        for field, options in view.LAYOUT_CHOICES.items():
            given[field] = ui.choice(view.LABELS[field], options, f"plan_{field}", width=ui.INPUT)
    return given


def serve_inputs() -> serve.ServeSetup:
    """The serving controls: GPUs, request lengths, limits, bits, fixed TP or batch, and
    whether the batch is static."""
    with st.container(horizontal=True):
        n = ui.numbers(serve.SERVE_NUMBERS, serve.LABELS, "plan_serve_")
    with st.container(horizontal=True):
        bits = ui.precisions("plan_", serve.SERVE_BITS)
    static = ui.toggle(serve.STATIC_LABEL, "plan_serve_static", help=serve.STATIC_HELP)
    return serve.serve_setup(n, bits, static)


def results(data: view.TrainView | serve.ServeView, model, device, setup) -> bool:
    """The best plan's numbers and takeaway, or why none; whether there are plans to list."""
    train = isinstance(data, view.TrainView)
    if data.best is None:
        st.error(words.nothing_text(data))
        return not train and bool(data.candidates)
    ui.metrics(view.train_metrics(data) if train else serve.serve_metrics(data))
    ui.takeaway(words.takeaway(model, data))
    return True


def ranked(data: view.TrainView | serve.ServeView, model, device, setup) -> None:
    """The plans ranked: the table (training: what it lists, first)."""
    train = isinstance(data, view.TrainView)
    if train:
        st.caption(layouts.layouts_caption(data))
    ui.table(
        planning.table(model, device, setup), "plan_train_layouts" if train else "plan_serve_plans"
    )


def drawn(data: view.TrainView | serve.ServeView, model, device, setup) -> None:
    """The best plan's two charts."""
    which = charts.TRAIN_CHARTS if isinstance(data, view.TrainView) else charts.SERVE_CHARTS
    for column, name in zip(st.columns(2), which, strict=True):
        with column:
            ui.plot(f"plan_{name}", planning.figure(model, device, setup, name, ui.theme()))


def held(name: str, device_name: str, setup) -> None:
    """The published runs this setup is held against: their chart and table."""
    h, fig, df = planning.runs(name, device_name, setup, ui.theme())
    st.caption(plan_runs.runs_caption(h))
    ui.plot("plan_runs", fig)
    ui.table(df, "plan_published_runs")


@st.fragment(key="plan_view")
def plan() -> None:
    """The inputs, then what they price: numbers, takeaway, charts, tables, published runs."""
    ctx, models = ui.context(), ui.models()
    names = list(models)
    with st.container(horizontal=True, gap="medium"):
        default = DEFAULT_MODEL if DEFAULT_MODEL in models else names[0]
        name = ui.choice("Model", names, "plan_model", default, width=2 * ui.INPUT)
        mode = ui.choice("Plan", view.MODES, "plan_mode", widget=st.radio, horizontal=True)
    setup, model = (train_inputs() if mode == "train" else serve_inputs()), models[name]
    st.caption(view.model_caption(model, ctx.device))
    data = planning.priced(model, ctx.device, setup)
    if ui.refused(data):
        return
    args = data, model, ctx.device, setup
    listed = results(*args)
    parts = {"Ranked plans": partial(ranked, *args), "Charts": partial(drawn, *args)}
    held_runs = partial(held, name, ctx.base.name, setup)  # on the published row
    ui.tabs({**(parts if listed else {}), "Held against published runs": held_runs}, "plan_tab")


plan()
st.caption(view.CONVENTIONS)
ui.spec_caption(ui.context().device)
