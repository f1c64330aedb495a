"""The calculator command line: listing, pricing, JSON, and one-line errors with exit 2."""

import ast
import contextlib
import io
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfcore
from perfcore import load_specs, ops
from perfcore.cli import main
from perfcore.cli.common import guarded, out_path
from tests.support.pages import ROUND_H100


def test_specs_lists_every_device(capsys, specs):
    assert main(["specs"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in specs)


def test_calc_prints_every_number_of_the_roofline(capsys):
    argv = ["calc", "--device", ROUND_H100, "--precision", "fp16", "--op", "matmul"]
    assert main([*argv, "--m", "4096", "--n", "4096", "--k", "4096"]) == 0
    out = capsys.readouterr().out
    shown = ["137 GFLOP", "101 MB", "1365 FLOP/byte", "296 FLOP/byte", "990 TFLOP/s"]
    for text in [*shown, "compute-bound", "139 µs"]:
        assert text in out


def test_calc_json_is_machine_readable(capsys):
    assert (
        main(["calc", "--device", ROUND_H100, "--precision", "fp16", "--op", "decode", "--json"])
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert result["limiter"] == "memory"
    assert result["intensity"] == pytest.approx(1.0)
    assert result["attainable_flops_per_s"] == pytest.approx(3.35e12)


@pytest.mark.parametrize(
    ("flag", "value", "closest"),
    [
        ("--device", "H100 SXM", "NVIDIA H100 SXM"),
        ("--precision", "bf61", "bf16"),
        ("--op", "matmull", "matmul"),
    ],
)
def test_unknown_names_exit_2_with_the_closest_valid_names(capsys, flag, value, closest):
    argv = {"--device": ROUND_H100, "--precision": "bf16", "--op": "matmul", flag: value}
    assert main(["calc", *[x for kv in argv.items() for x in kv]]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert value in err and closest in err


def test_an_unpublished_precision_is_a_clear_error(capsys):
    assert main(["calc", "--device", "NVIDIA V100 SXM2", "--precision", "fp8"]) == 2
    assert "publishes no fp8" in capsys.readouterr().err


H100 = ["--device", ROUND_H100]
# (argv after `calc --device ROUND_H100`, a substring of the one-line error). Each exits 2.
BAD_CALC = [
    (["--op", "add", "--n", "0"], "--n = '0'"),
    (["--op", "attention", "--seq", "0"], "--seq = '0'"),
    (["--op", "attention", "--d-head", "0"], "--d-head = '0'"),
    (["--op", "attention-unfused", "--seq", "-1"], "--seq = '-1'"),
    (["--m", "inf"], "--m = 'inf'"),
    (["--m=-inf"], "--m = '-inf'"),
    (["--m", "-inf"], "argument --m: expected one argument (see"),
    (["--m"], "argument --m: expected one argument"),
    (["--colour", "red"], "unrecognized arguments: --colour red"),
    (["--m", "1e300", "--n", "1e300", "--k", "1e300"], "1e300"),
    (["--m", "1e30"], "--m = '1e30'"),
    (["--m", "-4096"], "--m = '-4096'"),
    (["--n", "nan"], "--n = 'nan'"),
    (["--k", "0"], "--k = '0'"),
    (["--k", "4096.5"], "an integer from 1 to 16,777,216"),
    (["--m", "abc"], "--m = 'abc'"),
    (["--m", ""], "--m = ''"),
    (["--m", "0x10"], "--m = '0x10'"),
    (["--op", "matvec", "--n", "1e9"], "--n = '1e9'"),
    (["--op", "linear", "--batch", "0.5"], "--batch = '0.5'"),
    (["--op", "linear", "--d-in", "0"], "--d-in = '0'"),
    (["--op", "linear", "--d-out", "1e99"], "--d-out = '1e99'"),
    (["--op", "decode", "--params", "nan"], "--params = 'nan'"),
    (["--op", "decode", "--params", "inf"], "a number from 1e+06 to 1e+13"),
    (["--op", "decode", "--params=-7e9"], "--params = '-7e9'"),
    (["--op", "decode", "--params", "1e30"], "--params = '1e30'"),
    (["--op", "decode", "--batch", "0"], "--batch = '0'"),
    (["--op", "decode", "--batch", "2.5"], "--batch = '2.5'"),
    (["--op", "decode", "--kv-cache-bytes", "-1"], "--kv-cache-bytes = '-1'"),
    (["--op", "decode", "--kv-cache-bytes", "inf"], "--kv-cache-bytes = 'inf'"),
    (["--op", "prefill", "--tokens", "0"], "--tokens = '0'"),
    (["--op", "prefill", "--params", "0"], "--params = '0'"),
    (["--op", "elementwise", "--n-inputs", "0.5"], "--n-inputs = '0.5'"),
    (["--op", "elementwise", "--n-outputs", "1000"], "an integer from 1 to 64"),
    (["--op", "elementwise", "--flops-per-element", "-1"], "--flops-per-element = '-1'"),
    (["--op", "add", "--n", "1e13"], "1,099,511,627,776"),
    (["--op", "matmul", "--seq", "4096"], "--seq does not apply to --op matmul"),
    (["--op", "add", "--m", "4"], "it takes --n"),
    (["--op", "decode", "--d-head", "64"], "--d-head does not apply"),
    (["--op", "attention", "--batch", "8", "--k", "2"], "--batch, --k does not apply"),
    (["--op", "matmull"], "closest valid: matmul"),
    (["--precision", "bf61"], "closest valid: bf16"),
    (["--precision", "BF16"], "unknown precision"),
    (["--specs", "/no/such.csv"], "cannot read /no/such.csv"),
    (["--specs", "/"], "cannot read /"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_CALC, ids=[" ".join(a) for a, _ in BAD_CALC])
def test_a_bad_calc_exits_2_with_one_line_naming_the_problem(capsys, argv, message):
    assert main(["calc", *H100, *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert message in err


def test_bad_devices_and_specs_files_exit_2(capsys, tmp_path):
    broken = tmp_path / "broken.csv"
    broken.write_text("name,vendor\n=HYPERLINK(1),x\n")
    argvs = [["calc", "--device", "nope"], ["specs", "--specs", str(broken)]]
    for argv in [*argvs, ["calc", "--device", "x", "--specs", str(tmp_path)]]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and "Traceback" not in err


def test_bf16_on_a_device_without_it_names_the_missing_peak_and_offers_others(capsys):
    assert main(["calc", "--device", "NVIDIA V100 SXM2", "--precision", "bf16"]) == 2
    err = capsys.readouterr().err
    assert "publishes no bf16 peak" in err and "--precision" in err and "fp16" in err


def test_a_small_model_is_named_in_billions_not_rounded_to_zero(capsys):
    assert main(["calc", *H100, "--op", "decode", "--params", "4e8"]) == 0
    assert "0.4B params" in capsys.readouterr().out


def test_a_whole_number_written_as_a_float_is_an_integer(capsys):
    assert main(["calc", *H100, "--m", "4096.0", "--n", "4e3", "--k", "1"]) == 0
    assert "mat-mul 4096x4000x1" in capsys.readouterr().out


WITH_BANDWIDTH = [d for d in load_specs().values() if d.memory_bytes_per_s]


@st.composite
def calc_argv(draw) -> list[str]:
    """A calc invocation whose every size is inside its Param's range."""
    device = draw(st.sampled_from(WITH_BANDWIDTH))
    precision = draw(st.sampled_from(device.published_precisions()))
    op = draw(st.sampled_from(sorted(ops.CATALOG)))
    argv = ["calc", "--device", device.name, "--precision", precision, "--op", op, "--json"]
    for p in ops.CATALOG[op][1]:
        kind = st.integers(int(p.lo), int(p.hi)) if p.integer else st.floats(p.lo, p.hi)
        argv += [f"--{p.name.replace('_', '-')}", repr(draw(kind))]
    return argv


@settings(max_examples=60, deadline=None)
@given(calc_argv())
def test_any_in_range_calc_prints_valid_json_of_finite_non_negative_numbers(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    result = json.loads(out.getvalue(), parse_constant=pytest.fail)
    numbers = [v for v in result.values() if not isinstance(v, str)]
    assert len(numbers) == 8
    assert all(math.isfinite(v) and v >= 0 for v in numbers)


def test_the_command_line_is_one_package_with_one_parser():
    """Only perfcore/cli/ builds argument parsers (the collectives worker, a spawned process's
    own entry, aside): before, llm_cli, measure/cli and measure/distributed each had one."""
    root = Path(perfcore.__file__).parent
    users = sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if any(
            isinstance(node, ast.Import) and any(a.name == "argparse" for a in node.names)
            for node in ast.walk(ast.parse(path.read_text()))
        )
    )
    assert [u for u in users if not u.startswith("cli/")] == ["measure/experiments/distributed.py"]


def test_a_bug_is_not_dressed_up_as_a_users_error():
    def broken() -> str:
        raise ValueError("a bug inside the model")

    with pytest.raises(ValueError, match="a bug inside"):
        guarded(broken)


def test_an_existing_out_file_survives_the_probe(tmp_path):
    out = tmp_path / "kept.json"
    out.write_text("{}")
    assert out_path(str(out), "measure") == out
    assert out.read_text() == "{}"
    assert out_path(str(tmp_path / "new" / "r.csv"), "measure").parent.is_dir()
    assert not (tmp_path / "new" / "r.csv").exists()
