"""The three ways pages.py times a page's rerun after a widget change: AppTest in process,
headless Chromium on a served app, and the browser's rerun messages replayed over a
websocket. Each fills its column of a Target; pages.py's docstring gives the method.

Serving, the browser and the page probe are tests/support/live.py's, shared with the e2e tests.
"""

from __future__ import annotations

import base64
import itertools
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.live import (
    ROOT,
    WAIT_MS,
    Server,
    app_pages,
    choose,
    chromium,
    new_context,
    open_page,
    open_stream,
    runs,
    serve,
    wait_idle,
)

# The one-chart reference app every page's cost is a multiple of: one st.slider, one
# go.Scatter of 200 points (pages.py, load.py).
REFERENCE = """import numpy as np
import plotly.graph_objects as go
import streamlit as st

freq = st.slider("Frequency", 1, 50, 5, key="freq")
x = np.linspace(0, 1, 200)
st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.sin(2 * np.pi * freq * x))))
"""


@dataclass
class Target:
    """One page to measure, how to change its widget, and what was measured."""

    name: str
    script: Path  # what AppTest and `streamlit run` open
    page: str | None  # the page AppTest switches to (None: the script itself)
    path: str  # URL path on its server
    key: str  # the widget changed (a page control's key is found in the browser)
    values: tuple  # alternated
    control: str = "sidebar"  # "sidebar": the sidebar Precision; "page": the page's own input
    apptest_ms: float = float("nan")
    browser_ms: list[float] = field(default_factory=list)
    server_ms: list[float] = field(default_factory=list)
    browser_ref_ms: list[float] = field(default_factory=list)  # the reference's, alternated
    paired_ref_ms: list[float] = field(default_factory=list)  # the reference's, beside these
    reruns: list[bytes] = field(default_factory=list)  # rerun BackMsgs the browser sent
    jax: set[str] = field(default_factory=set)  # phases whose server had JAX loaded
    error: str = ""


def targets(reference: Path, only: list[str], control: str = "sidebar") -> list[Target]:
    """The reference first, then every page of app.py (or those whose script stem is in
    `only`), each changing `control` (see Target); ValueError for a name in `only` that is
    no page."""
    pages = [(Path(s).stem, s, p) for s, p in app_pages()]
    unknown = sorted(set(only) - {name for name, _, _ in pages})
    if unknown:
        raise ValueError(f"no page {', '.join(unknown)} in app.py: {[n for n, _, _ in pages]}")
    ref = Target("reference", reference, None, "/", "freq", (30, 20))
    return [
        ref,
        *(
            Target(name, ROOT / "app.py", s, p, "precision", ("fp16", "bf16"), control)
            for name, s, p in pages
            if not only or name in only
        ),
    ]


# The page's own first input, as a user finds it: the first enabled number input in the main
# area (the one tests/test_browser.py changes too).
FIRST_NUMBER = '[data-testid="stMain"] [data-testid="stNumberInputField"]:not([disabled])'


def find_page_control(page, t: Target) -> None:
    """Point a page-control target at the page's first number input: its key, and its value
    alternating with twice it (else half). A page with none keeps the sidebar Precision."""
    fields = page.locator(FIRST_NUMBER).filter(visible=True)
    if not fields.count():
        t.control = "sidebar"
        return
    field = fields.first
    value, hi = (field.evaluate(f"e => Number(e.{a} || NaN)") for a in ("value", "max"))
    new = value * 2 if not hi <= value * 2 else value / 2
    classes = field.evaluate("e => e.closest('[class*=\"st-key-\"]').className")
    t.key = next(c for c in classes.split() if c.startswith("st-key-")).removeprefix("st-key-")
    t.values = (f"{new:g}", f"{value:g}")


def jax_loaded(server: Server) -> bool:
    """True once the server process has mapped jaxlib (Linux; False where unknown)."""
    try:
        return "jaxlib" in Path(f"/proc/{server.pid}/maps").read_text()
    except OSError:
        return False


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


def change(page, t: Target, value) -> None:
    """Change the target's widget to `value` the way a user does."""
    if t.key == "freq":  # click the track where `value` sits (the slider runs 1..50)
        track = page.locator('[data-testid="stSlider"] [style*="touch-action"]').first
        box = track.bounding_box()
        track.click(position={"x": box["width"] * (value - 1) / 49, "y": box["height"] / 2})
        return
    if t.control == "page":  # type the number, then Enter, as a user does
        field = page.locator(f'[data-testid="stMain"] .st-key-{t.key} input').first
        field.fill(value)
        field.press("Enter")
        return
    choose(page, "Precision", value)


