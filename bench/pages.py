"""Page cost: each page's rerun time as a multiple of a one-slider, one-Plotly-line page.

    .venv/bin/python bench/pages.py [--rounds 6] [--browser-n 8] [--apptest-n 15] [PAGE ...]

The reference page (one st.slider, one go.Scatter of 200 points) is written to a temp dir
and measured in the same run as app.py's pages (in app.py's order), three ways, each shown
as page / reference. Absolute times vary ~10 % between runs on these machines; ratios
measured together do not (PERFORMANCE.md). Both apps are served by `streamlit run` from
the repository root, so both get its .streamlit/config.toml.

1. AppTest: AppTest.from_file, switch to the page, change a widget, time at.run(); min of
   N. In-process and without the live server's post-run gc.collect(2), so it understates a
   live rerun, the tiny reference's most of all; shown, not gated.
2. browser: one server per app, headless Chromium. A widget change (the sidebar Precision,
   bf16 <-> fp16, on every page of app.py; a click on the reference slider's track,
   20 <-> 30) is timed in the page from the WebSocket send of its rerun message to the
   page receiving the ForwardMsg script_finished, on which the front end drops the
   "running" indicator. Median of N; the reference is measured before and after the pages.
   Includes the browser's handling of the deltas that arrive first (drawing the charts).
3. server: the rerun messages the browser sent in (2) are replayed with the websockets
   client on fresh servers: time from sending a rerun_script BackMsg to receiving the
   ForwardMsg script_finished; no browser work is in it. It does hold the post-run
   gc.collect(2): that runs on the script thread holding the GIL, so script_finished
   leaves after it (most of the reference's time is that gc). Reruns go back to back, as
   for a user moving a control. Each page's rounds alternate with the reference's (one
   session on its own server), and its ratio is against those paired reference reruns, so
   drift hits both alike. Median of rounds x 3. This is the server-side rerun time and the
   gate: every page within 3x the reference (--gate picks another column).

The app's rerun cost depends on the server process, not only the page: perfcore imports JAX
on first use and then gc.freeze()s the heap, which makes every later post-run gc, on every
page, cheaper. So pages are measured in app.py's order on servers that start clean, and a
page measured while its server had JAX loaded (seen in /proc/PID/maps) is marked "JAX".

Prints a table and PASS/FAIL per page; exits 1 on any FAIL or any page that raised.
About 2-3 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import ast
import base64
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 3.0
WAIT_MS = 60_000
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]  # fmt: skip
REFERENCE = """import numpy as np
import plotly.graph_objects as go
import streamlit as st

