"""The dashboard's UI layer: cached specs, the shared sidebar, URL-bound widgets.

Every widget that defines a view goes through a wrapper here, which binds it to the
URL (bind="query-params") and checks the link's raw value first: Streamlit drops an
invalid value silently, so we say so with a visible notice. Pages call these, then
perfcore, then one figure builder; they hold no arithmetic.
"""

from __future__ import annotations

import functools
import gc
import importlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from perfcore import format as fmt
from perfcore.errors import FileProblems
from perfcore.explain.measure import known_spec, not_this_device
from perfcore.figures.style import LIGHT, THEMES, Theme
from perfcore.format import NOT_PUBLISHED, safe_cell
from perfcore.measure.points import MeasuredPoint, measured_points
from perfcore.measure.results import Record, ResultsError, load_results_bytes, to_json
from perfcore.model import validate
from perfcore.model.models import Model, load_models, load_models_bytes
from perfcore.model.ops import PARAMS_RANGE, Param
from perfcore.model.sanity import sanity_problems
from perfcore.model.specs import PRECISIONS, Device, load_specs, load_specs_bytes

HOSTED_ENV = "PERFCORE_HOSTED"
DEFAULT_DEVICE = "NVIDIA H100 SXM"
DEFAULT_PRECISION = "bf16"
NO_COMPARE = "(none)"
UPLOAD_HELP = "Same columns as data/specs.csv; adds or overrides rows. Not part of the link."
MODELS_HELP = "Same columns as data/models.csv; adds or overrides rows. Not part of the link."
RESULTS_HELP = "From `python -m perfcore measure` or the Measure page. Not part of the link."
_NOTICES = "_url_notices"
_CONTEXT = "_perfcore_context"
_MODELS = "_perfcore_models"
_THEME = "_perfcore_theme"
_PAGES = "_perfcore_pages"
# No Plotly logo; a phone gets the same tools as a laptop.
CHART_CONFIG = {"displaylogo": False}


def hosted_mode() -> bool:
    """True when PERFCORE_HOSTED is set (not '', '0' or 'false'): live measurement is off."""
    return os.environ.get(HOSTED_ENV, "").strip().lower() not in ("", "0", "false")


def _active_theme() -> Theme:
    """The page's theme now: the configured one (theme.base) on a session's first run, whose
    request the browser sends before the server has told it that theme, then the browser's."""
    first = _THEME not in st.session_state
    kind = (first and st.get_option("theme.base")) or st.context.theme.type
    return THEMES.get(kind, LIGHT)


def theme() -> Theme:
    """The chart theme matching the page, as the sidebar found it for this run."""
    return st.session_state.get(_THEME) or _active_theme()


def chart(key: str, builder: Callable[..., go.Figure], *args, **kw) -> None:
    """builder(*args, **kw) in the page's theme, at the container's width, built once per input.

    theme=None: Streamlit's own chart theme would repaint the builder's colours.
    """
    args = tuple(tuple(a) if isinstance(a, list) else a for a in args)
    named = tuple(sorted({**kw, "theme": theme()}.items()))
    try:
        fig = _figure(builder, args, named)
    except TypeError:  # an unhashable input (a dict): build it every time
        fig = builder(*args, **dict(named))
    plot(key, fig)


def plot(key: str, fig: go.Figure) -> None:
    """A figure already built in the page's theme, at the container's width."""
    st.plotly_chart(fig, key=key, theme=None, width="stretch", config=CHART_CONFIG)


# Figures by input, shared by every session: building one costs more than the rest of most
# reruns (plotly validates every property), and a user goes back and forth between views.
# Not st.cache_data: it pickles the figure, and unpickling rebuilds and revalidates it. The
# cached figure is never changed: st.plotly_chart serialises a copy.
@functools.lru_cache(maxsize=256)
def _figure(builder: Callable[..., go.Figure], args: tuple, named: tuple) -> go.Figure:
    """builder(*args, **dict(named)), remembered."""
    return builder(*args, **dict(named))


