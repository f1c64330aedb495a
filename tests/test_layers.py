"""Import contracts for every layer, read from the source (AST, every import, lazy ones too).

pages (app.py, app_pages/) -> ui -> figures -> explain -> measure -> model, with format and
errors usable by all, the package itself (the stable API, which loads perfcore.profile from
measure on first use) above measure, and the command line beside ui, below the pages.
Nothing imports upward. Streamlit is for ui and the pages, Plotly for figures and above,
JAX for measure. bench/ and the tests share code through tests.support, never
through sys.path edits, and no module imports a test module or conftest.

Rooms by job inside model, measure, explain and figures: tests/test_rooms.py.
"""

import ast

import pytest

from tests.support.imports import imports_of, modules

PRODUCT = ("format", "model", "measure", "api", "explain", "figures", "cli", "ui", "pages")
# layer -> the layers it may import besides its own
MAY_IMPORT = {
    "format": set(),
    "model": {"format"},
    "measure": {"model", "format"},
    "api": {"measure", "model", "format"},
    "explain": {"measure", "model", "format"},
    "figures": {"explain", "measure", "model", "format"},
    "cli": {"api", "explain", "measure", "model", "format"},
    "ui": {"api", "figures", "explain", "measure", "model", "format"},
    "pages": {"api", "ui", "figures", "explain", "measure", "model", "format"},
    "scripts": {"api", "cli", "explain", "measure", "model", "format"},
    "support": {*PRODUCT},
    "bench": {*PRODUCT, "support"},
    "tests": {*PRODUCT, "support", "bench"},
}
# third-party package -> the layers that may import it
HEAVY = {
    "streamlit": {"ui", "pages", "support", "bench", "tests"},
    "plotly": {"figures", "ui", "pages", "support", "bench", "tests"},
    "jax": {"measure", "scripts", "support", "bench", "tests"},
}
SUBPACKAGES = {"model", "measure", "explain", "figures"}


def layer(module: str) -> str | None:
    """The layer a dotted module name belongs to; None for a third-party or stdlib module."""
    parts = module.split(".")
    if parts[0] == "perfcore":
        sub = parts[1] if len(parts) > 1 else ""
        if sub in SUBPACKAGES:
            return sub
        if sub in ("format", "errors"):
            return "format"
        if sub.startswith(("cli", "llm_cli", "__main__")):
            return "cli"
        if sub in ("", "__init__"):
            return "api"  # perfcore: the stable API, model's names and a lazy profile()
        return "model"
    if parts[0] == "tests":
        return "support" if parts[1:2] == ["support"] else "tests"
    return {
        "ui": "ui",
        "app": "pages",
        "app_pages": "pages",
        "bench": "bench",
        "scripts": "scripts",
        "dev": "tests",
        "conftest": "tests",
    }.get(parts[0])


def problems(module: str, source: str) -> list[str]:
    """Each import of `source` (the module called `module`) that its layer may not make."""
    own, out = layer(module), []
    for line, name in imports_of(source):
        target, top = layer(name), name.split(".")[0]
        if target == "tests" and name != "tests":
            out.append(f"{module}:{line} imports a test module {name}: share it in tests.support")
        elif target is not None and target != own and target not in MAY_IMPORT[own]:
            out.append(f"{module}:{line} ({own}) imports {name} ({target})")
        if top in HEAVY and own not in HEAVY[top]:
            out.append(f"{module}:{line} ({own}) imports {top}")
    return out


def test_every_module_is_in_a_layer():
    assert {m for m in modules() if layer(m) is None} == set()


def test_every_module_imports_only_the_layers_below_it():
    found = [p for m, path in modules().items() for p in problems(m, path.read_text())]
    assert found == []


@pytest.mark.parametrize(
    ("module", "source", "says"),
    [
        ("perfcore.measure.results.points", "from perfcore.explain import home", "(explain)"),
        ("perfcore.model.chip.ops", "def f():\n    from perfcore import measure", "(measure)"),
        ("perfcore.explain.chip.roofline", "from perfcore.figures import style", "(figures)"),
        ("perfcore.figures.chip.style", "import ui", "(ui)"),
        ("perfcore.figures.chip.style", "import streamlit as st", "imports streamlit"),
        ("perfcore.explain.chip.home", "import plotly.graph_objects as go", "imports plotly"),
        ("ui", "from app_pages import home", "(pages)"),
        ("perfcore.cli", "import ui", "(ui)"),
        ("bench.pages", "from tests.test_app import PAGES", "a test module"),
        ("tests.test_app", "from conftest import run_page", "a test module"),
    ],
)
def test_an_upward_import_is_reported(module, source, says):
    """The checker itself can fail: each of these breaks the contract."""
    (problem,) = problems(module, source)
    assert says in problem and module in problem


def test_format_and_errors_are_usable_from_every_layer():
    for module in (
        "perfcore.model.chip.specs",
        "perfcore.measure.clock.harness",
        "ui",
        "app_pages.home",
    ):
        assert problems(module, "from perfcore import format as fmt\nimport perfcore.errors") == []


def _edits_sys_path(tree: ast.AST) -> bool:
    """True where the code touches sys.path (sys.path.insert, .append, assignment)."""
    return any(
        isinstance(n, ast.Attribute) and n.attr == "path" and getattr(n.value, "id", "") == "sys"
        for n in ast.walk(tree)
    )


def test_bench_and_tests_import_each_other_by_name_not_through_sys_path():
    ours = {m: path for m, path in modules().items() if m.startswith(("bench", "tests"))}
    edits = [m for m, path in ours.items() if _edits_sys_path(ast.parse(path.read_text()))]
    assert edits == []
