"""Shared fixtures: the bundled specs, loaded once."""

import pytest

from perfcore import load_specs

SEED = "NVIDIA H100 SXM (round figures)"


@pytest.fixture(scope="session")
def specs():
    """Every device of data/specs.csv, by name."""
    return load_specs()


@pytest.fixture(scope="session")
def h100(specs):
    """The seed's rounded H100 SXM row (990 TFLOP/s, 3.35 TB/s)."""
    return specs[SEED]


def run_page(page: str, query: dict | None = None, timeout: float = 60):
    """An AppTest of app.py opened on app_pages/<page>.py, optionally from a link's query."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file("../app.py", default_timeout=timeout)
    at.query_params.update(query or {})
    at.run()
    if page != "home":
        at.switch_page(f"app_pages/{page}.py").run()
    return at


def notices(at) -> list[str]:
    """The URL-fallback notices an AppTest run shows."""
    return [w.value for w in at.warning if "was ignored" in w.value]


def table_text(at, index: int = 0):
    """What a table shows: its cells as displayed text, its headers with their units."""
    import json

    import pyarrow as pa

    proto = at.dataframe[index].proto
    shown = pa.ipc.open_stream(proto.arrow_data.styler.display_values).read_pandas()
    labels = {c: v.get("label", c) for c, v in json.loads(proto.columns or "{}").items()}
    return shown.rename(columns=labels)