@dataclass(frozen=True)
class Context:
    """What the sidebar chose for this run: the devices, the precision, the spec set."""

    specs: dict[str, Device]
    device: Device
    precision: str
    compare: Device | None
    specs_label: str


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


def results_file(key: str) -> tuple[Record, ...]:
    """An uploader for a results file (python -m perfcore measure); () when none or invalid."""
    kinds = ["json", "csv"]
    upload = st.file_uploader(
        "Measured results (JSON or CSV)", type=kinds, key=key, help=RESULTS_HELP
    )
    if upload is None:
        return ()
    try:
        return uploaded_records(upload.getvalue(), upload.name)
    except ResultsError as e:
        st.error(f"{upload.name} was not overlaid: it has problems.")
        st.code(str(e), language=None, wrap_lines=True)
        return ()


def results_upload(key: str, device: Device, specs: dict[str, Device]) -> tuple[MeasuredPoint, ...]:
    """An uploaded file's measured points, only if measured on `device`; () otherwise."""
    records = results_file(key)
    if records and known_spec(records, specs) != device:
        st.caption(not_this_device(records, device))
        return ()
    return measured_points(records)


def results_download(records: tuple[Record, ...], key: str) -> None:
    """A button downloading records as a results JSON file (docs/results-format.md).

    The JSON is written only when the button is clicked, not on every rerun.
    """
    st.download_button("Download results (JSON)", functools.partial(to_json, records),
                       file_name="results.json", mime="application/json", key=key,
                       on_click="ignore")  # fmt: skip


@st.cache_resource(show_spinner="Starting JAX (once per server)...")
def measurement_module():
    """perfcore.measure.jax_bench with JAX imported, then frozen out of the collector.

    Imported on first need (a Run), never to draw a page; gc.freeze() afterwards keeps the
    live server's per-run garbage collection from walking JAX's objects (PERFORMANCE.md).
    """
    module = importlib.import_module("perfcore.measure.jax_bench")
    module.start_jax()
    gc.freeze()
    return module


def reset_notices() -> None:
    """Start this run with no URL notices."""
    st.session_state[_NOTICES] = []


def show_notices() -> None:
    """Render this run's notices about link values that fell back to defaults."""
    for text in st.session_state.get(_NOTICES, []):
        st.warning(text, icon=":material/link_off:")


def _notice(key: str, raw: object, expected: str, shown: object) -> None:
    """Record that the link's value for `key` was not usable, and what is shown instead."""
    given = str(raw).replace("`", "")[:60]
    now = f"{shown:g}" if isinstance(shown, float) else shown
    text = f"The link's `{key}={given}` was ignored (expected {expected}); showing {now}."
    st.session_state.setdefault(_NOTICES, []).append(text)


def _raw(key: str) -> str | list[str] | None:
    """The link's raw value for `key` (a list when repeated), or None."""
    if key not in st.query_params:
        return None
    values = st.query_params.get_all(key)
    return values[0] if len(values) == 1 else values


def choice(label: str, options: Sequence, key: str, default=None, widget=None, **kw):
    """A URL-bound single choice (selectbox by default; st.radio or st.select_slider too)."""
    options, raw = list(options), _raw(key)
    default = options[0] if default is None else default
    widget = widget or st.selectbox
    if widget is st.select_slider:
        kw["value"] = default
    else:
        kw["index"] = options.index(default)
    value = widget(label, options, key=key, bind="query-params", **kw)
    if raw is not None and raw not in [str(o) for o in options]:
        _notice(key, raw, "one of the listed options", value)
    return value


def multi(label: str, options: Sequence, key: str, default: Sequence, **kw) -> list:
    """A URL-bound multiselect (repeated ?key=a&key=b in the link)."""
    raw = _raw(key)
    given = [raw] if isinstance(raw, str) else raw or []
    value = st.multiselect(
        label, options, default=list(default), key=key, bind="query-params", **kw
    )
    if any(v not in [str(o) for o in options] for v in given):
        _notice(key, ", ".join(given), "values from the listed options", ", ".join(value))
    return value


