"""scripts/cli_outputs.py: the README's pricing examples read from its command-line block, and
an output that changed named (the check that a refactor left the CLI's output alone)."""

import importlib.util
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("cli_outputs", ROOT / "scripts" / "cli_outputs.py")
cli_outputs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cli_outputs)


def test_the_readme_pricing_examples_are_read_with_their_optional_flags_given():
    found = cli_outputs.examples((ROOT / "README.md").read_text())
    assert [w[0] for w in found] == ["specs", "calc", "models", "llm", "plan", "plan"]
    calc, llm, train = found[1], found[3], found[4]
    assert calc[-1] == "--json" and calc[calc.index("--device") + 1] == "NVIDIA H100 SXM"
    assert llm[llm.index("--tp") + 1] == "2" and "--json" in llm  # [--tp 2] [--json] given
    assert train[:2] == ["plan", "train"] and train[train.index("--pp") + 1] == "4"
    assert cli_outputs.name(4, train) == "04-plan-train.txt"


def test_a_measuring_example_and_a_comment_are_left_out():
    readme = (
        "## Command line\n\n```bash\n"
        ".venv/bin/python -m perfcore measure --suite default   # measures\n"
        ".venv/bin/python -m perfcore calc --device X \\\n    --op matmul [--json]   # prices\n"
        "```\n"
    )
    assert cli_outputs.examples(readme) == [["calc", "--device", "X", "--op", "matmul", "--json"]]


def test_an_output_that_changed_is_named_and_fails(tmp_path, monkeypatch, capsys):
    outputs = iter([b"a", b"b", b"c", b"d", b"e", b"f"] * 2)

    def fake(cmd, **kw):
        return subprocess.CompletedProcess(cmd, 0, next(outputs), b"")

    monkeypatch.setattr(cli_outputs.subprocess, "run", fake)
    assert cli_outputs.main([str(tmp_path / "old")]) == 0
    (tmp_path / "old" / "01-calc.txt").write_bytes(b"changed")
    capsys.readouterr()
    assert cli_outputs.main([str(tmp_path / "new"), "--compare", str(tmp_path / "old")]) == 1
    said = capsys.readouterr().out
    assert "DIFFERS  01-calc.txt" in said and "1 output(s) differ: 01-calc.txt" in said
    assert "same  00-specs.txt" in said
