"""models: a models CSV round-trips from every source a file arrives by; a broken file is
reported cell by cell, naming its file, row, column, value and what was expected."""

import csv
import dataclasses
import io

import pytest

from perfcore.model.llm.models import (
    DEFAULT_PATH,
    REQUIRED_COLUMNS,
    ModelError,
    load_models,
    load_models_bytes,
)

MODELS = load_models()


def rows_of(models) -> list[dict]:
    """Models back as CSV rows in human units (billions of parameters)."""
    rows = []
    for m in models:
        row = dataclasses.asdict(m)
        row["published_params_b"] = f"{m.published_params / 1e9:.12g}"
        active = row.pop("published_active_params")
        row["published_active_params_b"] = "" if active is None else f"{active / 1e9:.12g}"
        del row["published_params"]
        rows.append({k: "" if v is None else v for k, v in row.items()})
    return rows


def csv_bytes(rows: list[dict], columns=None) -> bytes:
    """A models CSV of `rows` with `columns` (all fields of the first row by default)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, columns or list(rows[0]), extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


def test_round_trip_models_to_csv_and_back():
    assert load_models_bytes(csv_bytes(rows_of(MODELS.values())), "again.csv") == MODELS


def test_load_from_a_path_an_open_file_and_bytes_agree():
    with open(DEFAULT_PATH, "rb") as f:
        assert load_models(f) == load_models(str(DEFAULT_PATH)) == MODELS


def test_only_required_columns_load_as_dense_models_without_windows():
    dense = [r for r in rows_of(MODELS.values()) if r["name"] == "Llama-2-7B"]
    loaded = load_models_bytes(csv_bytes(dense, REQUIRED_COLUMNS), "small.csv")["Llama-2-7B"]
    assert loaded == dataclasses.replace(MODELS["Llama-2-7B"], notes="")


def broken(**cells) -> bytes:
    """Llama-2-7B's row with some cells replaced, as a one-row models CSV."""
    row = rows_of([MODELS["Llama-2-7B"]])[0] | cells
    return csv_bytes([row])


def problems_of(data: bytes) -> list[str]:
    """The problems a file is refused with."""
    with pytest.raises(ModelError) as err:
        load_models_bytes(data, "mine.csv")
    assert err.value.label == "mine.csv"
    return err.value.problems


BROKEN = [
    (dict(layers="32.5"), "column 'layers': got '32.5'; expected a whole number from 1 to"),
    (dict(hidden="4,096"), "got '4,096'; expected a whole number from 1 to 16,777,216 (no commas"),
    (dict(layers="0"), "column 'layers': got '0'; expected a whole number from 1"),
    (dict(vocab=str(2**25)), f"column 'vocab': got '{2**25}'; expected a whole number from 1"),
    (dict(hidden=""), "'hidden': got ''; expected a whole number from 1 to 16,777,216 (every"),
    (dict(gated_mlp="maybe"), "column 'gated_mlp': got 'maybe'; expected true or false"),
    (dict(published_params_b="7B"), "got '7B'; expected a positive number of billions"),
    (dict(published_params_b="n/a"), "(leave the cell empty if not published)"),
    (dict(source=""), "column 'source': got ''; expected the config.json or paper"),
    (dict(kv_heads="5"), "column 'kv_heads': got '5'; expected a divisor of heads (32)"),
    (dict(experts_per_token="2"), "'experts_per_token': got '2'; expected at most experts (1)"),
    (dict(window_layers="40", sliding_window="4096"), "'window_layers': got '40'; expected at"),
    (dict(sliding_window="4096"), "got '0'; expected 0 without a sliding_window, more than 0"),
    (dict(moe_intermediate="1408"), "'moe_intermediate': got '1408'; expected empty for a dense"),
    (dict(published_active_params_b="1"), "'published_active_params_b': got '1'; expected empty"),
    (dict(shared_experts="-1"), "'shared_experts': got '-1'; expected a whole number from 0"),
]


@pytest.mark.parametrize(("cells", "expected"), BROKEN, ids=[next(iter(c)) for c, _ in BROKEN])
def test_a_broken_cell_names_file_row_column_value_and_expectation(cells, expected):
    problems = problems_of(broken(**cells))
    assert len(problems) == 1, problems
    assert problems[0].startswith("mine.csv, row 2, column "), problems[0]
    assert expected in problems[0]


def test_every_problem_of_a_file_is_reported_at_once():
    rows = rows_of([MODELS["Llama-2-7B"], MODELS["Mixtral-8x7B"], MODELS["Gemma-2-9B"]])
    rows[0]["layers"], rows[1]["experts_per_token"], rows[2]["name"] = "x", "9", "Llama-2-7B"
    problems = problems_of(csv_bytes(rows))
    assert len(problems) == 3
    assert "row 2, column 'layers'" in problems[0]
    assert "row 4, column 'name': got 'Llama-2-7B', the name of row 2" in problems[1]
    assert "row 3, column 'experts_per_token': got '9'; expected at most experts (8)" in problems[2]


def test_a_misspelt_required_column_is_suggested():
    data = broken().replace(b"kv_heads", b"kv_head", 1)
    (problem,) = problems_of(data)
    assert "row 1: missing required column(s) 'kv_heads' (did you mean 'kv_head'?)" in problem


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", "mine.csv: the file is empty; expected a header row (name, family, layers, ...)"),
        (b"name;family;layers\nx;y;1\n", "row 1: the header is 'name;family;layers'"),
        ("name,family\n".encode("utf-16"), "row 1: got UTF-16 text; expected UTF-8"),
        (
            b"name,family,layers\n",
            "row 2: no data rows below the header; expected one row per model",
        ),
    ],
    ids=["empty", "semicolons", "utf-16", "header only"],
)
def test_a_file_that_is_not_a_models_table_says_why(data, expected):
    (problem,) = problems_of(data)
    assert expected in problem


def test_a_byte_order_mark_is_accepted():
    assert load_models_bytes(b"\xef\xbb\xbf" + broken(), "bom.csv") == {
        "Llama-2-7B": MODELS["Llama-2-7B"]
    }
