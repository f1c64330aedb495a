"""The README's command-line examples run, each output kept, to show a change left them alone.

    python3 scripts/cli_outputs.py OUT_DIR [--compare OLD_DIR]

Reads the README's "Command line" block, runs each example that prices rather than measures
(specs, calc, models, llm, plan train, plan serve) with its optional flags given (`[--json]`
and the rest in brackets) and writes its standard output to OUT_DIR/NN-subcommand.txt. The
examples that measure this machine (measure, collectives, profile) are left out: their
output is a measurement, different on every run. With --compare, each output is checked
byte for byte against the same file in OLD_DIR (written by this script at another commit);
the differing ones are named and the exit status is 1.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRICES = ("specs", "calc", "models", "llm", "plan")  # subcommands whose output is arithmetic
PREFIX = ".venv/bin/python -m perfcore "


def examples(readme: str) -> list[list[str]]:
    """Each pricing example of the README's command-line block, as its perfcore arguments,
    continuation lines joined, comments dropped and bracketed optional flags given."""
    block = readme.split("## Command line", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    lines = re.sub(r"\\\n\s*", " ", block).splitlines()
    out = []
    for line in lines:
        if not line.startswith(PREFIX):
            continue
        args = re.sub(r"\s+#.*$", "", line[len(PREFIX) :])
        args = re.sub(r"\[([^\]]*)\]", r"\1", args)
        words = shlex.split(args)
        if words and words[0] in PRICES:
            out.append(words)
    return out


def name(i: int, words: list[str]) -> str:
    """The output file of the i-th example: its number and subcommand."""
    return f"{i:02d}-{'-'.join(w for w in words[:2] if not w.startswith('-'))}.txt"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder the outputs are written to")
    parser.add_argument("--compare", type=Path, help="folder of outputs written before")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    differ = []
    for i, words in enumerate(examples((ROOT / "README.md").read_text())):
        run = subprocess.run(
            [sys.executable, "-m", "perfcore", *words], capture_output=True, cwd=ROOT, timeout=300
        )
        if run.returncode != 0:
            print(f"perfcore {shlex.join(words)}: exit {run.returncode}\n{run.stderr.decode()}")
            return 2
        path = args.out / name(i, words)
        path.write_bytes(run.stdout)
        if args.compare is not None:
            old = args.compare / path.name
            same = old.exists() and old.read_bytes() == run.stdout
            differ += [] if same else [path.name]
            print(f"{'same' if same else 'DIFFERS'}  {path.name}  perfcore {shlex.join(words)}")
        else:
            print(f"wrote {path}  ({len(run.stdout):,} bytes)")
    if differ:
        print(f"{len(differ)} output(s) differ: {', '.join(differ)}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
