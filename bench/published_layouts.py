"""Whether the search's top 10 holds each published training run's layout (tp, pp, dp, cp, ep).

For every distinct model, device, GPUs, sequence, batch and precision of a training row in
data/runs.csv, the search runs ranked on the expected step (as `plan train` ranks) and the
row's degrees are looked for among its first 10 layouts (the search lists each TP x PP x DP x
CP x EP once, at its best ZeRO, micro-batch, recompute and interleave: a source often leaves
those unpublished). Prints one line per setting, with a miss the
published layout's expected step (as published.py prices the row: its own ZeRO, micro-batch,
recompute and interleave, the fastest variant where unstated) over the best's, and the count.
A setting whose runs kept dropout masks (published.DROPOUT_SOURCES) is searched with them, and
with the attention kernel its runs ran (published.attention_kernel).
Run: `.venv/bin/python -m bench.published_layouts`.
"""

from __future__ import annotations

from perfcore.explain.plans.expected import train_ranking
from perfcore.model.chip.specs import load_specs
from perfcore.model.llm.models import load_models
from perfcore.model.plans.search import DEGREES, search
from perfcore.model.plans.train_plan import Training
from perfcore.model.runs.efficiency import held_out_ratios
from perfcore.model.runs.published import (
    DROPOUT_SOURCES,
    attention_kernel,
    priced_runs,
    table,
    train_plans,
)

TOP = 10


def main() -> None:
    """One line per published setting: found or missed, the published and the best layout."""
    models, specs = load_models(), load_specs()
    priced = priced_runs(models=models, specs=specs)
    expected, tie = train_ranking(table(priced.samples), None)
    trained = [s for s in priced if s.regime == "train"]
    held = {s.run.name: r for s, r in held_out_ratios(trained)}
    settings: dict[tuple, list] = {}
    for s in priced:
        r = s.run
        if r.kind == "train":
            key = (r.model, r.device, r.gpus, r.seq_len, r.global_batch, r.precision)
            settings.setdefault(key, []).append(r)
    hits = 0
    for (model, device, gpus, seq, batch, precision), runs in settings.items():
        dropout = any(r.source_id in DROPOUT_SOURCES for r in runs)  # as the runs kept them
        kernel = attention_kernel(runs[0])  # one source's setting: one kernel
        shape = (models[model], specs[device], gpus, seq, batch * seq, precision)
        t = Training(*shape, dropout=dropout, attention_kernel=kernel)
        found = search(t, top=TOP, expected=expected, tie=tie)
        top = {tuple(getattr(p.layout, d) for d in DEGREES) for p in found.candidates}
        wanted = {tuple(getattr(r, d) for d in DEGREES) for r in runs}
        hit = bool(top & wanted)
        hits += hit
        best = found.best.layout.label() if found.best else "none fits"
        ratio = "" if hit or not found.best else _ratio(runs, models, specs, expected, found, held)
        print(
            f"{'in top' if hit else 'MISSED'} {model} {gpus} x {device} s={seq} b={batch} "
            f"{precision}: published {sorted(wanted)}; best {best}{ratio}"
        )
    print(f"{hits} of {len(settings)} published settings have their layout in the top {TOP}")


def _ratio(runs, models, specs, expected, found, held: dict[str, float]) -> str:
    """'; published expected x1.23 the best's (the run itself held out: expected x1.10 what
    it measured)': the published layout's fastest variant (published.train_plans, fitting or
    not, as the row is priced) over the search's best, and the model's error on the published
    runs (efficiency.held_out_ratios: a best ahead by less than it is not shown better)."""
    plans = [p for r in runs for p in train_plans(r, models[r.model], specs[r.device])]
    own = ", ".join(f"x{held[r.name]:.2f}" for r in runs if r.name in held)
    return (
        f"; published expected x{min(map(expected, plans)) / found.expected_s[0]:.2f} the best's"
        f" (the run itself held out: expected {own} what it measured)"
    )


if __name__ == "__main__":
    main()
