"""docs/plans.md and docs/runs.md print the published runs' efficiencies, held-out errors and
candidate expected models as perfcore computes them."""

from pathlib import Path

import pytest

from perfcore.model.runs import candidates, efficiency
from perfcore.model.runs.published import table

DOCS = Path(__file__).resolve().parents[1] / "docs" / "plans.md"


def test_the_docs_table_is_the_one_computed(priced):
    """docs/plans.md prints each regime's median, range, runs, families and held-out errors
    as table() gives them."""
    text = DOCS.read_text()
    for regime, e in table(priced.samples).items():
        row = f"| {regime} | {e.value:.3f} | {e.low:.3f}-{e.high:.3f} | {e.runs} | {e.families} ("
        tail = f"| {e.error_median:.0%} | {e.error_p90:.0%} | {e.tie:.1%} |".replace("%", " %")
        line = next((ln for ln in text.splitlines() if ln.startswith(row)), "")
        assert line.endswith(tail), f"docs/plans.md lacks {row}... {tail}"


@pytest.mark.parametrize("doc", ["plans.md", "runs.md"])
def test_the_docs_held_out_figures_are_the_ones_computed(priced, doc):
    """Both docs print training's and serving's leave-one-framework-out share within 25 %
    and median error, and the bound violations, as efficiency.held_out computes them."""
    text = (DOCS.parent / doc).read_text()
    kept = [s for s in priced if not s.run.speculative]
    for name, regimes in (("training", ("train",)), ("serving", ("prefill", "decode"))):
        h = efficiency.held_out(kept, regimes)
        cells = f"| {h.runs} | {h.within} ({h.share:.0%}) | {h.median:.0%} |".replace("%", " %")
        assert any(ln.startswith(f"| {name}") and cells in ln for ln in text.splitlines()), (
            f"docs/{doc} lacks {name} ... {cells}"
        )
    assert f"Bound violations: {efficiency.violations(kept)} " in text


def _in_docs(got: dict) -> dict:
    """`got` (candidate name -> its held-out figures), each row checked in docs/plans.md."""
    text = DOCS.read_text()
    for name, h in got.items():
        cells = f"| {name} | {h.runs} | {h.within} ({h.share:.0%}) | {h.median:.0%} |"
        assert cells.replace("%", " %") in text, f"docs/plans.md lacks {cells}"
    return got


def test_the_docs_candidate_models_are_the_ones_computed(priced):
    """docs/plans.md's "Which expected model" prints every candidate's leave-one-framework-out
    figures as candidates.scores computes them, and the chosen one is picked by the rule the
    serving candidates are: the most runs within 25 %, then the lower median."""
    got = _in_docs(candidates.scores(s for s in priced if not s.run.speculative))
    chosen = next(n for n in got if n.endswith("(chosen)"))
    assert min(got.values(), key=lambda h: (-h.within, h.median)) is got[chosen]


def test_the_docs_serving_candidates_are_the_ones_computed(priced):
    """docs/plans.md's "Serving: which expected model" prints every serving candidate's
    leave-one-framework-out figures as candidates.serve_scores computes them; the chosen one
    puts the most runs within 25 %."""
    got = _in_docs(candidates.serve_scores(s for s in priced if not s.run.speculative))
    chosen = next(n for n in got if n.endswith("(chosen)"))
    assert got[chosen].within == max(h.within for h in got.values())
