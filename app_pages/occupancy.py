"""Occupancy: batch -> blocks -> waves on the device's compute units, and tile quantisation."""

import streamlit as st

import ui
from perfcore.explain.chip import occupancy as view
from perfcore.figures import occupancy_sawtooth_figure, tile_efficiency_figure

ctx = ui.context()
units = ctx.device.compute_units
st.title("Occupancy: too few blocks and the units idle")
st.latex(
    r"\text{waves} = \left\lceil \frac{\text{blocks}}{\text{units}} \right\rceil,\qquad"
    r"\text{utilisation} = \frac{\text{blocks}}{\text{waves} \cdot \text{units}}"
)
captions = view.preset_captions(units)
radio = {"widget": st.radio, "horizontal": True, "captions": captions}
preset = ui.choice("Batch (sequences)", view.PRESETS, "oc_preset", **radio)
with st.container(horizontal=True):  # a row of inputs, not columns: see ui.INPUT
    unused = preset != view.CUSTOM
    custom = ui.number(
        "Your batch", "oc_batch", 1, 1, view.BATCH_MAX, disabled=unused, width=ui.INPUT
    )
    per_seq = ui.number(
        "Blocks per sequence", "oc_per_seq", 1, 1, view.PER_SEQUENCE_MAX, width=ui.INPUT
    )
batch = view.batch_for(preset, custom, units)
chosen = view.occupancy(ctx.device, batch, per_seq)
ui.metrics(view.metrics(chosen))
ui.chart("oc_sawtooth", occupancy_sawtooth_figure, ctx.device, chosen, ctx.compare)
ui.table(view.table(view.ladder(ctx.device, batch, per_seq), batch), "occupancy")

st.subheader("Matmul tile quantisation")
st.latex(
    r"\text{tiles} = \left\lceil \tfrac{M}{t_M} \right\rceil \left\lceil \tfrac{N}{t_N} "
    r"\right\rceil,\qquad \text{efficiency} = \frac{MN}{\text{tiles}\cdot t_M t_N} \cdot "
    r"\frac{\text{tiles}}{\text{waves} \cdot \text{units}}"
)
with st.container(horizontal=True):  # a row of inputs, not columns: see ui.INPUT
    m = ui.number("M (rows of C)", "oc_m", 4096, 1, view.SIZE_MAX, width=ui.INPUT)
    n = ui.number("N (columns of C)", "oc_n", 4096, 1, view.SIZE_MAX, width=ui.INPUT)
    tile = ui.choice("Tile shape", view.TILES, "oc_tile", view.DEFAULT_TILE, width=ui.INPUT)
compared = view.tiles_compared(m, n, ctx.device)
ui.metrics(view.tile_metrics(compared, tile))
if ui.toggle("Chart every tile shape", "oc_tile_chart"):  # the metrics give the chosen one
    ui.chart("oc_tiles", tile_efficiency_figure, compared, tile)
ui.table(view.tile_table(compared), "tile_quantisation")
ui.takeaway(view.takeaway(chosen, compared, tile, ctx.device))
st.caption(view.NOTE)
ui.spec_caption(ctx.device, ctx.compare)