def number(label: str, key: str, default: float, lo: float, hi: float, integer: bool = True, **kw):
    """A URL-bound number input in [lo, hi]; an integer unless `integer` is False.

    Integers use a float widget shown without decimals: Streamlit's integer widget
    crashes on a link value of inf or 1e999 before any check of ours can run.
    """
    raw = _raw(key)
    if integer:
        kw = {"step": 1.0, "format": "%.0f", **kw}
    value = st.number_input(label, min_value=float(lo), max_value=float(hi),
                            value=float(default), key=key, bind="query-params", **kw)  # fmt: skip
    value = round(value) if integer else value
    if raw is not None:
        try:
            validate.number(raw, key, lo, hi, integer)
        except validate.InputError:
            _notice(key, raw, validate.expected(lo, hi, integer), value)
    return value


def param_count(label: str, key: str, default: float = 7e9) -> float:
    """A URL-bound model size in parameters, 1M to 10T."""
    return number(label, key, default, *PARAMS_RANGE, integer=False, format="%.4g")


def size(param: Param, key: str):
    """A URL-bound number input for one catalog op size."""
    style = {} if param.integer else {"format": "%.4g"}
    return number(
        param.name, key, param.default, param.lo, param.hi, param.integer, help=param.help, **style
    )


def toggle(label: str, key: str, default: bool = False, **kw) -> bool:
    """A URL-bound toggle (?key=true / ?key=false)."""
    raw = _raw(key)
    value = st.toggle(label, value=default, key=key, bind="query-params", **kw)
    if raw is not None and raw not in ("true", "false"):
        _notice(key, raw, "true or false", value)
    return value


def table(df: pd.DataFrame, name: str, empty: str = NOT_PUBLISHED) -> None:
    """The numbers behind a chart, in engineering units with the unit in each header, kept
    numeric (sortable); empty cells say `empty`. A CSV download keeps the SI numbers.

    df.attrs["units"] maps a column to its kind (a perfcore.format function name): one scale
    for the whole column. df.attrs["row_units"] maps a column to the column naming each
    row's kind (a table of mixed quantities): each cell shown as text in its own unit.
    (No pandas Styler: building one costs about 100 ms a table, on every rerun.)
    """
    units, row_units = df.attrs.get("units", {}), df.attrs.get("row_units", {})
    scales = {c: fmt.column_scale(k, df[c]) for c, k in units.items()}
    shown = df.assign(**{c: df[c].astype(float) / s.factor for c, s in scales.items()})
    shown = shown.assign(**{c: _texts(df[c], df[k]) for c, k in row_units.items()})
    config = {c: st.column_config.NumberColumn(fmt.header(c, s.unit), format=s.printf)
              for c, s in scales.items()}  # fmt: skip
    config |= dict.fromkeys(row_units.values())  # each row's kind is in its cell's text
    st.dataframe(shown, hide_index=True, width="stretch", column_config=config, placeholder=empty)
    csv = functools.partial(table_csv, df)  # written on click only
    st.download_button("Download CSV", csv, file_name=f"{name}.csv", mime="text/csv",
                       key=f"download_{name}", on_click="ignore")  # fmt: skip


def table_csv(df: pd.DataFrame) -> str:
    """df as CSV text: SI numbers at full precision, text a spreadsheet would run escaped."""
    return si_table(df).map(safe_cell).to_csv(index=False)


def _texts(values: pd.Series, kinds: pd.Series) -> list[str | None]:
    """Each SI value as text in its own kind's unit (format.py); None where missing."""
    return [None if pd.isna(v) else getattr(fmt, k)(v) if k else fmt.figures(v)
            for v, k in zip(values, kinds, strict=True)]  # fmt: skip


def si_table(df: pd.DataFrame) -> pd.DataFrame:
    """df for download: SI numbers at full precision, each header or row naming its SI unit."""
    units, row_units = df.attrs.get("units", {}), df.attrs.get("row_units", {})
    si = df.assign(
        **{k: df[k].map(lambda kind: fmt.SI_UNITS.get(kind, "")) for k in row_units.values()}
    )
    names = {c: fmt.header(c, fmt.SI_UNITS[k]) for c, k in units.items()}
    return si.rename(columns=names | {k: "unit (SI)" for k in row_units.values()})


