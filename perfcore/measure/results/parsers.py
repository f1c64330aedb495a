"""Parsers for the results file's field kinds: JSON values or CSV text in, typed values out.

Each parser takes one raw value and returns it typed, or raises ValueError saying what was
expected; perfcore.measure.results picks a parser by each column's kind.
"""

from __future__ import annotations

import math
from datetime import datetime

from perfcore.measure.clock.harness import METHODS
from perfcore.model.chip.specs import PRECISIONS

FLOPS_SOURCES = ("cost_analysis", "model", "shapes", "")
SIZE_KINDS = ("", "side", "elements", "bytes", "flops")


def _name(value) -> str:
    """The value as non-empty text."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError("non-empty text")
    return value


def _text(value) -> str:
    """The value as text; None is empty."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError("text")
    return value


def _timestamp(value) -> str:
    """The value, when it is an ISO 8601 time stamp with a UTC offset."""
    try:
        stamp = datetime.fromisoformat(_name(value))
    except ValueError:
        raise ValueError("an ISO 8601 time stamp, e.g. 2025-01-31T12:00:00+00:00") from None
    if stamp.tzinfo is None:
        raise ValueError("a time stamp with a UTC offset (+00:00)")
    return value


def _shape(value) -> tuple[int, ...]:
    """One shape from '1024x1024', '()' or a JSON list."""
    if isinstance(value, str):
        value = [] if value == "()" else value.split("x")
    if not isinstance(value, list):
        raise ValueError("a shape")
    return tuple(_count(v, 0) for v in value)


def shapes(value) -> tuple[tuple[int, ...], ...]:
    """Shapes from '1024x1024;1024x1024' or a JSON list of lists."""
    if isinstance(value, str):
        value = value.split(";") if value else []
    if not isinstance(value, list):
        raise ValueError("shapes like '1024x1024;1024x1024' (JSON: [[1024, 1024], ...])")
    try:
        return tuple(_shape(v) for v in value)
    except ValueError:
        raise ValueError("shapes like '1024x1024;1024x1024' (JSON: [[1024, 1024], ...])") from None


def _number(value) -> float:
    """The value as a finite float >= 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError("a number")
    try:
        number = float(value)
    except ValueError:
        raise ValueError("a number") from None
    if not math.isfinite(number) or number < 0:
        raise ValueError("a finite number >= 0")
    return number


def _amount(value) -> float | None:
    """A finite float >= 0, or None for an empty cell or null."""
    return None if value is None or value == "" else _number(value)


def _samples(value) -> tuple[float, ...]:
    """Seconds per call, from space-separated text or a JSON list."""
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, list) or not value:
        raise ValueError("at least one sample, finite seconds >= 0")
    try:
        return tuple(_number(v) for v in value)
    except ValueError:
        raise ValueError("samples that are finite seconds >= 0") from None


def _count(value, minimum: int) -> int:
    """The value as an integer >= minimum."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"an integer >= {minimum}")
    return value


def _bool(value) -> bool:
    """True or False, from a JSON bool or 'true'/'false'."""
    flags = {True: True, False: False, "true": True, "false": False}
    if not isinstance(value, (bool, str)) or value not in flags:
        raise ValueError("true or false")
    return flags[value]


def _notes(value) -> tuple[str, ...]:
    """Notes from a JSON list of one-line strings or CSV text, one note per line."""
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        value = value.splitlines()
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError("a list of non-empty one-line notes")
    if any(len(v.splitlines()) != 1 for v in value):
        raise ValueError("notes of one line each")
    return tuple(value)


def _choice(options: tuple[str, ...]):
    """A parser accepting exactly one of options."""

    def parse(value) -> str:
        if value not in options:
            raise ValueError("one of " + ", ".join(repr(o) for o in options))
        return value

    return parse


PARSERS = {
    "name": _name,
    "text": _text,
    "timestamp": _timestamp,
    "shapes": shapes,
    "precision": _choice(("", *PRECISIONS)),
    "amount": _amount,
    "flops_source": _choice(FLOPS_SOURCES),
    "samples": _samples,
    "count1": lambda v: _count(v, 1),
    "count0": lambda v: _count(v, 0),
    "count": lambda v: None if v is None or v == "" else _count(v, 1),
    "method": _choice(METHODS),
    "bool": _bool,
    "derived": _amount,
    "size_kind": _choice(SIZE_KINDS),
    "notes": _notes,
}
