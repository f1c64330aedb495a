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
    """What a table shows: each cell as the browser prints it (a printf number format, the
    placeholder where missing), each header with its unit."""
    import json

    import pandas as pd

    element = at.dataframe[index]
    config = json.loads(element.proto.columns or "{}")
    shown = element.value.astype(object)
    for column in shown.columns:
        printf = config.get(column, {}).get("type_config", {}).get("format", "")
        python = printf.replace("%", "{:", 1) + "}" if printf else "{}"
        shown[column] = [element.proto.placeholder if pd.isna(v) else python.format(v)
                         for v in shown[column]]  # fmt: skip
    labels = {c: v.get("label", c) for c, v in config.items()}
    return shown.rename(columns=labels)
