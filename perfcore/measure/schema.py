"""The results file's schema, kept on the dataclass fields it describes.

column() is dataclasses.field() with the field's file kind (which parser reads it), its
description (docs/results-format.md's table) and its column name where that differs from
the attribute; perfcore.measure.results reads them back with dataclasses.fields().
"""

from __future__ import annotations

import dataclasses
from typing import Any


def column(kind: str, doc: str, *, name: str = "", optional: bool = False, **field: Any) -> Any:
    """A dataclass field carrying its results-file kind, description and column name."""
    metadata = {"kind": kind, "doc": doc, "column": name, "optional": optional}
    return dataclasses.field(metadata=metadata, **field)
