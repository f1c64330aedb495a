"""Save a full-page PNG of one dashboard page, as a user would see it after opening a link.

    .venv/bin/python bench/screenshot.py OUT.png [--page roofline] [--query precision=fp8]

Starts `streamlit run app.py` on a free port, opens the page in headless Chromium, waits
until the run has finished and every chart is drawn, grows the window to the page's full
height (Streamlit scrolls inside its main container, so a plain full-page shot would stop
at the fold) and saves the PNG.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from live import VIEWPORT, chromium, new_context, open_page, serve, wait_idle  # noqa: E402

FULL_HEIGHT_JS = """() => Math.max(...['stMain', 'stAppViewContainer', 'stSidebarContent']
  .map(id => document.querySelector(`[data-testid="${id}"]`))
  .filter(Boolean).map(e => e.scrollHeight), document.body.scrollHeight)"""


def screenshot(out: Path, page_path: str, query: str) -> None:
    """Write the PNG of `page_path`?`query` to `out`."""
    with serve("app.py") as server, chromium() as browser:
        context = new_context(browser)
        url = f"{server.url}/{page_path}" + (f"?{query}" if query else "")
        page = open_page(context, url)
        height = page.evaluate(FULL_HEIGHT_JS) + 40
        page.set_viewport_size({"width": VIEWPORT["width"], "height": height})
        wait_idle(page, 0, f"{url} at full height")
        page.screenshot(path=str(out), full_page=True)
        context.close()


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="where to write the PNG")
    ap.add_argument("--page", default="roofline", help="URL path of the page (default roofline)")
    ap.add_argument("--query", default="", help="the link's query string, e.g. precision=fp8")
    args = ap.parse_args(argv)
    screenshot(args.out, args.page.strip("/"), args.query.lstrip("?"))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
