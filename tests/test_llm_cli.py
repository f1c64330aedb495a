"""`python -m perfcore llm` and `models`: numbers, JSON keys, and one-line errors with exit 2."""

import json
from pathlib import Path

import pytest

from perfcore.cli import main

H100 = "NVIDIA H100 SXM"
BASE = ["llm", "--model", "Llama-2-7B", "--device", H100]
KEYS = {
    "flops",
    "bytes",
    "bytes_parts",
    "intensity",
    "time_s",
    "time_bound_s",
    "memory_bytes",
    "fits",
    "gpus_needed",
    "params",
    "per_op",
}


def run_json(capsys, *argv: str) -> dict:
    """Run the command with --json and parse what it printed."""
    assert main([*BASE[:1], *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_models_lists_every_model(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "Llama-2-70B" in out and "Mixtral-8x7B" in out and "GQA, 8 KV heads" in out


@pytest.mark.parametrize("phase", ["prefill", "decode", "generate", "train"])
def test_json_has_every_key_the_issue_lists(capsys, phase):
    r = run_json(
        capsys,
        *BASE[1:],
        "--phase",
        phase,
        "--batch",
        "2",
        "--context",
        "256",
        "--output-tokens",
        "8",
    )
    assert set(r) >= KEYS
    assert set(r["bytes_parts"]) == {"weights", "kv_read", "kv_write", "activations"}
    assert set(r["memory_bytes"]) == {"weights", "kv_cache", "activations", "optimizer"}
    assert {"name", "flops", "bytes", "time_s", "bound"} <= set(r["per_op"][0])
    assert r["bytes"] == pytest.approx(sum(r["bytes_parts"].values()))
    assert r["time_s"] >= r["time_bound_s"] * (1 - 1e-12)


def test_decode_json_matches_the_standard_accounting(capsys):
    r = run_json(capsys, *BASE[1:], "--phase", "decode", "--batch", "1", "--context", "1024")
    assert r["params"] == 6_738_415_616
    assert r["bytes_parts"]["kv_read"] == 32 * 1024 * 2 * 32 * 128 * 2
    assert r["bytes_parts"]["weights"] == 2 * 6_738_415_616  # every weight, once per step
    assert r["intensity"] == pytest.approx(r["flops"] / r["bytes"])
    assert r["intensity"] == pytest.approx(1.0, rel=0.03)
    assert r["fits"] is True and r["gpus_needed"] == 1


def test_eight_bit_weights_on_a100_run_the_math_at_int8(capsys):
    r = run_json(
        capsys,
        "--model",
        "Llama-2-7B",
        "--device",
        "NVIDIA A100 SXM4 80GB",
        "--weights-bits",
        "8",
        "--act-bits",
        "8",
    )
    assert r["math_precision"] == "int8"


def test_json_stays_valid_where_capacity_is_unpublished(capsys, tmp_path):
    lines = (Path(__file__).parents[1] / "data" / "specs.csv").read_text().splitlines()
    cells = next(v for v in lines if v.startswith(H100 + ",")).split(",")
    cells[0], cells[6] = "No capacity GPU", ""  # memory_gib empty: not published
    path = tmp_path / "specs.csv"
    path.write_text(lines[0] + "\n" + ",".join(cells) + "\n")
    r = run_json(
        capsys, "--model", "Llama-2-7B", "--device", "No capacity GPU", "--specs", str(path)
    )
    assert r["fits"] is None and r["gpus_needed"] is None and r["capacity_bytes"] is None


def test_tp_adds_communication_time(capsys):
    r = run_json(capsys, "--model", "Llama-2-70B", "--device", H100, "--tp", "4")
    assert r["comm_s"] > 0 and r["fits"] is True


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--model", "Llama-2-7b"], "unknown model 'Llama-2-7b'; closest valid: Llama-2-7B"),
        (["--device", "H100"], "unknown device 'H100'"),
        (["--phase", "decod"], "unknown phase 'decod'; closest valid: decode"),
        (["--batch", "0"], "--batch = '0' is not usable: expected an integer from 1 to"),
        (["--context", "1.5"], "--context = '1.5' is not usable: expected an integer"),
        (["--tp", "inf"], "--tp = 'inf' is not usable: expected an integer from 1 to 1,024"),
        (["--batch", "abc"], "--batch = 'abc' is not usable"),
        (["--specs", "/no/such.csv"], "cannot read /no/such.csv"),
        (["--models", "/no/such.csv"], "cannot read /no/such.csv"),
    ],
)
def test_bad_names_and_numbers_exit_2_with_one_line(capsys, argv, message):
    args = dict(zip(BASE[1::2], BASE[2::2], strict=True))
    args.update(dict(zip(argv[::2], argv[1::2], strict=True)))
    assert main(["llm", *[x for kv in args.items() for x in kv]]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_human_output_names_the_bound_and_the_fit(capsys):
    assert main([*BASE, "--phase", "prefill", "--context", "2048"]) == 0
    out = capsys.readouterr().out
    assert "compute-bound" in out and "fits" in out and "lm_head" in out
