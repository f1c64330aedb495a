"""Generations: every device's ridge point against its year, one op's verdict, growth ratios."""

import streamlit as st

import ui
from perfcore.explain import generations as view
from perfcore.figures import growth_figure, ridge_by_year_figure
from perfcore.model import ops
from perfcore.model.generations import growth

ctx = ui.context()
st.title("Generations: the ridge point rises")
st.latex(view.FORMULA)
all_vendors = view.vendors(ctx.specs)
vendors = ui.multi("Vendors", all_vendors, "ge_vendors", all_vendors)
names = view.device_names(ctx.specs)
old_name, new_name = view.default_pair(names)
left, right = st.columns(2)
with left:
    op = ui.choice("Operation", list(ops.CATALOG), "ge_op", view.DEFAULT_OP)
    sizes = {p.name: ui.size(p, f"ge_{op}_{p.name}") for p in view.params(op)}
with right:
    old = ctx.specs[ui.choice("Older device", names, "ge_old", old_name)]
    new = ctx.specs[ui.choice("Newer device", names, "ge_new", new_name)]
cost = view.op_cost(op, ctx.precision, sizes)
rows = view.rows(ctx.specs, vendors, ctx.precision, cost)
g = growth(old, new, ctx.precision)
cols = st.columns(4)
for col, (label, value) in zip(cols, view.growth_headline(g), strict=False):
    col.metric(label, value)
cols[3].metric(f"Memory-bound on the op ({ctx.precision})", view.bound_count(rows))
st.plotly_chart(ridge_by_year_figure(rows, cost, ctx.precision, (old, new)), key="ge_chart")
st.plotly_chart(growth_figure(g, old, new, ctx.precision), key="ge_growth_chart")
ui.table(view.table(rows, ctx.precision, cost), "generations")
ui.takeaway(view.takeaway(rows, cost, ctx.precision, g, (old, new)))
ui.spec_caption(old, new)
st.caption("Every other device's source is in the table's source column (data/specs.csv).")
