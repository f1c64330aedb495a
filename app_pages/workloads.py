"""Workloads: a whole model on the sidebar's device (and the compare device), every phase.

Two page parts (st.fragment): the workload (its inputs, then its numbers, chart and tables)
reruns alone when one of its inputs changes, not the sidebar; inside it, the chart reruns
alone when the chart picker changes.
"""

import plotly.graph_objects as go
import streamlit as st

import ui
from perfcore import format as fmt
from perfcore.errors import NotPublished, report_bug
from perfcore.explain import workloads as view
from perfcore.figures import workloads as charts
from perfcore.model.llm.phases import BATCH, CONTEXT, DP, OUTPUT, PHASES, ROOF_RULE, TP
from perfcore.model.llm.workloads import BITS, Precisions

DEFAULT_MODEL = "Llama-3.1-8B"
# The page opens on serving at a useful size: 16 sequences at a 4k context.
PAGE_DEFAULTS = {"batch": 16, "context": 4096}
LABELS = {
    "batch": "Batch (sequences)",
    "context": "Prompt / context tokens",
    "output_tokens": "Output tokens",
    "tp": "Tensor parallel (GPUs)",
    "dp": "Data parallel (train)",
}


@st.cache_resource(show_spinner=False, max_entries=64)
def priced(model, device, compare, setup, curves=None) -> view.Page | str:
    """The page's numbers, once per input (shared, read-only); or what is missing."""
    try:
        return view.page(model, device, compare, setup, curves, ui.published_efficiencies())
    except NotPublished as e:
        return f"Cannot price this on {device.name}: {e}."
    except Exception:  # a bug, not the input: logged with its traceback, said as such
        return report_bug(f"the Workloads page, pricing {model.name} on {device.name}")


@st.cache_resource(show_spinner=False, max_entries=64)
def figure(model, device, compare, setup, which, theme) -> go.Figure:
    """The chart called `which` of priced(...), once per input.

    A resource, not data: unpickling a go.Figure re-validates it, as slow as building it.
    """
    return charts.page_figure(priced(model, device, compare, setup), which, setup.tp, theme)


st.title("Workloads: a whole model on a whole machine")


def inputs(models: dict) -> tuple[str, view.Setup]:
    """The model's name and the setup the inputs choose, in rows of inputs."""
    names = list(models)
    with st.container(horizontal=True, gap="medium"):  # rows of inputs, not columns: ui.INPUT
        name = ui.choice(
            "Model",
            names,
            "wl_model",
            DEFAULT_MODEL if DEFAULT_MODEL in models else names[0],
            width=2 * ui.INPUT,
        )
        phase = ui.choice("Phase", PHASES, "wl_phase", "decode", widget=st.radio, horizontal=True)
    numbers = {}
    with st.container(horizontal=True):
        for param in (BATCH, CONTEXT, OUTPUT, TP, DP):
            default = PAGE_DEFAULTS.get(param.name, param.default)
            numbers[param.name] = ui.number(
                LABELS[param.name],
                f"wl_{param.name}",
                default,
                param.lo,
                param.hi,
                help=param.help,
                width=ui.INPUT,
            )
    with st.container(horizontal=True, vertical_alignment="center"):
        bits = [
            ui.choice(f"{what} bits", BITS, f"wl_{key}_bits", 16, width=ui.INPUT)
            for what, key in zip(
                ("Weight", "Activation", "KV cache"), ("weights", "act", "kv"), strict=True
            )
        ]
        fused = ui.toggle("Fused attention", "wl_fused", True, help="FlashAttention-style")
        recompute = ui.toggle("Recompute (train)", "wl_recompute", False)
    n = numbers
    setup = view.Setup(
        phase,
        n["batch"],
        n["context"],
        n["output_tokens"],
        Precisions(*bits),
        fused,
        n["tp"],
        n["dp"],
        recompute,
    )
    return name, setup


def headline(main: view.View) -> None:
    """The main device's numbers: time, bound, intensity, rates, memory."""
    metrics = [
        ("Time (sum of ops)", fmt.seconds(main.phase.time_s)),
        ("Single-roofline bound", fmt.seconds(main.phase.time_bound_s)),
        (
            f"Intensity ({main.phase.bound}-bound)",
            fmt.intensity(main.phase.intensity, unit="FLOP/B"),
        ),  # a quarter-width box
        ("Tokens/s", f"{main.tokens_per_s:,.0f}"),
        ("Memory per GPU", fmt.capacity(main.memory.total)),
    ]
    if main.generation:
        g = main.generation
        metrics[3:3] = [
            ("Time to first token", fmt.seconds(g.ttft_s)),
            (
                "Time per output token",
                f"{fmt.seconds(g.tpot_first_s)} → {fmt.seconds(g.tpot_last_s)}",
            ),
        ]
    ui.metrics(metrics)


@st.fragment(key="wl_charts")
def chart(model, setup: view.Setup, data: view.Page) -> None:
    """One chart at a time, the picker beside it: the metrics say the results, each chart
    answers one question."""
    ctx = ui.context()
    left, right = st.columns(2)
    with right:
        captions = list(view.CHARTS.values())
        which = ui.choice(
            "Chart", list(view.CHARTS), "wl_chart", widget=st.radio, captions=captions
        )
        if which == view.SERVING:
            st.caption(view.serving_caption(data.serving[0], setup.context))
    with left:
        fig = figure(model, ctx.device, ctx.compare, setup, which, ui.theme())
        ui.plot("wl_chart_figure", fig)


@st.fragment(key="wl_workload")
def workload() -> None:
    """The inputs, then what they price: numbers, the chart, the tables."""
    ctx, models = ui.context(), ui.models()
    name, setup = inputs(models)
    model = models[name]
    st.caption(
        f"{name}: {model.kv_rule()}; {model.params() / 1e9:.2f}B parameters "
        f"({model.active_params() / 1e9:.2f}B active). Precision: {ROOF_RULE}; the "
        "sidebar's precision is not used here."
    )
    curves = ui.kernel_curves("wl_curves", ctx.device, ctx.specs)
    data = priced(model, ctx.device, ctx.compare, setup, curves)
    if isinstance(data, str):
        st.error(data)
        return
    if data.left_out:
        st.warning(data.left_out)
    headline(data.views[0])
    chart(model, setup, data)
    ui.takeaway(view.takeaway(model, data.views[0], setup))
    ui.table(data.summary, "workloads_summary")
    st.caption(f"Ops: time is the bound; {data.expected_from} in `expected`.")
    ui.table(data.ops, "workloads_ops")
    with st.expander("Decode crossover batch by KV precision and context"):
        ui.table(data.crossover, "workloads_crossover", empty="never")


workload()
st.caption(
    "Conventions: 2 FLOPs per multiply-add; decode reads every weight and the whole KV "
    "cache once per step; prefill runs lm_head on the last position only; TP all-reduces "
    "use the scale-up link per direction (docs/workloads.md)."
)
ctx = ui.context()
ui.spec_caption(ctx.device, ctx.compare)
