"""`python -m perfcore profile`'s refusals: one line on stderr, exit 2, nothing written.

Each bad capture a user might pass, a bad flag, and an --out that cannot be written (probed
before anything is profiled). No JAX runs here: every case is refused before it would.
"""

import gzip

import pytest

from perfcore.cli import main
from perfcore.measure.profile.read import write


def _refused(capsys, argv, match):
    assert main(["profile", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and match in err, err
    return err


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"", "empty file"),
        (b"not a capture at all", "not a profiler capture"),
        (gzip.compress(b"{}", mtime=0), "gzip"),  # mtime 0: the same id always
        (b'{"format": "perfcore-results"}', "JSON"),
        (write.xspace({("m", 1): b"\x0a\x01m"}, [])[:-3], "truncated"),
    ],
)
def test_a_bad_capture_is_one_line_and_exit_2(capsys, tmp_path, data, match):
    path = tmp_path / "bad.xplane.pb"
    path.write_bytes(data)
    _refused(capsys, ["--trace", str(path), "--out", str(tmp_path / "p.json")], match)
    assert not (tmp_path / "p.json").exists()


def test_a_missing_trace_is_one_line(capsys, tmp_path):
    _refused(capsys, ["--trace", str(tmp_path / "nowhere")], "no such file")


def test_an_unknown_example_names_the_valid_ones(capsys):
    _refused(capsys, ["--example", "resnet"], "closest valid")


def test_out_is_probed_before_anything_is_profiled(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    _refused(capsys, ["--example", "mlp", "--out", str(blocker / "p.json")], "--out")
    _refused(capsys, ["--example", "mlp", "--out", str(tmp_path / "p.txt")], ".json or .csv")


@pytest.mark.parametrize("flag", [["--steps", "0"], ["--steps", "x"], ["--top", "-1"]])
def test_a_bad_count_names_its_flag(capsys, flag):
    _refused(capsys, ["--example", "mlp", *flag], flag[0])


def test_an_unknown_device_names_the_closest_rows(capsys):
    _refused(capsys, ["--example", "mlp", "--device", "H100 SXMM"], "closest valid")


def test_predict_needs_a_program_to_run(capsys, tmp_path):
    capture = tmp_path / "c.xplane.pb"
    capture.write_bytes(b"x")
    _refused(capsys, ["--trace", str(capture), "--predict"], "--predict needs --example")


def test_curves_without_kernels_records_are_refused_before_anything_runs(capsys, tmp_path):
    from perfcore.measure import results
    from tests.support.measured import record

    path = results.save_results((record("sweep", "matmul 8", 1e-3),), tmp_path / "sweep.json")
    argv = ["--example", "mlp", "--predict", "--curves", str(path)]
    _refused(capsys, [*argv, "--out", str(tmp_path / "p.json")], "no records of the kernels")
