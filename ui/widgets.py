"""URL-bound widgets: every widget that defines a view is bound to the link.

Each wrapper binds its widget to the URL (bind="query-params") and checks the link's raw
value first: Streamlit drops an invalid value silently, so we say so with a visible notice,
shown at the top of the page (app.py).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import streamlit as st

from perfcore import format as fmt
from perfcore.model.chip import validate
from perfcore.model.chip.ops import PARAMS_RANGE, Param
from perfcore.model.llm.values import BITS, Precisions

NOTICES_KEY = "_url_notices"
# px: an input's width in a row of inputs (st.container(horizontal=True)), which wraps on a
# narrow screen; a column per input costs the browser twice the elements on every rerun.
INPUT = 170
# (label, link key, Precisions field) of each bit-width input.
PRECISION_INPUTS = (
    ("Weight", "weights", "weights"),
    ("Activation", "act", "activations"),
    ("KV cache", "kv", "kv"),
)


def reruns(*parts: str) -> dict:
    """A widget's keyword arguments for an input of a page part (st.fragment(key=...)): its
    change reruns these parts, in this order, and nothing else of the app: not the sidebar,
    not the page's other parts. A part that shows what others priced reads it from session
    state, so name it last."""
    return {"on_change": st.rerun, "args": (list(parts),)}


def reset_notices() -> None:
    """Start this run with no URL notices."""
    st.session_state[NOTICES_KEY] = []


def show_notices() -> None:
    """Render this run's notices about link values that fell back to defaults."""
    for text in st.session_state.get(NOTICES_KEY, []):
        st.warning(text, icon=":material/link_off:")


def _notice(key: str, raw: object, expected: str, shown: object) -> None:
    """Record that the link's value for `key` was not usable, and what is shown instead."""
    given = str(raw).replace("`", "")[:60]
    now = f"{shown:g}" if isinstance(shown, float) else shown
    text = f"The link's `{key}={given}` was ignored (expected {expected}); showing {now}."
    st.session_state.setdefault(NOTICES_KEY, []).append(text)


def _raw(key: str) -> str | list[str] | None:
    """The link's raw value for `key` (a list when repeated), or None."""
    if key not in st.query_params:
        return None
    values = st.query_params.get_all(key)
    return values[0] if len(values) == 1 else values


def choice(label: str, options: Sequence, key: str, default=None, widget=None, **kw):
    """A URL-bound single choice (selectbox by default; st.radio or st.select_slider too)."""
    options, raw = list(options), _raw(key)
    default = options[0] if default is None else default
    widget = widget or st.selectbox
    if widget is st.select_slider:
        kw["value"] = default
    else:
        kw["index"] = options.index(default)
    value = widget(label, options, key=key, bind="query-params", **kw)
    if raw is not None and raw not in [str(o) for o in options]:
        _notice(key, raw, "one of the listed options", value)
    return value


def multi(label: str, options: Sequence, key: str, default: Sequence, **kw) -> list:
    """A URL-bound multiselect (repeated ?key=a&key=b in the link)."""
    raw = _raw(key)
    given = [raw] if isinstance(raw, str) else raw or []
    value = st.multiselect(
        label, options, default=list(default), key=key, bind="query-params", **kw
    )
    if any(v not in [str(o) for o in options] for v in given):
        _notice(key, ", ".join(given), "values from the listed options", ", ".join(value))
    return value


def number(label: str, key: str, default: float, lo: float, hi: float, integer: bool = True, **kw):
    """A URL-bound number input in [lo, hi]; an integer unless `integer` is False.

    Integers use a float widget shown without decimals: Streamlit's integer widget
    crashes on a link value of inf or 1e999 before any check of ours can run.
    """
    raw = _raw(key)
    if integer:
        kw = {"step": 1.0, "format": "%.0f", **kw}
    value = st.number_input(
        label,
        min_value=float(lo),
        max_value=float(hi),
        value=float(default),
        key=key,
        bind="query-params",
        **kw,
    )
    value = round(value) if integer else value
    if raw is not None:
        try:
            validate.number(raw, key, lo, hi, integer)
        except validate.InputError:
            _notice(key, raw, validate.expected(lo, hi, integer), value)
    return value


# What the browser lets through a count's box before it is sent: digits, a decimal point, an
# exponent, one suffix parse_count reads (the server checks the rest, and a link's text).
COUNT_TEXT = (
    r"^\s*[0-9][0-9,_]*(\.[0-9]*)?([eE][+-]?[0-9]+)?\s*(k|K|M|G|T|P|E|Ki|Mi|Gi|Ti)?\s*$",
    "A number, with a suffix if you like: 16Mi, 15T, 1.5e13 or 16,777,216.",
)


