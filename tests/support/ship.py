"""Where the app serves, as .streamlit/config.toml sets it, and the Dockerfile read as
instructions: what the image and every deployment must agree on."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
PORT = CONFIG["server"]["port"]
HEALTH = "/_stcore/health"


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile as (INSTRUCTION, arguments), continuation lines joined, comments dropped."""
    lines = [
        ln
        for ln in (ROOT / "Dockerfile").read_text().splitlines()
        if not ln.lstrip().startswith("#")
    ]
    joined = re.sub(r"\\\n\s*", " ", "\n".join(lines))
    pairs = [ln.strip().split(None, 1) for ln in joined.splitlines() if ln.strip()]
    return [(p[0].upper(), p[1] if len(p) > 1 else "") for p in pairs]


def args_of(name: str) -> list[str]:
    """The arguments of every `name` instruction, in order."""
    return [args for inst, args in instructions() if inst == name]
