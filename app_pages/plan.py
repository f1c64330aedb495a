"""Plan: the best layout to train a model on N GPUs of the sidebar's device, or to serve it.
One page part (st.fragment); the search, its tables and each chart cached per input."""

import streamlit as st

import ui
from perfcore.explain.plans import plan as view
from perfcore.explain.plans import plan_layouts as layouts
from perfcore.explain.plans import plan_runs
from perfcore.explain.plans import plan_serve as serve
from perfcore.explain.plans import plan_takeaway as words
from perfcore.figures.plans import plan as charts
from perfcore.figures.plans import plan_runs as runs_chart

DEFAULT_MODEL = "Llama-3.1-70B"


@ui.per_input()
def runs(model_name: str, device_name: str, setup, theme) -> tuple:
    """The published runs this setup is held against, their chart and table, once per input."""
    h = plan_runs.held(*ui.published_runs(), model_name, device_name, setup)
    fig = runs_chart.published_runs_figure(h.runs, h.nearest, h.efficiencies, theme)
    return h, fig, plan_runs.runs_table(list(h.nearest))


@ui.per_input()
def priced(model, device, setup) -> view.TrainView | serve.ServeView | str:
    """The page's numbers for one input (shared, read-only); or the line saying why none."""
    price = view.train_view if isinstance(setup, view.TrainSetup) else serve.serve_view
    where = f"the Plan page, pricing {model.name} on {device.name}"
    args = model, device, setup, ui.published_runs()[1]
    return ui.priced(where, price, *args, say=view.refusal_text)


@ui.per_input()
def table(model, device, setup):
    """The ranked table of priced(...): layouts that fit, or serving plans."""
    data, train = priced(model, device, setup), isinstance(setup, view.TrainSetup)
    return layouts.layouts_table(data) if train else serve.plans_table(data)


@ui.per_input(128)
def figure(model, device, setup, which: str, theme):
    """The chart `which` of priced(...), once per input."""
    return charts.page_figure(priced(model, device, setup), which, theme)


st.title("Plan: the best layout to train or serve a model")


def train_inputs() -> view.TrainSetup:
    """The training controls, then the layout fields a user may fix (0 or 'search': searched)."""
    with st.container(horizontal=True):
        n = ui.numbers(view.TRAIN_NUMBERS, view.LABELS, "plan_", readable=view.READABLE)
        precision = ui.choice(
            view.LABELS["precision"], view.PRECISIONS, "plan_precision", width=ui.INPUT
        )
    fix = "Fix layout fields (0 or 'search': the search chooses)"
    with st.expander(fix), st.container(horizontal=True):
        given = ui.numbers(view.DEGREES, view.LABELS, "plan_")
        for field, options in view.LAYOUT_CHOICES.items():
            given[field] = ui.choice(view.LABELS[field], options, f"plan_{field}", width=ui.INPUT)
    curves = ui.kernel_curves("plan_curves", ui.context().device, ui.context().specs)
    return view.TrainSetup(**n, precision=precision, fixed=view.fixed_fields(given), curves=curves)


def serve_inputs() -> serve.ServeSetup:
    """The serving controls: GPUs, request lengths, limits, bits, fixed TP or batch."""
    with st.container(horizontal=True):
        n = ui.numbers(serve.SERVE_NUMBERS, serve.LABELS, "plan_serve_")
    with st.container(horizontal=True):
        bits = ui.precisions("plan_", serve.SERVE_BITS)
    return serve.serve_setup(n, bits)


def results(data: view.TrainView | serve.ServeView, model, device, setup) -> None:
    """The best plan's numbers and takeaway (or why none), its two charts, the ranked table."""
    train = isinstance(data, view.TrainView)
    if data.best is None:
        st.error(words.nothing_text(data))
        if train or not data.candidates:
            return
    else:
        ui.metrics(view.train_metrics(data) if train else serve.serve_metrics(data))
        ui.takeaway(words.takeaway(model, data))
    which = charts.TRAIN_CHARTS if train else charts.SERVE_CHARTS
    for column, name in zip(st.columns(2), which, strict=True):
        with column:
            ui.plot(f"plan_{name}", figure(model, device, setup, name, ui.theme()))
    if train:
        st.caption(layouts.layouts_caption(data))
    ui.table(table(model, device, setup), "plan_train_layouts" if train else "plan_serve_plans")


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
    data = priced(model, ctx.device, setup)
    if ui.refused(data):
        return
    results(data, model, ctx.device, setup)
    h, fig, df = runs(name, ctx.base.name, setup, ui.theme())  # on the published row
    st.subheader("Held against published runs")
    st.caption(plan_runs.runs_caption(h))
    ui.plot("plan_runs", fig)
    ui.table(df, "plan_published_runs")


plan()
st.caption(view.CONVENTIONS)
ui.spec_caption(ui.context().device)
