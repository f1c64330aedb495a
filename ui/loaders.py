"""What the app loads: the bundled CSVs (data/runs.csv priced once), a user's uploads
(validated, cached by content), results files, and JAX's measurement module on first need.

An upload that does not validate is shown with every problem and left out; the bundled rows
stay. Nothing here is part of a page's link.
"""

from __future__ import annotations

import functools
import gc
import importlib
import os
from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from perfcore.errors import FileProblems
from perfcore.explain.measure.measure import known_spec, not_this_device
from perfcore.measure.results import Record, ResultsError, load_results_bytes
from perfcore.measure.results.points import MeasuredPoint, measured_points
from perfcore.model.chip.specs import Device, load_specs, load_specs_bytes
from perfcore.model.llm.models import Model, load_models, load_models_bytes
from perfcore.model.runs import published
from perfcore.model.runs.efficiency import Efficiency
from perfcore.model.runs.sample import Sample

T = TypeVar("T")

HOSTED_ENV = "PERFCORE_HOSTED"
RESULTS_HELP = "From `python -m perfcore measure` or the Measure page. Not part of the link."


def hosted_mode() -> bool:
    """True when PERFCORE_HOSTED is set (not '', '0' or 'false'): live measurement is off."""
    return os.environ.get(HOSTED_ENV, "").strip().lower() not in ("", "0", "false")


@st.cache_resource(show_spinner="Pricing the published runs…")
def published_runs() -> tuple[tuple[Sample, ...], dict[str, Efficiency]]:
    """data/runs.csv's runs priced against their bound, and the efficiency per regime."""
    samples = published.priced_runs().samples
    return samples, published.table(samples)


@st.cache_data(show_spinner=False)
def bundled_specs() -> dict[str, Device]:
    """data/specs.csv, loaded once per server process."""
    return load_specs()


@st.cache_data(show_spinner=False, max_entries=32)
def uploaded_specs(data: bytes, label: str) -> dict[str, Device]:
    """A user's specs CSV, validated; raises SpecError with every problem."""
    return load_specs_bytes(data, label)


@st.cache_data(show_spinner=False)
def bundled_models() -> dict[str, Model]:
    """data/models.csv, loaded once per server process."""
    return load_models()


@st.cache_data(show_spinner=False, max_entries=32)
def uploaded_models(data: bytes, label: str) -> dict[str, Model]:
    """A user's models CSV, validated; raises ModelError with every problem."""
    return load_models_bytes(data, label)


@st.cache_data(show_spinner=False, max_entries=32)
def uploaded_records(data: bytes, label: str) -> tuple[Record, ...]:
    """A results file's records; raises ResultsError naming every bad field."""
    return load_results_bytes(data, label)


KEPT = "_kept_uploads"  # uploader key -> (file name, bytes): kept while it is not drawn


def keep(key: str) -> None:
    """An uploader's on_change: keep its file for the runs it is not drawn in (a closed
    popover's uploader is not drawn, and Streamlit drops a widget's state once it is not), or
    forget it once the user clears it."""
    file, kept = st.session_state.get(key), st.session_state.setdefault(KEPT, {})
    if file is None:
        kept.pop(key, None)
    else:
        kept[key] = (file.name, file.getvalue())


def forget(key: str) -> None:
    """Drop the file kept for uploader `key`."""
    st.session_state.get(KEPT, {}).pop(key, None)


def kept_file(key: str) -> tuple[str | None, bytes | None]:
    """(name, bytes) of the file kept for uploader `key`; (None, None) when none is."""
    return st.session_state.get(KEPT, {}).get(key, (None, None))


def kept_name(key: str) -> str | None:
    """The name of the file kept for uploader `key`, or None."""
    return kept_file(key)[0]


def kept_uploader(
    label: str, kinds: list[str], key: str, help_: str, drawn: bool = True
) -> tuple[str | None, bytes | None]:
    """A file uploader whose file is kept (keep) for the runs it is not drawn in, drawn where
    `drawn`: (name, bytes) of the file kept for it, (None, None) when none is."""
    if drawn:
        st.file_uploader(label, kinds, key=key, help=help_, on_change=keep, args=(key,))
    return kept_file(key)


def with_upload(bundled: dict, path: str, key: str, load, check=None):
    """The bundled rows plus the user's CSV kept for uploader `key` when it validates, and
    what they are; check(rows, name), when given, looks over the uploaded rows. Its problems
    are said in the sidebar."""
    name, data = kept_file(key)
    if name is None:
        return bundled, path
    try:
        mine = load(data, name)
    except FileProblems as e:
        st.sidebar.error(f"Kept the bundled {path}: {name} has problems.")
        st.sidebar.code(str(e), language=None, wrap_lines=True)
        return bundled, path
    if check is not None:
        check(mine, name)
    return {**bundled, **mine}, f"{path} + {name}"


