"""`python -m perfcore measure`: run a measurement suite headless and write a results file.

The same experiments as the dashboard's measure page, on JAX's default device. Progress
goes to stderr, a summary table to stdout, the records to --out (.json or .csv; see
docs/results-format.md). Exit status 2 when JAX is missing or a size does not fit.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from perfcore import format as fmt
from perfcore.measure import registry, report, results, suites


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The measure command's options."""
    parser.add_argument("--suite", default="default", help="suite name (see --list)")
    parser.add_argument("--out", help="results file, .json or .csv (default: results/*.json)")
    parser.add_argument(
        "--experiment", action="append", help="run only this experiment (repeatable)"
    )
    parser.add_argument("--list", action="store_true", help="list suites and experiments")


def register(subparsers) -> argparse.ArgumentParser:
    """Add the `measure` subcommand to a parent's subparsers; its parser."""
    parser = subparsers.add_parser(
        "measure", help="run the JAX measurement suite headless", description=__doc__
    )
    add_arguments(parser)
    parser.set_defaults(run=run)
    return parser


def listing() -> str:
    """The suites and experiments, one per line."""
    cap = f"on a CPU: float32, sides up to {suites.CPU_MAX_MATMUL}"
    named = [f"  {s.name}: matmul sides {', '.join(map(str, s.matmul_sizes))}, "
              f"{s.matmul_dtype} ({cap})" for s in suites.SUITES.values()]  # fmt: skip
    experiments = [f"  {e.name}: {e.title}" for e in registry.EXPERIMENTS.values()]
    return "\n".join(["suites:", *named, "experiments:", *experiments])


def progress_printer(stream: TextIO) -> Callable[[float, str], None]:
    """A progress callback drawing '[ 42%] message' on stream (one line each if not a tty)."""
    end = "\r" if stream.isatty() else "\n"

    def show(fraction: float, message: str) -> None:
        stream.write(f"[{fraction:4.0%}] {message:<60.60}{end if fraction < 1 else chr(10)}")
        stream.flush()

    return show


def summary(records: tuple[results.Record, ...]) -> str:
    """One line per record: what, method statistic, median, spread, achieved rates, note."""
    lines = [f"{'experiment':<12} {'label':<24} {'statistic':>10} {'median':>10} "
             f"{'IQR/med':>8} {'FLOP/s':>12} {'bytes/s':>12}  note"]  # fmt: skip
    for r in records:
        m = r.measurement  # a naive timer's rate is not the device's: rates are of synced work
        rate = fmt.flops_per_s(r.flops_per_s) if r.flops_per_s else ""
        bandwidth = fmt.bytes_per_s(r.bytes_per_s) if r.bytes_per_s else ""
        lines.append(f"{r.experiment:<12} {r.label:<24} {fmt.seconds(m.statistic):>10} "
                     f"{fmt.seconds(m.median):>10} {fmt.percent(m.spread):>8} {rate:>12} "
                     f"{bandwidth:>12}  {r.note}")  # fmt: skip
    return "\n".join(lines)


def default_out() -> Path:
    """results/measure-<UTC time>.json under the working directory."""
    return Path("results") / f"measure-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"


def _out_problem(out: Path) -> str | None:
    """Why the results file cannot be written there, checked before measuring; else None."""
    if out.suffix.lower() not in (".json", ".csv"):
        return f"--out {out}: expected a file name ending in .json or .csv"
    return None


def run(args: argparse.Namespace) -> int:
    """Run the suite and write the results file; the exit status."""
    if args.list:
        print(listing())
        return 0
    out = Path(args.out) if args.out else default_out()
    problem = registry.jax_available() or _out_problem(out)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    from perfcore.measure import jax_bench  # the experiments, only when measuring

    try:
        records = jax_bench.run_suite(
            args.suite,
            experiments=tuple(args.experiment or ()),
            progress=progress_printer(sys.stderr),
            wait_callback=lambda message: print(message, file=sys.stderr),
        )
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not records:
        print("error: nothing was measured: collectives need 2 or more devices (on a CPU, "
              "XLA_FLAGS=--xla_force_host_platform_device_count=8; or run "
              "`python -m perfcore collectives --processes 2`)", file=sys.stderr)  # fmt: skip
        return 2
    first = records[0]
    print(f"device {first.device} ({first.backend}), spec row {first.spec_name or 'unknown'}, "
          f"JAX {first.jax_version}")  # fmt: skip
    print("\n".join([summary(records), *report.lines(records)]))
    out.parent.mkdir(parents=True, exist_ok=True)
    print(f"wrote {results.save_results(records, out)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m perfcore.measure.cli`: the measure command on its own; the exit status."""
    parser = argparse.ArgumentParser(prog="python -m perfcore measure", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