def takeaway(text: str) -> None:
    """The page's 'read this', computed from the current numbers."""
    st.info(f"**Read this.** {text}", icon=":material/lightbulb:")


def spec_caption(*devices: Device | None) -> None:
    """Say where each device's figures come from."""
    for d in devices:
        if d is not None:
            st.caption(f"Published spec — {d.name}: {d.source}")


def _with_upload(
    bundled: dict, path: str, label: str, key: str, help_: str, load, check=None
) -> tuple:
    """The bundled rows plus the user's uploaded CSV when it validates, and what they are;
    check(rows, name), when given, looks over the uploaded rows."""
    upload = st.sidebar.file_uploader(label, type=["csv"], key=key, help=help_)
    if upload is None:
        return bundled, path
    try:
        mine = load(upload.getvalue(), upload.name)
    except FileProblems as e:
        st.sidebar.error(f"Kept the bundled {path}: {upload.name} has problems.")
        st.sidebar.code(str(e), language=None, wrap_lines=True)
        return bundled, path
    if check is not None:
        check(mine, upload.name)
    return {**bundled, **mine}, f"{path} + {upload.name}"


def _specs_from_upload() -> tuple[dict[str, Device], str]:
    """The bundled specs, plus the user's uploaded CSV when it validates."""
    return _with_upload(bundled_specs(), "data/specs.csv", "Your own specs CSV",
                        "specs_upload", UPLOAD_HELP, uploaded_specs, _warn_implausible)  # fmt: skip


def _models_from_upload() -> dict[str, Model]:
    """The bundled models, plus the user's uploaded models CSV when it validates."""
    found, _ = _with_upload(bundled_models(), "data/models.csv", "Your own models CSV",
                            "models_upload", MODELS_HELP, uploaded_models)  # fmt: skip
    return found


def models() -> dict[str, Model]:
    """The models this run offers: data/models.csv plus the sidebar's upload, by name."""
    return st.session_state.get(_MODELS) or bundled_models()


def _warn_implausible(mine: dict[str, Device], label: str) -> None:
    """Beside the device picker: each uploaded figure that looks typed in the wrong unit."""
    problems = [f"- {p}" for d in mine.values() for p in sanity_problems(d)]
    if problems:
        head = f"{label} loaded, but these figures look implausible (device: column, why):"
        st.sidebar.warning("\n".join([head, *problems]), icon=":material/rule:")


def sidebar() -> Context:
    """The shared sidebar: device (grouped by vendor), precision, compare-with, own specs."""
    specs, label = _specs_from_upload()
    st.session_state[_MODELS] = _models_from_upload()
    names = sorted(specs, key=lambda n: (specs[n].vendor, specs[n].year, n))
    with st.sidebar:
        device = choice("Device", names, "device", DEFAULT_DEVICE if DEFAULT_DEVICE in specs
                        else names[0])  # fmt: skip
        precision = choice("Precision", PRECISIONS, "precision", DEFAULT_PRECISION)
        compare = choice("Compare with", [NO_COMPARE, *names], "compare", NO_COMPARE)
    other = None if compare in (NO_COMPARE, device) else specs[compare]
    ctx = Context(specs, specs[device], precision, other, label)
    st.session_state[_CONTEXT] = ctx
    st.session_state[_THEME] = _active_theme()
    return ctx


def remember_pages(pages: list) -> None:
    """Keep the navigation's pages for this run, so a page can link to the others."""
    st.session_state[_PAGES] = pages


def pages() -> list:
    """The navigation's pages (st.Page; each one's help says what it answers)."""
    return st.session_state.get(_PAGES, [])


def context() -> Context:
    """The sidebar's choices for this run (app.py builds the sidebar before the page)."""
    return st.session_state[_CONTEXT]
