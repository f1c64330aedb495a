"""The page's theme and its charts: each figure built once per input, in the page's theme.

The sidebar finds the theme at the start of each run (shell.sidebar); chart() builds a
figure through one figure builder, remembered for every session, and plot() draws it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import plotly.graph_objects as go
import streamlit as st

from perfcore.figures.chip.style import LIGHT, THEMES, Theme

THEME_KEY = "_perfcore_theme"
# No Plotly logo; a phone gets the same tools as a laptop.
CHART_CONFIG = {"displaylogo": False}


def active_theme() -> Theme:
    """The page's theme now: the configured one (theme.base) on a session's first run, whose
    request the browser sends before the server has told it that theme, then the browser's."""
    first = THEME_KEY not in st.session_state
    kind = (first and st.get_option("theme.base")) or st.context.theme.type
    return THEMES.get(kind, LIGHT)


def theme() -> Theme:
    """The chart theme matching the page, as the sidebar found it for this run."""
    return st.session_state.get(THEME_KEY) or active_theme()


def chart(key: str, builder: Callable[..., go.Figure], *args, **kw) -> None:
    """builder(*args, **kw) in the page's theme, at the container's width, built once per input.

    theme=None: Streamlit's own chart theme would repaint the builder's colours.
    """
    args = tuple(tuple(a) if isinstance(a, list) else a for a in args)
    named = tuple(sorted({**kw, "theme": theme()}.items()))
    try:
        fig = _figure(builder, args, named)
    except TypeError:  # an unhashable input (a dict): build it every time
        fig = builder(*args, **dict(named))
    plot(key, fig)


def plot(key: str, fig: go.Figure) -> None:
    """A figure already built in the page's theme, at the container's width."""
    st.plotly_chart(fig, key=key, theme=None, width="stretch", config=CHART_CONFIG)


# Figures by input, shared by every session: building one costs more than the rest of most
# reruns (plotly validates every property), and a user goes back and forth between views.
# Not st.cache_data: it pickles the figure, and unpickling rebuilds and revalidates it. The
# cached figure is never changed: st.plotly_chart serialises a copy.
@functools.lru_cache(maxsize=256)
def _figure(builder: Callable[..., go.Figure], args: tuple, named: tuple) -> go.Figure:
    """builder(*args, **dict(named)), remembered."""
    return builder(*args, **dict(named))
