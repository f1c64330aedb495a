"""The dashboard's UI layer, one module per job; pages call these, then perfcore, then one
figure builder, and hold no arithmetic.

- cache: a page's pricing, tables and figures cached per input, keyed by value;
- charts: the page's theme, and each figure built once per input in it;
- loaders: the bundled CSVs, a user's uploads and results files, JAX's module on first need;
- widgets: URL-bound widgets, and the notices for link values that fell back to defaults;
- tables: tables in engineering units, SI downloads, the takeaway, where a spec comes from;
- measuring: a live measurement with its progress bar, its fault said, its records kept;
- refusals: a page's pricing guarded once: a user error said clearly, a bug logged;
- kernels: this session's kernel curves (the Measure page's run or an upload);
- profiling: the Profile page's bundled example, and this machine's quick roofline;
- planning: the Plan page's pricing, ranked tables, charts and published runs, per input;
- shell: the shared sidebar, what it chose for this run, the navigation's pages.

`import ui` gives all of them under one name (ui.number, ui.chart, ...).
"""

from ui.cache import per_input
from ui.charts import chart, plot, theme
from ui.kernels import kernel_curves
from ui.loaders import (
    folded,
    freeze_heap,
    hosted_mode,
    measurement_module,
    profile_file,
    published_runs,
    results_file,
    results_upload,
)
from ui.measuring import measure
from ui.profiling import (
    LIVE,
    bundled_example,
    live_records,
    page_view,
    profile_here,
    quick_roofs,
    roofs_choice,
)
from ui.refusals import priced, refused
from ui.shell import Context, context, models, pages, remember_pages, sidebar
from ui.tables import (
    metrics,
    results_download,
    si_table,
    spec_caption,
    table,
    table_csv,
    takeaway,
)
from ui.widgets import (
    INPUT,
    choice,
    count,
    link_sets,
    multi,
    number,
    numbers,
    param_count,
    precisions,
    reruns,
    reset_notices,
    show_notices,
    size,
    tabs,
    toggle,
)

__all__ = [
    "INPUT",
    "Context",
    "bundled_example",
    "kernel_curves",
    "live_records",
    "page_view",
    "LIVE",
    "chart",
    "choice",
    "context",
    "count",
    "link_sets",
    "tabs",
    "toggle",
    "folded",
    "freeze_heap",
    "hosted_mode",
    "measurement_module",
    "profile_file",
    "published_runs",
    "measure",
    "metrics",
    "models",
    "multi",
    "number",
    "pages",
    "per_input",
    "numbers",
    "param_count",
    "precisions",
    "priced",
    "profile_here",
    "quick_roofs",
    "refused",
    "plot",
    "remember_pages",
    "roofs_choice",
    "reruns",
    "reset_notices",
    "results_download",
    "results_file",
    "results_upload",
    "show_notices",
    "si_table",
    "sidebar",
    "size",
    "spec_caption",
    "table",
    "table_csv",
    "takeaway",
    "theme",
]
