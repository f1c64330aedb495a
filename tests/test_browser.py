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

import ast
import math
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 60
WAIT_MS = 45_000
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]  # fmt: skip
ERRORS = ('[data-testid="stException"], '
          '[data-testid="stAlertContentError"]:not([data-testid="stException"] *)')  # fmt: skip
SERVER_LOGS: list[Path] = []  # the server's output: app.py hides tracebacks from the browser
# Counts finished script runs: ForwardMsgs whose top-level field 6 (script_finished) is set,
# seen on the app's WebSocket. (stApp's data-test-script-state is no clock: React may batch
# running -> notRunning of a fast run into one render.) Also notes the DOM's last change.
RUN_COUNTER_JS = """(() => {
  const s = window.__perfcore = {runs: 0, changed: performance.now()};
  const finished = (b) => {
    let i = 0;
    const varint = () => { let x = 0, k = 1, c; do { c = b[i++]; x += (c & 127) * k; k *= 128; }
                           while (c & 128); return x; };
    while (i < b.length) {
      const tag = varint(), wire = tag & 7;
      if (tag >> 3 === 6 && wire === 0) return true;
      if (wire === 0) varint(); else if (wire === 2) { const n = varint(); i += n; }
      else if (wire === 1) i += 8; else if (wire === 5) i += 4; else return false;
    }
    return false;
  };
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (!this.__perfcore) {
      this.__perfcore = true;
      this.addEventListener('message', (e) => {
        const d = e.data;
        if (d instanceof ArrayBuffer && d.byteLength < 256 && finished(new Uint8Array(d))) s.runs++;
      });
    }
    return send.call(this, data);
  };
  new MutationObserver(() => { s.changed = performance.now(); }).observe(document,
    {subtree: true, childList: true, attributes: true, characterData: true});
})();"""
# More than `n` runs finished, the app idle, nothing still a skeleton (lazily loaded code on
# its way) or stale, every visible chart drawn, and the page unchanged for 150 ms.
IDLE_JS = """(n) => { const s = window.__perfcore;
  const app = document.querySelector('[data-testid="stApp"]');
  const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')];
  return s.runs > n && app && app.dataset.testScriptState === 'notRunning'
    && performance.now() - s.changed > 150
    && !document.querySelector('[data-testid$="Skeleton"], [data-stale="true"]')
    && charts.every(c => c.offsetParent === null || c.querySelector('.main-svg')); }"""


def app_pages() -> list[str]:
    """The URL path of every st.Page in app.py, in order: '/' for the default page."""
    paths = []
    for node in ast.walk(ast.parse((ROOT / "app.py").read_text())):
        func = getattr(node, "func", None)
        if not (isinstance(func, ast.Attribute) and func.attr == "Page" and node.args):
            continue
        kw = {k.arg: getattr(k.value, "value", None) for k in node.keywords}
        # Streamlit's rule: the file name, leading digits and separators dropped.
        name = re.sub(r"^[0-9]*[_ -]*", "", Path(node.args[0].value).stem)
        paths.append("/" if kw.get("default") else "/" + (kw.get("url_path") or name).strip("/"))
    return paths


PAGES = app_pages()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, log: Path) -> None:
    """Return once /_stcore/health answers ok; fail with the server log otherwise."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"streamlit exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read() == b"ok":
                    return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"no /_stcore/health within {START_TIMEOUT_S} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    """A `streamlit run app.py` on a free local port, terminated after this module."""
    port = free_port()
    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    SERVER_LOGS.append(log)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, proc, log)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    """Headless Debian Chromium under Playwright."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("needs `chromium` on PATH (python3 dev.py test installs it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, timeout=30_000)
        yield b
        b.close()


def new_context(browser):
    """A fresh browser context (own cookies and storage) that counts the app's runs."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(WAIT_MS)
    context.add_init_script(RUN_COUNTER_JS)
    return context


@pytest.fixture(scope="module")
def context(browser):
    """One context for the page visits, so the front end's assets load once."""
    context = new_context(browser)
    yield context
    context.close()


def runs(page) -> int:
    return page.evaluate("window.__perfcore.runs")


def wait_for_run(page, after: int, what: str) -> None:
    """Wait until a script run after the `after`-th has finished and the page is drawn."""
    try:
        page.wait_for_function(IDLE_JS, arg=after, polling=50, timeout=WAIT_MS)
    except Exception as e:  # playwright's TimeoutError; say how far the page got
        state = page.evaluate("""() => ({...window.__perfcore,
          app: document.querySelector('[data-testid="stApp"]')?.dataset.testScriptState,
          skeletons: document.querySelectorAll('[data-testid$="Skeleton"]').length,
          stale: document.querySelectorAll('[data-stale="true"]').length})""")
        pytest.fail(f"{what}: not ready within {WAIT_MS} ms ({state}): {e}")


