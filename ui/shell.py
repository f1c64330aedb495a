"""The app's shell: the shared sidebar, what it chose for this run, and the navigation.

app.py builds the sidebar before the page; a page reads its choices with context() and
models(), and a fragment rerun (the page's part alone) reads the last full run's.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from perfcore.model.chip.sanity import sanity_problems
from perfcore.model.chip.specs import PRECISIONS, Device
from perfcore.model.llm.models import Model
from ui import whatif
from ui.charts import THEME_KEY, active_theme
from ui.loaders import (
    bundled_models,
    bundled_specs,
    forget,
    kept_name,
    kept_uploader,
    uploaded_models,
    uploaded_specs,
    with_upload,
)
from ui.widgets import choice

DEFAULT_DEVICE = "NVIDIA H100 SXM"
DEFAULT_PRECISION = "bf16"
NO_COMPARE = "(none)"
UPLOAD_HELP = "Same columns as data/specs.csv; adds or overrides rows. Not part of the link."
MODELS_HELP = "Same columns as data/models.csv; adds or overrides rows. Not part of the link."
_CONTEXT = "_perfcore_context"
_MODELS = "_perfcore_models"
_PAGES = "_perfcore_pages"


@dataclass(frozen=True)
class Context:
    """What the sidebar chose for this run: the devices, the precision, the spec set.

    device is the sidebar's what-if of base (base itself when nothing is changed); specs
    holds the published rows only, so a measurement meets the spec of the device it ran on.
    """

    specs: dict[str, Device]
    device: Device
    precision: str
    compare: Device | None
    specs_label: str
    base: Device

    @property
    def what_if(self) -> bool:
        """True when the sidebar changed the device's figures."""
        return self.device != self.base

    @property
    def devices(self) -> dict[str, Device]:
        """The published rows, and the what-if device beside them when there is one."""
        return {**self.specs, self.device.name: self.device} if self.what_if else self.specs


# Your own CSVs: uploader key -> (label, help). Drawn only while their popover is open.
OWN = {
    "specs_upload": ("Your own specs CSV", UPLOAD_HELP),
    "models_upload": ("Your own models CSV", MODELS_HELP),
}
OWN_OPEN = "_own_open"  # the popover's open state (True: its uploaders are drawn)


def _specs_from_upload() -> tuple[dict[str, Device], str]:
    """The bundled specs, plus the user's uploaded CSV when it validates."""
    return with_upload(
        bundled_specs(), "data/specs.csv", "specs_upload", uploaded_specs, _warn_implausible
    )


def _models_from_upload() -> dict[str, Model]:
    """The bundled models, plus the user's uploaded models CSV when it validates."""
    return with_upload(bundled_models(), "data/models.csv", "models_upload", uploaded_models)[0]


def own_files() -> None:
    """The popover holding the two uploaders, named by the files it holds. Its uploaders are
    drawn only while it is open (each costs the browser a redraw on every rerun); a file
    uploaded in it is kept (ui.loaders.keep) until the user removes it."""
    names = [n for key in OWN if (n := kept_name(key))]
    label = "Your own specs or models" + (f": {', '.join(names)}" if names else "")
    popover = st.popover(label, width="stretch", key=OWN_OPEN, on_change="rerun")
    with popover:
        if popover.open:
            for key, (text, help_) in OWN.items():
                if name := kept_uploader(text, ["csv"], key, help_)[0]:
                    st.button(f"Remove {name}", key=f"{key}_forget", on_click=forget, args=(key,))


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
        device = choice(
            "Device", names, "device", DEFAULT_DEVICE if DEFAULT_DEVICE in specs else names[0]
        )
        changes = st.container()  # under the device, filled once the precision is known
        precision = choice("Precision", PRECISIONS, "precision", DEFAULT_PRECISION)
        compare = choice("Compare with", [NO_COMPARE, *names], "compare", NO_COMPARE)
        own_files()
    with changes:
        modified = whatif.control(specs[device], precision)
    # The published row beside its own what-if is a comparison; beside itself it is not.
    other = None if compare == NO_COMPARE or specs[compare] == modified else specs[compare]
    ctx = Context(specs, modified, precision, other, label, specs[device])
    st.session_state[_CONTEXT] = ctx
    st.session_state[THEME_KEY] = active_theme()
    return ctx


def models() -> dict[str, Model]:
    """The models this run offers: data/models.csv plus the sidebar's upload, by name."""
    return st.session_state.get(_MODELS) or bundled_models()


def context() -> Context:
    """The sidebar's choices for this run (app.py builds the sidebar before the page)."""
    return st.session_state[_CONTEXT]


def remember_pages(pages: list) -> None:
    """Keep the navigation's pages for this run, so a page can link to the others."""
    st.session_state[_PAGES] = pages


def pages() -> list:
    """The navigation's pages (st.Page; each one's help says what it answers)."""
    return st.session_state.get(_PAGES, [])
