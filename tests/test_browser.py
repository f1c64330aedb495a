"""A real browser on the running app: every page renders with no error element, a changed
control lands in the URL and that URL reopens the same view (in a new tab on every page, in
a fresh browser context on the roofline), and a hostile link falls back with a notice.

One `streamlit run app.py` on a free port per module, driven by Debian's Chromium (headless)
through Playwright's sync API. The pages come from app.py's st.Page calls, so a page added
there is visited here. Every wait is bounded. A page counts as ready once a script run has
finished (its script_finished message reached the page), the app says notRunning, no element
is a skeleton or stale, every visible chart is drawn, and the DOM has been still for 150 ms.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support import live
from tests.support.live import (
    app_pages,
    choose,
    new_context,
    open_page,
    runs,
    serve,
    wait_idle,
)

WAIT_MS = 45_000
SERVER_LOGS: list[Path] = []  # the server's output: app.py hides tracebacks from the browser
PAGES = [path for _, path in app_pages()]


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    """A `streamlit run app.py` on a free local port, terminated after this module."""
    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    SERVER_LOGS.append(log)
    with serve("app.py", log=log) as server:
        yield server.url


@pytest.fixture(scope="module")
def context(browser):
    """One context for the page visits, so the front end's assets load once."""
    context = new_context(browser, WAIT_MS)
    yield context
    context.close()


def assert_no_error_element(page, where: str) -> None:
    """live.assert_no_error_element with this module's server log."""
    live.assert_no_error_element(page, where, SERVER_LOGS[-1])


def sidebar_choice(page, label: str):
    """The shared sidebar's selectbox labelled `label` (a page may reuse the label)."""
    return page.locator('[data-testid="stSidebar"]').get_by_role("combobox", name=label)


def pick(page, label: str, option: str) -> None:
    """Choose `option` in the sidebar selectbox labelled `label` and wait for the rerun."""
    before = runs(page)
    choose(page, label, option)
    wait_idle(page, before, f"after choosing {label}={option}", WAIT_MS)


def widget_key(element) -> str:
    """The `key` of the widget `element` belongs to (Streamlit's st-key-<key> class)."""
    classes = element.evaluate("e => e.closest('[class*=\"st-key-\"]').className")
    return re.search(r"st-key-(\S+)", classes).group(1)


def set_number(field) -> tuple[str, float]:
    """Type a quarter of a number input's value (else 4x, +1, -1: what fits); rerun."""
    value, lo, hi = (field.evaluate(f"e => Number(e.{a} || NaN)") for a in ("value", "min", "max"))
    lo, hi = (lo if lo == lo else -math.inf), (hi if hi == hi else math.inf)
    new = next(
        float(v)
        for v in (math.floor(value / 4), value * 4, value + 1, value - 1)
        if v != value and lo <= v <= hi
    )
    key, before, text = widget_key(field), runs(field.page), f"{new:.0f}"
    text = text if new.is_integer() else str(new)
    field.fill(text)
    field.press("Enter")
    wait_idle(field.page, before, f"after setting {key}={text}", WAIT_MS)
    return key, new


def change_a_control(page) -> tuple[str, str | float]:
    """Change the page's first visible number input, else the sidebar Precision: (key, value)."""
    main = page.locator('[data-testid="stMain"]')
    fields = main.locator('[data-testid="stNumberInputField"]:not([disabled])')
    fields = fields.filter(visible=True)
    if fields.count():
        return set_number(fields.first)
    option = "fp8" if sidebar_choice(page, "Precision").input_value() != "fp8" else "fp16"
    pick(page, "Precision", option)
    return "precision", option


def assert_in_link(url: str, key: str, value: str | float) -> None:
    values = parse_qs(urlsplit(url).query).get(key, [])
    if isinstance(value, float):
        values = [float(v) for v in values]
    assert values == [value], f"the link lacks {key}={value}: {url}"


def view(page) -> dict:
    """What the user sees that defines the view: widget values, numbers, chart traces."""
    main = page.locator('[data-testid="stMain"]')
    return {
        "selected": page.get_by_role("combobox").evaluate_all("els => els.map(e => e.value)"),
        "checked": page.locator('input[type="radio"], input[type="checkbox"]').evaluate_all(
            "els => els.map(e => e.checked)"
        ),
        "numbers": main.locator('[data-testid="stNumberInputField"]').evaluate_all(
            "els => els.map(e => e.value)"
        ),
        "metrics": main.locator('[data-testid="stMetricValue"]').all_inner_texts(),
        "notes": main.locator('[data-testid="stAlertContentInfo"]').all_inner_texts(),
        "warnings": main.locator('[data-testid="stAlertContentWarning"]').all_inner_texts(),
        "traces": main.locator(".js-plotly-plot").evaluate_all(
            "els => els.map(e => (e.data || []).map(t => t.name))"
        ),
    }


def test_app_py_pages_are_all_in_the_sidebar(context, app_url):
    page = open_page(context, app_url + "/", WAIT_MS)
    hrefs = page.locator('[data-testid="stSidebarNav"] a').evaluate_all(
        "els => els.map(e => new URL(e.href).pathname)"
    )
    page.close()
    assert hrefs == PAGES, f"sidebar links {hrefs} != st.Page paths in app.py {PAGES}"


