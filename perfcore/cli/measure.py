"""`python -m perfcore measure`: run a measurement suite headless and write a results file.

The same experiments as the dashboard's measure page, on JAX's default device. Progress
goes to stderr, a summary table to stdout, the records to --out (.json or .csv; see
docs/results-format.md), whose place is checked before anything is measured. Exit status 2
when JAX is missing, a name is unknown, --out cannot be written or a size does not fit.
"""

from __future__ import annotations

import argparse
import sys

from perfcore import format as fmt
from perfcore.cli.common import UsageError, guarded, out_path, pick
from perfcore.explain.measure import measure as explain_measure
from perfcore.measure import results
from perfcore.measure.experiments import registry, suites
from perfcore.measure.experiments.runner import progress_printer
from perfcore.measure.results import report


def register(subparsers) -> None:
    """Add `measure` to the subcommands."""
    parser = subparsers.add_parser(
        "measure", help="run the JAX measurement suite headless", description=__doc__
    )
    parser.add_argument("--suite", default="default", help="suite name (see --list)")
    parser.add_argument("--out", help="results file, .json or .csv (default: results/*.json)")
    parser.add_argument(
        "--experiment", action="append", help="run only this experiment (repeatable)"
    )
    parser.add_argument("--list", action="store_true", help="list suites and experiments")
    parser.add_argument(
        "--budget", help="seconds the kernels experiment may take (default: the suite's)"
    )
    parser.set_defaults(run=lambda args: guarded(lambda: run(args)))


def listing() -> str:
    """The suites and experiments, one per line."""
    captions = explain_measure.suite_captions(suites.SUITES)
    named = [f"  {name}: {c}" for name, c in zip(suites.SUITES, captions, strict=True)]
    experiments = [f"  {e.name}: {e.title}" for e in registry.EXPERIMENTS.values()]
    return "\n".join(["suites:", *named, "experiments:", *experiments])


def summary(records: tuple[results.Record, ...]) -> str:
    """One line per record: what, method statistic, median, spread, achieved rates, note."""
    lines = [
        f"{'experiment':<12} {'label':<24} {'statistic':>10} {'median':>10} "
        f"{'IQR/med':>8} {'FLOP/s':>12} {'bytes/s':>12}  note"
    ]
    for r in records:
        m = r.measurement  # a naive timer's rate is not the device's: rates are of synced work
        rate = fmt.flops_per_s(r.flops_per_s) if r.flops_per_s else ""
        bandwidth = fmt.bytes_per_s(r.bytes_per_s) if r.bytes_per_s else ""
        lines.append(
            f"{r.experiment:<12} {r.label:<24} {fmt.seconds(m.statistic):>10} "
            f"{fmt.seconds(m.median):>10} {fmt.percent(m.spread):>8} {rate:>12} "
            f"{bandwidth:>12}  {r.note}"
        )
    return "\n".join(lines)


def jax_or_usage_error() -> None:
    """UsageError saying how to install JAX where it is missing."""
    missing = registry.jax_available()
    if missing:
        raise UsageError(missing)


NOTHING_MEASURED = (
    "nothing was measured: collectives need 2 or more devices (on a CPU, "
    "XLA_FLAGS=--xla_force_host_platform_device_count=8; or run "
    "`python -m perfcore collectives --processes 2`)"
)


def _budget(raw: str | None) -> float | None:
    """--budget as seconds (a number > 0); None when not given; else UsageError naming it."""
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value < 1e6:
        raise UsageError(f"--budget {raw!r}: expected seconds, a number above 0")
    return value


def run(args: argparse.Namespace) -> str:
    """Check every name and --out, run the suite, write the results file; the summary."""
    if args.list:
        return listing()
    suite = pick("suite", args.suite, suites.SUITES)
    experiments = tuple(pick("experiment", e, registry.EXPERIMENTS) for e in args.experiment or ())
    budget = _budget(args.budget)
    out = out_path(args.out, "measure")
    jax_or_usage_error()
    from perfcore.measure.experiments import runner  # the experiments, only when measuring

    records = runner.run_suite(
        suite,
        experiments=experiments,
        progress=progress_printer(sys.stderr),
        wait_callback=lambda message: print(message, file=sys.stderr),
        budget_s=budget,
    )
    if not records:
        raise UsageError(NOTHING_MEASURED)
    first = records[0]
    head = (
        f"device {first.device} ({first.backend}), spec row {first.spec_name or 'unknown'}, "
        f"JAX {first.jax_version}"
    )
    wrote = f"wrote {results.save_results(records, out)}"
    return "\n".join([head, summary(records), *report.lines(records), wrote])
