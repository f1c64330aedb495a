"""A page's work cached per input: its pricing, tables and figures, shared by every session.

st.cache_resource (a resource, not data: unpickling a go.Figure re-validates it, as slow as
building it), keyed by each perfcore input's repr: a frozen dataclass's repr names every field,
where Streamlit's own hashing walks it field by field (about 1.5 ms for a model, a device and a
setup, on every call of every rerun; their reprs, 0.05 ms). What it returns is read-only.
"""

from __future__ import annotations

import streamlit as st

from perfcore.explain.llm.workloads import Setup
from perfcore.explain.plans.plan import TrainSetup
from perfcore.explain.plans.plan_serve import ServeSetup
from perfcore.figures.chip.style import Theme
from perfcore.model.chip.specs import Device
from perfcore.model.llm.models import Model

BY_REPR = (Device, Model, Theme, TrainSetup, ServeSetup, Setup)  # frozen, every field in repr


def per_input(max_entries: int = 64):
    """st.cache_resource for a page's pure work: no spinner, inputs keyed by their repr."""
    return st.cache_resource(
        show_spinner=False, max_entries=max_entries, hash_funcs=dict.fromkeys(BY_REPR, repr)
    )
