"""A live measurement from a page: a progress bar while it runs, its fault said, records kept.

measure(...) runs the suite through JAX's module (ui.loaders), one run at a time per process
(the lock inside the runner). A fault the device or its size causes is said as such; anything
else is a bug, logged with its traceback. The session's flag is cleared however it ends.
"""

from __future__ import annotations

import streamlit as st

from perfcore.errors import report_bug
from perfcore.explain.measure import measure as view
from perfcore.measure.experiments.suites import BackendFailed, DeviceMemoryError
from perfcore.model.chip.specs import Device
from ui.loaders import measurement_module


def measure(suite: str, names: list[str], specs: dict[str, Device]) -> None:
    """Run the experiments with a progress bar; keep the records and rerun, or say the fault."""
    bar, waiting = st.progress(0.0, text="starting"), st.empty()
    st.session_state[view.RUNNING] = True
    try:
        records = measurement_module().run_suite(
            suite,
            experiments=tuple(names),
            specs=specs,
            progress=lambda fraction, message: bar.progress(fraction, text=message),
            wait_callback=lambda message: waiting.info(message, icon=":material/hourglass:"),
        )
    except (DeviceMemoryError, BackendFailed) as error:  # too big, or the device failed
        st.error(view.fault(error), icon=":material/error:")
        return
    except Exception:  # noqa: BLE001 - a bug: logged with its traceback, said as one
        where = f"the Measure page's run of {', '.join(names)}"
        st.error(f"{report_bug(where)} {view.KEPT}", icon=":material/error:")
        return
    finally:
        st.session_state[view.RUNNING] = False
        bar.empty()
        waiting.empty()
    st.session_state[view.STATE] = records
    st.rerun()
