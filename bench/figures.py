"""Chart draw cost: every figure builder's chart drawn by Plotly.js in headless Chromium, as
a multiple of a one-trace reference chart drawn in the same run.

    .venv/bin/python -m bench.figures [--n 8] [BUILDER ...]

Each figure (tests/support/figures.py's BUILDERS: every builder with representative
inputs, light theme) is drawn with Plotly.newPlot into a fresh div at the width it is laid out
for (style.FIT_WIDTH, or HALF_WIDTH for a builder made @fitted(width=HALF_WIDTH)), N times;
the median is shown against the reference's (pages.py's sine of 200 points). Streamlit draws a
chart this way on every rerun that changes it (it mounts a new one), so this is the chart's
share of a page's browser rerun.

Two columns per figure: as built (margins from style.fit_margins) and with the margins put
back to base_layout's, leaving the room to Plotly's automargin, which draws the figure, finds
a margin too small and draws it all again. "twice" marks a figure whose margins Plotly still
had to grow as built; the script exits 1 when there is one (tests/test_browser.py checks the
same on the live pages).

Plotly.js is the plotly package's own bundle (plotly/package_data/plotly.min.js), loaded from
a file: no network. About 30 s on 2 cores.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import plotly
import plotly.graph_objects as go
import plotly.io as pio

import perfcore.figures as figures
from perfcore.figures.chip import style
from perfcore.model.chip.specs import load_specs
from tests.support.figures import BUILDERS
from tests.support.live import chromium

ROOT = Path(__file__).resolve().parent.parent
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
UNFITTED = {"margin": {"l": 60, "r": 30, "t": 50, "b": 40}}  # base_layout's own margins
# Draw `spec` n times into a fresh div `width` px wide: the times, and the margins given and
# those Plotly settled on (l, r, t, b).
DRAW_JS = """async ([spec, width, n]) => {
  const g = document.getElementById('g'); g.style.width = width + 'px';
  const f = JSON.parse(spec), ms = [];
  for (let i = 0; i < n + 1; i++) {
    Plotly.purge(g);
    const t = performance.now();
    await Plotly.newPlot(g, f.data, f.layout, {displaylogo: false});
    g.getBoundingClientRect();
    ms.push(performance.now() - t);
  }
  const m = g._fullLayout.margin, s = g._fullLayout._size;
  return {ms: ms.slice(1), given: [m.l, m.r, m.t, m.b],
          settled: [s.l, s.r, s.t, s.b].map(Math.round)};
}"""


def reference() -> go.Figure:
    """pages.py's reference chart: one go.Scatter of 200 points, Plotly's defaults."""
    x = np.linspace(0, 1, 200)
    return go.Figure(go.Scatter(x=x, y=np.sin(2 * np.pi * 5 * x)))


def draw(page, fig: go.Figure, width: int, n: int) -> tuple[float, bool]:
    """Median ms of n draws of `fig` at `width` px, and whether Plotly grew its margins."""
    r = page.evaluate(DRAW_JS, [pio.to_json(fig, validate=False), width, n])
    grown = any(s > g for s, g in zip(r["settled"], r["given"], strict=True))
    return statistics.median(r["ms"]), grown


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=8, help="draws per figure")
    ap.add_argument("builders", nargs="*", help=f"names from {', '.join(BUILDERS)}")
    args = ap.parse_args(argv)
    unknown = sorted(set(args.builders) - set(BUILDERS))
    if unknown:
        ap.error(f"no builder {', '.join(unknown)}: expected one of {', '.join(BUILDERS)}")
    started = time.monotonic()
    specs = load_specs(ROOT / "data" / "specs.csv")
    names = args.builders or list(BUILDERS)
    twice = []
    with tempfile.TemporaryDirectory() as tmp, chromium() as browser:
        html = Path(tmp) / "draw.html"
        html.write_text(f'<div id="g"></div><script src="{PLOTLY_JS.as_uri()}"></script>')
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(html.as_uri())
        ref_ms = [draw(page, reference(), style.FIT_WIDTH, args.n)[0]]
        print(f"{'figure':<28}{'width':>6}{'as built':>18}{'automargin alone':>26}")
        for name in names:
            fig = BUILDERS[name](specs, style.LIGHT)
            width = _builder(name).fit_width
            ms, grown = draw(page, fig, width, args.n)
            alone, _ = draw(page, go.Figure(fig).update_layout(UNFITTED), width, args.n)
            ref = ref_ms[-1]
            twice += [name] if grown else []
            mark = "twice" if grown else ""
            print(
                f"{name:<28}{width:>6}{ms:>9.1f} ms {ms / ref:>5.1f}x"
                f"{alone:>15.1f} ms {alone / ref:>5.1f}x  {mark}"
            )
            ref_ms.append(draw(page, reference(), style.FIT_WIDTH, args.n)[0])
    print(
        f"(reference: median {statistics.median(ref_ms):.1f} ms, drawn between the figures;"
        f" each ratio against the one just before; {args.n} draws each)"
    )
    if twice:
        print(f"drawn twice as built: {', '.join(twice)}")
    print(f"took {time.monotonic() - started:.0f} s")
    return 1 if twice else 0


def _builder(name: str):
    """The builder function called `name` (BUILDERS' keys are the builders' names), from
    whichever module of perfcore.figures defines it."""
    modules = [
        importlib.import_module(m.name)
        for m in pkgutil.walk_packages(figures.__path__, "perfcore.figures.")
    ]
    return next(getattr(m, name) for m in modules if hasattr(m, name))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
