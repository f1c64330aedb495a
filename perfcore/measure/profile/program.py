"""A user's own program, loaded from a Python file: `FILE.py:FUNCTION`, where FUNCTION() returns
(fn, args), a function (jitted or not) and the tuple of arguments to call it with (anything
but a tuple is its one argument).

The file is run as a module of its own (its directory first on the import path while it
loads, so its neighbours import); what it raises while loading, or FUNCTION raises while
building the program, is the user's code's and is said as such, with the exception's type and
text. Nothing runs the program here: profile and predict do.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from perfcore.errors import InputError, UserError

FLAG = "--program"
FORM = "FILE.py:FUNCTION, a Python file and the function in it that returns (fn, args)"


@dataclass(frozen=True)
class Program:
    """A loaded program: its name (FILE.py:FUNCTION), function and arguments."""

    name: str
    fn: Callable
    args: tuple


def _module(path: Path, given: str):
    """The file run as a module (its folder first on sys.path while it loads)."""
    spec = importlib.util.spec_from_file_location(f"perfcore_program_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise InputError(FLAG, given, f"{FORM}: {path.name} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # the user's code, not ours
        raise UserError(
            f"{FLAG} {given}: loading {path.name} raised {type(e).__name__}: {e}"
        ) from e
    finally:
        sys.path.remove(str(path.parent))
    return module


def load_program(given: str) -> Program:
    """The program FILE.py:FUNCTION names; InputError or UserError saying what is wrong."""
    file, sep, name = given.rpartition(":")
    if not sep or not file or not name.isidentifier():
        raise InputError(FLAG, given, FORM)
    path = Path(file)
    if not path.is_file():
        raise InputError(FLAG, given, f"{FORM}: no file {file}")
    module = _module(path, given)
    make = getattr(module, name, None)
    if not callable(make):
        defined = sorted(
            k for k, v in vars(module).items() if callable(v) and not k.startswith("_")
        )
        raise InputError(
            FLAG,
            given,
            f"a function {name} in {path.name} (it has: {', '.join(defined) or 'none'})",
        )
    try:
        built = make()
    except Exception as e:  # the user's code, not ours
        raise UserError(f"{FLAG} {given}: {name}() raised {type(e).__name__}: {e}") from e
    if not (isinstance(built, tuple | list) and len(built) == 2 and callable(built[0])):
        got = type(built).__name__
        raise InputError(FLAG, given, f"{name}() to return (fn, args), got a {got}")
    fn, args = built
    args = args if isinstance(args, tuple) else (args,)  # anything else is one argument
    return Program(f"{path.name}:{name}", fn, args)
