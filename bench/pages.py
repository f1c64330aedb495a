"""Page cost: each page's rerun time as a multiple of a one-slider, one-Plotly-line page.

    .venv/bin/python -m bench.pages [--rounds 6] [--browser-n 8] [--apptest-n 15]
                                    [--paint-rounds 3] [--control sidebar|page] [PAGE ...]

The reference page (one st.slider, one go.Scatter of 200 points) is written to a temp dir
and measured in the same run as app.py's pages (in app.py's order), three ways, each shown
as page / reference. Absolute times vary ~10 % between runs on these machines; ratios
measured together do not (PERFORMANCE.md). Both apps are served by `streamlit run` from
the repository root, so both get its .streamlit/config.toml.

1. AppTest: AppTest.from_file, switch to the page, change the sidebar Precision, time
   at.run(); min of N. In-process and without the live server's post-run gc.collect(2),
   so it understates a live rerun, the tiny reference's most of all; shown, not gated.
2. browser: one server per app, headless Chromium. A widget change (the sidebar Precision,
   bf16 <-> fp16, on every page of app.py, a rerun of the whole app; or with --control page
   the page's own first number input, its value <-> twice it, typed and Enter, which on a
   page made of parts (st.fragment) reruns that part alone; a click on the reference
   slider's track, 20 <-> 30) is timed in the page from the WebSocket send of its rerun
   message to the page receiving the ForwardMsg script_finished, on which the front end drops the
   "running" indicator. Includes the browser's handling of the deltas that arrive first
   (drawing the charts). Each change alternates with one on the reference, open in a tab
   beside the page's, and the ratio is median(page) / median(those paired reference
   changes): a page measured late in the run, when the browser has grown or the machine is
   busier, is compared with the reference at that time (drift of 1.3x within one run was
   seen when the reference was timed only before and after all pages).
3. server: the rerun messages the browser sent in (2) are replayed with the websockets
   client on fresh servers: time from sending a rerun_script BackMsg to receiving the
   ForwardMsg script_finished; no browser work is in it. It does hold the post-run
   gc.collect(2): that runs on the script thread holding the GIL, so script_finished
   leaves after it (most of the reference's time is that gc). Reruns go back to back, as
   for a user moving a control. Each page's rounds alternate with the reference's (one
   session on its own server), and its ratio is against those paired reference reruns, so
   drift hits both alike. Median of rounds x 3. This is the server-side rerun time and the
   gate: every page within 3x the reference (--gate picks another column, --limit another
   ratio: issue 9 asks `--gate browser --limit 1.5`).

The app's rerun cost depends on the server process, not only the page: perfcore imports JAX
on first use and then gc.freeze()s the heap, which makes every later post-run gc, on every
page, cheaper. So pages are measured in app.py's order on servers that start clean, and a
page measured while its server had JAX loaded (seen in /proc/PID/maps) is marked "JAX".

4. first paint (first_paint.py): the Measure page opened on a fresh server against the
   roofline page, until its first run is drawn; Measure must paint before JAX is imported.

The three rerun measurements are in reruns.py; the server, the browser and the page probe come
from tests/support/live.py, shared with the end-to-end tests.

Prints a table and PASS/FAIL per page; exits 1 on any FAIL or any page that raised.
About 2-3 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench import first_paint
from bench.reruns import (
    REFERENCE,
    Target,
    measure_apptest,
    run_browser_phase,
    run_server_phase,
    targets,
)

LIMIT = 3.0


def report(ts: list[Target], gate: str, limit: float = LIMIT) -> int:
    """Print the table; 1 when a page fails the gate or could not be measured."""
    ref = ts[0]
    columns = {
        "apptest": (lambda t: t.apptest_ms, lambda t: ref.apptest_ms),
        "browser": (lambda t: _median(t.browser_ms), lambda t: _median(t.browser_ref_ms)),
        "server": (lambda t: _median(t.server_ms), lambda t: _median(t.paired_ref_ms)),
    }
    titles = ("AppTest rerun (min)", "browser rerun (median)", "server rerun (median)")
    print(f"\n{'page':<12}" + "".join(f"{h:>24}" for h in titles) + f"   {gate} <= {limit:g}x")
    failed = 0
    for t in ts:
        cells, verdict = "", ""
        for name, (value, base) in columns.items():
            ms = value(t)
            ratio = ms / base(t) if t is not ref else float("nan")
            cells += f"{ms:>10.1f} ms " + (f"{ratio:>7.1f}x   " if t is not ref else " " * 11)
            if name == gate and t is not ref:
                ok = not t.error and ratio <= limit
                failed += not ok
                verdict = "PASS" if ok else "FAIL"
        jax = f"JAX ({', '.join(sorted(t.jax))})" if t.jax else ""
        changed = f"changed {t.key}" if t is not ref else ""
        print(f"{t.name:<12}{cells}{verdict} {changed} {jax} {t.error[:300]}".rstrip())
    n_browser = max(len(t.browser_ms) for t in ts[1:])
    n_server = max(len(t.server_ms) for t in ts[1:])
    print(
        f"(page / reference, the reference's column its median over the run. browser: median "
        f"of {n_browser}, server: median of {n_server}, each against as many paired reference "
        "reruns. JAX: the server had JAX loaded and its heap frozen)"
    )
    return 1 if failed else 0


def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=6, help="server rounds per page (3 reruns each)")
    ap.add_argument("--browser-n", type=int, default=8, help="widget changes per page in Chromium")
    ap.add_argument("--apptest-n", type=int, default=15, help="AppTest reruns per page")
    ap.add_argument("--gate", choices=["server", "browser", "apptest"], default="server")
    ap.add_argument("--paint-rounds", type=int, default=3, help="first paints per page (0: none)")
    ap.add_argument("--limit", type=float, default=LIMIT, help="the gate's ratio (default 3)")
    ap.add_argument(
        "--control",
        choices=["sidebar", "page"],
        default="sidebar",
        help="what each page changes: the sidebar Precision, or the page's "
        "first number input (AppTest always changes the sidebar)",
    )
    ap.add_argument("pages", nargs="*", help="page script stems to measure (default: all)")
    args = ap.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        reference = Path(tmp) / "reference.py"
        reference.write_text(REFERENCE)
        try:
            ts = targets(reference, args.pages, args.control)
        except ValueError as e:
            ap.error(str(e))
        for t in ts:
            print(f"AppTest {t.name} ...", flush=True)
            try:
                measure_apptest(t, args.apptest_n)
            except Exception as e:  # report the page, measure the rest
                t.error = f"AppTest: {type(e).__name__}: {e}"
        print("browser ...", flush=True)
        run_browser_phase(ts, args.browser_n)
        print("server (websocket replay, fresh servers) ...", flush=True)
        run_server_phase(ts, args.rounds)
    rc = report(ts, args.gate, args.limit)
    if args.paint_rounds:
        print(first_paint.report(first_paint.measure(args.paint_rounds)))
    print(f"took {time.monotonic() - started:.0f} s")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
