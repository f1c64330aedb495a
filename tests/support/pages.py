"""AppTest helpers for the page tests: a page opened from app.py (as a link would), the
URL-fallback notices it shows, a table as the browser prints it, and the pages in order."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROUND_H100 = "NVIDIA H100 SXM (round figures)"  # the hand calculation's device
PAGES = [
    "home",
    "roofline",
    "hierarchy",
    "generations",
    "precision",
    "occupancy",
    "scale_out",
    "workloads",
    "plan",
    "pitfalls",
    "measure",
]


def run_page(page: str, query: dict | None = None, timeout: float = 60):
    """An AppTest of app.py opened on app_pages/<page>.py, optionally from a link's query."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.query_params.update(query or {})
    at.run()
    if page != "home":
        at.switch_page(f"app_pages/{page}.py").run()
    return at


def upload_own(at, key: str, name: str, data: bytes):
    """`at` after `data` is uploaded as `name` to the sidebar's uploader `key` (specs_upload,
    models_upload): its popover opened first, as a user opens it, then the file sent."""
    from ui.shell import OWN_OPEN

    at.session_state[OWN_OPEN] = True
    at.run()
    return at.file_uploader(key=key).set_value((name, data, "text/csv")).run()


def upload_folded(at, key: str, name: str, data: bytes):
    """`at` after a results file `data` is uploaded as `name` to the uploader `key` that an
    expander draws only while open (ui.loaders.folded_results): opened first, as by a user."""
    at.session_state[f"{key}_open"] = True
    at.run()
    return at.file_uploader(key=key).set_value((name, data, "application/json")).run()


def tab_links(at) -> list[dict[str, str]]:
    """A link's query for each tab of the page's tab groups (ui.tabs draws the open one)."""
    found = []

    def walk(node) -> None:
        for child in getattr(node, "children", {}).values():
            if getattr(child, "type", "") == "tab_container":
                key = child.proto.tab_container.query_param_key
                found.extend({key: tab.label} for tab in child.children.values())
            walk(child)

    walk(at.main)
    return found


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
        shown[column] = [
            element.proto.placeholder if pd.isna(v) else python.format(v) for v in shown[column]
        ]
    labels = {c: v.get("label", c) for c, v in config.items()}
    return shown.rename(columns=labels)
