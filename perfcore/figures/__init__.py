"""One go.Figure builder per chart: pure functions, no streamlit, no I/O.

Split by page so each module stays short; import builders from here. Figures stay
lean (two points per roof line) because every rerun re-sends them to the browser.
"""

from perfcore.figures.roofline import roofline_figure

__all__ = ["roofline_figure"]
