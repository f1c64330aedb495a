"""`python -m perfcore profile`: a JAX program's ops on the roofline, from a capture or here.

`--trace PATH` reads a capture made anywhere (an .xplane.pb, its trace folder, or the folder
zipped; GPU, TPU or CPU) using the HLO embedded in it; `--example mlp|transformer|scan`
profiles a built-in program on JAX's default device, `--program FILE.py:FUNCTION` your own
(FUNCTION() returns (fn, args): a function and the tuple of its arguments). Each writes a
results file (--out, .json or .csv, checked before anything runs; docs/results-format.md) and
prints the ops that take 80 % of the time. Roofs: --device names a specs row, else the capture's
device is matched to one, else --roofline gives a results file of the `roofline` experiment
measured there; a program run here with none of these measures this machine's quick roofline
first (about 20 s on a laptop CPU) and judges against it, said as such. `--predict` (with
--example or --program) predicts the step from its HLO before it runs, from --curves (a results
file of the `kernels` experiment), else from the kernels suite measured here first (its
default budget: 2 minutes on a CPU, 4 on a GPU, 8 on a TPU; saved beside --out as
*-kernels.json for --curves next time), then shows every op predicted beside measured and the
step beside its wall time (--json: as JSON).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import warnings
from pathlib import Path

from perfcore import format as fmt
from perfcore.cli.common import UsageError, guarded, out_path, pick, to_json
from perfcore.explain.measure import predict as explain_predict
from perfcore.explain.measure import profile as explain
from perfcore.explain.measure import profile_example
from perfcore.measure import results
from perfcore.measure.clock import host
from perfcore.measure.experiments import registry
from perfcore.measure.profile import program
from perfcore.measure.profile.examples import EXAMPLES
from perfcore.measure.profile.judge import assess
from perfcore.measure.profile.judge import records as profile_records
from perfcore.measure.profile.predict import program as predict_program
from perfcore.measure.profile.predict import versus
from perfcore.measure.results import curves
from perfcore.model.chip.kernels import Curves
from perfcore.model.chip.specs import load_specs

MAX_STEPS = 100


def register(subparsers) -> None:
    """Add `profile` to the subcommands."""
    parser = subparsers.add_parser(
        "profile", help="each op of a JAX program against its roofs", description=__doc__
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--trace", help="a capture: .xplane.pb, its trace folder, or a .zip")
    source.add_argument("--example", help=f"profile a built-in program: {', '.join(EXAMPLES)}")
    source.add_argument("--program", help=f"profile your own: {program.FORM}")
    parser.add_argument("--steps", default="5", help=f"steps to trace (run here), 1-{MAX_STEPS}")
    parser.add_argument("--trace-dir", help="where a run here keeps its trace (default: temp)")
    parser.add_argument("--out", help="results file, .json or .csv (default: results/*.json)")
    parser.add_argument("--device", help="the specs row whose roofs apply (default: matched)")
    parser.add_argument("--roofline", help="a results file of the roofline experiment")
    parser.add_argument("--top", default="10", help="at most this many ops printed")
    parser.add_argument(
        "--predict", action="store_true", help="predict the step before it runs (run here)"
    )
    parser.add_argument("--curves", help="a results file of the kernels experiment (--predict)")
    parser.add_argument("--json", action="store_true", help="--predict's comparison as JSON")
    parser.set_defaults(run=lambda args: guarded(lambda: run(args)))


def _count(raw: str, name: str, hi: int) -> int:
    """An integer flag in 1..hi, else UsageError naming it."""
    if not raw.isdigit() or not 1 <= int(raw) <= hi:
        raise UsageError(f"{name} {raw!r}: expected a whole number from 1 to {hi}")
    return int(raw)


def _profile(args: argparse.Namespace, steps: int):
    """The joined Profile of --trace, --example or --program."""
    if args.trace:
        from perfcore.measure.profile.judge import join
        from perfcore.measure.profile.read import capture

        return join.join(capture.read_capture(args.trace))
    _need_jax()
    from perfcore.measure.profile.run import profile, profile_example

    if args.example:
        return profile_example(args.example, steps=steps, trace_dir=args.trace_dir)
    name, fn, inputs = _here(args)
    joined = profile(fn, *inputs, steps=steps, trace_dir=args.trace_dir)
    return dataclasses.replace(joined, label=name)


def _need_jax() -> None:
    """UsageError saying what to install where JAX is not."""
    missing = registry.jax_available()
    if missing:
        raise UsageError(missing)


def _here(args: argparse.Namespace) -> tuple[str, object, tuple]:
    """(name, fn, args) of the program --example or --program names, to run here."""
    _need_jax()
    if args.program:
        loaded = program.load_program(args.program)
        return loaded.name, loaded.fn, loaded.args
    example = EXAMPLES[args.example]()
    return example.name, example.fn, example.args


def top_lines(records: tuple[results.Record, ...], top: int) -> list[str]:
    """The ops making up 80 % of the time (at most `top`), one line each (what the op does and
    where, then its XLA name), then their lever."""
    lines = [
        f"{'op (what, where)':<48} {'XLA name':<24} {'category':<18} {'runs':>4} "
        f"{'time/step':>10} {'share':>6} {'FLOP/step':>10} {'FLOP/s':>12} {'bytes/s':>11}"
    ]
    rows = {r["XLA name"]: r for r in explain.op_rows(records)}
    for r in explain.top_ops(records)[:top]:
        row = rows[r.label]
        flops = fmt.flops(r.flops) if r.flops is not None else "no cost"
        lines.append(
            f"{profile_records.what(r):<48.48} {r.label:<24.24} {r.category:<18} "
            f"{r.occurrences or 0:>4} {fmt.seconds(r.measurement.median):>10} "
            f"{fmt.percent(row['share']):>6} {flops:>10} "
            f"{fmt.flops_per_s(r.flops_per_s) or '':>12} {fmt.bytes_per_s(r.bytes_per_s) or '':>11}"
        )
        lines.append(f"{'':<48}   {r.diagnosis}")
    return lines


def _curves(path: str | None, out: Path) -> tuple[Curves, str]:
    """(the kernel curves of --curves, or of the kernels suite measured here now at its
    default budget and saved beside `out`; where they came from, in words). From the quick
    suite's 10 s of kernels (sides up to 256) 10 of bench/predict_zoo.py's 66 programs came
    out within 20 % of their walls here (median error 81 %), from the suite's 2 minutes 38
    (17.8 %)."""
    if path:
        found = curves.curves(results.load_results(path))
        if found is None:
            raise UsageError(f"--curves {path}: no records of the kernels experiment in it")
        differs = host.differs(found.threads, found.cache_bytes)
        return found, f"--curves {path}" + (
            f"; {differs}: its kernels are that host's" if differs else ""
        )
    from perfcore.measure.experiments import runner, suites

    kept, backend = out.with_name(f"{out.stem}-kernels.json"), runner.detect({}).backend
    budget = suites.resolve_suite("kernels", backend).kernels_budget_s
    said = f"the kernels suite's {budget:.0f} s on this {backend}"
    print(f"measuring this machine's kernel curves first ({said}) into {kept}", file=sys.stderr)
    records = runner.run_suite("kernels")
    results.save_results(records, kept)
    return curves.curves(records), f"measured now, saved to {kept} (--curves {kept} next time)"


def _roofs(args, device: str, specs, spec=None, roofline=()) -> assess.Roofs | None:
    """The roofs to judge by: assess.roofs_for's; else, for a program run here, this machine's
    quick roofline, measured now (profile_example.roofline_roofs labels it)."""
    roofs = assess.roofs_for(device, specs, spec, roofline)
    if roofs is not None or args.trace:
        return roofs
    from perfcore.measure.experiments import runner

    measured = runner.run_suite("quick", experiments=(profile_example.ROOFLINE,))
    label = "measured roofline of this machine"
    return profile_example.roofline_roofs(measured, device, label, quick=True)


def _predicted(args: argparse.Namespace, steps: int, top: int, specs) -> str:
    """--predict: the program predicted, profiled and held against it; lines or JSON."""
    if args.trace:
        raise UsageError(
            "--predict needs --example or --program: a capture's program cannot be run again"
        )
    out = out_path(args.out, "profile")
    name, fn, inputs = _here(args)  # a bad --program is refused before any kernel is timed
    measured, curves_from = _curves(args.curves, out)
    with warnings.catch_warnings():  # another host's curves: said in the head line instead
        warnings.simplefilter("ignore", predict_program.OtherHost)
        predicted, joined, held = versus.hold(fn, *inputs, curves=measured, steps=steps)
    device = joined.devices[0] if joined.devices else joined.backend
    records = profile_records.to_records(joined, _roofs(args, device, specs))
    wrote = f"wrote {results.save_results(versus.with_prediction(records, predicted), out)}"
    spread = curves.median_spread(measured)
    if args.json:
        return to_json(
            explain_predict.summary(held, spread) | {"curves": curves_from, "wrote": wrote}
        )
    head = f"{name}: {joined.backend}, device {device}; expected from {measured.label}"
    head += f" ({curves_from})"
    return "\n".join([head, *explain_predict.lines(held, top), wrote])


def run(args: argparse.Namespace) -> str:
    """Check the flags and --out, profile, write the records; the top ops and step lines."""
    if args.example:
        pick("example", args.example, EXAMPLES)
    steps, top = _count(args.steps, "--steps", MAX_STEPS), _count(args.top, "--top", 1000)
    specs = load_specs()
    spec = specs[pick("device", args.device, specs)] if args.device else None
    if args.predict:
        return _predicted(args, steps, top, specs)
    roofline = results.load_results(args.roofline) if args.roofline else ()
    out = out_path(args.out, "profile")
    joined = _profile(args, steps)
    device = joined.devices[0] if joined.devices else joined.backend
    roofs = _roofs(args, device, specs, spec, roofline)
    records = profile_records.to_records(joined, roofs, spec_name=spec.name if spec else "")
    wrote = f"wrote {results.save_results(records, out)}"
    where = f"roofs: {roofs.label}" if roofs else "roofs: none (pass --device or --roofline)"
    trace = [f"trace kept in {joined.trace_dir}"] if joined.trace_dir else []
    head = f"{joined.label}: {joined.backend}, device {device}; {where}"
    return "\n".join([head, *explain.step_lines(records), *top_lines(records, top), *trace, wrote])
