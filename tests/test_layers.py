"""Import contracts for every layer, read from the source (AST, every import, lazy ones too).

pages (app.py, app_pages/) -> ui -> figures -> explain -> measure -> model, with format and
errors usable by all, the package itself (the stable API, which loads perfcore.profile from
measure on first use) above measure, and the command line beside ui, below the pages.
Nothing imports upward. Streamlit is for ui and the pages, Plotly for figures and above,
JAX for measure. bench/ and the tests share code through tests.support, never
through sys.path edits, and no module imports a test module or conftest.

Inside model, measure, explain and figures, rooms by job: model runs -> plans -> llm ->
chip; measure experiments -> (results, the capture reader) -> clock and profile -> results ->
clock, profile itself split into predict -> (run, examples) -> judge -> (read, hlo); explain
and figures plans -> llm -> chip and measure -> chip. And no import circle anywhere, between
layers, rooms or two modules of one room.
"""

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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
# room -> the rooms of its own layer it may import besides itself (a package's __init__ is
# its room's); a module of model or measure outside a room is refused by the first test
ROOMS = {
    "model.chip": set(),
    "model.llm": {"model.chip"},
    "model.plans": {"model.llm", "model.chip"},
    "model.runs": {"model.plans", "model.llm", "model.chip"},
    "measure.clock": set(),
    "measure.results": {"measure.clock"},
    "measure.experiments": {"measure.results", "measure.clock", "measure.profile.read"},
    "measure.profile.read": set(),
    "measure.profile.hlo": set(),
    "measure.profile.judge": {
        "measure.profile.read",
        "measure.profile.hlo",
        "measure.results",
        "measure.clock",
    },
    "measure.profile": {
        "measure.profile.judge",
        "measure.profile.read",
        "measure.profile.hlo",
        "measure.results",
        "measure.clock",
    },
    "measure.profile.predict": {
        "measure.profile",
        "measure.profile.judge",
        "measure.profile.read",
        "measure.profile.hlo",
        "measure.results",
        "measure.clock",
    },
    "explain.chip": set(),
    "explain.llm": {"explain.chip"},
    "explain.plans": {"explain.llm", "explain.chip"},
    "explain.measure": {"explain.chip"},
    "figures.chip": set(),
    "figures.llm": {"figures.chip"},
    "figures.plans": {"figures.llm", "figures.chip"},
    "figures.measure": {"figures.chip"},
}


ROOMED = tuple(["perfcore", layer] for layer in ("model", "measure", "explain", "figures"))
# rooms split again by job: a module of one of these is in its sub-room where ROOMS has one
# (measure.profile.read), else in the room itself (measure.profile.run)
SPLIT = {"measure.profile"}


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


def imported(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, dotted name) of every import in the tree; `from perfcore import format` names
    perfcore.format where perfcore/format.py exists."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            base = ROOT.joinpath(*node.module.split("."))
            subs = [
                f"{node.module}.{a.name}"
                for a in node.names
                if (base / f"{a.name}.py").exists() or (base / a.name).is_dir()
            ]
            found += [(node.lineno, n) for n in subs or [node.module]]
    return found


@functools.cache
def imports_of(source: str) -> tuple[tuple[int, str], ...]:
    """imported(...) of the module whose text is `source`, parsed once a session."""
    return tuple(imported(ast.parse(source)))


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


@functools.cache
def modules() -> dict[str, Path]:
    """Every first-party module of the repository, by dotted name."""
    found = {}
    for top in ("perfcore", "ui", "app_pages", "bench", "scripts", "tests"):
        for path in sorted((ROOT / top).rglob("*.py")):
            found[".".join(path.relative_to(ROOT).with_suffix("").parts)] = path
    for single in ("app", "dev"):
        found[single] = ROOT / f"{single}.py"
    return found


def room(module: str) -> str | None:
    """The room (model.chip, measure.clock, explain.plans, ...) of a perfcore.model, measure
    or explain or figures module, else None (the layer's own __init__ is in none)."""
    parts = module.split(".")
    if not (parts[:2] in ROOMED and len(parts) > 2 and parts[2] != "__init__"):
        return None
    own = ".".join(parts[1:3])
    deeper = ".".join(parts[1:4])
    return deeper if own in SPLIT and deeper in ROOMS else own


def room_problems(module: str, source: str) -> list[str]:
    """Each import of `source` (the module called `module`) into a room its room may not use."""
    own, out = room(module), []
    for line, name in imports_of(source):
        target = room(name)
        same_layer = own and target and own.split(".")[0] == target.split(".")[0]
        if same_layer and target != own and target not in ROOMS[own]:
            out.append(f"{module}:{line} ({own}) imports {name} ({target})")
    return out


def graph() -> dict[str, set[str]]:
    """module -> the first-party modules it imports (lazily too), by dotted name."""
    mods = modules()
    return {
        m: {n for _, n in imports_of(path.read_text()) if n in mods and n != m}
        for m, path in mods.items()
    }


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected set of more than one module (Tarjan): each is an import circle."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while not group or group[-1] != v:
                group.append(stack.pop())
                on.discard(group[-1])
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_every_module_is_in_a_layer():
    assert {m for m in modules() if layer(m) is None} == set()


def test_every_model_measure_and_explain_module_is_in_a_room():
    tops = tuple(f"perfcore.{layer}.__init__" for _, layer in ROOMED)
    ours = [m for m in modules() if m.startswith(tuple(f"perfcore.{x}." for _, x in ROOMED))]
    ours = [m for m in ours if m not in tops]
    assert [m for m in ours if room(m) not in ROOMS] == []


def test_every_room_imports_only_the_rooms_below_it():
    found = [p for m, path in modules().items() for p in room_problems(m, path.read_text())]
    assert found == []


def test_no_import_circle_anywhere():
    assert circles(graph()) == []


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("perfcore.model.chip.roofline", "from perfcore.model.llm import workloads"),
        ("perfcore.model.plans.search", "def f():\n    from perfcore.model.runs import published"),
        ("perfcore.model.llm.phases", "from perfcore.model.plans.layout import Layout"),
        ("perfcore.measure.clock.stats", "from perfcore.measure.results import Record"),
        (
            "perfcore.measure.profile.judge.join",
            "from perfcore.measure.experiments import registry",
        ),
        ("perfcore.measure.experiments.env", "from perfcore.measure.profile import hlo"),
    ],
)
def test_an_import_into_a_higher_room_is_reported(module, source):
    """The room checker can fail: each of these imports upward or sideways."""
    (problem,) = room_problems(module, source)
    assert module in problem


def test_a_circle_is_found():
    """Two modules that import each other, and a longer loop, are each one circle."""
    edges = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c", "a"}, "f": {"a"}}
    assert circles(edges) == [["a", "b"], ["c", "d", "e"]]


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
