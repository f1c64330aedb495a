"""Workloads: a whole model on the sidebar's device (and the compare device), every phase."""

import streamlit as st

import ui
from perfcore import format as fmt
from perfcore.explain import workloads as view
from perfcore.figures import workloads as charts
from perfcore.model.phases import BATCH, CONTEXT, DP, OUTPUT, PHASES, ROOF_RULE, TP
from perfcore.model.workloads import BITS, Precisions

DEFAULT_MODEL = "Llama-3.1-8B"
# The page opens on serving at a useful size: 16 sequences at a 4k context.
PAGE_DEFAULTS = {"batch": 16, "context": 4096}
LABELS = {"batch": "Batch (sequences)", "context": "Prompt / context tokens",
          "output_tokens": "Output tokens", "tp": "Tensor parallel (GPUs)",
          "dp": "Data parallel (train)"}  # fmt: skip


@st.cache_resource(show_spinner=False, max_entries=64)
def built(model, device, compare, setup, theme) -> tuple | str:
    """The page's numbers and charts, once per input (shared, read-only); or what is missing.

    A resource, not data: unpickling a go.Figure re-validates it, as slow as building it.
    """
    try:
        data = view.page(model, device, compare, setup)
    except ValueError as e:
        return f"Cannot price this on {device.name}: {e}."
    return data, charts.page_figures(data, setup.tp, theme)


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
        default = PAGE_DEFAULTS.get(param.name, param.default)
        numbers[param.name] = ui.number(LABELS[param.name], f"wl_{param.name}", default,
                                        param.lo, param.hi, help=param.help)  # fmt: skip
cols = st.columns(5)
bits = [ui.choice(f"{what} bits", BITS, f"wl_{key}_bits", 16, widget=col.selectbox)
        for col, what, key in zip(cols, ("Weight", "Activation", "KV cache"),
                                  ("weights", "act", "kv"), strict=False)]  # fmt: skip
with cols[3]:
    fused = ui.toggle("Fused attention", "wl_fused", True, help="FlashAttention-style")
with cols[4]:
    recompute = ui.toggle("Recompute (train)", "wl_recompute", False)
setup = view.Setup(phase, numbers["batch"], numbers["context"], numbers["output_tokens"],
                   Precisions(*bits), fused, numbers["tp"], numbers["dp"], recompute)  # fmt: skip
st.caption(f"{name}: {model.kv_rule()}; {model.params() / 1e9:.2f}B parameters "
           f"({model.active_params() / 1e9:.2f}B active). Precision: {ROOF_RULE}; the "
           "sidebar's precision is not used here.")  # fmt: skip

page = built(model, ctx.device, ctx.compare, setup, ui.theme())
if isinstance(page, str):
    st.error(page)
    st.stop()
data, figures = page
if data.left_out:
    st.warning(data.left_out)
main = data.views[0]
metrics = [("Time (sum of ops)", fmt.seconds(main.phase.time_s)),
           ("Single-roofline bound", fmt.seconds(main.phase.time_bound_s)),
           (f"Intensity ({main.phase.bound}-bound)", fmt.intensity(main.phase.intensity)),
           ("Tokens/s", f"{main.tokens_per_s:,.0f}"),
           ("Memory per GPU", fmt.capacity(main.memory.total))]  # fmt: skip
if main.generation:
    g = main.generation
    metrics[3:3] = [("Time to first token", fmt.seconds(g.ttft_s)),
                    ("Time per output token", f"{fmt.seconds(g.tpot_first_s)} → "
                                              f"{fmt.seconds(g.tpot_last_s)}")]  # fmt: skip
for row in range(0, len(metrics), 4):  # rows of four stay legible on a narrow screen
    for col, (label, value) in zip(st.columns(4), metrics[row : row + 4], strict=False):
        col.metric(label, value)

left, right = st.columns(2)
with left:
    ui.plot("wl_layer", figures["layer"])
with right:
    ui.plot("wl_serving", figures["serving"])
    st.caption(view.serving_caption(data.serving[0], setup.context))
left, right = st.columns(2)
with left:
    ui.plot("wl_memory", figures["memory"])
with right:
    ui.plot("wl_kinds", figures["kinds"])

ui.takeaway(view.takeaway(model, main, setup))
ui.table(data.summary, "workloads_summary")
ui.table(data.ops, "workloads_ops")
with st.expander("Decode crossover batch by KV precision and context"):
    ui.table(data.crossover, "workloads_crossover", empty="never")
st.caption("Conventions: 2 FLOPs per multiply-add; decode reads every weight and the whole KV "
           "cache once per step; prefill runs lm_head on the last position only; TP all-reduces "
           "use the scale-up link per direction (docs/workloads.md).")  # fmt: skip
ui.spec_caption(ctx.device, ctx.compare)
