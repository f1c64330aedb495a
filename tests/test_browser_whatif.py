"""The sidebar's what-if in a real browser: a link opens the changed device, the popover's
fields are not drawn until it is opened (so they cost a closed sidebar nothing), and a field
typed in writes the link's one `what_if` key.

One `streamlit run app.py` on a free port, headless Chromium (tests/live.py)."""

from __future__ import annotations

import shutil
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support.live import chromium, new_context, open_page, runs, serve, wait_idle

WAIT_MS = 45_000
LINK = "/?device=NVIDIA+H100+SXM&what_if=memory_bw_tbs%3D6.7%2Cscaleup_domain%3D72"
NAMED = "NVIDIA H100 SXM, memory 2× → 6.7 TB/s; scale-up domain 8 → 72 GPUs"


@pytest.fixture(scope="module")
def page():
    """The home page opened from LINK."""
    if shutil.which("chromium") is None:
        pytest.skip("needs `chromium` on PATH (python3 dev.py test installs it)")
    pytest.importorskip("playwright.sync_api")
    with serve("app.py") as server, chromium() as browser:
        context = new_context(browser, WAIT_MS)
        yield open_page(context, server.url + LINK, WAIT_MS)
        context.close()


def inputs(page) -> int:
    return page.evaluate("document.querySelectorAll('input').length")


def test_a_link_opens_the_changed_device_and_its_fields_wait_for_the_popover(page):
    assert page.locator("h3").first.inner_text() == f"Quick calculator: {NAMED} at bf16"
    button = page.locator('[data-testid="stSidebar"]').get_by_text("What-if: 2 figures changed")
    closed = inputs(page)
    field = page.get_by_label("Capacity (GiB)")
    assert field.count() == 0  # not drawn while the popover is closed
    button.first.click()
    field.wait_for()
    # the text and seven figures, drawn once open (every element of a run arrives together)
    page.wait_for_function(f"document.querySelectorAll('input').length >= {closed + 8}")
    assert inputs(page) == closed + 8
    assert page.get_by_label("Memory (TB/s)").input_value() == "6.7"
    n = runs(page)
    field.fill("160")
    field.press("Enter")
    wait_idle(page, n, "the capacity field", WAIT_MS)
    page.wait_for_function("location.search.includes('memory_gib')", timeout=WAIT_MS)
    query = parse_qs(urlsplit(page.url).query)
    assert query["what_if"] == ["memory_bw_tbs=6.7,scaleup_domain=72,memory_gib=160"]
    assert "capacity 2× → 160 GiB" in page.locator("h3").first.inner_text()
    assert not page.js_errors
