"""The app served for real, shared by the end-to-end tests and bench/: `streamlit run` on a
free port with its output in a log file, headless Chromium, and a probe in every page that
counts the app's finished script runs, and a websocket opened as the front end opens it.

Every wait is bounded. A server that exits or never answers /_stcore/health raises
ServerError with its log's tail; a page that never settles raises NotReady with how far it
got; a server is always terminated.
"""

from __future__ import annotations

import ast
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 60
WAIT_MS = 60_000  # the longest any one page wait may take (a caller may pass its own)
XSRF = "_streamlit_xsrf"
# a page's error elements: an exception, or an error alert not inside one
ERRORS = (
    '[data-testid="stException"], '
    '[data-testid="stAlertContentError"]:not([data-testid="stException"] *)'
)
# The run does not depend on config.toml or STREAMLIT_* settings for these (test_server.py
# passes none: it checks config.toml itself).
PINNED = (
    "--server.headless",
    "true",
    "--server.address",
    "127.0.0.1",
    "--browser.gatherUsageStats",
    "false",
    "--server.fileWatcherType",
    "none",
)
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1400, "height": 1000}
# Records every WebSocket send (time, base64 payload) and the arrival time of every ForwardMsg
# with top-level field 6 (script_finished) set, except FINISHED_EARLY_FOR_RERUN (2), a run
# cut short by the next (as when a widget's callback reruns page parts alone): `done.length`
# counts finished runs. (stApp's
# data-test-script-state is no clock: React may batch a fast run's running -> notRunning into
# one render.) Also notes the DOM's last change.
PROBE_JS = """(() => {
  const s = window.__perfcore = {sends: [], done: [], changed: performance.now()};
  const finished = (b) => {
    let i = 0;
    const varint = () => { let x = 0, k = 1, c; do { c = b[i++]; x += (c & 127) * k; k *= 128; }
                           while (c & 128); return x; };
    while (i < b.length) {
      const tag = varint(), wire = tag & 7;
      if (tag >> 3 === 6 && wire === 0) return varint() !== 2;
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
        const d = e.data, t = performance.now();
        if (d instanceof ArrayBuffer && d.byteLength < 256 && finished(new Uint8Array(d))) {
          s.done.push(t);
        }
      });
    }
    const bytes = ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
    let text = ''; for (const b of bytes) text += String.fromCharCode(b);
    s.sends.push([performance.now(), btoa(text)]);
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
  return s.done.length > n && app && app.dataset.testScriptState === 'notRunning'
    && performance.now() - s.changed > 150
    && !document.querySelector('[data-testid$="Skeleton"], [data-stale="true"]')
    && charts.every(c => c.offsetParent === null || c.querySelector('.main-svg')); }"""
# How far a page got, for the message when it never settles.
STATE_JS = """() => ({runs: window.__perfcore.done.length, changed: window.__perfcore.changed,
  app: document.querySelector('[data-testid="stApp"]')?.dataset.testScriptState,
  skeletons: document.querySelectorAll('[data-testid$="Skeleton"]').length,
  stale: document.querySelectorAll('[data-stale="true"]').length})"""


class ServerError(RuntimeError):
    """A `streamlit run` that exited or never became healthy; the message ends with its log."""


class NotReady(TimeoutError):
    """A page whose script run did not finish and settle in time."""


@dataclass(frozen=True)
class Server:
    """A running `streamlit run`: where it answers, its process id and its log file."""

    url: str
    pid: int
    log: Path

    def log_tail(self, chars: int = 3000) -> str:
        """The last `chars` characters the server has written."""
        return self.log.read_text(errors="replace")[-chars:]


def app_pages() -> list[tuple[str, str]]:
    """(script, URL path) of every st.Page in app.py, in order; the default page is '/'."""
    pages = []
    for node in ast.walk(ast.parse((ROOT / "app.py").read_text())):
        func = getattr(node, "func", None)
        if not (isinstance(func, ast.Attribute) and func.attr == "Page" and node.args):
            continue
        kw = {k.arg: getattr(k.value, "value", None) for k in node.keywords}
        script = node.args[0].value
        # Streamlit's rule: the file name, leading digits and separators dropped.
        name = re.sub(r"^[0-9]*[_ -]*", "", Path(script).stem)
        path = "/" if kw.get("default") else "/" + (kw.get("url_path") or name).strip("/")
        pages.append((script, path))
    return pages


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(url: str) -> bool:
    """True when the server at `url` answers ok on /_stcore/health."""
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
            return r.read() == b"ok"
    except OSError:
        return False


