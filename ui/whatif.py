"""The sidebar's what-if: a device changed, held in one URL key as the plan CLI's text.

The link's `what_if=memory_bw_tbs=6.7,scaleup_domain=72` is the whole change, read by the
same parser as `plan --what-if`. The fields in the popover are a way of writing that text:
each change rewrites it, and a new text (a link, an edit) refills them. The fields are not
in the link themselves; the text is. They are run only while the popover is open (opening it
reruns the app): seven number fields cost every rerun of every page 2-4 ms otherwise, and
Streamlit drops a field's state while it is not drawn, so an opened popover fills its fields
from the text again.
"""

from __future__ import annotations

import streamlit as st

from perfcore.explain.chip import what_if as view
from perfcore.model.chip.device import Device
from perfcore.model.chip.whatif import (
    FIGURES,
    WhatIfError,
    apply_what_if,
    parse_what_if,
    what_if_text,
)
from ui.widgets import _notice

KEY = "what_if"
FIELD = "_wi_field_{}"
SYNCED = "_wi_synced"  # the text the fields were last filled from
OPEN = "_wi_open"  # the popover's open state (True: its fields are drawn)
WHOLE = {"scaleup_domain"}


def control(device: Device, precision: str) -> Device:
    """The what-if popover under the device picker; the device as changed (or as published)."""
    modified = device
    label = view.label(_device(device))
    popover = st.popover(label, width="stretch", help=view.HELP, key=OPEN, on_change="rerun")
    with popover:
        text = st.text_input(
            "Changes (the link's what_if)", key=KEY, bind="query-params", placeholder=view.EXAMPLE
        )
        try:
            modified = apply_what_if(device, text)
        except WhatIfError as e:
            _notice(
                KEY,
                text,
                f"FIGURE=VALUE pairs such as {view.EXAMPLE}: {e}",
                f"{device.name} as published",
            )
        if popover.open:
            _fields(device, precision, text)
    return modified


def _fields(device: Device, precision: str, text: str) -> None:
    """The popover's number fields, filled from the text, and its "As published" button."""
    _refill(text)
    rows = view.fields(device, precision)
    for column, label, published in rows:
        _field(column, label, published, [c for c, _, _ in rows])
    st.button("As published", key="_wi_clear", on_click=_clear, disabled=not text.strip())


def _device(device: Device) -> Device:
    """The device as the text changes it, for the button drawn before the text's widget: the
    session's text, or on a session's first run the link's; as published if it fails."""
    text = st.session_state[KEY] if KEY in st.session_state else st.query_params.get(KEY)
    try:
        return apply_what_if(device, str(text or ""))
    except WhatIfError:
        return device


def _field(column: str, label: str, published: str, shown: list[str]) -> None:
    """A number field for one figure: blank keeps the published one (its placeholder)."""
    step = (
        {"step": 1.0, "format": "%.0f", "min_value": 1.0}
        if column in WHOLE
        else {"format": "%g", "min_value": 1e-9}
    )
    st.number_input(
        label,
        value=None,
        key=FIELD.format(column),
        placeholder=published,
        on_change=_from_fields,
        args=(shown,),
        **step,
    )


def _changes(text: str) -> dict[str, float]:
    """The text's changes; none when it does not parse (its notice says why)."""
    try:
        return parse_what_if(text) if text.strip() else {}
    except WhatIfError:
        return {}


def _refill(text: str) -> None:
    """Fill the fields from the text when it is new to them (a link, an edit of the text) or
    they were not drawn last run (Streamlit dropped their state)."""
    drawn = all(FIELD.format(c) in st.session_state for c in FIGURES)
    if drawn and st.session_state.get(SYNCED) == text:
        return
    changes = _changes(text)
    for column in FIGURES:
        st.session_state[FIELD.format(column)] = changes.get(column)
    st.session_state[SYNCED] = text


def _from_fields(shown: list[str]) -> None:
    """A field changed: rewrite the text from the fields shown, keeping the text's others."""
    given = {c: st.session_state.get(FIELD.format(c)) for c in shown}
    changes = {**_changes(str(st.session_state.get(KEY) or "")), **given}
    text = what_if_text({c: float(v) for c, v in changes.items() if v is not None})
    st.session_state[KEY] = st.session_state[SYNCED] = text


def _clear() -> None:
    """Back to the published figures: an empty text, empty fields."""
    st.session_state[KEY] = ""