def count(label: str, key: str, default: float, lo: float, hi: float, integer: bool = True, **kw):
    """A URL-bound count in [lo, hi] typed and shown readably ('15T', '16Mi', '1.5e13');
    where the text is not one, an error naming the field and what was expected, and the
    default in its place."""
    text = st.text_input(
        label, fmt.count(default), key=key, bind="query-params", validate=COUNT_TEXT, **kw
    )
    try:
        value = validate.number(fmt.parse_count(text), label, lo, hi, integer)
    except validate.InputError:
        whole = "a whole number" if integer else "a number"
        wanted = f"{whole} from {fmt.count(lo)} to {fmt.count(hi)}, e.g. {fmt.count(default)}"
        said = validate.InputError(label, str(text)[:40], wanted)
        st.error(f"{said}; showing {fmt.count(default)}.", width="stretch")
        return default
    return int(value) if integer else value


def param_count(label: str, key: str, default: float = 7e9, **kw) -> float:
    """A URL-bound model size in parameters, 1M to 10T, typed and shown readably ('7G', '70G',
    '1.5T' or 7e9; count)."""
    kw.setdefault("help", "Parameters, e.g. 7G (7 billion), 70G, 1.5T or 7e9.")
    return count(label, key, default, *PARAMS_RANGE, integer=False, **kw)


def size(param: Param, key: str):
    """A URL-bound number input for one catalog op size."""
    style = {} if param.integer else {"format": "%.4g"}
    return number(
        param.name, key, param.default, param.lo, param.hi, param.integer, help=param.help, **style
    )


def numbers(
    params: Sequence[Param],
    labels: dict,
    prefix: str,
    defaults: dict | None = None,
    readable: Collection[str] = (),
):
    """URL-bound inputs, ui.INPUT wide, one per Param (key: prefix + name): name -> value; the
    Params named in `readable` typed as counts ('15T', ui.count), the rest number inputs."""
    given = defaults or {}

    def drawn(p: Param):
        """The value of p's input."""
        args = labels[p.name], prefix + p.name, given.get(p.name, p.default), p.lo, p.hi
        if p.name in readable:
            return count(*args, p.integer, help=f"{p.help}: e.g. 16Mi, 15T, 1.5e13", width=INPUT)
        style = {} if p.integer else {"format": "%.4g"}
        return number(*args, p.integer, help=p.help, width=INPUT, **style)

    return {p.name: drawn(p) for p in params}


def precisions(prefix: str, default: Precisions) -> Precisions:
    """URL-bound bits of weights, activations and KV cache (keys prefix + weights_bits, ...)."""
    bits = [
        choice(f"{what} bits", BITS, f"{prefix}{key}_bits", getattr(default, field), width=INPUT)
        for what, key, field in PRECISION_INPUTS
    ]
    return Precisions(*bits)


def tabs(parts: dict[str, Callable[[], object]], key: str, linked: dict | None = None) -> None:
    """URL-bound tabs, label -> the part that draws it, of which only the open one is drawn:
    a page of parts a reader takes one at a time sends the browser one part a rerun, not all.

    The open tab is the link's ?key=label; a link without one opens the first tab whose
    inputs (`linked`: label -> widget keys) it sets, so a link made before the tabs opens on
    the part it set; else the first tab.
    """
    labels, raw = list(parts), _raw(key)
    default = next((t for t, keys in (linked or {}).items() if link_sets(keys)), labels[0])
    shown = st.tabs(labels, key=key, default=default, bind="query-params")
    if raw is not None and raw not in labels:
        _notice(key, raw, "one of the tabs' names", st.session_state.get(key, default))
    for tab, part in zip(shown, parts.values(), strict=True):
        if tab.open:
            with tab:
                part()


def link_sets(keys: Collection[str]) -> bool:
    """True where the page's link sets any of `keys`: a part drawn only on demand (a tab, a
    toggled group of inputs) opens on a link that set what it holds."""
    return bool(set(st.query_params) & set(keys))


def toggle(label: str, key: str, default: bool = False, **kw) -> bool:
    """A URL-bound toggle (?key=true / ?key=false)."""
    raw = _raw(key)
    value = st.toggle(label, value=default, key=key, bind="query-params", **kw)
    if raw is not None and raw not in ("true", "false"):
        _notice(key, raw, "true or false", value)
    return value
