"""One check for every number a user gives: a command-line flag, a link's value, an upload.

A value is usable when it parses as a finite number inside [lo, hi] and, where the field
counts things, is whole. Anything else raises InputError, whose message is one line naming
the field, the value as given and the range expected.
"""

from __future__ import annotations

import math

from perfcore.errors import InputError
from perfcore.model.chip.ops import Param

__all__ = ["InputError", "expected", "number", "param"]


def expected(lo: float, hi: float, integer: bool = True) -> str:
    """The range in words: 'an integer from 1 to 16,777,216' or 'a number from 1e+06 to 1e+13'."""
    if integer:
        return f"an integer from {lo:,.0f} to {hi:,.0f}"
    return f"a number from {lo:g} to {hi:g}"


def number(raw: object, field: str, lo: float, hi: float, integer: bool = True) -> float:
    """raw as a float in [lo, hi] (whole when `integer`); InputError naming `field` otherwise."""
    try:
        value = float(str(raw).strip())
    except ValueError:
        value = math.nan
    finite = math.isfinite(value)
    if finite and lo <= value <= hi and (value.is_integer() or not integer):
        return value
    given = str(raw).strip().replace("\n", " ")[:40]
    raise InputError(field, given, expected(lo, hi, integer))


def param(p: Param, raw: object, field: str | None = None) -> float:
    """raw checked against catalog size `p` (its lo, hi and integer); int-valued when integer."""
    value = number(raw, field or p.name, p.lo, p.hi, p.integer)
    return int(value) if p.integer else value
