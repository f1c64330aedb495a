"""Every CSV download of every page, with an uploaded device named like a spreadsheet formula.

OWASP's CSV injection rule: a text cell starting with =, +, -, @, tab or CR is written with a
leading ' so no spreadsheet runs it; numbers (negative ones too) stay numbers.
"""

import csv
import io

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager

from perfcore.format import FORMULA_START
from perfcore.model.chip.specs import DEFAULT_PATH
from tests.support.pages import PAGES, run_page, tab_links, upload_own

HOSTILE = '=HYPERLINK("http://x","y")'
SOURCE = "@SUM(1+1)"


def hostile_specs() -> bytes:
    """The bundled H100 row renamed to a formula, its source another: a one-row specs CSV."""
    header, *rows = list(csv.reader(io.StringIO(DEFAULT_PATH.read_text())))
    (h100,) = [r for r in rows if r and r[0] == "NVIDIA H100 SXM"]
    mine = dict(zip(header, h100, strict=True)) | {"name": HOSTILE, "source": SOURCE}
    out = io.StringIO()
    csv.writer(out).writerows([header, [mine[c] for c in header]])
    return out.getvalue().encode()


@pytest.fixture
def downloads(monkeypatch) -> dict[str, object]:
    """file name -> the callable each deferred download button would run when clicked."""
    seen, register = {}, MediaFileManager.add_deferred

    def add_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kw):
        seen[file_name] = data_callable
        return register(self, data_callable, mimetype, coordinates, file_name, **kw)

    monkeypatch.setattr(MediaFileManager, "add_deferred", add_deferred)
    return seen


def cells(text: str) -> list[str]:
    """Every cell of a CSV text, as a spreadsheet reads them."""
    return [c for row in csv.reader(io.StringIO(text)) for c in row]


def is_number(cell: str) -> bool:
    """True when the cell is a number as written (-1.5, 2e-05), not text."""
    try:
        float(cell)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("page", PAGES)
def test_no_csv_download_starts_a_cell_with_a_formula(page, downloads):
    for query in [{}, *tab_links(run_page(page))]:  # the page as it opens, then each tab
        at = run_page(page, query)
        at = upload_own(at, "specs_upload", "mine.csv", hostile_specs())
        at.selectbox(key="device").set_value(HOSTILE).run()
        assert not at.exception, at.exception
    tables = {name: cells(fn()) for name, fn in downloads.items() if name.endswith(".csv")}
    for name, written in tables.items():
        unsafe = [c for c in written if c.startswith(FORMULA_START) and not is_number(c)]
        assert unsafe == [], f"{page}: {name}"
    if page == "generations":  # its table lists every device of the chosen vendors
        assert any(f"'{HOSTILE}" in written for written in tables.values()), tables.keys()
