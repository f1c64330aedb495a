"""The app shell: every page runs for every device; links restore views; junk falls back."""

import re

import pytest

from perfcore import load_specs
from perfcore.format import NOT_PUBLISHED
from tests.support.pages import (
    PAGES,
    ROUND_H100,
    notices,
    run_page,
    tab_links,
    table_text,
    upload_own,
)

DEVICES = list(load_specs())
TEXT_KINDS = (
    "title",
    "header",
    "subheader",
    "markdown",
    "caption",
    "info",
    "warning",
    "error",
    "success",
    "latex",
)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_for_every_device(page):
    at = run_page(page)
    for name in DEVICES:
        at.selectbox(key="device").set_value(name).run()
        assert not at.exception, f"{page} failed on {name}: {at.exception}"
        assert not notices(at)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_with_a_compared_device_and_every_precision(page):
    at = run_page(page, {"compare": "NVIDIA V100 SXM2"})
    for precision in ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4"):
        at.selectbox(key="precision").set_value(precision).run()
        assert not at.exception, f"{page} failed at {precision}: {at.exception}"


def test_a_link_opens_with_its_sidebar_values():
    at = run_page("home", {"device": ROUND_H100, "precision": "fp8", "compare": "NVIDIA B200"})
    values = [at.selectbox(key=k).value for k in ("device", "precision", "compare")]
    assert values == [ROUND_H100, "fp8", "NVIDIA B200"]


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ({"device": "<script>alert(1)</script>"}, "device"),
        ({"precision": "fp128"}, "precision"),
        ({"compare": "'; DROP TABLE"}, "compare"),
        ({"calc_flops": "nan"}, "calc_flops"),
        ({"calc_bytes": "-5"}, "calc_bytes"),
        ({"calc_flops": "1e999"}, "calc_flops"),
    ],
)
def test_hostile_link_values_fall_back_with_a_notice(query, key):
    at = run_page("home", query)
    assert not at.exception
    assert any(f"`{key}=" in text for text in notices(at))


def test_quick_calculator_moves_with_its_inputs():
    at = run_page("home", {"device": ROUND_H100, "precision": "fp16"})
    at.number_input(key="calc_flops").set_value(2 * 4096**3).run()
    at.number_input(key="calc_bytes").set_value(3 * 4096**2 * 2).run()
    assert [m.value for m in at.metric][:2] == ["1,365", "compute"]
    at.number_input(key="calc_flops").set_value(2 * 4096**2).run()
    assert at.metric[1].value == "memory"


def _rendered_text(at) -> str:
    """Every string a page shows: text elements, metrics and their help, control labels and
    options, table cells and headers, chart titles, legends and labels."""
    texts = [e.value for kind in TEXT_KINDS for e in at.get(kind)]
    texts += [f"{m.label} {m.value} {m.proto.help}" for m in at.metric]
    for kind in ("selectbox", "radio", "multiselect", "number_input", "toggle", "expander"):
        texts += [f"{w.label} {getattr(w, 'options', '')}" for w in at.get(kind)]
    texts += [table_text(at, i).to_csv() for i in range(len(at.dataframe))]
    texts += [chart.proto.spec for chart in at.get("plotly_chart")]
    return "\n".join(map(str, texts))


# A word from outside the product, anywhere in a line, with what surrounds it for the message.
OUTSIDE_WORDS = re.compile(r".{0,30}\b(?:seeds?|seeded|demos?)\b.{0,30}", re.IGNORECASE)


def test_the_outside_words_guard_catches_a_word_at_either_end_of_a_line():
    """The guard this file relies on: the old one needed 30 characters on both sides."""
    for text in ("The naive timer from the seed", "Seed: 3", "DEMO 6 ladder\nnext"):
        assert OUTSIDE_WORDS.findall(text), text
    assert not OUTSIDE_WORDS.findall("seedless demonstrates proceeds")


@pytest.mark.parametrize("page", PAGES)
def test_no_page_shows_words_from_outside_the_product(page):
    at = run_page(page)
    assert not OUTSIDE_WORDS.findall(_rendered_text(at))
    for query in tab_links(at):  # each tab's part, drawn alone
        assert not OUTSIDE_WORDS.findall(_rendered_text(run_page(page, query))), query


@pytest.mark.parametrize("page", PAGES)
def test_the_default_view_publishes_every_headline_metric(page):
    at = run_page(page)
    assert not at.exception
    assert not [m.label for m in at.metric if NOT_PUBLISHED in m.value]


def _upload_specs(at, rows: dict[str, dict[str, str]]):
    """Upload a specs CSV of bundled rows renamed (new name -> {column: new value})."""
    import csv
    import io

    from perfcore.model.chip.specs import DEFAULT_PATH

    with open(DEFAULT_PATH, newline="") as f:
        bundled = {r["name"]: r for r in csv.DictReader(f)}
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(next(iter(bundled.values()))))
    writer.writeheader()
    for name, changes in rows.items():
        writer.writerow({**bundled["NVIDIA H100 SXM"], "name": name, **changes})
    return upload_own(at, "specs_upload", "mine.csv", out.getvalue().encode())


def test_an_uploaded_row_with_a_sparse_figure_is_warned_about_beside_the_device_picker():
    at = _upload_specs(run_page("home"), {"My H100": {"fp8_tflops": "3957.8"}, "Fine": {}})
    assert not at.exception
    warnings = [w.value for w in at.sidebar.warning]
    assert len(warnings) == 1
    assert warnings[0].startswith("mine.csv loaded, but these figures look implausible")
    assert "My H100: column 'fp8_tflops' = 3957.8" in warnings[0] and "2:4-sparse" in warnings[0]
    assert "My H100" in at.selectbox(key="device").options


def test_a_plausible_upload_gets_no_warning():
    at = _upload_specs(run_page("home"), {"Fine": {}})
    assert not at.sidebar.warning
    assert "Fine" in at.selectbox(key="device").options


def test_an_uploaded_specs_file_stays_in_use_with_its_popover_closed_until_removed():
    """The uploaders are drawn only while their popover is open; the file uploaded there is
    kept (named on the popover) across later runs, and its Remove button drops it."""
    from ui.shell import OWN_OPEN

    at = _upload_specs(run_page("home"), {"Fine": {}})
    at.session_state[OWN_OPEN] = False
    at.run()
    at.selectbox(key="precision").set_value("fp16").run()  # another run, the popover closed
    assert not at.file_uploader and "Fine" in at.selectbox(key="device").options
    assert at.get("popover")[-1].proto.popover.label == "Your own specs or models: mine.csv"
    at.session_state[OWN_OPEN] = True
    at.run()
    at.button(key="specs_upload_forget").click().run()
    assert "Fine" not in at.selectbox(key="device").options
    assert not [b for b in at.button if b.key == "specs_upload_forget"]