freq = st.slider("Frequency", 1, 50, 5, key="freq")
x = np.linspace(0, 1, 200)
st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.sin(2 * np.pi * freq * x))))
"""
# Records every WebSocket send (time, payload) and the arrival time of every ForwardMsg with
# top-level field 6 (script_finished) set. (stApp's data-test-script-state is no clock: React
# may batch a fast run's running -> notRunning into one render.) Notes the DOM's last change.
PROBE_JS = """(() => {
  const s = window.__bench = {sends: [], done: [], changed: performance.now()};
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
    if (!this.__bench) {
      this.__bench = true;
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
# More than `n` runs finished, the app idle, nothing a skeleton or stale, every visible chart
# drawn, and the page unchanged for 150 ms.
IDLE_JS = """(n) => { const s = window.__bench;
  const app = document.querySelector('[data-testid="stApp"]');
  const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')];
  return s.done.length > n && app && app.dataset.testScriptState === 'notRunning'
    && performance.now() - s.changed > 150
    && !document.querySelector('[data-testid$="Skeleton"], [data-stale="true"]')
    && charts.every(c => c.offsetParent === null || c.querySelector('.main-svg')); }"""


@dataclass
class Target:
    """One page to measure, how to change its widget, and what was measured."""

    name: str
    script: Path  # what AppTest and `streamlit run` open
    page: str | None  # the page AppTest switches to (None: the script itself)
    path: str  # URL path on its server
    key: str  # the widget changed
    values: tuple  # alternated
    apptest_ms: float = float("nan")
    browser_ms: list[float] = field(default_factory=list)
    server_ms: list[float] = field(default_factory=list)
    paired_ref_ms: list[float] = field(default_factory=list)  # reference reruns beside these
    reruns: list[bytes] = field(default_factory=list)  # rerun BackMsgs the browser sent
    jax: set[str] = field(default_factory=set)  # phases whose server had JAX loaded
    error: str = ""


@dataclass
class Server:
    """A running `streamlit run`: where it answers and its process id."""

    url: str
    pid: int

    def jax_loaded(self) -> bool:
        """True once the server process has mapped jaxlib (Linux; False where unknown)."""
        try:
            return "jaxlib" in Path(f"/proc/{self.pid}/maps").read_text()
        except OSError:
            return False


def app_pages() -> list[tuple[str, str]]:
    """(script, URL path) of every st.Page in app.py, in order; the default page is '/'."""
    pages = []
    for node in ast.walk(ast.parse((ROOT / "app.py").read_text())):
        func = getattr(node, "func", None)
        if not (isinstance(func, ast.Attribute) and func.attr == "Page" and node.args):
            continue
        kw = {k.arg: getattr(k.value, "value", None) for k in node.keywords}
        script = node.args[0].value
        name = re.sub(r"^[0-9]*[_ -]*", "", Path(script).stem)  # Streamlit's url_path rule
        pages.append((script, "/" if kw.get("default") else "/" + (kw.get("url_path") or name)))
    return pages


def targets(reference: Path, only: list[str]) -> list[Target]:
    """The reference first, then every page of app.py (or those named in `only`)."""
    ref = Target("reference", reference, None, "/", "freq", (30, 20))
    pages = [Target(Path(s).stem, ROOT / "app.py", s, p, "precision", ("fp16", "bf16"))
             for s, p in app_pages() if not only or Path(s).stem in only]  # fmt: skip
    return [ref, *pages]


def measure_apptest(t: Target, n: int) -> None:
    """Min of n AppTest reruns after a widget change, in ms."""
    from streamlit import logger
    from streamlit.testing.v1 import AppTest

    logger.set_log_level("error")  # AppTest's bare-mode warnings are noise here
    at = AppTest.from_file(str(t.script), default_timeout=60)
    at.run()
    if t.page:
        at.switch_page(t.page).run()
    kind = "slider" if t.key == "freq" else "selectbox"
    times = []
    for i in range(n + 2):
        if at.exception:
            t.error = f"AppTest: {at.exception[0].message}"
            return
        getattr(at, kind)(key=t.key).set_value(t.values[i % 2])
        start = time.perf_counter()
        at.run()
        times.append((time.perf_counter() - start) * 1e3)
    t.apptest_ms = min(times[2:])


@contextmanager
def serve(script: Path):
    """`streamlit run script` from the repo root on a free local port; always terminated."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while not _healthy(url):
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    tail = log.read().decode(errors="replace")[-3000:]
                    raise RuntimeError(f"{script} did not start:\n{tail}")
                time.sleep(0.2)
            yield Server(url, proc.pid)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
            return r.read() == b"ok"
    except OSError:
        return False


@contextmanager
def chromium():
    """Headless Debian Chromium under Playwright's sync API."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=shutil.which("chromium"),
                                     args=CHROMIUM_ARGS, timeout=30_000)  # fmt: skip
        try:
            yield browser
        finally:
            browser.close()


def wait_idle(page, after: int) -> None:
    """Wait until more than `after` runs have finished and everything is drawn."""
    page.wait_for_function(IDLE_JS, arg=after, polling=50, timeout=WAIT_MS)


def open_page(context, url: str):
    """A new tab on `url`, once its first run has finished and it is drawn."""
    page = context.new_page()
    page.goto(url, wait_until="domcontentloaded")
    wait_idle(page, 0)
    return page


def change(page, t: Target, value) -> None:
    """Change the target's widget to `value` the way a user does."""
    if t.key == "freq":  # click the track where `value` sits (the slider runs 1..50)
        track = page.locator('[data-testid="stSlider"] [style*="touch-action"]').first
        box = track.bounding_box()
        track.click(position={"x": box["width"] * (value - 1) / 49, "y": box["height"] / 2})
        return
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_role("combobox", name="Precision").click()
    page.get_by_role("option", name=value, exact=True).click()


def measure_browser(page, t: Target, n: int) -> None:
    """n widget changes: rerun message sent -> script_finished in the page, in ms."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    for i in range(n + 2):
        done = page.evaluate("window.__bench.done.length")
        mark = page.evaluate("performance.now()")
        change(page, t, t.values[i % 2])
        wait_idle(page, done)
        probe = page.evaluate("window.__bench")
        sends = [(ts, base64.b64decode(p)) for ts, p in probe["sends"] if ts >= mark]
        reruns = [(ts, p) for ts, p in sends if BackMsg.FromString(p).HasField("rerun_script")]
        if not reruns:
            raise RuntimeError(f"{t.name}: the change sent no rerun message")
        sent = reruns[0][0]
        finished = next(d for d in probe["done"] if d >= sent)
        if i >= 2:
            t.browser_ms.append(finished - sent)
        t.reruns = [*t.reruns[-1:], reruns[-1][1]]  # the last two: one of each value


def run_browser_phase(ts: list[Target], app: Server, ref: Server, n: int) -> None:
    """The reference, every page in order, the reference again: each in its own tab."""
    reference = ts[0]
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.set_default_timeout(WAIT_MS)
        context.add_init_script(PROBE_JS)
        ref_page = open_page(context, ref.url + reference.path)
        measure_browser(ref_page, reference, n)
        for t in ts[1:]:
            try:
                page = open_page(context, app.url + t.path)
                measure_browser(page, t, n)
                page.close()
            except Exception as e:  # report the page, measure the rest
                t.error += f" browser: {type(e).__name__}: {str(e).splitlines()[0]}"
            if app.jax_loaded():
                t.jax.add("browser")
        measure_browser(ref_page, reference, n)
        context.close()


class Session:
    """A websocket client on a fresh server session that replays two rerun messages."""

    def __init__(self, ws, reruns: list[bytes]):
        self.ws, self.reruns, self.i = ws, reruns, 0

    def rerun(self) -> float:
        """Send the next rerun message; ms until its script_finished arrives."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = self.reruns[self.i % 2]
        self.i += 1
        start = time.perf_counter()
        self.ws.send(msg)
        while True:
            data = self.ws.recv(timeout=WAIT_MS / 1e3)
            if len(data) < 256:  # script_finished is tiny; skip decoding the deltas
                fwd = ForwardMsg.FromString(data)
                if fwd.WhichOneof("type") == "script_finished":
                    elapsed = (time.perf_counter() - start) * 1e3
                    if fwd.script_finished != ForwardMsg.FINISHED_SUCCESSFULLY:
                        raise RuntimeError(f"script finished with {fwd.script_finished}")
                    return elapsed


def run_server_phase(ts: list[Target], app: Server, ref: Server, rounds: int) -> None:
    """Replay each page's reruns, round by round alternating with the reference's."""
    from websockets.sync.client import connect

    def session(server: Server, reruns: list[bytes]):
        ws = connect(server.url.replace("http://", "ws://") + "/_stcore/stream",
                     subprotocols=["streamlit"], origin=server.url, max_size=None)  # fmt: skip
        return ws, Session(ws, reruns)

    reference = ts[0]
    ref_ws, ref_session = session(ref, reference.reruns)
    with ref_ws:
        for _ in range(3):  # the session's first run, then warm-up
            ref_session.rerun()
        for t in ts[1:]:
            if len(t.reruns) < 2:
                continue
            try:
                ws, page = session(app, t.reruns)
                with ws:
                    for _ in range(3):
                        page.rerun()
                    for _ in range(rounds):
                        t.server_ms += [page.rerun() for _ in range(3)]
                        t.paired_ref_ms += [ref_session.rerun() for _ in range(3)]
            except Exception as e:  # report the page, measure the rest
                t.error += f" server: {type(e).__name__}: {e}"
            if app.jax_loaded():
                t.jax.add("server")
            reference.server_ms += t.paired_ref_ms


def report(ts: list[Target], gate: str) -> int:
    """Print the table; 1 when a page fails the gate or could not be measured."""
    ref = ts[0]
    columns = {
        "apptest": (lambda t: t.apptest_ms, lambda t: ref.apptest_ms),
        "browser": (lambda t: _median(t.browser_ms), lambda t: _median(ref.browser_ms)),
        "server": (lambda t: _median(t.server_ms), lambda t: _median(t.paired_ref_ms)),
    }
    titles = ("AppTest rerun (min)", "browser rerun (median)", "server rerun (median)")
    print(f"\n{'page':<12}" + "".join(f"{h:>24}" for h in titles) + f"   {gate} <= {LIMIT:g}x")
    failed = 0
    for t in ts:
        cells, verdict = "", ""
        for name, (value, base) in columns.items():
            ms = value(t)
            ratio = ms / base(t) if t is not ref else float("nan")
            cells += f"{ms:>10.1f} ms " + (f"{ratio:>7.1f}x   " if t is not ref else " " * 11)
            if name == gate and t is not ref:
                ok = not t.error and ratio <= LIMIT
                failed += not ok
                verdict = "PASS" if ok else "FAIL"
        jax = f"JAX ({', '.join(sorted(t.jax))})" if t.jax else ""
        print(f"{t.name:<12}{cells}{verdict} {jax} {t.error[:300]}".rstrip())
    n_browser, n_server = len(ref.browser_ms), max(len(t.server_ms) for t in ts[1:])
    print(f"(page / reference. browser: median of {n_browser // 2} per page, reference "
          f"{n_browser}; server: median of {n_server}, against as many paired reference "
          "reruns. JAX: the server had JAX loaded and its heap frozen)")  # fmt: skip
    return 1 if failed else 0


def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=6, help="server rounds per page (3 reruns each)")
    ap.add_argument("--browser-n", type=int, default=8, help="widget changes per page in Chromium")
    ap.add_argument("--apptest-n", type=int, default=15, help="AppTest reruns per page")
    ap.add_argument("--gate", choices=["server", "browser", "apptest"], default="server")
    ap.add_argument("pages", nargs="*", help="page script stems to measure (default: all)")
    args = ap.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        reference = Path(tmp) / "reference.py"
        reference.write_text(REFERENCE)
        ts = targets(reference, args.pages)
        for t in ts:
            print(f"AppTest {t.name} ...", flush=True)
            try:
                measure_apptest(t, args.apptest_n)
            except Exception as e:  # report the page, measure the rest
                t.error = f"AppTest: {type(e).__name__}: {e}"
        print("browser ...", flush=True)
        with serve(ROOT / "app.py") as app, serve(reference) as ref:
            run_browser_phase(ts, app, ref, args.browser_n)
        print("server (websocket replay, fresh servers) ...", flush=True)
        with serve(ROOT / "app.py") as app, serve(reference) as ref:
            run_server_phase(ts, app, ref, args.rounds)
    rc = report(ts, args.gate)
    print(f"took {time.monotonic() - started:.0f} s")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
