"""The Profile page's bundled example: the built-in transformer block, profiled on this machine
and judged against this machine's own measurements, written to one results file.

In one process: the roofline (the `roofline` experiment, quick suite) and the kernel curves
(`kernels`, --budget seconds) are measured; then the block (perfcore/measure/profile/examples.py)
is predicted from its optimized HLO (perfcore.predict), profiled op by op and its step wall timed
untraced (isolated calls, median). Every record (the ops with their predictions, the step and
its untraced wall, the roofline's and the kernels' records) goes into --out, which the Profile
page opens on. Printed: the step predicted against measured and the slowest ops. Run when the
machine is quiet (uptime load under 2.5).

    PYTHONPATH=$PWD .venv/bin/python bench/bundled_profile.py [--budget 150] [--out PATH]
        [--suite quick] [--curves RESULTS]   (on an accelerator: --suite default, the roofline
        at its sizes; --curves: a kernels results file measured there, in place of --budget's)
"""

from __future__ import annotations

import argparse
from pathlib import Path

from perfcore.explain.measure import predict as explain_predict
from perfcore.explain.measure.profile_example import BUNDLED
from perfcore.measure.experiments import runner
from perfcore.measure.profile.examples import EXAMPLES
from perfcore.measure.profile.judge import assess
from perfcore.measure.profile.judge.records import step_records, to_records
from perfcore.measure.profile.predict import versus
from perfcore.measure.profile.predict.program import predict
from perfcore.measure.profile.predict.wall import wall_record
from perfcore.measure.profile.run import profile
from perfcore.measure.results import curves, load_results, save_results
from perfcore.model.chip.specs import load_specs

STEPS = 10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budget", type=float, default=150.0, help="kernels suite, seconds")
    parser.add_argument("--out", default=str(BUNDLED))
    parser.add_argument(
        "--suite", default="quick", help="the roofline's suite (an accelerator: default)"
    )
    parser.add_argument("--curves", default="", help="kernels measured earlier here, not measured")
    args = parser.parse_args()
    roofline = runner.run_suite(args.suite, experiments=("roofline",))
    if args.curves:
        kernels = tuple(r for r in load_results(args.curves) if r.experiment == "kernels")
    else:
        kernels = runner.run_suite("kernels", budget_s=args.budget)
    measured = curves.curves(kernels)
    example = EXAMPLES["transformer"]()
    predicted = predict(example.fn, *example.args, curves=measured)
    joined = profile(example.fn, *example.args, steps=STEPS)
    wall = versus.step_wall(example.fn, *example.args)
    held = versus.versus(predicted, joined, wall)
    device = joined.devices[0] if joined.devices else joined.backend
    roofs = assess.roofs_for(device, load_specs(), None, roofline)
    records = versus.with_prediction(to_records(joined, roofs, warmup=2), predicted)
    walls = tuple(wall_record(step, wall) for step in step_records(records))
    out = save_results((*records, *walls, *roofline, *kernels), args.out)
    spread = curves.median_spread(measured)
    print(f"{example.name} on {device}; roofs {roofs.label if roofs else 'none'}")
    print(f"curves: {len(measured.points)} points, {measured.label}, spread {spread:.1%}")
    print("\n".join(explain_predict.lines(held, 12)))
    print(f"wrote {out} ({Path(out).stat().st_size / 1e3:.0f} kB)")


if __name__ == "__main__":
    main()
