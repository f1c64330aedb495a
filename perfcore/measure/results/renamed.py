"""Labels renamed since files were written: an old file's rows read under today's names.

The roofline experiment's x <- s*x kernel was labelled "copy" ("copy 16 KiB"); it is
STREAM's scale, and is labelled "scale" now. current() rewrites one raw row before it is
parsed, whatever the file's version.
"""

from __future__ import annotations

# (experiment, the old first word of a label) -> today's first word
RENAMED = {("roofline", "copy"): "scale"}


def current(row):
    """row with its label's first word renamed where RENAMED says so; anything else unchanged."""
    if not isinstance(row, dict) or not isinstance(row.get("label"), str):
        return row
    word, space, rest = row["label"].partition(" ")
    new = RENAMED.get((row.get("experiment"), word))
    return row if new is None else row | {"label": new + space + rest}
