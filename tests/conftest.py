"""Shared fixtures (the bundled specs, loaded once) and the test tiers.

Tiers are markers given by file name, so a new test file lands in its tier by being named
as STYLE.md asks: `python3 dev.py test --fast` deselects every marked tier and runs the pure
core, explain and figure tests, each property test on FAST_EXAMPLES drawn inputs and each
per-device sweep on a few representative rows (the whole suite sweeps every row:
tests/test_sweep_*.py). Network tests run only with --network; browser tests skip,
saying how to install Chromium, where there is none, and fail where CI=true (a required tier).
"""

import functools
import os
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

from perfcore import load_specs
from tests.support.live import chromium
from tests.support.pages import ROUND_H100

# (file-name prefix, markers). A module importing the experiments' runner, env or classic is
# also jax.
TIERS = (
    ("test_browser", ("browser", "slow")),
    ("test_server", ("server", "slow")),
    ("test_ship", ("server", "slow")),
    ("test_page_", ("slow",)),
    ("test_app", ("slow",)),
    ("test_cli_process", ("slow",)),
    ("test_sweep_", ("slow",)),
    ("test_jax_", ("jax", "slow")),
    ("test_measure_", ("jax", "slow")),
)
MARKERS = {
    "slow": "starts a server, a browser, JAX, many AppTest runs or a sweep over every device "
    "(left out by --fast)",
    "browser": "drives headless Chromium (where absent: skipped saying how to install it; "
    "failed under CI=true)",
    "server": "serves the app with `streamlit run` or inspects how it is shipped",
    "network": "reaches PyPI, gigabytes for the CUDA wheels; runs only with --network",
    "jax": "runs JAX experiments (experiments.runner, env, classic) on its default device",
}
RUNS_JAX = re.compile(
    r"^\s*from perfcore\.measure\.experiments"
    r"(\.(runner|env|classic)\b| import [^\n]*\b(runner|env|classic)\b)",
    re.M,
)
FAST_EXAMPLES = 25
FAST = " and ".join(f"not {m}" for m in ("slow", "browser", "server", "network", "jax"))
NO_CHROMIUM = (
    "needs `chromium` on PATH: on Debian/Ubuntu `sudo apt-get install chromium`, on macOS "
    "`brew install --cask chromium` (then link its binary as `chromium`), on Windows "
    "`winget install Hibbiki.Chromium`"
)


def pytest_addoption(parser):
    parser.addoption("--network", action="store_true", help="also run the tests that reach PyPI")
    parser.addoption("--fast", action="store_true", help=f"only the untiered tests (-m '{FAST}')")


def pytest_configure(config):
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    if config.getoption("--fast"):
        config.option.markexpr = FAST
        # Property tests draw FAST_EXAMPLES inputs each in the quick loop; the whole suite (CI)
        # draws hypothesis's default 100 (or what a test's own @settings asks, if fewer).
        settings.register_profile("fast", max_examples=FAST_EXAMPLES)
        settings.load_profile("fast")


def pytest_ignore_collect(collection_path: Path, config):
    """With --fast, tiered modules are not even imported (JAX, Playwright, AppTest)."""
    name = collection_path.name
    if config.getoption("--fast") and name.startswith("test_") and name.endswith(".py"):
        return bool(tier(collection_path)) or None
    return None


@functools.cache
def tier(path: Path) -> tuple[str, ...]:
    """The markers a test module gets from its file name and its imports."""
    marks = {m for prefix, ms in TIERS if path.name.startswith(prefix) for m in ms}
    if RUNS_JAX.search(path.read_text()):
        marks.add("jax")
    return tuple(sorted(marks))


def pytest_collection_modifyitems(config, items):
    network = config.getoption("--network")
    for item in items:
        for name in tier(item.path):
            item.add_marker(name)
        if "network" in item.keywords and not network:
            item.add_marker(pytest.mark.skip(reason="reaches PyPI: run with --network"))


def pytest_runtest_setup(item):
    """A browser test where Chromium is missing: skipped saying how to install it, or, under
    CI=true, failed saying so (the browser tier is required there)."""
    if "browser" in item.keywords and shutil.which("chromium") is None:
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(f"CI=true and the browser tier cannot run: it {NO_CHROMIUM}")
        pytest.skip(NO_CHROMIUM)


@pytest.fixture(scope="session")
def specs():
    """Every device of data/specs.csv, by name."""
    return load_specs()


@pytest.fixture(scope="session")
def priced():
    """Every published run of data/runs.csv priced (published.priced_runs); read, never change."""
    from perfcore.model.runs.published import priced_runs

    return priced_runs()


@pytest.fixture(scope="session")
def by_name(priced):
    """The priced runs by row name."""
    return {s.run.name: s for s in priced.samples}


@pytest.fixture(scope="session")
def drawn(specs):
    """draw(name, theme) -> (figure, its Plotly JSON): each sample chart of
    tests.support.figures built once a session; read them, never change them."""
    from tests.support.figures import BUILDERS  # plotly only where a figure is drawn

    @functools.cache
    def draw(name: str, theme):
        fig = BUILDERS[name](specs, theme)
        return fig, fig.to_plotly_json()

    return draw


@pytest.fixture(scope="session")
def h100(specs):
    """The hand calculation's round-figures H100 SXM row (990 TFLOP/s, 3.35 TB/s)."""
    return specs[ROUND_H100]


@pytest.fixture(scope="module")
def browser():
    """Headless Debian Chromium under Playwright, one per module (a test needing it is marked
    browser by its file name: skipped or, under CI, failed where there is no Chromium)."""
    with chromium() as b:
        yield b
