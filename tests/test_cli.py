"""The calculator command line: listing, pricing, JSON, and one-line errors with exit 2."""

import json
import subprocess
import sys

import pytest

from perfcore.cli import main

SEED = "NVIDIA H100 SXM (round figures)"


def test_specs_lists_every_device(capsys, specs):
    assert main(["specs"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in specs)


def test_calc_prints_every_number_of_the_roofline(capsys):
    argv = ["calc", "--device", SEED, "--precision", "fp16", "--op", "matmul"]
    assert main([*argv, "--m", "4096", "--n", "4096", "--k", "4096"]) == 0
    out = capsys.readouterr().out
    for text in ("137 GFLOP", "101 MB", "1365 FLOP/byte", "296 FLOP/byte", "990 TFLOP/s",
                 "compute-bound", "139 µs"):  # fmt: skip
        assert text in out


def test_calc_json_is_machine_readable(capsys):
    assert main(["calc", "--device", SEED, "--precision", "fp16", "--op", "decode", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["limiter"] == "memory"
    assert result["intensity"] == pytest.approx(1.0)
    assert result["attainable_flops_per_s"] == pytest.approx(3.35e12)


@pytest.mark.parametrize(
    ("flag", "value", "closest"),
    [("--device", "H100 SXM", "NVIDIA H100 SXM"), ("--precision", "bf61", "bf16"),
     ("--op", "matmull", "matmul")],
)  # fmt: skip
def test_unknown_names_exit_2_with_the_closest_valid_names(capsys, flag, value, closest):
    argv = {"--device": SEED, "--precision": "bf16", "--op": "matmul", flag: value}
    assert main(["calc", *[x for kv in argv.items() for x in kv]]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert value in err and closest in err


def test_an_unpublished_precision_is_a_clear_error(capsys):
    assert main(["calc", "--device", "NVIDIA V100 SXM2", "--precision", "fp8"]) == 2
    assert "publishes no fp8" in capsys.readouterr().err


def test_python_dash_m_runs_the_cli():
    cmd = [sys.executable, "-m", "perfcore", "calc", "--device", SEED, "--op", "add", "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert json.loads(out)["limiter"] == "memory"
