"""Generations: every device's ridge point against its year, one op's verdict, growth ratios.

One page part (st.fragment): a change to one of its inputs reruns it, not the sidebar. Its
chart, the growth chart and the table are tabs (ui.tabs): only the open one is drawn."""

import streamlit as st

import ui
from perfcore.explain.chip import generations as view
from perfcore.figures import growth_figure, ridge_by_year_figure
from perfcore.model.chip import ops
from perfcore.model.chip.generations import growth

# A link made before the tabs with ?ge_growth (the growth chart's toggle) opens this tab.
GROWTH = "Growth, old to new"


@st.fragment(key="ge_view")
def generations() -> None:
    """The inputs, then the ridge points, the verdicts and the growth they price."""
    ctx = ui.context()
    all_vendors = view.vendors(ctx.devices)
    names = view.device_names(ctx.devices)
    old_name, new_name = view.default_pair(names)
    title, formula = st.empty(), st.empty()
    vendors = ui.multi("Vendors", all_vendors, "ge_vendors", all_vendors)
    left, right = st.columns(2)
    with left:
        op = ui.choice("Operation", list(ops.CATALOG), "ge_op", view.DEFAULT_OP)
        sizes = {p.name: ui.size(p, f"ge_{op}_{p.name}") for p in view.params(op)}
    with right:
        old = ctx.devices[ui.choice("Older device", names, "ge_old", old_name)]
        new = ctx.devices[ui.choice("Newer device", names, "ge_new", new_name)]
    shared = view.shared_precision(old, new, ctx.precision)
    precision = shared or ctx.precision
    g = growth(old, new, precision)
    title.title(view.title(g))
    formula.latex(view.FORMULA)
    if note := view.precision_note(old, new, ctx.precision, shared):
        st.info(note, icon=":material/swap_horiz:")
    cost = view.op_cost(op, precision, sizes)
    rows = view.rows(ctx.devices, vendors, precision, cost)
    bound_help = f"Devices on which {op} is memory-bound, of those publishing {precision}"
    bound = (f"Memory-bound ({precision})", view.bound_count(rows), bound_help)
    ui.metrics([*view.growth_headline(g), bound])
    views = {
        "Ridge points by year": lambda: ui.chart(
            "ge_chart", ridge_by_year_figure, rows, cost, precision, (old, new)
        ),
        GROWTH: lambda: ui.chart("ge_growth_chart", growth_figure, g, old, new, precision),
        "Table": lambda: ui.table(view.table(rows, precision, cost), "generations"),
    }
    ui.tabs(views, "ge_view", {GROWTH: ("ge_growth",)})
    ui.takeaway(view.takeaway(rows, cost, precision, g, (old, new)))
    ui.spec_caption(old, new)
    st.caption("Every other device's source is in the table's source column (data/specs.csv).")


generations()
