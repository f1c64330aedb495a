"""measure.experiments.registry: every experiment resolves to a public function, with no JAX loaded.

Fast tier: nothing here imports JAX (a subprocess checks it) and nothing runs an experiment.
"""

import ast
import importlib
import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path

from perfcore.measure.experiments import registry

REGISTRY_SOURCE = Path(registry.__file__).read_text()


def test_every_entry_resolves_by_its_public_name_to_its_runner():
    """A runner is found again as module.name: public, top level, of a perfcore.measure module."""
    assert len(registry.EXPERIMENTS) == 13
    for name, experiment in registry.EXPERIMENTS.items():
        runner = experiment.runner
        assert inspect.isfunction(runner), name
        assert runner.__module__.startswith("perfcore.measure.experiments."), name
        assert not runner.__name__.startswith("_") and runner.__qualname__ == runner.__name__
        found = getattr(importlib.import_module(runner.__module__), runner.__name__)
        assert found is runner, name
        assert list(inspect.signature(runner).parameters) == ["env"], name


def _runner_names() -> list[tuple[str, str]]:
    """(module, function) of each Experiment(...) call in registry.py's source: the 3rd argument."""
    calls = [
        n
        for n in ast.walk(ast.parse(REGISTRY_SOURCE))
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Experiment"
    ]
    return [(c.args[2].value.id, c.args[2].attr) for c in calls]


def test_each_runner_the_source_names_is_defined_in_its_module():
    """Read without importing (find_spec + AST): a renamed or removed function fails here."""
    named = _runner_names()
    assert len(named) == len(registry.EXPERIMENTS)
    for module, function in named:
        origin = importlib.util.find_spec(f"perfcore.measure.experiments.{module}").origin
        tree = ast.parse(Path(origin).read_text())
        defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert function in defined, f"{module}.{function}"


def test_the_registry_and_its_experiment_modules_load_no_jax():
    code = (
        "import sys, perfcore.measure.experiments.registry as r\n"
        "assert all(e.runner for e in r.EXPERIMENTS.values())\n"
        "sys.exit('jax' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
