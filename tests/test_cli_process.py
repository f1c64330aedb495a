"""The command line in fresh processes: `python -m perfcore`, a closed pipe, one-line errors,
and --out refused before any measurement starts (JAX never imported)."""

import json
import subprocess
import sys

import pytest

from tests.support.pages import ROUND_H100

H100 = ["--device", ROUND_H100]


def test_python_dash_m_runs_the_cli():
    cmd = [
        sys.executable,
        "-m",
        "perfcore",
        "calc",
        "--device",
        ROUND_H100,
        "--op",
        "add",
        "--json",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert json.loads(out)["limiter"] == "memory"


def run_cli(*argv: str, **kw) -> subprocess.CompletedProcess:
    """`python -m perfcore argv` in a fresh process, text output captured."""
    cmd = [sys.executable, "-m", "perfcore", *argv]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, **kw)


def test_a_reader_that_closes_the_pipe_early_gets_no_traceback():
    cmd = [sys.executable, "-m", "perfcore", "specs"]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        proc.stdout.close()  # as `| head -0` does, before the first line is written
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=60) in (0, 1)
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_bad_sizes_exit_2_in_a_fresh_process_too():
    done = run_cli("calc", *H100, "--op", "add", "--n", "0")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == (
        "error: --n = '0' is not usable: expected an integer from 1 to 1,099,511,627,776"
    )


@pytest.mark.parametrize(
    ("command", "out"),
    [("measure", "results.txt"), ("measure", "file/r.json"), ("collectives", "file/r.json")],
)
def test_out_is_checked_before_anything_is_measured(tmp_path, command, out):
    """An --out that cannot be written (a wrong suffix, a path under a file: refused even for
    root) exits 2 naming --out, and JAX is never imported, so no measurement started."""
    (tmp_path / "file").write_text("")
    code = (
        "import sys; from perfcore.cli import main; "
        f"status = main([{command!r}, '--out', {str(tmp_path / out)!r}]); "
        "print(status, 'jax' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["2", "False"]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: --out {tmp_path / out}")
