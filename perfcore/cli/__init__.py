"""perfcore's command line: the spec model, whole models and measurements, one module each.

    specs, calc        the devices, and one operation priced on one (perfcore.cli.calc)
    models, llm        the models, and a whole model priced on a device (perfcore.cli.llm)
    measure            the JAX measurement suite, headless (perfcore.cli.measure)
    collectives        the collectives sweep across local processes (perfcore.cli.collectives)
    plan train|serve   the best parallel layout, or one priced (perfcore.cli.plan)
    profile            a JAX program's ops on the roofline, from a capture or an example

Each module's `register(subparsers)` adds its flags and a `run(args) -> exit status`; the
errors a user can cause become one line and exit 2 in perfcore.cli.common.guarded.
"""

from __future__ import annotations

import os
import sys

from perfcore.cli import calc, collectives, common, llm, measure, plan, profile

SUBCOMMANDS = (calc, llm, measure, collectives, plan, profile)


def parser() -> common.Parser:
    """The argument parser with every subcommand."""
    p = common.Parser(prog="python -m perfcore", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    for module in SUBCOMMANDS:
        module.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status. A reader that closes the pipe early (`| head`)
    ends the output quietly, as other command-line tools do."""
    try:
        args = parser().parse_args(argv)
    except SystemExit as done:  # --help, or a usage error already printed
        return done.code
    try:
        status = args.run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # Python's documented recipe: point stdout at devnull so the exit flush cannot fail.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status
