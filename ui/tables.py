"""Tables, downloads and the page's words around them: the numbers behind each chart in
engineering units (kept numeric, so sortable), downloads in SI at full precision with text a
spreadsheet would run escaped, the takeaway, and where each spec comes from.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Iterable

import pandas as pd
import pyarrow as pa
import streamlit as st
from streamlit import dataframe_util

from perfcore import format as fmt
from perfcore.explain.chip import what_if
from perfcore.format import NOT_PUBLISHED, safe_cell
from perfcore.measure.results import Record, to_json
from perfcore.model.chip.device import Device
from perfcore.model.chip.whatif import changes_of

PREPARED_MAX = 128  # tables kept prepared, by DataFrame object (a weak reference to each)
_PREPARED: dict[int, tuple] = {}  # id(df) -> (weakref(df), shown as Arrow, column config)


def table(df: pd.DataFrame, name: str, empty: str = NOT_PUBLISHED) -> None:
    """The numbers behind a chart, in engineering units with the unit in each header, kept
    numeric (sortable); empty cells say `empty`. A CSV download keeps the SI numbers.

    df.attrs["units"] maps a column to its kind (a perfcore.format function name): one scale
    for the whole column. df.attrs["row_units"] maps a column to the column naming each
    row's kind (a table of mixed quantities): each cell shown as text in its own unit.
    (No pandas Styler: building one costs about 100 ms a table, on every rerun.)
    """
    shown, config = _prepared(df)
    st.dataframe(shown, hide_index=True, width="stretch", column_config=config, placeholder=empty)
    csv = functools.partial(table_csv, df)  # written on click only
    st.download_button(
        "Download CSV",
        csv,
        file_name=f"{name}.csv",
        mime="text/csv",
        key=f"download_{name}",
        on_click="ignore",
    )


def _prepared(df: pd.DataFrame) -> tuple[pa.Table, dict]:
    """df in each column's display unit, as the Arrow table st.dataframe sends, and its column
    configs; once per DataFrame object, so a page showing a cached table again pays only for
    sending it (reading a column of df deep-copies df.attrs, and converting a 100-row table to
    Arrow takes about 1 ms: each as much as sending it)."""
    hit = _PREPARED.get(id(df))
    if hit is not None and hit[0]() is df:
        return hit[1], hit[2]
    units, row_units = df.attrs.get("units", {}), df.attrs.get("row_units", {})
    scales = {c: fmt.column_scale(k, df[c]) for c, k in units.items()}
    shown = df.assign(**{c: df[c].astype(float) / s.factor for c, s in scales.items()})
    shown = shown.assign(**{c: _texts(df[c], df[k]) for c, k in row_units.items()})
    config = {
        c: st.column_config.NumberColumn(fmt.header(c, s.unit), format=s.printf)
        for c, s in scales.items()
    }
    config |= dict.fromkeys(row_units.values())  # each row's kind is in its cell's text
    if len(_PREPARED) >= PREPARED_MAX:
        _PREPARED.pop(next(iter(_PREPARED)))  # the oldest
    arrow = dataframe_util.convert_pandas_df_to_arrow_table(shown)
    _PREPARED[id(df)] = (weakref.ref(df), arrow, config)
    return arrow, config


def table_csv(df: pd.DataFrame) -> str:
    """df as CSV text: SI numbers at full precision, text a spreadsheet would run escaped."""
    return si_table(df).map(safe_cell).to_csv(index=False)


def _texts(values: pd.Series, kinds: pd.Series) -> list[str | None]:
    """Each SI value as text in its own kind's unit (format.py); None where missing."""
    return [
        None if pd.isna(v) else getattr(fmt, k)(v) if k else fmt.figures(v)
        for v, k in zip(values, kinds, strict=True)
    ]


def si_table(df: pd.DataFrame) -> pd.DataFrame:
    """df for download: SI numbers at full precision, each header or row naming its SI unit."""
    units, row_units = df.attrs.get("units", {}), df.attrs.get("row_units", {})
    si = df.assign(
        **{k: df[k].map(lambda kind: fmt.SI_UNITS.get(kind, "")) for k in row_units.values()}
    )
    names = {c: fmt.header(c, fmt.SI_UNITS[k]) for c, k in units.items()}
    return si.rename(columns=names | {k: "unit (SI)" for k in row_units.values()})


def results_download(records: tuple[Record, ...], key: str) -> None:
    """A button downloading records as a results JSON file (docs/results-format.md).

    The JSON is written only when the button is clicked, not on every rerun.
    """
    st.download_button(
        "Download results (JSON)",
        functools.partial(to_json, records),
        file_name="results.json",
        mime="application/json",
        key=key,
        on_click="ignore",
    )


def metrics(items: Iterable[tuple]) -> None:
    """A row of metrics, each (label, value), (label, value, help) or (label, value, help,
    band): a band (an expected figure's range, or None) is shown in grey under the value, with
    no arrow: it is not a change.

    One flex row, not a column per metric: each metric is as wide as its text, so no value is
    cut, the row wraps on a narrow screen, and the browser lays out one element, not two per
    metric, on every rerun."""
    with st.container(horizontal=True, horizontal_alignment="distribute", gap="medium"):
        for label, value, *rest in items:
            help_, band = (*rest, None, None)[:2]
            grey = {"delta_color": "off", "delta_arrow": "off"}
            st.metric(label, value, band, help=help_, width="content", **grey)


def takeaway(text: str) -> None:
    """The page's 'read this', computed from the current numbers."""
    st.info(f"**Read this.** {text}", icon=":material/lightbulb:")


def spec_caption(*devices: Device | None) -> None:
    """Say where each device's figures come from (a what-if's: the sidebar and the row's)."""
    for d in devices:
        if d is not None:
            published = f"Published spec — {d.name}: {d.source}"
            st.caption(what_if.caption(d) if changes_of(d) else published)