def browser_rerun(page, t: Target, value) -> float:
    """One change of the target's widget to `value`: ms from its rerun message leaving the
    page to the page receiving that run's script_finished. Keeps the last two rerun messages
    (one of each value) for the server phase."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    done = runs(page)
    mark = page.evaluate("performance.now()")
    change(page, t, value)
    wait_idle(page, done, f"{t.name} after a change")
    probe = page.evaluate("window.__perfcore")
    sends = [(ts, base64.b64decode(p)) for ts, p in probe["sends"] if ts >= mark]
    reruns = [(ts, p) for ts, p in sends if BackMsg.FromString(p).HasField("rerun_script")]
    if not reruns:
        raise RuntimeError(f"{t.name}: the change sent no rerun message")
    sent = reruns[0][0]
    finished = next(d for d in probe["done"] if d >= sent)
    t.reruns = [*t.reruns[-1:], reruns[-1][1]]
    return finished - sent


def run_browser_phase(ts: list[Target], n: int) -> None:
    """Every page in order, each in its own tab, its n widget changes (after two to warm up)
    alternating with the reference's in a tab beside it: one server per app."""
    reference = ts[0]
    with serve(ROOT / "app.py") as app, serve(reference.script) as ref, chromium() as browser:
        context = new_context(browser)
        ref_page = open_page(context, ref.url + reference.path)
        ref_values = itertools.cycle(reference.values)  # one sequence over all pages
        for value in itertools.islice(ref_values, 2):
            browser_rerun(ref_page, reference, value)
        for t in ts[1:]:
            try:
                page = open_page(context, app.url + t.path)
                if t.control == "page":
                    find_page_control(page, t)
                for i in range(n + 2):
                    ms = browser_rerun(page, t, t.values[i % 2])
                    ref_ms = browser_rerun(ref_page, reference, next(ref_values))
                    if i >= 2:
                        t.browser_ms.append(ms)
                        t.browser_ref_ms.append(ref_ms)
                page.close()
            except Exception as e:  # report the page, measure the rest
                t.error += f" browser: {type(e).__name__}: {str(e).splitlines()[0]}"
            if jax_loaded(app):
                t.jax.add("browser")
            reference.browser_ms += t.browser_ref_ms
        context.close()


class Session:
    """A websocket client on a fresh server session that replays rerun messages in turn."""

    def __init__(self, ws, reruns: list[bytes]):
        self.ws, self.reruns, self.i = ws, reruns, 0

    def start(self) -> None:
        """The session's first run: the whole page (a rerun message with no fragment, so a
        page part's later reruns find their part)."""
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg.FromString(self.reruns[0])
        msg.rerun_script.ClearField("fragment_id")
        self.reruns = [msg.SerializeToString(), *self.reruns]
        self.rerun()
        self.reruns, self.i = self.reruns[1:], 0

    def rerun(self) -> float:
        """Send the next rerun message; ms until its script_finished arrives. RuntimeError,
        once the run has finished, when it showed an exception or did not finish cleanly."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = self.reruns[self.i % len(self.reruns)]
        self.i += 1
        start, failed = time.perf_counter(), ""
        self.ws.send(msg)
        while True:
            fwd = ForwardMsg.FromString(self.ws.recv(timeout=WAIT_MS / 1e3))
            kind = fwd.WhichOneof("type")
            if kind == "delta" and fwd.delta.new_element.WhichOneof("type") == "exception":
                failed = failed or f"exception: {fwd.delta.new_element.exception.message}"
            if kind == "script_finished" and fwd.script_finished == fwd.FINISHED_EARLY_FOR_RERUN:
                continue  # cut short by the run it asked for (a callback rerunning parts)
            if kind == "script_finished":
                elapsed = (time.perf_counter() - start) * 1e3
                ok = {fwd.FINISHED_SUCCESSFULLY, fwd.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}
                if fwd.script_finished not in ok:
                    failed = failed or f"script finished with {fwd.script_finished}"
                if failed:
                    raise RuntimeError(failed)
                return elapsed


def run_server_phase(ts: list[Target], rounds: int) -> None:
    """Replay each page's reruns on fresh servers, round by round alternating with the
    reference's."""
    reference = ts[0]
    with (
        serve(ROOT / "app.py") as app,
        serve(reference.script) as ref,
        open_stream(ref.url) as ref_ws,
    ):
        ref_session = Session(ref_ws, reference.reruns)
        ref_session.start()
        for _ in range(3):  # the session's first run, then warm-up
            ref_session.rerun()
        for t in ts[1:]:
            if len(t.reruns) < 2:
                continue
            try:
                with open_stream(app.url) as ws:
                    page = Session(ws, t.reruns)
                    page.start()
                    for _ in range(3):
                        page.rerun()
                    for _ in range(rounds):
                        t.server_ms += [page.rerun() for _ in range(3)]
                        t.paired_ref_ms += [ref_session.rerun() for _ in range(3)]
            except Exception as e:  # report the page, measure the rest
                t.error += f" server: {type(e).__name__}: {e}"
            if jax_loaded(app):
                t.jax.add("server")
            reference.server_ms += t.paired_ref_ms
