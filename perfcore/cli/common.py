"""What every subcommand shares: the parser class, name lookup, flags, the --out probe, and
the one place where errors become exit statuses.

A user's mistake (a bad name or value, an unreadable or malformed file, a figure the device
does not publish) is one line on stderr and exit 2. Anything else is a bug: it propagates
with its traceback, never dressed up as a user's error.
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from perfcore.errors import UserError
from perfcore.measure.experiments.suites import DeviceMemoryError


class UsageError(Exception):
    """A bad name or value on the command line; exit status 2."""


# What a user can cause and fix, each with a message naming the flag, file or field.
USER_ERRORS = (UsageError, UserError, DeviceMemoryError)


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the fix, not the whole usage text."""

    def error(self, message: str):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def closest(value: str, valid) -> str:
    """A one-line 'unknown X; did you mean ...' message."""
    near = difflib.get_close_matches(value, list(valid), n=3, cutoff=0.4)
    hint = ", ".join(near) if near else ", ".join(list(valid)[:8])
    return f"{value!r}; closest valid: {hint}"


def pick(kind: str, value: str, valid) -> str:
    """value if it is among `valid`, else UsageError with the closest names."""
    if value not in valid:
        raise UsageError(f"unknown {kind} {closest(value, valid)}")
    return value


def flag(name: str) -> str:
    """The command-line flag of a parameter: d_head -> --d-head."""
    return "--" + name.replace("_", "-")


def to_json(result: dict) -> str:
    """result as strict JSON: a non-finite number becomes null, never a bare NaN."""

    def clean(v):
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [clean(x) for x in v]
        return v

    return json.dumps(clean(result), indent=2, allow_nan=False)


def default_out(command: str) -> Path:
    """results/<command>-<UTC time>.json under the working directory."""
    return Path("results") / f"{command}-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"


def out_path(raw: str | None, command: str, suffixes=(".json", ".csv")) -> Path:
    """The results file to write, checked before any work starts: its suffix, and that it
    can be written there (parents made; a new file is created and removed, an existing one
    opened for appending, so nothing is lost). UsageError naming --out otherwise."""
    out = Path(raw) if raw else default_out(command)
    if out.suffix.lower() not in suffixes:
        raise UsageError(f"--out {out}: expected a file name ending in {' or '.join(suffixes)}")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        existed = out.exists()
        with out.open("a"):
            pass
        if not existed:
            out.unlink()
    except OSError as e:
        raise UsageError(f"--out {out}: cannot write there: {e.strerror or e}") from None
    return out


def guarded(work: Callable[[], str]) -> int:
    """Print work()'s text, exit 0; a user's error or an unreadable file is one line, exit 2."""
    try:
        out = work()
    except USER_ERRORS as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: cannot read {e.filename or 'the file'}: {e.strerror}", file=sys.stderr)
        return 2
    print(out)
    return 0
