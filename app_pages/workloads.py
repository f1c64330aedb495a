"""Workloads: a whole model on the sidebar's device (and the compare device), every phase."""

from dataclasses import replace

import streamlit as st

import ui
from perfcore import format as fmt
from perfcore.explain import workloads as view
from perfcore.figures import workloads as charts
from perfcore.llm_cli import BATCH, CONTEXT, DP, OUTPUT, TP
from perfcore.model.phases import PHASES, ROOF_RULE
from perfcore.model.workloads import BITS, Precisions

DEFAULT_MODEL = "Llama-3.1-8B"
# The page opens on serving at a useful size: 16 sequences at a 4k context.
PAGE_DEFAULTS = {"batch": 16, "context": 4096}


@st.cache_data(show_spinner=False, max_entries=64)
def priced(model, device, setup):
    """view.view, once per input; the error text where the device lacks a figure."""
    try:
        return view.view(model, device, setup)
    except ValueError as e:
        return str(e)


@st.cache_data(show_spinner=False, max_entries=64)
def served(model, device, setup):
    """view.serving_view, once per input (None where the phase cannot be priced)."""
    try:
        return view.serving_view(model, device, setup)
    except ValueError:
        return None


@st.cache_data(show_spinner=False, max_entries=32)
def crossovers(model, device, setup):
    """view.crossover_table, once per input."""
    return view.crossover_table(model, device, setup)


ctx, models = ui.context(), ui.models()
st.title("Workloads: a whole model on a whole machine")
names = list(models)
top = st.columns([2, 3])
with top[0]:
    name = ui.choice("Model", names, "wl_model", DEFAULT_MODEL if DEFAULT_MODEL in models
                     else names[0])  # fmt: skip
with top[1]:
    phase = ui.choice("Phase", PHASES, "wl_phase", "decode", widget=st.radio, horizontal=True)
model = models[name]
cols = st.columns(5)
numbers = {}
for col, param in zip(cols, (BATCH, CONTEXT, OUTPUT, TP, DP), strict=True):
    with col:
        shown = replace(param, default=PAGE_DEFAULTS.get(param.name, param.default))
        numbers[param.name] = ui.size(shown, f"wl_{param.name}")
cols = st.columns(5)
bits = [ui.choice(f"{what} bits", BITS, f"wl_{key}_bits", 16, widget=col.selectbox)
        for col, what, key in zip(cols, ("Weight", "Activation", "KV cache"),
                                  ("weights", "act", "kv"), strict=False)]  # fmt: skip
with cols[3]:
    fused = ui.flag("Fused attention", "wl_fused", True, help="FlashAttention-style")
with cols[4]:
    recompute = ui.flag("Recompute (train)", "wl_recompute", False)
setup = view.Setup(phase, numbers["batch"], numbers["context"], numbers["output_tokens"],
                   Precisions(*bits), fused, numbers["tp"], numbers["dp"], recompute)  # fmt: skip
st.caption(f"{name}: {model.kv_rule()}; {model.params() / 1e9:.2f}B parameters "
           f"({model.active_params() / 1e9:.2f}B active). Precision: {ROOF_RULE}.")  # fmt: skip

main = priced(model, ctx.device, setup)
if isinstance(main, str):
    st.error(f"Cannot price this on {ctx.device.name}: {main}.")
    st.stop()
other = priced(model, ctx.compare, setup) if ctx.compare else None
if isinstance(other, str):
    st.warning(f"{ctx.compare.name} is left out: {other}.")
    other = None
views = [v for v in (main, other) if v is not None]

metrics = [("Time (sum of ops)", fmt.seconds(main.phase.time_s)),
           ("Single-roofline bound", fmt.seconds(main.phase.time_bound_s)),
           ("Intensity", f"{fmt.intensity(main.phase.intensity)} ({main.phase.bound}-bound)"),
           ("Tokens/s", f"{main.tokens_per_s:,.0f}"),
           ("Memory per GPU", fmt.capacity(main.memory.total))]  # fmt: skip
if main.generation:
    g = main.generation
    metrics[3:3] = [("Time to first token", fmt.seconds(g.ttft_s)),
                    ("Time per output token", f"{fmt.seconds(g.tpot_first_s)} → "
                                              f"{fmt.seconds(g.tpot_last_s)}")]  # fmt: skip
for col, (label, value) in zip(st.columns(len(metrics)), metrics, strict=True):
    col.metric(label, value)

left, right = st.columns(2)
points = [view.layer_points(model, ctx.device, setup, p) for p in ("prefill", "decode")]
left.plotly_chart(charts.layer_roofline_figure(ctx.device, main.phase.precision, *points),
                  key="wl_layer")  # fmt: skip
sv = served(model, ctx.device, setup)
sv_other = served(model, ctx.compare, setup) if other else None
curves = charts.serving_figure(sv.curve if sv else (), sv.crossover if sv else None,
                               sv_other.curve if sv_other else (),
                               (ctx.device.name, ctx.compare.name if other else ""))  # fmt: skip
right.plotly_chart(curves, key="wl_serving")
if sv:
    right.caption(view.serving_caption(sv, setup.context))
left, right = st.columns(2)
bars = [(v.device.name, view.memory_parts(v.memory), v.memory.capacity, setup.tp) for v in views]
left.plotly_chart(charts.memory_figure(bars), key="wl_memory")
kinds = [(v.device.name, view.time_by_kind(v)) for v in views]
right.plotly_chart(charts.time_by_kind_figure(kinds), key="wl_kinds")

ui.takeaway(view.takeaway(model, main, setup))
ui.table(view.summary_table(views), "workloads_summary")
ui.table(view.ops_table(main), "workloads_ops")
with st.expander("Decode crossover batch by KV precision and context"):
    ui.table(crossovers(model, ctx.device, setup), "workloads_crossover", empty="never")
st.caption("Conventions: 2 FLOPs per multiply-add; decode reads every weight and the whole KV "
           "cache once per step; prefill runs lm_head on the last position only; TP all-reduces "
           "use the scale-up link per direction (docs/workloads.md).")  # fmt: skip
ui.spec_caption(ctx.device, ctx.compare)
