"""The two quick-start commands: `python3 dev.py app` and `python3 dev.py test`.

Each creates .venv on first use (Python 3.11+ is all it needs), installs the
project into it from pyproject.toml, and reinstalls only when pyproject.toml
changes. `test` runs ruff check, ruff format --check and the whole pytest suite
that CI runs, installing Debian's chromium for the browser tests where apt-get
can (elsewhere it says how, and those tests skip). `test --fast` runs only the
pure core, explain and figure tests; `--network` adds the tests that reach PyPI.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"


def ensure_venv(extra: str) -> None:
    """Create .venv and install the project with `extra` unless already current."""
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py runs under whatever python3 is first
        sys.exit(f"perfcore needs Python 3.11+, this is {sys.version.split()[0]}")
    if not PY.exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    spec = (ROOT / "pyproject.toml").read_bytes() + extra.encode()
    stamp = VENV / f".installed-{extra or 'base'}"
    digest = hashlib.sha256(spec).hexdigest()
    if stamp.exists() and stamp.read_text() == digest:
        return
    target = f".[{extra}]" if extra else "."
    pip = [str(PY), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "-e", target], cwd=ROOT, check=True)
    stamp.write_text(digest)


HOW_CHROMIUM = (
    "Chromium is not on PATH, so the browser tests will be skipped; install it as `chromium` "
    "(Debian/Ubuntu: apt-get install chromium, macOS: brew install --cask chromium, "
    "Windows: winget install Hibbiki.Chromium)."
)


def ensure_chromium() -> None:
    """Install Debian's chromium for the browser tests where apt can; else say how, go on."""
    if shutil.which("chromium"):
        return
    apt, root = shutil.which("apt-get"), os.name != "nt" and os.geteuid() == 0
    sudo = [] if root else [shutil.which("sudo")]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    installed = (
        apt is not None
        and None not in sudo
        and subprocess.call([*sudo, apt, "update", "-q"], env=env) == 0
        and subprocess.call([*sudo, apt, "install", "-y", "-q", "chromium"], env=env) == 0
    )
    if not installed:
        print(HOW_CHROMIUM, file=sys.stderr)


def test(args: list[str]) -> int:
    """ruff check, ruff format --check, then pytest; --fast runs only the untiered tests, on a
    worker per core (pytest-xdist; a quarter faster than one process on 2 cores)."""
    ensure_venv("test")
    if "--fast" not in args:
        ensure_chromium()
    lint = subprocess.call([str(BIN / "ruff"), "check", "."], cwd=ROOT)
    style = subprocess.call([str(BIN / "ruff"), "format", "--check", "."], cwd=ROOT)
    workers = (
        ["-n", "auto"] if "--fast" in args and not any(a.startswith("-n") for a in args) else []
    )
    tests = subprocess.call([str(PY), "-m", "pytest", *workers, *args], cwd=ROOT)
    return lint or style or tests


def app_port(args: list[str], default: str = "8501") -> str:
    """The port `streamlit run` serves on: the last --server.port in args, else `default`."""
    port = default
    for i, arg in enumerate(args):
        if arg == "--server.port" and i + 1 < len(args):
            port = args[i + 1]
        elif arg.startswith("--server.port="):
            port = arg.partition("=")[2]
    return port


def main(argv: list[str]) -> int:
    command, rest = (argv[0], argv[1:]) if argv else ("", [])
    if command == "app":
        ensure_venv("")
        port = app_port(rest)
        run = [str(BIN / "streamlit"), "run", "app.py", "--server.port", port, *rest]
        print(f"perfcore dashboard: http://localhost:{port} (Ctrl+C stops it)", flush=True)
        return subprocess.call(run, cwd=ROOT)
    if command == "test":
        return test(rest)
    print("usage: python3 dev.py app | test [--fast] [--network] [pytest args]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
