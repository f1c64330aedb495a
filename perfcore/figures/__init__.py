"""One go.Figure builder per chart: pure functions, no streamlit, no I/O.

Split by page so each module stays short; import builders from here. Figures stay
lean (two points per roof line) because every rerun re-sends them to the browser.
"""

from perfcore.figures.generations import growth_figure, ridge_by_year_figure
from perfcore.figures.hierarchy import hierarchy_figure
from perfcore.figures.measure import (
    ceilings_figure,
    dispatch_figure,
    pairs_figure,
    spread_figure,
    sweep_figure,
)
from perfcore.figures.measure_roofline import measured_roofline_figure
from perfcore.figures.occupancy import occupancy_sawtooth_figure, tile_efficiency_figure
from perfcore.figures.pitfalls import faster_chip_figure
from perfcore.figures.precision import precision_bars_figure, precision_roofline_figure
from perfcore.figures.predicted import predicted_figure
from perfcore.figures.profile import category_figure, compare_figure, profile_roofline_figure
from perfcore.figures.roofline import roofline_figure
from perfcore.figures.scale_out import scale_out_figure

__all__ = [
    "measured_roofline_figure",
    "category_figure",
    "compare_figure",
    "profile_roofline_figure",
    "ceilings_figure",
    "dispatch_figure",
    "faster_chip_figure",
    "growth_figure",
    "hierarchy_figure",
    "occupancy_sawtooth_figure",
    "pairs_figure",
    "precision_bars_figure",
    "predicted_figure",
    "precision_roofline_figure",
    "ridge_by_year_figure",
    "roofline_figure",
    "tile_efficiency_figure",
    "scale_out_figure",
    "spread_figure",
    "sweep_figure",
]
