"""The repository's first-party modules and their imports, read from the source (AST, every
import, lazy ones too): what the layer contract (tests/test_layers.py) and the room contract
(tests/test_rooms.py) both read."""

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


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
