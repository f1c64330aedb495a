"""Profile: a captured program's ops on the roofline of the device it ran on; before vs after.

It opens on a bundled example (the built-in transformer block, judged and predicted where it
was made: a CPU, or a TPU v5e). Upload a capture or a results file (a second one compares);
on a local instance a button profiles a built-in program, judged against this machine's
quick roofline where no specs row or measured roofline applies. The page draws before JAX is
imported. What it shows of a profile, under its headline, is tabs (ui.tabs): only the open one
is drawn.
"""

import streamlit as st

import ui
from perfcore.explain.chip import what_if
from perfcore.explain.measure import measure as measure_view
from perfcore.explain.measure import profile as view
from perfcore.explain.measure import profile_example
from perfcore.figures.measure.predicted import predicted_figure
from perfcore.figures.measure.profile import (
    category_figure,
    compare_figure,
    profile_roofline_figure,
)
from perfcore.measure.experiments import registry
from perfcore.measure.profile.examples import EXAMPLES
from perfcore.measure.profile.judge.records import profile_records

PREDICTED, COMPARED = "Predicted before it ran, against measured", "Before and after"


def before_file(key: str, drawn: bool):
    """The capture or results file to judge."""
    return ui.profile_file("Capture or results file", key, drawn)


def after_file(key: str, drawn: bool):
    """The capture or results file after a change, to compare."""
    return ui.profile_file("Capture or results file after the change", key, drawn)


ctx = ui.context()
st.title("Profile: your program on the roofline")
st.caption(view.INTRO)
if ctx.what_if:
    st.info(what_if.measured_note(ctx.base, ctx.device), icon=":material/compare_arrows:")
uploaded = ui.folded("Your capture or results file", "pr_before", before_file)
after = ui.folded("After a change (optional, to compare)", "pr_after", after_file)
st.caption(view.CAPTURE_HOW)
session = tuple(st.session_state.get(measure_view.STATE, ()))  # the Measure page's records
if not ui.hosted_mode() and not registry.jax_available():
    example = ui.choice(
        "Built-in program", list(EXAMPLES), "pr_example", "mlp", horizontal=True, widget=st.radio
    )
    if st.button("Profile it here", key="pr_run", type="primary"):
        with st.spinner(f"Profiling {example} (5 steps)..."):
            ui.profile_here(example, session)
live = uploaded is None and ui.LIVE in st.session_state
if uploaded is None and not live:
    made_on = ui.choice(
        "Bundled example, made on", list(profile_example.MADE_ON), "pr_bundled", widget=st.radio
    )
    item = ui.bundled_example(made_on)
    st.info(profile_example.bundled_line(item), icon=":material/science:")
else:
    item = uploaded if uploaded is not None else st.session_state[ui.LIVE]
device = view.device_of(item)
choice = ui.roofs_choice("pr_roofs", ctx.specs, device)
judged = profile_example.judge(choice, ctx.specs, device, item, session)
if judged is None and live:
    judged = ui.quick_roofs(device)
records = view.as_records(item, judged)
records = ui.live_records(records) if live else records
shown = ui.page_view(records, judged)
ui.takeaway(shown.headline)
st.caption(view.roofs_line(judged))
if shown.predicted is not None:  # the step predicted before it ran, against its wall
    st.caption("  \n".join(shown.predicted.lines))


@st.fragment(key="pr_roofline_part")
def roofline(records, judged) -> None:
    """The ops on the roofline, and how many it names: a page part, so naming more or fewer
    redraws this chart alone."""
    named = ui.number("Ops named on the chart", "pr_named", 6, 0, 20)
    ui.chart("pr_roofline", profile_roofline_figure, profile_records(records), judged, named=named)


def changes() -> None:
    """Where the time went, and what to change."""
    ui.chart("pr_categories", category_figure, shown.categories)
    st.markdown("\n".join(f"- {line}" for line in shown.diagnoses))


def ops() -> None:
    """Every op: the table, and the records to download."""
    st.caption("  \n".join(shown.steps))  # one element each: every element costs a redraw
    ui.table(shown.ops, "profile_ops", empty="—")
    ui.results_download(records, "pr_download")


def compared(table) -> None:
    """Each op before and after."""
    ui.chart("pr_compare", compare_figure, table)
    ui.table(table, "profile_compare", empty="—")


parts = {
    "Roofline": lambda: roofline(records, judged),
    "Ops": ops,
    "Time by category, what to change": changes,
}
if (p := shown.predicted) is not None:
    parts[PREDICTED] = lambda: ui.chart("pr_predicted", predicted_figure, p.ops, p.missed, p.spread)
if after is not None:
    table = view.compare(records, view.as_records(after, judged))
    ui.takeaway(view.compare_headline(table))
    parts[COMPARED] = lambda: compared(table)
ui.tabs(parts, "pr_tab")