@pytest.mark.parametrize("path", PAGES)
def test_every_page_renders_clean_and_its_link_reopens_the_view(context, app_url, path):
    page = open_page(context, app_url + path, WAIT_MS)
    again = None
    try:
        assert urlsplit(page.url).path == path, f"{path} landed on {page.url}"
        page.locator('[data-testid="stMain"] h1').first.wait_for(state="visible")
        assert_no_error_element(page, path)
        key, value = change_a_control(page)
        assert_no_error_element(page, f"{path} after setting {key}={value}")
        assert_in_link(page.url, key, value)
        again = open_page(context, page.url, WAIT_MS)  # a new tab is a new Streamlit session
        assert_no_error_element(again, page.url)
        assert view(again) == view(page), f"{page.url} reopened a different view"
    finally:
        page.close()
        if again is not None:
            again.close()


def test_a_changed_control_lands_in_the_url_and_reopens_the_same_view(browser, app_url):
    first, second = new_context(browser, WAIT_MS), new_context(browser, WAIT_MS)
    try:
        page = open_page(first, app_url + "/roofline", WAIT_MS)
        default = view(page)
        pick(page, "Precision", "fp8")
        field = page.locator('[data-testid="stMain"] [data-testid="stNumberInputField"]').first
        key, value = set_number(field)
        assert_no_error_element(page, "/roofline after the changes")
        assert_in_link(page.url, "precision", "fp8")
        assert_in_link(page.url, key, value)
        changed = view(page)
        assert changed != default, "the changes moved nothing displayed"

        # A fresh context: no cookies, storage or cache.
        again = open_page(second, page.url, WAIT_MS)
        assert_no_error_element(again, page.url)
        assert view(again) == changed, f"{page.url} reopened a different view"
    finally:
        first.close()
        second.close()


def test_a_tab_lands_in_the_url_and_its_part_alone_reopens(browser, app_url):
    """Occupancy's tile section: a click on its tab draws it (and not the batch section), the
    link names it, and the link opens on it in a fresh context with its changed input."""
    first, second = new_context(browser, WAIT_MS), new_context(browser, WAIT_MS)
    try:
        page = open_page(first, app_url + "/occupancy", WAIT_MS)
        before = runs(page)
        page.get_by_role("tab", name="Matmul tile quantisation").click()
        wait_idle(page, before, "after opening the tile tab", WAIT_MS)
        assert_in_link(page.url, "oc_section", "Matmul tile quantisation")
        main = page.locator('[data-testid="stMain"]')
        assert main.get_by_label("M (rows of C)").count() == 1
        assert main.get_by_label("Your batch").count() == 0  # the other tab, not drawn
        key, value = set_number(main.locator('[data-testid="stNumberInputField"]').first)
        assert_in_link(page.url, key, value)
        again = open_page(second, page.url, WAIT_MS)
        assert_no_error_element(again, page.url)
        assert view(again) == view(page), f"{page.url} reopened a different view"
    finally:
        first.close()
        second.close()


def test_a_specs_file_uploaded_in_its_popover_stays_in_use_once_it_closes(
    browser, app_url, tmp_path
):
    """The sidebar's uploaders are drawn only while their popover is open: a file sent there
    is kept, named on the popover, and its rows offered, after the popover closes and the app
    reruns (a rerun drops an undrawn uploader's own state)."""
    from perfcore.model.chip.specs import DEFAULT_PATH

    header, *rows = DEFAULT_PATH.read_text().splitlines()
    h100 = next(r for r in rows if r.startswith("NVIDIA H100 SXM,"))
    mine = tmp_path / "mine.csv"
    mine.write_text(f"{header}\n{h100.replace('NVIDIA H100 SXM,', 'My H100,', 1)}\n")
    context = new_context(browser, WAIT_MS)
    try:
        page = open_page(context, app_url + "/", WAIT_MS)
        sidebar = page.locator('[data-testid="stSidebar"]')
        sidebar.get_by_role("button", name="Your own specs or models").click()
        before = runs(page)
        page.locator('input[type="file"]').first.set_input_files(str(mine))
        wait_idle(page, before, "after the upload", WAIT_MS)
        pick(page, "Precision", "fp8")  # a rerun with the popover closed (the upload closed it)
        sidebar.get_by_role("combobox", name="Device").click()
        page.keyboard.type("My H100")  # the list draws the options in view alone
        before = runs(page)
        page.get_by_role("option", name="My H100", exact=True).click()  # the kept file's row
        wait_idle(page, before, "after choosing the kept file's row", WAIT_MS)
        assert_no_error_element(page, "/ after the upload")
        assert sidebar.get_by_role("button", name="Your own specs or models: mine.csv").count()
    finally:
        context.close()


def test_a_hostile_link_falls_back_with_a_notice(browser, app_url):
    context = new_context(browser, WAIT_MS)
    dialogs = []
    context.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        page = open_page(context, app_url + "/roofline", WAIT_MS)
        number = widget_key(page.locator('[data-testid="stNumberInputField"]').first)
        url = (
            f"{app_url}/roofline?device=%3Cscript%3Ealert(1)%3C%2Fscript%3E"
            f"&precision=fp999&{number}=1e999"
        )
        page.goto(url, wait_until="domcontentloaded")
        wait_idle(page, 0, url, WAIT_MS)
        assert_no_error_element(page, url)
        notices = page.locator('[data-testid="stAlertContentWarning"]').all_inner_texts()
        device = next((n for n in notices if "device=<script>alert(1)</script>" in n), None)
        assert device, f"no notice for the hostile device; warnings shown: {notices}"
        assert any("precision=fp999" in n for n in notices), f"no precision notice: {notices}"
        assert any(f"{number}=1e999" in n for n in notices), f"no {number} notice: {notices}"
        shown = re.search(r"showing (.+)\.$", device.strip()).group(1)
        assert sidebar_choice(page, "Device").input_value() == shown
        assert not dialogs, f"the link's script ran: {dialogs}"
    finally:
        context.close()
