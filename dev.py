"""The two quick-start commands: `python3 dev.py app` and `python3 dev.py test`.

Each creates .venv on first use (Python 3.11+ is all it needs), installs the
project into it from pyproject.toml, and reinstalls only when pyproject.toml
changes. `test` also installs Debian's chromium for the browser tests when it
is missing, then runs ruff and the whole pytest suite.
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


def ensure_chromium() -> None:
    """Install Debian's chromium for the browser tests when it is not on PATH."""
    if shutil.which("chromium"):
        return
    apt = shutil.which("apt-get")
    if apt is None:
        sys.exit("the browser tests need Chromium: install it so `chromium` is on PATH")
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run([*sudo, apt, "update", "-q"], check=True, env=env)
    subprocess.run([*sudo, apt, "install", "-y", "-q", "chromium"], check=True, env=env)


def main(argv: list[str]) -> int:
    command, rest = (argv[0], argv[1:]) if argv else ("", [])
    if command == "app":
        ensure_venv("")
        run = [str(BIN / "streamlit"), "run", "app.py", "--server.port", "8501", *rest]
        print("perfcore dashboard: http://localhost:8501 (Ctrl+C stops it)", flush=True)
        return subprocess.call(run, cwd=ROOT)
    if command == "test":
        ensure_venv("test")
        ensure_chromium()
        lint = subprocess.call([str(BIN / "ruff"), "check", "."], cwd=ROOT)
        tests = subprocess.call([str(PY), "-m", "pytest", *rest], cwd=ROOT)
        return lint or tests
    print("usage: python3 dev.py app | test [pytest args]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
