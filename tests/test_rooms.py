"""Rooms by job inside model, measure, explain and figures, read from the source: model runs
-> plans -> llm -> chip; measure experiments -> (results, the capture and HLO readers) -> clock and
profile -> results -> clock, profile itself split into predict -> (run, examples) -> judge ->
(read, hlo); explain and figures plans -> llm -> chip and measure -> chip. And no import circle
anywhere, between layers, rooms or two modules of one room."""

import pytest

from tests.support.imports import circles, graph, imports_of, modules

# room -> the rooms of its own layer it may import besides itself (a package's __init__ is
# its room's); a module of model or measure outside a room is refused by the first test
ROOMS = {
    "model.chip": set(),
    "model.llm": {"model.chip"},
    "model.plans": {"model.llm", "model.chip"},
    "model.runs": {"model.plans", "model.llm", "model.chip"},
    "measure.clock": set(),
    "measure.results": {"measure.clock"},
    # the capture reader for traced kernels, the HLO reader for a LAPACK point's custom calls
    "measure.experiments": {
        "measure.results",
        "measure.clock",
        "measure.profile.read",
        "measure.profile.hlo",
    },
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
        ("perfcore.measure.experiments.env", "from perfcore.measure.profile.judge import join"),
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
