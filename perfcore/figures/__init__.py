"""One go.Figure builder per chart: pure functions, no streamlit, no I/O.

In rooms as explain is: chip (the single-chip pages, and style and roofs that every chart
shares), llm (Workloads, Scale-out, memory), plans (the Plan page), measure (the Measure and
Profile pages); plans may import llm and chip, llm and measure chip. Import builders from
here. Figures stay lean (two points per roof line) because every rerun re-sends them to the
browser.
"""

from perfcore.figures.chip.generations import growth_figure, ridge_by_year_figure
from perfcore.figures.chip.hierarchy import hierarchy_figure
from perfcore.figures.chip.occupancy import occupancy_sawtooth_figure, tile_efficiency_figure
from perfcore.figures.chip.pitfalls import faster_chip_figure
from perfcore.figures.chip.precision import precision_bars_figure, precision_roofline_figure
from perfcore.figures.chip.roofline import roofline_figure
from perfcore.figures.llm.scale_out import scale_out_figure
from perfcore.figures.measure.measure import (
    ceilings_figure,
    dispatch_figure,
    pairs_figure,
    spread_figure,
    sweep_figure,
)
from perfcore.figures.measure.measure_roofline import measured_roofline_figure
from perfcore.figures.measure.predicted import predicted_figure
from perfcore.figures.measure.profile import (
    category_figure,
    compare_figure,
    profile_roofline_figure,
)

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
