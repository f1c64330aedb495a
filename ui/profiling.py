"""The Profile page's sources besides an upload: the bundled example, a built-in program
profiled here, and this machine's quick roofline, measured once per server when a profile taken
here has no other roof.

The bundled example (explain.measure.profile_example) is read once per process. A built-in program
profiled here is predicted first, and its step timed untraced, where this session measured
kernel curves (the Measure page's kernels suite), so its ops show predicted beside measured.
The quick roofline is the `roofline` experiment on the quick suite (about 20 s on a laptop
CPU), run through JAX's module the first time a profile taken here needs it and kept for the
process: every later profile on this server is judged against the same measurement. The roofs
picked are remembered for the device they were picked for: a profile of another device (an
upload after the bundled example) opens on that device's own default. What the page shows of
a profile is worked out once per (records, roofs) and kept for every later rerun
(`page_view`): a sidebar change reruns the page, not the judging.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import pandas as pd
import streamlit as st

from perfcore.explain.measure import profile as view
from perfcore.explain.measure import profile_example, profile_predict
from perfcore.explain.measure.profile_predict import Shown as Predicted
from perfcore.measure.profile.judge.assess import Roofs
from perfcore.measure.results import Record, curves
from perfcore.model.chip.specs import Device
from ui.loaders import measurement_module
from ui.widgets import choice

SEEN = "_pr_roofs_device"  # the device the roofs were last picked for
LIVE = "pr_live"  # the last built-in program profiled here (a Profile)
PREDICTED = "pr_live_predicted"  # its prediction, untraced wall and the curves' records


@st.cache_resource(show_spinner=False)
def bundled_example(made_on: str = "CPU") -> tuple[Record, ...]:
    """The records of the bundled example made on `made_on` (profile_example.MADE_ON), read
    once per process."""
    return profile_example.bundled(made_on)


@st.cache_resource(show_spinner="Measuring this machine's roofline (quick suite, once)...")
def quick_roofline() -> tuple[Record, ...]:
    """This machine's `roofline` records on the quick suite, measured once per process."""
    return measurement_module().run_suite("quick", experiments=(profile_example.ROOFLINE,))


def quick_roofs(device: str) -> Roofs | None:
    """The roofs of this machine's quick roofline (measured on first need), said as such."""
    return profile_example.roofline_roofs(
        quick_roofline(), device, "measured roofline of this machine", quick=True
    )


def roofs_choice(key: str, specs: dict[str, Device], device: str) -> str:
    """The roofs to judge by (URL-bound): a specs row or the measured roofline; a profile of
    another device than the last one opens on its own default."""
    if st.session_state.get(SEEN, device) != device:
        st.session_state.pop(key, None)
    st.session_state[SEEN] = device
    return choice("Judge against", view.roof_options(specs), key, view.default_roofs(device, specs))


def profile_here(name: str, session: tuple[Record, ...]) -> None:
    """Profile a built-in program here (JAX started once per server), predicted first from
    this session's kernel curves where it measured some."""
    measurement_module()
    from perfcore.measure.profile import run
    from perfcore.measure.profile.examples import EXAMPLES
    from perfcore.measure.profile.predict import versus
    from perfcore.measure.profile.predict.program import predict

    st.session_state[LIVE] = run.profile_example(name)
    measured = curves.curves(session)
    if measured is None:
        st.session_state.pop(PREDICTED, None)
        return
    example = EXAMPLES[name]()
    kernels = tuple(r for r in session if r.experiment == curves.EXPERIMENT)
    predicted = predict(example.fn, *example.args, curves=measured)
    wall = versus.step_wall(example.fn, *example.args)
    st.session_state[PREDICTED] = (predicted, wall, kernels)


def live_records(records: tuple[Record, ...]) -> tuple[Record, ...]:
    """The records of the program profiled here, with its prediction where one was made."""
    made = st.session_state.get(PREDICTED)
    return profile_predict.predicted_records(records, *made) if made else records


class PageView(NamedTuple):
    """What the Profile page shows of one profile judged against one set of roofs."""

    headline: str
    steps: list[str]
    ops: pd.DataFrame  # read-only: shared by every rerun and session
    categories: dict[str, float]
    diagnoses: list[str]
    predicted: Predicted | None


@functools.lru_cache(maxsize=32)
def page_view(records: tuple[Record, ...], judged: Roofs | None) -> PageView:
    """The page's text, op table, category times and prediction of `records`, once per input
    (keyed by the records' own hash: frozen dataclasses, no deep walk of Streamlit's)."""
    return PageView(
        view.headline(records),
        view.step_lines(records),
        view.op_table(records, judged),
        view.category_times(records),
        view.diagnoses(records),
        profile_predict.shown(records),
    )
