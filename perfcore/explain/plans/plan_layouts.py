"""The Plan page's ranked training layouts as a table: the fastest that fit, each with its
fields, its step (bound; expected where published runs give an efficiency), MFU, rate and
memory per GPU, and a caption saying how many fit of how many priced.
"""

from __future__ import annotations

import pandas as pd

from perfcore.explain.plans import expected
from perfcore.explain.plans.plan import TrainView
from perfcore.model.plans.layout import Layout

TABLE_ROWS = 100  # the table's fastest layouts (every one that fits would send thousands)


def layouts_table(v: TrainView) -> pd.DataFrame:
    """One row per layout that fits, the fastest TABLE_ROWS first: its fields, step (expected
    with its band where published runs give an efficiency; bound), MFU, rate, memory per GPU."""
    plans = v.found.candidates[:TABLE_ROWS]
    df = pd.DataFrame(
        {
            "rank": range(1, len(plans) + 1),
            "layout": [p.layout.label() for p in plans],
            **{f: [getattr(p.layout, f) for p in plans] for f in Layout.__dataclass_fields__},
            "step (bound)": [p.step_s for p in plans],
            "step, DP not overlapped (bound)": [p.step_no_overlap_s for p in plans],
            "MFU (bound)": [p.mfu for p in plans],
            "rate (bound)": [p.tokens_per_s for p in plans],
            "memory per GPU": [p.memory_total for p in plans],
        }
    )
    df.attrs["units"] = {
        "step (bound)": "seconds",
        "step, DP not overlapped (bound)": "seconds",
        "MFU (bound)": "percent",
        "rate (bound)": "tokens_per_s",
        "memory per GPU": "capacity",
    }
    if v.table:  # no column of blanks without published runs
        cells = [(v.cell(p), p) for p in plans]
        bands = [expected.train_band(e, p) for e, p in cells]
        columns = {
            "step (expected)": [expected.train_step(e, p) for e, p in cells],
            "expected, low (p90)": [low for low, _ in bands],
            "expected, high (p90)": [high for _, high in bands],
        }
        at = df.columns.get_loc("step (bound)")
        for i, (name, values) in enumerate(columns.items()):
            df.insert(at + i, name, values)
            df.attrs["units"][name] = "seconds"
    return df


def layouts_caption(v: TrainView) -> str:
    """What the table holds: how many layouts fit, of how many priced, and which are shown."""
    fit, shown = len(v.found.candidates), min(len(v.found.candidates), TABLE_ROWS)
    which = f"the fastest {shown:,}" if shown < fit else "all of them"
    return (
        f"{fit:,} parallel layouts fit in memory ({v.found.fitting:,} of the "
        f"{v.found.considered:,} variants priced: ZeRO stage, recompute, micro-batch and "
        f"interleave); {which}, each at its fastest variant, "
        f"fastest{' expected' if v.table else ''} first. Expected = bound ÷ the efficiency "
        "published training runs of the layout's setting reach; low–high: where the "
        f"measured step lies when the expected one is off by the {expected.BAND} or less."
    )
