"""A page's pricing, guarded once: a user's error shown as the clear line it is, a bug logged.

priced(where, fn, ...) gives fn's value, or the line to show in its place: a UserError
(LayoutError, NotPublished, InputError, ...) in the page's words, a bug as report_bug's notice
with its traceback in the server log. refused(data) shows that line. Pages cache priced(...) per
input, so a refusal is remembered as well as a result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from perfcore.errors import UserError, report_bug

T = TypeVar("T")


def priced(
    where: str, fn: Callable[..., T], *args, say: Callable[[UserError], str] = str
) -> T | str:
    """fn(*args), or instead the line to show: say(e) for a user error, a bug's notice (logged
    with its traceback) for anything else."""
    try:
        return fn(*args)
    except UserError as e:
        return say(e)
    except Exception:  # noqa: BLE001 - a bug, not the input: logged with its traceback, said as one
        return report_bug(where)


def refused(data: object) -> bool:
    """True, once it is shown as an error, when `data` is the line priced() gave for numbers."""
    if isinstance(data, str):
        st.error(data)
        return True
    return False
