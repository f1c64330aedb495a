"""The sidebar's models upload: a good file adds its rows to ui.models(), a broken one is
listed problem by problem and the app keeps the bundled models."""

from perfcore.model.llm.models import DEFAULT_PATH, load_models
from tests.support.pages import run_page, upload_own

MODELS_KEY = "_perfcore_models"  # where the sidebar leaves ui.models() for the pages


def upload(at, name: str, data: bytes):
    """The AppTest after the sidebar's models uploader receives `data` as `name`."""
    return upload_own(at, "models_upload", name, data)


def test_a_good_models_csv_adds_its_rows_and_keeps_the_bundled_ones():
    header, llama = DEFAULT_PATH.read_text().splitlines()[:2]
    mine = llama.replace("Llama-2-7B,", "My-7B,", 1).replace(",32,4096,32,32,", ",30,4096,32,32,")
    at = upload(run_page("home"), "mine.csv", f"{header}\n{mine}\n".encode())
    assert not at.exception and not at.error, [e.value for e in at.error]
    offered = at.session_state[MODELS_KEY]
    assert set(offered) == set(load_models()) | {"My-7B"}
    assert offered["My-7B"].layers == 30


def test_a_broken_models_csv_is_listed_and_the_bundled_models_stay():
    header, llama = DEFAULT_PATH.read_text().splitlines()[:2]
    broken = llama.replace(",32,4096,32,32,", ",32,4096,32,5,", 1)  # 5 KV heads for 32 heads
    at = upload(run_page("home"), "broken.csv", f"{header}\n{broken}\n".encode())
    assert not at.exception
    assert any("broken.csv has problems" in e.value for e in at.error)
    shown = " ".join(c.value for c in at.code)
    assert "broken.csv, row 2, column 'kv_heads': got '5'; expected a divisor of heads" in shown
    assert set(at.session_state[MODELS_KEY]) == set(load_models())
