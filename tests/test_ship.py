"""The image, checked without a Docker engine (its deployments: test_deploy.py).

hadolint lints the Dockerfile; pip's dry run resolves its very install line; the port, health
path, user and environment agree across Dockerfile, config.toml and README; and the
build context, installed the way the image installs it, finds its data. What only a Docker
engine can show (the image builds, CUDA is seen inside it) is left to a machine that has one.
"""

import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
import urllib.request
import venv
from pathlib import Path

import pytest

from tests.support.ship import HEALTH, PORT, ROOT, args_of, instructions

BIN = Path(sys.executable).parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def env() -> dict[str, str]:
    """Every ENV key=value of the Dockerfile."""
    pairs = [kv.split("=", 1) for args in args_of("ENV") for kv in shlex.split(args)]
    return dict(pairs)


def arg_default(name: str) -> str:
    """The default of `ARG name=default`."""
    return next(a.split("=", 1)[1] for a in args_of("ARG") if a.startswith(f"{name}="))


def pip_line() -> str:
    """The one RUN line that installs Python packages."""
    (line,) = [a for a in args_of("RUN") if "pip install" in a]
    return line


def pip_command() -> str:
    """The pip install command of that RUN line."""
    (command,) = [c.strip() for c in pip_line().split("&&") if "pip install" in c]
    return command


def shell_pip(script: str, pip: str, extra: str, cwd=ROOT, **kw) -> subprocess.CompletedProcess:
    """Run `script` through sh as the build would, with `pip` standing for the command `pip`."""
    environ = kw.pop("env", os.environ) | {"EXTRA": extra}
    return subprocess.run(
        ["sh", "-c", f"pip() {{ {pip}; }}\n{script}"],
        env=environ,
        cwd=cwd,
        text=True,
        capture_output=True,
        **kw,
    )


