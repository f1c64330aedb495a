"""What one element costs a rerun in the browser: synthetic pages against the one-chart reference.

    .venv/bin/python -m bench.element_cost [--n 8] [KIND:COUNT:CHANGES ...]

Each synthetic page is one number input (the page's own control, typed and Enter, as
`bench.pages --control page` changes a page's first input) above COUNT elements of one KIND
(chart: a go.Scatter of 200 points; df: a 20-row st.dataframe; md: a paragraph; metric:
st.metric), whose content follows the input where CHANGES is 1 and stays as it was where 0.
Timed as bench.pages times a page (bench.reruns.browser_rerun: from the rerun message leaving
the page to its script_finished arriving), each change alternating with one on the reference
(bench.reruns.REFERENCE: one slider, one chart) in a tab beside it; printed as median(page) /
median(those paired reference changes). Default configurations: chart:1:1 (the reference's
content under the page control), chart:4:1, chart:4:0, df:4:1, md:20:1, md:20:0, metric:10:1.
Run only when the machine is quiet.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
from pathlib import Path

from bench.reruns import REFERENCE, Target, browser_rerun
from tests.support.live import chromium, new_context, open_page, serve

PAGE = """import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

q = st.query_params
kind, count, changes = q.get("kind", "chart"), int(q.get("count", 1)), q.get("changes") == "1"
n = st.number_input("N", 1, 100, 5, key="n")
f = n if changes else 5
x = np.linspace(0, 1, 200)
for i in range(count):
    if kind == "chart":
        st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.sin(2 * np.pi * (f + i) * x))), key=f"c{i}")
    elif kind == "df":
        st.dataframe(pd.DataFrame({"a": np.arange(20) * f, "b": np.arange(20.0) + i}))
    elif kind == "md":
        st.markdown(f"Paragraph {i} at **{f}**: " + "word " * 30)
    elif kind == "metric":
        st.metric(f"m{i}", f"{f * i} ms")
"""
DEFAULT = ("chart:1:1", "chart:4:1", "chart:4:0", "df:4:1", "md:20:1", "md:20:0", "metric:10:1")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=8, help="changes per page (after two to warm up)")
    ap.add_argument("configs", nargs="*", default=list(DEFAULT), help="KIND:COUNT:CHANGES")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        ref_script, page_script = Path(tmp) / "reference.py", Path(tmp) / "page.py"
        ref_script.write_text(REFERENCE)
        page_script.write_text(PAGE)
        ref = Target("reference", ref_script, None, "/", "freq", (30, 20))
        with serve(ref_script) as rs, serve(page_script) as ps, chromium() as browser:
            context = new_context(browser)
            ref_page = open_page(context, rs.url + "/")
            ref_values = itertools.cycle(ref.values)
            print(f"{'page':<14} {'rerun':>9} {'reference':>10} {'ratio':>6}")
            for config in args.configs:
                kind, count, changes = config.split(":")
                url = f"{ps.url}/?kind={kind}&count={count}&changes={changes}"
                page = open_page(context, url)
                t = Target(config, page_script, None, "/", "n", ("10", "5"), "page")
                mine, theirs = [], []
                for i in range(args.n + 2):
                    ms = browser_rerun(page, t, t.values[i % 2])
                    ref_ms = browser_rerun(ref_page, ref, next(ref_values))
                    if i >= 2:
                        mine.append(ms)
                        theirs.append(ref_ms)
                page.close()
                a, b = statistics.median(mine), statistics.median(theirs)
                print(f"{config:<14} {a:>7.1f}ms {b:>8.1f}ms {a / b:>5.2f}x", flush=True)


if __name__ == "__main__":
    main()
