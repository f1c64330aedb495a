"""`python -m perfcore profile --program FILE.py:FUNCTION`: a user's own program, run here.

jax tier: the program is a file written by the test (a donating jitted training step of a
linear model beside a helper module it imports); profiled for 2 steps against the bundled
example's roofline (stood in for the quick one), and predicted from the bundled curves. The
refusals: one line on stderr naming --program, exit 2.
"""

import dataclasses
import json

import pytest

from perfcore.cli import main
from perfcore.explain.measure import profile_example
from perfcore.measure import results
from perfcore.measure.clock import faults, host
from perfcore.measure.experiments import runner
from perfcore.measure.profile.judge import records as profile_records

PROGRAM = """
import jax
import jax.numpy as jnp
from helper import WIDTH  # a neighbour of this file


def step(w, x):
    loss = lambda w: jnp.mean((x @ w) ** 2)
    value, grad = jax.value_and_grad(loss)(w)
    return w - 0.1 * grad, value


def make():
    w = jnp.ones((WIDTH, WIDTH)) * 0.01
    return jax.jit(step, donate_argnums=0), (w, jnp.ones((32, WIDTH)))


def broken():
    raise RuntimeError("no data here")


def not_a_pair():
    return 3


def nothing():
    return (lambda x: ()), (jnp.ones(4),)
"""


@pytest.fixture
def program(tmp_path, monkeypatch):
    (tmp_path / "helper.py").write_text("WIDTH = 128\n")
    path = tmp_path / "train.py"
    path.write_text(PROGRAM)
    measured = tuple(r for r in profile_example.bundled() if r.experiment == "roofline")
    monkeypatch.setattr(runner, "run_suite", lambda *a, **k: measured)
    # this host taken for the one the bundled curves were measured on (2 threads, no cache)
    monkeypatch.setattr(host, "threads", lambda: 2)
    return path


def test_a_users_program_is_profiled_with_every_op_judged(program, tmp_path, capsys):
    out = tmp_path / "p.json"
    assert main(["profile", "--program", f"{program}:make", "--steps", "2", "--out", str(out)]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head.startswith("train.py:make: cpu") and "measured roofline" in head
    ops = profile_records.profile_records(results.load_results(out))
    assert any(r.category.startswith("matmul") for r in ops)
    assert not [r.label for r in ops if r.diagnosis.startswith("no roof")]


def test_a_users_program_is_predicted_then_held_against_its_profile(program, tmp_path, capsys):
    argv = ["profile", "--program", f"{program}:make", "--predict", "--steps", "2", "--json"]
    out = tmp_path / "p.json"
    assert main([*argv, "--curves", str(profile_example.BUNDLED), "--out", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["step"]["predicted_s"] > 0 and summary["step"]["wall_s"] > 0
    pages = summary["fresh_pages"]  # the faults a step took, measured beside the priced
    assert (pages["measured_faults"] is None) == (faults.resource is None)
    assert pages["predicted_bytes"] >= 0


def test_curves_of_another_host_are_used_and_said_to_be_that_hosts(program, tmp_path, capsys):
    """The bundled curves (2 threads) said to come from a host of 8: the prediction runs on
    them, and its head line says whose they are."""
    other = [
        dataclasses.replace(r, threads=8) if r.threads else r for r in profile_example.bundled()
    ]
    path = results.save_results(tuple(other), tmp_path / "other-kernels.json")
    argv = ["profile", "--program", f"{program}:make", "--predict", "--steps", "2"]
    assert main([*argv, "--curves", str(path), "--out", str(tmp_path / "p.json")]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    said = "measured on a host with 8 threads, where this one has 2 threads: its kernels are"
    assert f"(--curves {path}; {said} that host's)" in head


def test_without_curves_the_kernels_suite_is_measured_first_and_kept_for_next_time(
    program, tmp_path, capsys, monkeypatch
):
    """--predict without --curves measures the kernels suite at its default budget (the
    bundled records stand in for it), saves it beside --out and says so; the saved file
    then serves as --curves."""
    asked = []

    def suite(name, **kw):
        asked.append((name, kw))
        return profile_example.bundled()

    monkeypatch.setattr(runner, "run_suite", suite)
    out = tmp_path / "p.json"
    argv = ["profile", "--program", f"{program}:make", "--predict", "--steps", "2"]
    assert main([*argv, "--out", str(out)]) == 0
    printed = capsys.readouterr()
    kept = tmp_path / "p-kernels.json"
    assert asked[0] == ("kernels", {}) and kept.exists()
    assert f"kernel curves first (the kernels suite's 120 s on this cpu) into {kept}" in printed.err
    assert f"measured now, saved to {kept} (--curves {kept} next time)" in printed.out
    assert main([*argv, "--curves", str(kept), "--out", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["curves"] == f"--curves {kept}"
    # each run measured the quick roofline its roofs need; only the first, kernels
    assert [name for name, _ in asked] == ["kernels", "quick", "quick"]


@pytest.mark.parametrize(
    ("suffix", "match"),
    [
        ("", "FILE.py:FUNCTION"),
        (":2bad", "FILE.py:FUNCTION"),
        (
            ":nowhere",
            "a function nowhere in train.py (it has: broken, make, not_a_pair, nothing, step)",
        ),
        (":broken", "broken() raised RuntimeError: no data here"),
        (":not_a_pair", "not_a_pair() to return (fn, args), got a int"),
    ],
)
def test_a_bad_program_is_one_line_naming_the_flag(program, capsys, suffix, match):
    assert main(["profile", "--program", f"{program}{suffix}"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--program" in err and match in err, err


def test_a_missing_file_or_one_that_fails_to_load_is_named(tmp_path, capsys):
    assert main(["profile", "--program", f"{tmp_path / 'none.py'}:make"]) == 2
    assert "no file" in capsys.readouterr().err
    bad = tmp_path / "bad.py"
    bad.write_text("import not_a_module_anywhere\n")
    assert main(["profile", "--program", f"{bad}:make"]) == 2
    assert "loading bad.py raised ModuleNotFoundError" in capsys.readouterr().err


def test_a_program_that_launches_no_op_is_refused_for_what_it_is(program, tmp_path, capsys):
    """Its capture holds no op event: said of the program, not as a capture to redo."""
    argv = ["profile", "--program", f"{program}:nothing", "--out", str(tmp_path / "n.json")]
    assert main(argv) == 2
    assert "the program launches no XLA op" in capsys.readouterr().err
