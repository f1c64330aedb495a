"""Measure: the seeds' experiments timed live with JAX on this machine, or read from a file."""

import streamlit as st

import ui
from perfcore.explain import measure as view
from perfcore.explain import measure_clock as clock
from perfcore.explain import measure_sweep as model
from perfcore.figures import (
    ceilings_figure,
    dispatch_figure,
    pairs_figure,
    roofline_figure,
    spread_figure,
    sweep_figure,
)
from perfcore.measure import jax_bench
from perfcore.measure.suites import SUITES, DeviceMemoryError

ctx = ui.context()
st.title("Measure: the clock done right")
hosted, missing = ui.hosted_mode(), jax_bench.jax_available()
detected = None if hosted or missing else ui.detected_device()
if hosted:
    st.info(view.HOSTED, icon=":material/cloud_off:")
elif missing:
    st.warning(view.no_jax(missing), icon=":material/download:")
elif detected:
    st.markdown(view.device_line(detected))


@st.fragment
def run_panel() -> None:
    """Experiments, suite and the Run button; a run shows its progress, then the page reruns."""
    every = list(jax_bench.EXPERIMENTS)
    names = ui.multi("Experiments", every, "me_experiments", every, help=view.EXPERIMENTS_HELP)
    suite = ui.choice("Suite", list(SUITES), "me_suite", "default", widget=st.radio,
                      horizontal=True, captions=view.suite_captions(SUITES))  # fmt: skip
    if jax_bench.measurement_in_progress():
        st.info(f"Another session is measuring: a run now would show '{jax_bench.WAITING}'.")
    if not st.button("Run the experiments", key="me_run", type="primary", disabled=not names):
        return
    bar, waiting = st.progress(0.0, text="starting"), st.empty()
    try:
        records = jax_bench.run_suite(
            suite, experiments=tuple(names), specs=ctx.specs,
            progress=lambda fraction, message: bar.progress(fraction, text=message),
            wait_callback=lambda message: waiting.info(message, icon=":material/hourglass:"),
        )  # fmt: skip
    except DeviceMemoryError as error:
        st.error(str(error), icon=":material/memory:")
        return
    finally:
        bar.empty()
        waiting.empty()
    st.session_state[view.STATE] = records
    st.rerun()


if detected is not None:
    run_panel()
live = st.session_state.get(view.STATE, ())
with st.expander("Upload a results file", expanded=hosted or not live):
    uploaded = ui.results_file("me_results")
records = view.page_records(live, uploaded)
known = view.known_spec(records, detected, ctx.specs)
spec = known or ctx.device
if known is None and view.device_kind(records, detected):
    st.warning(view.unknown(records, detected), icon=":material/help:")
    choice = ui.choice("Spec row for this device", [view.SIDEBAR, *ctx.specs], "me_spec")
    spec = view.picked(choice, ctx.device, ctx.specs)
st.caption(view.spec_line(spec, known is not None))


def show(records: tuple, spec) -> None:
    """The records' table, the seeds' charts, and the points on the spec roofline."""
    st.caption(view.source_line(records, live=bool(live)))
    st.markdown(view.precision_note(records))
    ui.table(view.table(records), "measurements", empty="—")
    ui.results_download(records, "me_download")
    rows = model.sweep(records)
    if rows:
        overhead, roof = model.overhead_by_n(records), model.roof_by_n(records, spec)
        ui.chart("me_sweep", sweep_figure, rows, overhead, roof, spec.name)
        st.caption(model.sweep_sentence(records))
    precision = view.roof_precision(records, ctx.precision)
    points = view.overlay(live, uploaded)
    overhead = model.overhead_ceiling(records)
    ui.chart("me_roofline", roofline_figure, spec, precision, measured=points, overhead=overhead)
    dispatch = clock.dispatch(records)
    if dispatch:
        ui.chart("me_dispatch", dispatch_figure, dispatch)
        ui.table(clock.dispatch_table(dispatch), "dispatch_vs_compute")
        st.caption(clock.dispatch_sentence(dispatch))
    pairs = clock.pairs(records)
    if pairs:
        ui.chart("me_pairs", pairs_figure, pairs)
        st.caption(" ".join(pair.sentence for pair in pairs))
    st.caption(clock.elementwise_sentence(records))
    spread = clock.spread(records)
    if spread:
        ui.chart("me_spread", spread_figure, spread)
        st.caption(spread.sentence)
    ceilings = model.ceilings(records, spec)
    if ceilings:
        ui.chart("me_ceilings", ceilings_figure, ceilings, spec.name)
        ui.table(model.ceilings_table(ceilings, spec), "ceilings")
    ui.takeaway(view.takeaway(records, spec, known is not None))


if records:
    show(records, spec)
else:
    st.info(view.EMPTY, icon=":material/timer:")
ui.spec_caption(spec)
