"""Save full-page PNGs of the dashboard's pages, in light and dark, as a user sees them.

    .venv/bin/python -m bench.screenshot [OUT_DIR] [--page roofline] [--query precision=fp8]
                                         [--theme light|dark|both] [--width 1400]

Writes OUT_DIR/<page>_<theme>.png (default OUT_DIR: build/screenshots, which git ignores) for
every page of app.py (or only --page), each theme from its own `streamlit run --theme.base`.
Each page is opened in headless Chromium, waited on until its run has finished and every chart
is drawn, then the window grows to the page's full height (Streamlit scrolls inside its main
container, so a plain full-page shot would stop at the fold) before the PNG is saved.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tests.support.live import PINNED, app_pages, chromium, new_context, open_page, serve, wait_idle

ROOT = Path(__file__).resolve().parent.parent
THEMES = ("light", "dark")
FULL_HEIGHT_JS = """() => Math.max(...['stMain', 'stAppViewContainer', 'stSidebarContent']
  .map(id => document.querySelector(`[data-testid="${id}"]`))
  .filter(Boolean).map(e => e.scrollHeight), document.body.scrollHeight)"""


def shoot(context, url: str, out: Path, width: int) -> None:
    """Write the full-height PNG of `url` to `out`."""
    page = open_page(context, url)
    height = page.evaluate(FULL_HEIGHT_JS) + 40
    page.set_viewport_size({"width": width, "height": height})
    wait_idle(page, 0, f"{url} at full height")
    page.screenshot(path=str(out), full_page=True)
    page.close()


def screenshots(out_dir: Path, paths: list[str], query: str, themes, width: int) -> list[Path]:
    """Every page in `paths` in every theme; the PNGs written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with chromium() as browser:
        for theme in themes:
            with serve(ROOT / "app.py", flags=(*PINNED, "--theme.base", theme)) as server:
                context = new_context(browser)
                for path in paths:
                    out = out_dir / f"{path.strip('/') or 'home'}_{theme}.png"
                    shoot(context, server.url + path + (f"?{query}" if query else ""), out, width)
                    written.append(out)
                context.close()
    return written


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, nargs="?", default=ROOT / "build" / "screenshots")
    ap.add_argument("--page", help="URL path of one page (default: every page of app.py)")
    ap.add_argument("--query", default="", help="the link's query string, e.g. precision=fp8")
    ap.add_argument("--theme", choices=[*THEMES, "both"], default="both")
    ap.add_argument("--width", type=int, default=1400, help="window width in px")
    args = ap.parse_args(argv)
    paths = ["/" + args.page.strip("/")] if args.page else [p for _, p in app_pages()]
    themes = THEMES if args.theme == "both" else (args.theme,)
    started = time.monotonic()
    written = screenshots(args.out, paths, args.query.lstrip("?"), themes, args.width)
    print("\n".join(f"wrote {p}" for p in written))
    print(f"took {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