def wait_healthy(server: Server, proc: subprocess.Popen) -> None:
    """Return once the server is healthy; raise ServerError with its log if it exits first
    or START_TIMEOUT_S passes."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while not healthy(server.url):
        if proc.poll() is not None:
            raise ServerError(f"streamlit exited with {proc.returncode}:\n{server.log_tail()}")
        if time.monotonic() > deadline:
            tail = server.log_tail()
            raise ServerError(f"no /_stcore/health within {START_TIMEOUT_S} s:\n{tail}")
        time.sleep(0.2)


def stop(proc: subprocess.Popen) -> None:
    """Terminate `proc`, killing it if it has not exited 10 s later."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


@contextmanager
def serve(
    script: str | Path = "app.py",
    flags: Sequence[str] = PINNED,
    env: dict[str, str] | None = None,
    log: Path | None = None,
) -> Iterator[Server]:
    """`streamlit run script [flags]` from the repo root on a free port, once healthy; always
    terminated. Its output goes to `log` (a temporary file when None)."""
    with ExitStack() as stack:
        if log is None:
            log = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "streamlit.log"
        port = free_port()
        cmd = [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port)]
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [*cmd, *flags], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        stack.callback(stop, proc)
        server = Server(f"http://127.0.0.1:{port}", proc.pid, log)
        wait_healthy(server, proc)
        yield server


@contextmanager
def chromium() -> Iterator:
    """Headless Chromium (Debian's `chromium` on PATH) under Playwright's sync API."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS, timeout=30_000
        )
        try:
            yield browser
        finally:
            browser.close()


def new_context(browser, wait_ms: int = WAIT_MS):
    """A fresh browser context (own cookies and storage) whose pages carry the probe."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(wait_ms)
    context.add_init_script(PROBE_JS)
    return context


def assert_no_error_element(page, where: str, log: Path) -> None:
    """Fails, naming `where`, on an error element the page shows (with the tail of the server's
    log, since app.py shows no traceback in the browser) or an error its scripts raised."""
    errors = page.locator(ERRORS).all_inner_texts()
    if errors:
        shown = "\n---\n".join(errors)
        tail = log.read_text(errors="replace")[-4000:]
        raise AssertionError(f"{where} shows an error element:\n{shown}\n--- server log:\n{tail}")
    assert not page.js_errors, f"{where} raised in the browser: {page.js_errors}"


def runs(page) -> int:
    """How many script runs have finished in `page` so far."""
    return page.evaluate("window.__perfcore.done.length")


def wait_idle(page, after: int, what: str, wait_ms: int = WAIT_MS) -> None:
    """Wait until a script run after the `after`-th has finished and the page is drawn."""
    try:
        page.wait_for_function(IDLE_JS, arg=after, polling=50, timeout=wait_ms)
    except Exception as e:  # playwright's TimeoutError; say how far the page got
        state = page.evaluate(STATE_JS)
        raise NotReady(f"{what}: not ready within {wait_ms} ms ({state}): {e}") from e


def open_page(context, url: str, wait_ms: int = WAIT_MS):
    """A new tab on `url`, once its first run has finished and it is drawn; its uncaught
    JavaScript errors collect in `page.js_errors`."""
    page = context.new_page()
    page.js_errors = []
    page.on("pageerror", lambda e: page.js_errors.append(str(e)))
    page.goto(url, wait_until="domcontentloaded")
    wait_idle(page, 0, url, wait_ms)
    return page


def open_stream(url: str, token: str | None = None, timeout_s: float = START_TIMEOUT_S):
    """A websocket on the app's /_stcore/stream, opened as the front end opens it: Origin
    set and, given the XSRF cookie's token, the cookie and the token as second subprotocol."""
    from websockets.sync.client import connect

    headers, protocols = {"Origin": url}, ["streamlit"]
    if token:
        headers["Cookie"] = f"{XSRF}={token}"
        protocols.append(token)
    return connect(
        url.replace("http://", "ws://") + "/_stcore/stream",
        subprotocols=protocols,
        additional_headers=headers,
        open_timeout=timeout_s,
        max_size=None,
    )


def choose(page, label: str, option: str) -> None:
    """Choose `option` in the shared sidebar's selectbox labelled `label` (a page may reuse
    the label). Into the window's middle first: at its foot (a tall sidebar) the list would
    open below the window, and Playwright does not scroll an element it can already see."""
    box = page.locator('[data-testid="stSidebar"]').get_by_role("combobox", name=label)
    box.evaluate("e => e.scrollIntoView({block: 'center'})")
    box.click()
    page.get_by_role("option", name=option, exact=True).click()
