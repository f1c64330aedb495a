"""dev.py app: the address it prints is the one streamlit serves on."""

import importlib.util
from pathlib import Path

import pytest

SPEC = importlib.util.spec_from_file_location("dev", Path(__file__).parents[1] / "dev.py")
dev = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(dev)


@pytest.mark.parametrize(
    ("args", "port"),
    [
        ([], "8501"),
        (["--server.port", "9000"], "9000"),
        (["--server.port=9100"], "9100"),
        (["--server.port", "9000", "--server.port", "9200"], "9200"),
    ],
)
def test_app_prints_and_serves_the_port_it_is_given(monkeypatch, capsys, args, port):
    """streamlit takes the last --server.port given; the printed address must be that one."""
    calls = []
    monkeypatch.setattr(dev, "ensure_venv", lambda extra: None)
    monkeypatch.setattr(dev.subprocess, "call", lambda cmd, cwd: calls.append(cmd) or 0)
    assert dev.main(["app", *args]) == 0
    assert f"http://localhost:{port} " in capsys.readouterr().out
    (cmd,) = calls
    given = [cmd[i + 1] for i, a in enumerate(cmd) if a == "--server.port"]
    given += [a.partition("=")[2] for a in cmd if a.startswith("--server.port=")]
    assert given[-1] == port