def test_dockerfile_passes_hadolint_at_warning_level():
    hadolint = shutil.which("hadolint", path=str(BIN)) or shutil.which("hadolint")
    assert hadolint, "hadolint missing: install the test extra (pip install -e '.[test]')"
    run = subprocess.run(
        [hadolint, "--no-color", "--failure-threshold", "warning", "Dockerfile"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_image_installs_the_project_and_nothing_else():
    words = shlex.split(pip_command())
    assert words[:2] == ["pip", "install"]
    targets = [w for w in words[2:] if not w.startswith("-")]
    assert targets == [".${EXTRA:+[$EXTRA]}"], "the project only: pyproject.toml is the list"
    assert "-e" in words, "editable keeps perfcore/ beside data/specs.csv"
    others = [a for a in args_of("RUN") if a != pip_line()] + pip_line().split("&&")
    assert not any(
        re.search(r"\b(pip|uv|conda|apt-get) install\b", c)
        for c in others
        if c.strip() != pip_command()
    ), "one install step only"
    assert not list(ROOT.glob("requirements*.txt"))


@pytest.mark.parametrize(("extra", "target"), [("cuda", ".[cuda]"), ("", ".")])
def test_the_extra_build_arg_picks_the_pyproject_extra(extra, target):
    run = shell_pip(pip_command(), 'printf "%s\\n" "$@"', extra)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[-1] == target
    assert arg_default("EXTRA") == "cuda"
    cuda = PYPROJECT["project"]["optional-dependencies"]["cuda"]
    assert any(d.startswith("jax[cuda12]") for d in cuda)


def _index_reachable() -> bool:
    """True when the package index answers within a few seconds."""
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple/").rstrip("/")
    try:
        with urllib.request.urlopen(f"{index}/pip/", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


@pytest.mark.network
def test_the_dockerfile_install_line_resolves_jax_cuda12(tmp_path):
    if (sys.platform, platform.machine(), sys.version_info[:2]) != ("linux", "x86_64", (3, 11)):
        pytest.skip("pip resolves for this machine; the image is linux x86_64 CPython 3.11")
    if not _index_reachable():
        pytest.skip("PyPI unreachable: cannot dry-run the Dockerfile's pip install")
    report = tmp_path / "report.json"
    pip = f'"{sys.executable}" -m pip "$@" --dry-run --ignore-installed --quiet --report "{report}"'
    # Resolve as in the image: no local pip config, find-links or constraints.
    keep = {"PATH", "HOME", "PIP_INDEX_URL", "PIP_CERT", "SSL_CERT_FILE", "HTTPS_PROXY", "NO_PROXY"}
    environ = {k: v for k, v in os.environ.items() if k.upper() in keep}
    run = shell_pip(
        pip_command(),
        pip,
        arg_default("EXTRA"),
        timeout=150,
        env=environ | {"PIP_CONFIG_FILE": os.devnull},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    installed = {
        i["metadata"]["name"].lower(): i["metadata"]["version"]
        for i in json.loads(report.read_text())["install"]
    }
    assert installed["jax"] == installed["jaxlib"] == installed["jax-cuda12-plugin"]
    assert installed["perfcore"] == PYPROJECT["project"]["version"]
    assert any(name.startswith("nvidia-cudnn") for name in installed)


def test_the_image_runs_as_a_non_root_user():
    user = args_of("USER")[-1].split(":")[0]
    assert user not in ("root", "0")
    assert any(f"--uid {user}" in a for a in args_of("RUN")), "USER must be the created user"


def test_the_image_sets_jax_and_the_nvidia_runtime_up_for_the_gpu():
    e = env()
    assert e["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"
    assert e["NVIDIA_VISIBLE_DEVICES"] == "all"
    assert {"compute", "utility"} <= set(e["NVIDIA_DRIVER_CAPABILITIES"].split(","))


def test_cmd_expose_and_healthcheck_agree_with_config_toml():
    cmd = json.loads(args_of("CMD")[-1])
    assert cmd[:3] == ["streamlit", "run", "app.py"]
    assert "--server.port" not in " ".join(cmd), "the port comes from config.toml"
    assert args_of("EXPOSE") == [str(PORT)]
    (check,) = args_of("HEALTHCHECK")
    assert f"127.0.0.1:{PORT}{HEALTH}" in check
    assert args_of("WORKDIR")[-1] == "/app"


def test_readme_documents_the_same_image_commands_and_port():
    readme = (ROOT / "README.md").read_text()
    for text in (
        "docker build -t perfcore .",
        f"docker run --gpus all -p {PORT}:{PORT} perfcore",
        "--build-arg EXTRA=",
        "NVIDIA Container Toolkit",
        "PERFCORE_HOSTED=1",
        "sessionAffinity: ClientIP",
        f"http://localhost:{PORT}",
    ):
        assert text in readme, text
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = [ln.split("#")[0].strip() for ln in quick.splitlines() if ln.startswith("python3")]
    assert commands == ["python3 dev.py app", "python3 dev.py test"]


def _pattern(pattern: str) -> re.Pattern:
    """A .dockerignore pattern as a regex: `*` stays within a folder, `**` spans folders,
    and a match on a folder drops everything under it."""
    out, i = "", 0
    while i < len(pattern):
        for token, regex in (("**/", "(?:.*/)?"), ("**", ".*"), ("*", "[^/]*"), ("?", "[^/]")):
            if pattern.startswith(token, i):
                out, i = out + regex, i + len(token)
                break
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out.rstrip("/") + r"(?:/.*)?\Z")


def dockerignore() -> list[re.Pattern]:
    """The .dockerignore patterns (this matcher knows no `!` exceptions, so none are allowed)."""
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    patterns = [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]
    assert not any(p.startswith("!") for p in patterns)
    return [_pattern(p) for p in patterns]


def build_context() -> list[str]:
    """Every file `COPY . .` sends into the image, relative to the repo."""
    patterns, files = dockerignore(), []
    for folder, dirs, names in os.walk(ROOT):
        rel = Path(folder).relative_to(ROOT).as_posix()
        paths = {n: n if rel == "." else f"{rel}/{n}" for n in [*dirs, *names]}
        kept = {n for n, path in paths.items() if not any(p.match(path) for p in patterns)}
        dirs[:] = [d for d in dirs if d in kept]
        files += [paths[n] for n in names if n in kept]
    return sorted(files)


def test_dockerignore_keeps_what_the_app_runs_and_drops_the_rest():
    context = set(build_context())
    needed = [
        "app.py",
        "ui/__init__.py",
        "pyproject.toml",
        "README.md",
        "data/specs.csv",
        ".streamlit/config.toml",
        "perfcore/__init__.py",
    ]
    needed += [p.relative_to(ROOT).as_posix() for p in (ROOT / "app_pages").glob("*.py")]
    assert set(needed) <= context
    for junk in (".venv/", ".git/", "tests/", "__pycache__/", ".streamlit/secrets.toml"):
        assert not any(f.startswith(junk) or f"/{junk}" in f"/{f}" for f in context), junk


def purelib(python: str | Path) -> str:
    """The site-packages folder of an interpreter."""
    code = "import sysconfig; print(sysconfig.get_path('purelib'))"
    return subprocess.check_output([str(python), "-c", code], text=True).strip()


def build_like_the_image(app: Path, pip: str) -> None:
    """Replay the Dockerfile's COPY and RUN-pip steps into `app` (its WORKDIR), pip as given."""
    context = build_context()
    for inst, args in instructions():
        if inst == "COPY":
            *sources, dest = shlex.split(args)
            for src in sources:
                assert src == "." or (ROOT / src).is_file(), f"replay knows files and ., not {src}"
                files = context if src == "." else [src]
                for rel in files:
                    target = app / dest / (rel if src == "." else Path(rel).name)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(ROOT / rel, target)
        elif inst == "RUN" and "pip install" in args:
            run = shell_pip(args, pip, arg_default("EXTRA"), cwd=app, timeout=120)
            assert run.returncode == 0, run.stderr


@pytest.mark.network
def test_the_image_build_steps_install_perfcore_beside_its_data(tmp_path):
    if not _index_reachable():
        pytest.skip("PyPI unreachable: the editable install fetches its build backend")
    app, env_dir = tmp_path / "app", tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    # The dependencies come from this venv; only the project is installed, the image's way.
    Path(purelib(py), "deps.pth").write_text(purelib(sys.executable) + "\n")
    build_like_the_image(app, f'"{sys.executable}" -m pip --python "{py}" "$@" --no-deps -q')
    probe = (
        "import perfcore, perfcore.explain, perfcore.figures, perfcore.model.chip.specs as s; "
        "d = perfcore.load_specs(); print(s.DEFAULT_PATH, len(d))"
    )
    out = subprocess.run(
        [py, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    path, count = out.stdout.split()
    assert Path(path) == app / "data" / "specs.csv" and int(count) > 0
