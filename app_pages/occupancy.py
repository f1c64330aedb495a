"""Occupancy: batch -> blocks -> waves on the device's compute units, and tile quantisation.

One section at a time (ui.tabs: only the open tab is drawn, and a link names it); each is a
page part (st.fragment): a change to one of its inputs reruns that section alone, its
takeaway with it.
"""

import streamlit as st

import ui
from perfcore.explain.chip import occupancy as view
from perfcore.figures import occupancy_sawtooth_figure, tile_efficiency_figure

WAVES, TILES = "oc_waves", "oc_tiles"
# Each section's link keys: a link made before the tabs opens on the section it set.
KEYS = {
    "Batch and waves": ("oc_preset", "oc_batch", "oc_per_seq"),
    "Matmul tile quantisation": ("oc_m", "oc_n", "oc_tile", "oc_tile_chart"),
}

ctx = ui.context()
st.title("Occupancy: too few blocks and the units idle")


@st.fragment(key=WAVES)
def waves() -> None:
    """Batch -> blocks -> waves: the chosen batch's numbers, its sawtooth and the ladder."""
    ctx, bound = ui.context(), ui.reruns(WAVES)
    st.latex(
        r"\text{waves} = \left\lceil \frac{\text{blocks}}{\text{units}} \right\rceil,\qquad"
        r"\text{utilisation} = \frac{\text{blocks}}{\text{waves} \cdot \text{units}}"
    )
    units = ctx.device.compute_units
    radio = {"widget": st.radio, "horizontal": True, "captions": view.preset_captions(units)}
    preset = ui.choice("Batch (sequences)", view.PRESETS, "oc_preset", **radio, **bound)
    with st.container(horizontal=True):  # a row of inputs, not columns: see ui.INPUT
        unused = preset != view.CUSTOM
        custom = ui.number(
            "Your batch", "oc_batch", 1, 1, view.BATCH_MAX, disabled=unused, width=ui.INPUT, **bound
        )
        per_seq = ui.number(
            "Blocks per sequence",
            "oc_per_seq",
            1,
            1,
            view.PER_SEQUENCE_MAX,
            width=ui.INPUT,
            **bound,
        )
    batch = view.batch_for(preset, custom, units)
    chosen = view.occupancy(ctx.device, batch, per_seq)
    ui.metrics(view.metrics(chosen))
    ui.chart("oc_sawtooth", occupancy_sawtooth_figure, ctx.device, chosen, ctx.compare)
    ui.table(view.table(view.ladder(ctx.device, batch, per_seq), batch), "occupancy")
    ui.takeaway(view.takeaway(chosen, ctx.device))


@st.fragment(key=TILES)
def tiles() -> None:
    """Matmul tile quantisation: the chosen tile's numbers, every tile's table (and chart)."""
    device, bound = ui.context().device, ui.reruns(TILES)
    st.latex(
        r"\text{tiles} = \left\lceil \tfrac{M}{t_M} \right\rceil \left\lceil \tfrac{N}{t_N} "
        r"\right\rceil,\qquad \text{efficiency} = \frac{MN}{\text{tiles}\cdot t_M t_N} \cdot "
        r"\frac{\text{tiles}}{\text{waves} \cdot \text{units}}"
    )
    with st.container(horizontal=True):  # a row of inputs, not columns: see ui.INPUT
        m = ui.number("M (rows of C)", "oc_m", 4096, 1, view.SIZE_MAX, width=ui.INPUT, **bound)
        n = ui.number("N (columns of C)", "oc_n", 4096, 1, view.SIZE_MAX, width=ui.INPUT, **bound)
        tile = ui.choice(
            "Tile shape", view.TILES, "oc_tile", view.DEFAULT_TILE, width=ui.INPUT, **bound
        )
    compared = view.tiles_compared(m, n, device)
    ui.metrics(view.tile_metrics(compared, tile))
    if ui.toggle("Chart every tile shape", "oc_tile_chart", **bound):  # the metrics give one
        ui.chart("oc_tiles", tile_efficiency_figure, compared, tile)
    ui.table(view.tile_table(compared), "tile_quantisation")
    ui.takeaway(view.tile_takeaway(compared, tile, device))


ui.tabs(dict(zip(KEYS, (waves, tiles), strict=True)), "oc_section", KEYS)
st.caption(view.NOTE)
ui.spec_caption(ctx.device, ctx.compare)