def results_file(key: str, drawn: bool = True) -> tuple[Record, ...]:
    """An uploader for a results file (python -m perfcore measure), drawn where `drawn`; its
    file kept (keep) for the runs it is not drawn in; () when none or invalid."""
    label = "Measured results (JSON or CSV)"
    name, data = kept_uploader(label, ["json", "csv"], key, RESULTS_HELP, drawn)
    if name is None:
        return ()
    try:
        return uploaded_records(data, name)
    except ResultsError as e:
        st.error(f"{name} was not overlaid: it has problems.")
        st.code(str(e), language=None, wrap_lines=True)
        return ()


def folded(label: str, key: str, read: Callable[[str, bool], T]) -> T:
    """read(key, drawn) in an expander whose uploader is drawn only while it is open (each
    uploader costs the browser a redraw on every rerun), named by the file it keeps."""
    name = kept_name(key)
    box = st.expander(f"{label}: {name}" if name else label, key=f"{key}_open", on_change="rerun")
    with box:
        return read(key, bool(box.open))


def folded_results(label: str, key: str) -> tuple[Record, ...]:
    """results_file(key) in an expander drawn only while open (folded)."""
    return folded(label, key, results_file)


PROFILE_KINDS = ["pb", "zip", "json", "csv"]
PROFILE_HELP = (
    "A capture: the .xplane.pb that jax.profiler.trace writes (under plugins/profile/), or the "
    "trace folder zipped; or a results file of `python -m perfcore profile`."
)


@st.cache_data(show_spinner="Reading the capture...", max_entries=8)
def uploaded_profile(data: bytes, label: str):
    """A capture's ops joined with their costs (a Profile); CaptureError if it is not one."""
    from perfcore.measure.profile.judge import join
    from perfcore.measure.profile.read import capture, xspace

    return join.join(capture.parse_capture(data, label, xspace.UPLOAD_LIMIT_BYTES))


def profile_file(label: str, key: str, drawn: bool = True):
    """An uploader for a capture (a Profile) or a results file (records), drawn where `drawn`;
    its file kept (keep) for the runs it is not drawn in; None if none or bad."""
    name, data = kept_uploader(label, PROFILE_KINDS, key, PROFILE_HELP, drawn)
    if name is None:
        return None
    try:
        if name.lower().endswith((".json", ".csv")):
            return uploaded_records(data, name)
        return uploaded_profile(data, name)
    except FileProblems as e:
        if len(e.problems) == 1:
            st.error(f"{e.label}: {e.problems[0]}")
        else:
            st.error(f"{e.label} was not read: it has problems.")
            st.code(str(e), language=None, wrap_lines=True)
    except ImportError:
        st.error(f"{name}: reading a capture needs JAX here (pip install jax)")
    return None


def results_upload(
    label: str, key: str, device: Device, specs: dict[str, Device]
) -> tuple[MeasuredPoint, ...]:
    """An uploaded file's measured points (folded_results), only if measured on `device`;
    () otherwise."""
    records = folded_results(label, key)
    if records and known_spec(records, specs) != device:
        st.caption(not_this_device(records, device))
        return ()
    return measured_points(records)


@st.cache_resource(show_spinner="Starting JAX (once per server)...")
def measurement_module():
    """perfcore.measure.experiments.runner with JAX imported, then frozen out of the collector.

    Imported on first need (a Run), never to draw a page; gc.freeze() afterwards keeps the
    live server's per-run garbage collection from walking JAX's objects (PERFORMANCE.md).
    """
    module = importlib.import_module("perfcore.measure.experiments.runner")
    module.start_jax()
    gc.freeze()
    return module


@functools.cache
def freeze_heap(page: str) -> None:
    """Once per page and process, after that page's first run has imported its modules (pandas,
    plotly, the page's perfcore) and filled its caches: collect what that run left, then move
    the rest out of the collector's sight. The live server collects garbage after every run;
    with the heap frozen that walk is short (PERFORMANCE.md). Frozen once per process instead,
    each page walked the objects of every page opened before it: visited in app.py's order,
    Plan's, Pitfalls' and Profile's collections took 14, 16 and 26 ms a rerun (median), and
    0.4-0.7 ms frozen per page.

    Remembered rather than asked of gc: gc.get_freeze_count() walks every frozen object,
    9 ms a run on this heap.
    """
    gc.collect()
    gc.freeze()
