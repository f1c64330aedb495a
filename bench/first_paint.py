"""First paint: a page opened in a new tab on a fresh server, until its first run is drawn.

The Measure page must not wait for JAX: its first paint is timed against the roofline
page's, each on its own fresh server (so no page inherits another's imports), which page
goes first alternating by round. Whether the server had JAX loaded after the paint is
noted (it must not have).
"""

from __future__ import annotations

import statistics
import time

from bench.reruns import (  # tests/support/live.py's
    ROOT,
    chromium,
    jax_loaded,
    new_context,
    open_page,
    serve,
)

PAGES = {"roofline": "/roofline", "measure": "/measure"}


def first_paint_ms(browser, path: str) -> tuple[float, bool]:
    """ms from opening path on a fresh server to its first run drawn; whether JAX loaded."""
    with serve(ROOT / "app.py") as app:
        context = new_context(browser)
        start = time.perf_counter()
        open_page(context, app.url + path).close()
        elapsed = (time.perf_counter() - start) * 1e3
        context.close()
        return elapsed, jax_loaded(app)


def measure(rounds: int) -> dict[str, tuple[float, bool]]:
    """Median first paint (ms) per page over rounds, and whether any paint loaded JAX."""
    times: dict[str, list[float]] = {name: [] for name in PAGES}
    jax: dict[str, bool] = dict.fromkeys(PAGES, False)
    with chromium() as browser:
        for i in range(rounds):
            for name, path in list(PAGES.items())[:: 1 if i % 2 else -1]:  # alternate who is first
                ms, loaded = first_paint_ms(browser, path)
                times[name].append(ms)
                jax[name] |= loaded
    return {name: (statistics.median(ms), jax[name]) for name, ms in times.items()}


def report(result: dict[str, tuple[float, bool]]) -> str:
    """One line: each page's first paint, and measure / roofline."""
    cells = [
        f"{name} {ms:.0f} ms{' (JAX loaded)' if jax else ''}" for name, (ms, jax) in result.items()
    ]
    ratio = result["measure"][0] / result["roofline"][0]
    return f"first paint, fresh server, median: {', '.join(cells)}; measure / roofline {ratio:.2f}x"
