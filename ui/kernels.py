"""This session's kernel curves for the expected figures: the Measure page's run or an upload.

The curves come from the last live run's `kernels` records (the Measure page), else a results
file uploaded here; they apply to the device only as published (explain.llm.kernel_expected).
"""

from __future__ import annotations

import streamlit as st

from perfcore.explain.llm import kernel_expected
from perfcore.explain.measure.measure import STATE
from perfcore.measure.results import curves
from perfcore.model.chip.kernels import Curves
from perfcore.model.chip.specs import Device
from ui.loaders import folded_results


def kernel_curves(key: str, device: Device, specs: dict[str, Device]) -> Curves | None:
    """The curves of this session's measured kernels that apply to device; None if none."""
    records = tuple(st.session_state.get(STATE, ()))
    if not curves.curves(records):
        label = "Expected from your own kernels: a results file of the kernels suite"
        records = folded_results(label, key)
    return kernel_expected.curves_for(curves.curves(records), device, specs)
