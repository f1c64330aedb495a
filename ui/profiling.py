"""The Profile page's sources besides an upload: the bundled example, and this machine's quick
roofline, measured once per server when a profile taken here has no other roof.

The bundled example (explain.profile_example) is read once per process. The quick roofline is
the `roofline` experiment on the quick suite (about 20 s on a laptop CPU), run through JAX's
module the first time a profile taken here needs it and kept for the process: every later
profile on this server is judged against the same measurement. The roofs picked are remembered
for the device they were picked for: a profile of another device (an upload after the bundled
example) opens on that device's own default.
"""

from __future__ import annotations

import streamlit as st

from perfcore.explain import profile as view
from perfcore.explain import profile_example
from perfcore.measure.profile.assess import Roofs
from perfcore.measure.results import Record
from perfcore.model.chip.specs import Device
from ui.loaders import measurement_module
from ui.widgets import choice

SEEN = "_pr_roofs_device"  # the device the roofs were last picked for


@st.cache_resource(show_spinner=False)
def bundled_example() -> tuple[Record, ...]:
    """The bundled example's records (data/profile/transformer_cpu.json), read once."""
    return profile_example.bundled()


@st.cache_resource(show_spinner="Measuring this machine's roofline (quick suite, once)...")
def quick_roofline() -> tuple[Record, ...]:
    """This machine's `roofline` records on the quick suite, measured once per process."""
    return measurement_module().run_suite("quick", experiments=(profile_example.ROOFLINE,))


def quick_roofs(device: str) -> Roofs | None:
    """The roofs of this machine's quick roofline (measured on first need), said as such."""
    return profile_example.roofline_roofs(quick_roofline(), device, "this machine", quick=True)


def roofs_choice(key: str, specs: dict[str, Device], device: str) -> str:
    """The roofs to judge by (URL-bound): a specs row or the measured roofline; a profile of
    another device than the last one opens on its own default."""
    if st.session_state.get(SEEN, device) != device:
        st.session_state.pop(key, None)
    st.session_state[SEEN] = device
    return choice("Judge against", view.roof_options(specs), key, view.default_roofs(device, specs))
