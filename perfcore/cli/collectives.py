"""`python -m perfcore collectives --processes N`: the collectives sweep across N processes.

Spawns N local processes (measure.experiments.distributed), each joining jax.distributed, so
collectives span every process's devices as on a multi-host machine. Process 0 writes the
results file, whose place is checked first; this process imports no JAX. Exit status 2 when
a flag is off, JAX is missing, or a process fails or hangs.
"""

from __future__ import annotations

import argparse

from perfcore.cli.common import UsageError, guarded, out_path, pick
from perfcore.cli.measure import jax_or_usage_error
from perfcore.measure import results
from perfcore.measure.experiments import distributed, suites
from perfcore.measure.results import report
from perfcore.model.chip import validate

PROCESSES = (2, 64)


def register(subparsers) -> None:
    """Add `collectives` to the subcommands."""
    parser = subparsers.add_parser(
        "collectives", help="the collectives sweep across N local processes", description=__doc__
    )
    parser.add_argument("--processes", default="2", help="processes to spawn, 2 to 64")
    parser.add_argument("--suite", default="default", help="suite name (sizes)")
    parser.add_argument("--out", help="results file, .json or .csv (default: results/*.json)")
    parser.set_defaults(run=lambda args: guarded(lambda: run(args)))


def run(args: argparse.Namespace) -> str:
    """Check the flags and --out, spawn the processes, summarise process 0's results file."""
    processes = int(validate.number(args.processes, "--processes", *PROCESSES))
    suite = pick("suite", args.suite, suites.SUITES)
    out = out_path(args.out, "collectives")
    jax_or_usage_error()
    problem = distributed.launch(processes, suite, out.resolve())
    if problem:
        raise UsageError(problem)
    return "\n".join([*report.collectives_lines(results.load_results(out)), f"wrote {out}"])
