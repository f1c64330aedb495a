"""Measure: the experiments timed live with JAX on this machine, or read from a file.

The page draws before JAX is imported: JAX starts (and finds the device) on Run.
"""

import streamlit as st

import ui
from perfcore import figures
from perfcore.explain.chip import what_if
from perfcore.explain.measure import measure as view
from perfcore.explain.measure import measure_clock as clock
from perfcore.explain.measure import measure_roofline as measured
from perfcore.explain.measure import measure_sweep as sweep_view
from perfcore.measure.clock import lock
from perfcore.measure.experiments import registry
from perfcore.measure.experiments.suites import SUITES
from perfcore.measure.results.empirical import measured_roofline

ctx = ui.context()
st.title("Measure: the clock done right")
if ctx.what_if:
    st.info(what_if.measured_note(ctx.base, ctx.device), icon=":material/compare_arrows:")
hosted, missing = ui.hosted_mode(), registry.jax_available()
if hosted:
    st.info(view.HOSTED, icon=":material/cloud_off:")
elif missing:
    st.warning(view.no_jax(missing), icon=":material/download:")
if st.session_state.get(view.RUNNING) and not lock.measurement_in_progress():
    st.warning(view.STOPPED, icon=":material/stop_circle:")
    st.session_state[view.RUNNING] = False


@st.fragment
def run_panel() -> None:
    """Experiments, suite and the Run button; a run shows its progress, then the page reruns."""
    every, quick = list(registry.EXPERIMENTS), registry.default_selection()
    names = ui.multi("Experiments", every, "me_experiments", quick, help=view.EXPERIMENTS_HELP)
    st.caption(view.heavy_note())
    captions = view.suite_captions(SUITES)
    suite = ui.choice(
        "Suite", list(SUITES), "me_suite", widget=st.radio, horizontal=True, captions=captions
    )
    if lock.measurement_in_progress():
        st.info(view.WAITING_NOTE, icon=":material/hourglass:")
    if st.button("Run the experiments", key="me_run", type="primary", disabled=not names):
        ui.measure(suite, names, ctx.specs)


if not hosted and not missing:
    st.caption(view.BEFORE_RUN)
    run_panel()
live = st.session_state.get(view.STATE, ())
with st.expander("Upload a results file", expanded=hosted or not live):
    uploaded = ui.results_file("me_results")
records = view.page_records(live, uploaded)
known = view.known_spec(records, ctx.specs)
spec = known
if records and known is None:
    st.warning(view.unknown(records), icon=":material/help:")
    choice = ui.choice("Compare with a spec row", [view.MEASURED_ONLY, *ctx.specs], "me_spec")
    spec = None if choice == view.MEASURED_ONLY else ctx.specs[choice]
if records:
    st.caption(view.spec_line(spec, known is not None))


def show(records: tuple, spec) -> None:
    """The records' table, the charts, and the points on the measured (and spec) roofline."""
    st.caption(view.source_line(records, live=bool(live)))
    st.markdown(view.precision_note(records))
    ui.table(view.table(records), "measurements", empty="—")
    ui.results_download(records, "me_download")
    rows = sweep_view.sweep(records)
    if rows:
        overhead, roof = sweep_view.overhead_by_n(records), sweep_view.roof_by_n(records, spec)
        ui.chart("me_sweep", figures.sweep_figure, rows, overhead, roof, spec.name if spec else "")
        st.caption(sweep_view.sweep_sentence(records))
    points, roofline = view.overlay(live, uploaded), measured_roofline(records)
    ui.chart(
        "me_roofline",
        figures.measured_roofline_figure,
        roofline,
        points,
        measured.above(points, roofline, spec),
        spec,
        view.roof_precision(records, ctx.precision),
        sweep_view.overhead_ceiling(records),
        measured.title(records, spec),
    )
    if roofline.roofs or roofline.levels:
        ui.table(measured.roofs_table(roofline, spec), "measured_roofs")
    dispatch = clock.dispatch(records)
    if dispatch:
        ui.chart("me_dispatch", figures.dispatch_figure, dispatch)
        ui.table(clock.dispatch_table(dispatch), "dispatch_vs_compute")
        st.caption(clock.dispatch_sentence(dispatch))
    pairs = clock.pairs(records)
    if pairs:
        ui.chart("me_pairs", figures.pairs_figure, pairs)
        st.caption(" ".join(pair.sentence for pair in pairs))
    st.caption(clock.elementwise_sentence(records))
    spread = clock.spread(records)
    if spread:
        ui.chart("me_spread", figures.spread_figure, spread)
        st.caption(spread.sentence)
    ceilings = measured.ceilings(roofline, spec)
    if ceilings and spec is not None:
        ui.chart("me_ceilings", figures.ceilings_figure, ceilings, spec.name)
    ui.takeaway(view.takeaway(records, spec, known is not None))


if records:
    show(records, spec)
else:
    st.info(view.EMPTY, icon=":material/timer:")
ui.spec_caption(spec)
