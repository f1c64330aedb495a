"""Errors a user can cause, each carrying what it names; and how a bug is reported instead.

UserError is what a surface (a page, the command line) shows as it is: a file that cannot be
loaded (FileProblems: the file's label and every problem), a number out of range (InputError:
the field, the value given and what was expected), a figure a device does not publish
(NotPublished: the device and the fields). Anything else is a bug: report_bug logs it with its
traceback and says "something went wrong" and where, never the bug's own text as advice.
"""

from __future__ import annotations

import logging

LOG = logging.getLogger("perfcore")


class UserError(ValueError):
    """Something the user gave or chose that cannot be used; its message is for them."""


class FileProblems(UserError):
    """A file that cannot be loaded; the message lists every problem found, one per line."""

    def __init__(self, label: str, problems: list[str]):
        self.label = str(label)
        self.problems = list(problems)
        listing = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{self.label}: {len(self.problems)} problem(s)\n{listing}")


class InputError(UserError):
    """A number a user gave that is not usable: the field, the value given, what was expected."""

    def __init__(self, field: str, given: str, expected: str):
        self.field, self.given, self.expected = field, given, expected
        super().__init__(f"{field} = {given!r} is not usable: expected {expected}")


class NotPublished(UserError):
    """A figure `device` does not publish (Device attributes in `fields`, any one would do)."""

    def __init__(self, device: str, fields: tuple[str, ...], words: str, needed_for: str = ""):
        self.device, self.fields, self.words = device, tuple(fields), words
        tail = f" {needed_for}" if needed_for else ""
        super().__init__(f"{device} publishes no {words}{tail}")


def report_bug(where: str) -> str:
    """Log the exception being handled, with its traceback; the line to show in its place."""
    LOG.exception("bug in %s", where)
    return (
        f"Something went wrong in {where}. This is a bug in perfcore, not in what you "
        "gave it: its traceback is in the server log."
    )
