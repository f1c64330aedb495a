"""Plan: the best parallel layout to train a model on N GPUs of the sidebar's device, or the
best TP x replicas x batch to serve it within latency limits.

One page part (st.fragment): the inputs and what they price rerun alone when an input changes,
not the sidebar. The search (a third of a second at 1,024 GPUs) and each chart are cached per
input, shared by every session.
"""

import plotly.graph_objects as go
import streamlit as st

import ui
from perfcore.errors import NotPublished, report_bug
from perfcore.explain import plan as view
from perfcore.explain import plan_serve as serve
from perfcore.figures import plan as charts
from perfcore.model.llm.workloads import BITS, Precisions
from perfcore.model.plans.layout import LayoutError
from perfcore.model.runs import published as published_runs

DEFAULT_MODEL = "Llama-3.1-70B"


@st.cache_resource(show_spinner="Pricing the published runs…")
def published() -> tuple[tuple, dict]:
    """The published runs priced against their bound, and the efficiency per regime."""
    samples = published_runs.priced_runs().samples
    return samples, published_runs.table(samples)


@st.cache_resource(show_spinner=False, max_entries=64)
def held(model_name: str, device_name: str, setup) -> view.Held:
    """The published runs this setup is held against."""
    return view.held(*published(), model_name, device_name, setup)


@st.cache_resource(show_spinner=False, max_entries=64)
def runs_figure(model_name: str, device_name: str, setup, theme) -> go.Figure:
    """The published runs' chart for this setup, once per input."""
    h = held(model_name, device_name, setup)
    return charts.published_runs_figure(h.runs, h.nearest, h.efficiencies, theme)


@st.cache_resource(show_spinner=False, max_entries=64)
def priced(model, device, setup) -> view.TrainView | serve.ServeView | str:
    """The page's numbers for one input (shared, read-only); or why there are none."""
    table = published()[1]
    try:
        if isinstance(setup, view.TrainSetup):
            return view.train_view(model, device, setup, table)
        return serve.serve_view(model, device, setup, table)
    except LayoutError as e:
        return view.refusal_text(e)
    except NotPublished as e:
        return f"Cannot price this on {device.name}: {e}."
    except Exception:  # a bug, not the input: logged with its traceback, said as such
        return report_bug(f"the Plan page, pricing {model.name} on {device.name}")


@st.cache_resource(show_spinner=False, max_entries=128)
def figure(model, device, setup, which: str, theme) -> go.Figure:
    """The chart called `which` of priced(...), once per input.

    A resource, not data: unpickling a go.Figure re-validates it, as slow as building it.
    """
    return charts.page_figure(priced(model, device, setup), which, theme)


st.title("Plan: the best layout to train or serve a model")


def train_inputs() -> view.TrainSetup:
    """The training controls, then the layout fields a user may fix (0 or 'search': searched)."""
    with st.container(horizontal=True):
        n = {
            p.name: ui.number(
                view.LABELS[p.name],
                f"plan_{p.name}",
                p.default,
                p.lo,
                p.hi,
                p.integer,
                help=p.help,
                width=ui.INPUT,
                **({} if p.integer else {"format": "%.4g"}),
            )
            for p in view.TRAIN_NUMBERS
        }
        precision = ui.choice(
            view.LABELS["precision"], view.PRECISIONS, "plan_precision", width=ui.INPUT
        )
    fix = "Fix layout fields (0 or 'search': the search chooses)"
    with st.expander(fix), st.container(horizontal=True):
        given = {
            p.name: ui.number(
                view.LABELS[p.name], f"plan_{p.name}", 0, p.lo, p.hi, help=p.help, width=ui.INPUT
            )
            for p in view.DEGREES
        }
        given["zero"] = ui.choice("ZeRO stage", view.ZERO_CHOICES, "plan_zero", width=ui.INPUT)
        given["recompute"] = ui.choice(
            "Recompute", view.RECOMPUTE_CHOICES, "plan_recompute", width=ui.INPUT
        )
    return view.TrainSetup(
        n["gpus"],
        n["seq"],
        n["global_batch_tokens"],
        n["tokens"],
        precision,
        view.fixed_fields(given),
    )