def open_app(context, url: str):
    """A new tab on `url`, once its first run has finished; uncaught JS errors collected."""
    page = context.new_page()
    page.js_errors = []
    page.on("pageerror", lambda e: page.js_errors.append(str(e)))
    page.goto(url, wait_until="domcontentloaded")
    wait_for_run(page, 0, url)
    return page


def assert_no_error_element(page, where: str) -> None:
    errors = page.locator(ERRORS).all_inner_texts()
    if errors:
        log = SERVER_LOGS[-1].read_text(errors="replace")[-4000:] if SERVER_LOGS else ""
        shown = "\n---\n".join(errors)
        pytest.fail(f"{where} shows an error element:\n{shown}\n--- server log:\n{log}")
    assert not page.js_errors, f"{where} raised in the browser: {page.js_errors}"


def sidebar_choice(page, label: str):
    """The shared sidebar's selectbox labelled `label` (a page may reuse the label)."""
    return page.locator('[data-testid="stSidebar"]').get_by_role("combobox", name=label)


def pick(page, label: str, option: str) -> None:
    """Choose `option` in the sidebar selectbox labelled `label` and wait for the rerun."""
    before = runs(page)
    sidebar_choice(page, label).click()
    page.get_by_role("option", name=option, exact=True).click()
    wait_for_run(page, before, f"after choosing {label}={option}")


def widget_key(element) -> str:
    """The `key` of the widget `element` belongs to (Streamlit's st-key-<key> class)."""
    classes = element.evaluate("e => e.closest('[class*=\"st-key-\"]').className")
    return re.search(r"st-key-(\S+)", classes).group(1)


def set_number(field) -> tuple[str, float]:
    """Type a quarter of a number input's value (else 4x, +1, -1: what fits); rerun."""
    value, lo, hi = (field.evaluate(f"e => Number(e.{a} || NaN)") for a in ("value", "min", "max"))
    lo, hi = (lo if lo == lo else -math.inf), (hi if hi == hi else math.inf)
    new = next(float(v) for v in (math.floor(value / 4), value * 4, value + 1, value - 1)
               if v != value and lo <= v <= hi)  # fmt: skip
    key, before, text = widget_key(field), runs(field.page), f"{new:.0f}"
    text = text if new.is_integer() else str(new)
    field.fill(text)
    field.press("Enter")
    wait_for_run(field.page, before, f"after setting {key}={text}")
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
    page = open_app(context, app_url + "/")
    hrefs = page.locator('[data-testid="stSidebarNav"] a').evaluate_all(
        "els => els.map(e => new URL(e.href).pathname)"
    )
    page.close()
    assert hrefs == PAGES, f"sidebar links {hrefs} != st.Page paths in app.py {PAGES}"


@pytest.mark.parametrize("path", PAGES)
def test_every_page_renders_clean_and_its_link_reopens_the_view(context, app_url, path):
    page = open_app(context, app_url + path)
    again = None
    try:
        assert urlsplit(page.url).path == path, f"{path} landed on {page.url}"
        page.locator('[data-testid="stMain"] h1').first.wait_for(state="visible")
        assert_no_error_element(page, path)
        key, value = change_a_control(page)
        assert_no_error_element(page, f"{path} after setting {key}={value}")
        assert_in_link(page.url, key, value)
        again = open_app(context, page.url)  # a new tab is a new Streamlit session
        assert_no_error_element(again, page.url)
        assert view(again) == view(page), f"{page.url} reopened a different view"
    finally:
        page.close()
        if again is not None:
            again.close()


def test_a_changed_control_lands_in_the_url_and_reopens_the_same_view(browser, app_url):
    first, second = new_context(browser), new_context(browser)
    try:
        page = open_app(first, app_url + "/roofline")
        default = view(page)
        pick(page, "Precision", "fp8")
        field = page.locator('[data-testid="stMain"] [data-testid="stNumberInputField"]').first
        key, value = set_number(field)
        assert_no_error_element(page, "/roofline after the changes")
        assert_in_link(page.url, "precision", "fp8")
        assert_in_link(page.url, key, value)
        changed = view(page)
        assert changed != default, "the changes moved nothing displayed"

        again = open_app(second, page.url)  # a fresh context: no cookies, storage or cache
        assert_no_error_element(again, page.url)
        assert view(again) == changed, f"{page.url} reopened a different view"
    finally:
        first.close()
        second.close()


def test_a_hostile_link_falls_back_with_a_notice(browser, app_url):
    context = new_context(browser)
    dialogs = []
    context.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        page = open_app(context, app_url + "/roofline")
        number = widget_key(page.locator('[data-testid="stNumberInputField"]').first)
        url = (f"{app_url}/roofline?device=%3Cscript%3Ealert(1)%3C%2Fscript%3E"
               f"&precision=fp999&{number}=1e999")  # fmt: skip
        page.goto(url, wait_until="domcontentloaded")
        wait_for_run(page, 0, url)
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
