"""The results file's schema, kept on the dataclass fields it describes.

column() is dataclasses.field() with the field's file kind (which parser reads it), its
description (docs/results-format.md's table) and its column name where that differs from
the attribute; columns() reads them back, in field order, for perfcore.measure.results.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any


def column(kind: str, doc: str, *, name: str = "", optional: bool = False, **field: Any) -> Any:
    """A dataclass field carrying its results-file kind, description and column name."""
    metadata = {"kind": kind, "doc": doc, "column": name, "optional": optional}
    return dataclasses.field(metadata=metadata, **field)


@dataclass(frozen=True)
class Column:
    """One column of the results file: its name, attribute, kind, description, optional."""

    name: str
    attr: str
    kind: str
    doc: str
    optional: bool


def columns(cls: type) -> list[Column]:
    """The columns of a dataclass's fields, from their schema.column metadata."""
    return [
        Column(
            f.metadata["column"] or f.name,
            f.name,
            f.metadata["kind"],
            f.metadata["doc"],
            f.metadata["optional"],
        )
        for f in dataclasses.fields(cls)
    ]
