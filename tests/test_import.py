"""`import perfcore` stays light, and the layout holds: perfcore.model is the stdlib-only
arithmetic and imports nothing from perfcore.measure (or the display layers above it)."""

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import perfcore.model

HEAVY = ("streamlit", "plotly", "jax")
MODEL_DIR = Path(perfcore.model.__file__).parent
MODEL_MODULES = sorted(
    m.name for m in pkgutil.walk_packages([str(MODEL_DIR)], "perfcore.model.") if not m.ispkg
)


def test_import_perfcore_imports_no_ui_plotting_or_jax():
    code = (
        "import sys, perfcore, perfcore.cli, perfcore.explain.chip.roofline, "
        "perfcore.measure.results;"
        f"print([m for m in sys.modules if m.split('.')[0] in {HEAVY!r}])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_model_is_stdlib_only_and_never_loads_measure():
    modules = ", ".join(MODEL_MODULES)
    code = (
        f"import sys, {modules}; "
        "bad = [m for m in sys.modules if m.startswith(('perfcore.measure', 'perfcore.explain', "
        "'perfcore.figures')) or m.split('.')[0] in ('numpy', 'pandas', 'jax', 'plotly', "
        "'streamlit')]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_model_module_names_measure_in_its_imports():
    for name in MODEL_MODULES:
        path = MODEL_DIR.joinpath(*name.split(".")[2:]).with_suffix(".py")
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("perfcore.measure"), (name, node.module)
                assert node.module.split(".")[0] != "numpy", (name, node.module)


def test_model_package_holds_the_arithmetic():
    rooms = {
        "chip.specs",
        "chip.roofline",
        "chip.ops",
        "chip.comm",
        "llm.workloads",
        "plans.layout",
    }
    assert {f"perfcore.model.{m}" for m in rooms} <= set(MODEL_MODULES)