def serve_inputs() -> serve.ServeSetup:
    """The serving controls: GPUs, request lengths, limits, bits, fixed TP or batch."""
    n = {}
    with st.container(horizontal=True):
        for p in serve.SERVE_NUMBERS:
            n[p.name] = ui.number(
                serve.LABELS[p.name],
                f"plan_serve_{p.name}",
                p.default,
                p.lo,
                p.hi,
                p.integer,
                help=p.help,
                width=ui.INPUT,
            )
    with st.container(horizontal=True):
        bits = [
            ui.choice(
                f"{what} bits", BITS, f"plan_{key}_bits", serve.SERVE_BITS[key], width=ui.INPUT
            )
            for what, key in (("Weight", "weights"), ("Activation", "act"), ("KV cache", "kv"))
        ]
    limit = {k: n[k] / 1e3 or None for k in ("ttft_ms", "tpot_ms")}  # 0: no limit
    return serve.ServeSetup(
        n["gpus"],
        n["input_tokens"],
        n["output_tokens"],
        limit["ttft_ms"],
        limit["tpot_ms"],
        Precisions(*bits),
        n["tp"] or None,
        n["batch"] or None,
    )


def train_results(data: view.TrainView, model, ctx, setup) -> None:
    """The best layout's numbers, takeaway, charts and the ranked table."""
    if data.best is None:
        st.error(view.no_fit_text(data))
        return
    ui.metrics(view.train_metrics(data))
    ui.takeaway(view.train_takeaway(data))
    charts_row(model, ctx, setup, charts.TRAIN_CHARTS)
    st.caption(view.layouts_caption(data))
    ui.table(view.layouts_table(data), "plan_train_layouts")


def serve_results(data: serve.ServeView, model, ctx, setup) -> None:
    """The best plan's numbers, takeaway, frontier, memory and every plan that fits."""
    if data.best is None:
        st.error(serve.no_plan_text(data))
    else:
        ui.metrics(serve.serve_metrics(data))
        ui.takeaway(serve.serve_takeaway(model, data))
    if data.candidates:
        charts_row(model, ctx, setup, charts.SERVE_CHARTS)
        ui.table(serve.plans_table(data), "plan_serve_plans")


def charts_row(model, ctx, setup, which: tuple[str, str]) -> None:
    """Two charts side by side."""
    for column, name in zip(st.columns(2), which, strict=True):
        with column:
            ui.plot(f"plan_{name}", figure(model, ctx.device, setup, name, ui.theme()))


@st.fragment(key="plan_view")
def plan() -> None:
    """The inputs, then what they price: numbers, takeaway, charts, tables, published runs."""
    ctx, models = ui.context(), ui.models()
    names = list(models)
    with st.container(horizontal=True, gap="medium"):
        name = ui.choice(
            "Model",
            names,
            "plan_model",
            DEFAULT_MODEL if DEFAULT_MODEL in models else names[0],
            width=2 * ui.INPUT,
        )
        mode = ui.choice("Plan", view.MODES, "plan_mode", widget=st.radio, horizontal=True)
    setup = train_inputs() if mode == "train" else serve_inputs()
    model = models[name]
    st.caption(
        f"{name} on {ctx.device.name}: {model.params() / 1e9:.2f}B parameters. Every "
        "figure is a bound unless it says expected (the bound ÷ an efficiency from "
        "published runs); the sidebar's precision is not used here."
    )
    data = priced(model, ctx.device, setup)
    if isinstance(data, str):
        st.error(data)
        return
    if mode == "train":
        train_results(data, model, ctx, setup)
    else:
        serve_results(data, model, ctx, setup)
    runs(name, ctx.base.name, setup)  # runs ran on the published row, not a what-if


def runs(model_name: str, device_name: str, setup) -> None:
    """The published runs nearest this setting, each measured against its bound."""
    h = held(model_name, device_name, setup)
    st.subheader("Held against published runs")
    st.caption(view.runs_caption(h))
    ui.plot("plan_runs", runs_figure(model_name, device_name, setup, ui.theme()))
    ui.table(view.runs_table(list(h.nearest)), "plan_published_runs")


plan()
st.caption(
    "Conventions: MFU counts 6N + attention FLOPs under the causal mask; the DP reduce "
    "overlaps the last micro-batch's backward (the table also shows it not overlapped); "
    "serving TPOT is a decode step at the mean context with its share of prefills "
    "(docs/plans.md)."
)
ui.spec_caption(ui.context().device)
