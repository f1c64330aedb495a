"""How every page reads in a real browser, in each theme, on a laptop (1400 px) and a phone
(420 px): no error element, formulas that render, metric values not cut short, charts in the
theme's background and drawn once, nothing scrolling sideways or overlapping at a phone's
width, and no table falling back from Arrow. One `streamlit run app.py` per theme
(`--theme.base`), one browser context per theme, each page visited once; tests/test_browser.py
says when a page counts as ready.
"""

from __future__ import annotations

import contextlib

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from perfcore.figures.chip.style import THEMES
from tests.support.live import (
    PINNED,
    app_pages,
    assert_no_error_element,
    new_context,
    open_page,
    serve,
)

WAIT_MS = 45_000
PAGES = [path for _, path in app_pages()]
BACKGROUNDS = {name: t.background for name, t in THEMES.items()}  # each theme's charts
NARROW = {"width": 420, "height": 900}
ARROW_FALLBACK = ("Could not convert", "ArrowTypeError", "ArrowInvalid", "Arrow table")
# Metric values cut short: the value element or anything in it wider than its box, by even one
# pixel (both widths are whole pixels; 224 in 223 already shows the ellipsis).
OVERFLOWING_METRICS_JS = """() => [...document.querySelectorAll('[data-testid="stMetricValue"]')]
  .filter(m => [m, ...m.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth))
  .map(m => m.innerText)"""
CHART_BACKGROUNDS_JS = """() => [...document.querySelectorAll('.js-plotly-plot')]
  .map(e => (e._fullLayout || {}).paper_bgcolor)"""
# Charts whose margins Plotly had to grow after a first draw (then it draws them again):
# style.fit_margins sizes them beforehand for a laptop's width.
CHARTS_DRAWN_TWICE_JS = """() => [...document.querySelectorAll('.js-plotly-plot')]
  .filter(e => e._fullLayout && ['l', 'r', 't', 'b'].some(k =>
    Math.round(e._fullLayout._size[k]) > e._fullLayout.margin[k]))
  .map(e => [e._fullLayout.title.text, e._fullLayout.margin, e._fullLayout._size])"""
# At a phone's width: the main block must not scroll sideways, every chart must be drawn no
# wider than the main block, and no two controls may overlap.
NARROW_PROBLEMS_JS = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const box = main.getBoundingClientRect(), problems = [];
  if (main.scrollWidth > main.clientWidth + 1 || document.documentElement.scrollWidth >
      window.innerWidth + 1) problems.push(`main scrolls sideways: ${main.scrollWidth} px`);
  for (const c of main.querySelectorAll('[data-testid="stPlotlyChart"]')) {
    const svg = c.querySelector('.main-svg'), r = c.getBoundingClientRect();
    if (!svg || r.right > box.right + 1 || svg.getBoundingClientRect().width > r.width + 1)
      problems.push(`a chart is ${svg && svg.getBoundingClientRect().width} px in ${r.width}`);
  }
  const controls = [...main.querySelectorAll('[data-testid="stNumberInput"], ' +
    '[data-testid="stSelectbox"], [data-testid="stMultiSelect"], [data-testid="stRadio"], ' +
    '[data-testid="stSlider"], [data-testid="stCheckbox"], [data-testid="stButton"]')]
    .map(e => [e, e.getBoundingClientRect()]).filter(([, r]) => r.width && r.height);
  const label = (e) => e.innerText.split('\\n')[0];
  for (const [i, [a, p]] of controls.entries()) for (const [b, q] of controls.slice(i + 1)) {
    const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
    const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
    if (w > 1 && h > 1 && !a.contains(b) && !b.contains(a))
      problems.push(`controls overlap: ${label(a)} / ${label(b)}`);
  }
  return problems;
}"""
# Resizing redraws the charts and tables without a script run: wait until each chart fits
# its box again and each table its column (a table resizes a frame or more after the page).
CHARTS_FIT_JS = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
  .every(c => c.offsetParent === null || (c.querySelector('.main-svg') &&
    c.querySelector('.main-svg').getBoundingClientRect().width <=
    c.getBoundingClientRect().width + 1)) &&
  [...document.querySelectorAll('[data-testid="stDataFrame"]')].every(t =>
    t.getBoundingClientRect().right <= window.innerWidth + 1)"""


@pytest.fixture(scope="module", params=list(BACKGROUNDS))
def themed(request, browser, tmp_path_factory):
    """(theme, URL, context, log): a server started in the theme, its log, one context on it."""
    name = request.param
    log = tmp_path_factory.mktemp(f"streamlit_{name}") / "server.log"
    with serve("app.py", flags=(*PINNED, "--theme.base", name), log=log) as server:
        context = new_context(browser, WAIT_MS)
        yield name, server.url, context, log
        context.close()


@pytest.mark.parametrize("path", PAGES)
def test_every_page_reads_right_in_both_themes_wide_and_narrow(themed, path):
    name, url, context, log = themed
    page = open_page(context, url + path, WAIT_MS)
    try:
        where = f"{path} ({name} theme)"
        assert_no_error_element(page, where, log)
        katex = page.locator(".katex-error").all_inner_texts()
        assert not katex, f"{where}: formulas that do not render: {katex}"
        cut = page.evaluate(OVERFLOWING_METRICS_JS)
        assert not cut, f"{where}: metric values cut short at 1400 px: {cut}"
        backgrounds = set(page.evaluate(CHART_BACKGROUNDS_JS))
        assert backgrounds <= {BACKGROUNDS[name]}, (
            f"{where}: charts not in the theme: {backgrounds}"
        )
        twice = page.evaluate(CHARTS_DRAWN_TWICE_JS)
        assert not twice, f"{where}: charts drawn twice to fit their margins at 1400 px: {twice}"
        page.set_viewport_size(NARROW)
        with contextlib.suppress(PlaywrightTimeout):  # what still does not fit is said below
            page.wait_for_function(CHARTS_FIT_JS, polling=100, timeout=10_000)
        problems = page.evaluate(NARROW_PROBLEMS_JS)
        assert not problems, f"{where} at {NARROW['width']} px: {problems}"
        # The log holds every run since the server started: the last page checks them all.
        lines = log.read_text(errors="replace").splitlines()
        fallbacks = [line for line in lines if any(w in line for w in ARROW_FALLBACK)]
        assert not fallbacks, f"{where}: the server fell back from Arrow: {fallbacks[:5]}"
    finally:
        page.close()
