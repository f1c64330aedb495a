"""The Plan page's pricing, ranked tables, charts and published runs, each once per input
(ui.cache.per_input: shared by every session, read-only): the search of a 1,024-GPU plan is
the page's one costly step, and a rerun that changes none of its inputs does not repeat it.
"""

from __future__ import annotations

from perfcore.explain.plans import plan as view
from perfcore.explain.plans import plan_layouts as layouts
from perfcore.explain.plans import plan_runs
from perfcore.explain.plans import plan_serve as serve
from perfcore.figures.plans import plan as charts
from perfcore.figures.plans import plan_runs as runs_chart
from ui.cache import per_input
from ui.loaders import published_runs
from ui.refusals import priced as guarded


@per_input()
def runs(model_name: str, device_name: str, setup, theme) -> tuple:
    """The published runs this setup is held against, their chart and table."""
    h = plan_runs.held(*published_runs(), model_name, device_name, setup)
    fig = runs_chart.published_runs_figure(h.runs, h.nearest, h.efficiencies, theme)
    return h, fig, plan_runs.runs_table(list(h.nearest))


@per_input()
def priced(model, device, setup) -> view.TrainView | serve.ServeView | str:
    """The page's numbers for one input; or the line saying why none."""
    price = view.train_view if isinstance(setup, view.TrainSetup) else serve.serve_view
    where = f"the Plan page, pricing {model.name} on {device.name}"
    args = model, device, setup, published_runs()[1]
    return guarded(where, price, *args, say=view.refusal_text)


@per_input()
def table(model, device, setup):
    """The ranked table of priced(...): layouts that fit, or serving plans."""
    data, train = priced(model, device, setup), isinstance(setup, view.TrainSetup)
    return layouts.layouts_table(data) if train else serve.plans_table(data)


@per_input(128)
def figure(model, device, setup, which: str, theme):
    """The chart `which` of priced(...)."""
    return charts.page_figure(priced(model, device, setup), which, theme)
