"""Why a page shows no numbers, in its own words: a user error said for the control it names.

A LayoutError names a layout field: the page says it by its control's label, with the value
and why. A NotPublished names the device and the figure it lacks. Any other UserError (an
InputError, a file's problems) is its own message.
"""

from __future__ import annotations

from collections.abc import Mapping

from perfcore.errors import NotPublished, UserError
from perfcore.model.plans.layout import LayoutError


def refusal(e: UserError, labels: Mapping[str, str] | None = None) -> str:
    """The line a page shows for a user error (markdown), its field by `labels` where named."""
    if isinstance(e, LayoutError):
        label = (labels or {}).get(e.field, e.field)
        value = f"{e.value:,}" if isinstance(e.value, int) else e.value
        return f"**{label}** = {value} {e.why}."
    if isinstance(e, NotPublished):
        return f"Cannot price this on {e.device}: {e}."
    return f"{e}."
