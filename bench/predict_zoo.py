"""Programs the kernel curves were not built from, each predicted before it runs and then timed.

bench/predict.py holds its three programs against their profiles op by op; this holds a wider
set of ordinary JAX programs (convolutions, attention, scans, gathers, sorts, reductions,
norms, bfloat16 math, random numbers drawn inside the step, a small CNN's and an MLP's
training steps; bench/predict_heldout.py's six, of bench/predict.py's three kinds at other
sizes and styles; bench/zoo_batched.py's seven of those kinds over batched activations and
caches, bench/zoo_styles.py's six more, written after the last kernel changes,
bench/zoo_idioms.py's four in idioms the others had not used, and bench/zoo_linalg.py's five
that call LAPACK through jnp.linalg, bench/zoo_numerics.py's six in int8, complex FFTs, top-k
and max pools, bench/zoo_kinds.py's fourteen in ops no curve priced at stop 52, and
bench/zoo_practice.py's twelve in idioms none of those used, written at stop 59) against
their step's wall alone. Each program runs in a process of its own
(bench.predict.own_processes: a heap no program before it grew, as bench/predict.py says why)
reading the curves measured here or read from --curves: its predicted step
(perfcore.predict) against the fastest of 30 isolated, synchronized untraced calls in each of
--rounds rounds (bench.predict.walls; --only, or on an accelerator: the programs, in this
process, in rounds over them), with the median beside it and each round's fastest. Target:
within 20 % of the fastest. Run only when the machine is quiet (uptime load < 2.5).

    PYTHONPATH=$PWD .venv/bin/python bench/predict_zoo.py [--budget 240] [--curves F] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os

import jax

from bench.predict import BUDGET_HELP, kernels_budget, own_processes, walls
from bench.predict_heldout import HELD_OUT
from bench.zoo_batched import BATCHED
from bench.zoo_idioms import IDIOMS
from bench.zoo_kinds import KINDS
from bench.zoo_linalg import LINALG
from bench.zoo_numerics import NUMERICS
from bench.zoo_practice import PRACTICE
from bench.zoo_programs import (
    attention,
    bf16_matmul,
    bf16_mlp_block,
    cnn_train,
    conv_forward,
    conv_wgrad,
    cumsum,
    dropout,
    einsum_attention,
    elementwise,
    embed_xent,
    gather_rows,
    mlp_gelu,
    norm_softmax,
    reductions,
    rnn_scan,
    sort,
    transpose_matmul,
)
from bench.zoo_styles import STYLES
from perfcore.measure.experiments import runner
from perfcore.measure.profile.predict import program as predict
from perfcore.measure.results import curves, load_results, save_results

TARGET = 0.20


PROGRAMS = {
    f.__name__: f
    for f in (
        mlp_gelu,
        bf16_matmul,
        bf16_mlp_block,
        norm_softmax,
        conv_forward,
        conv_wgrad,
        cnn_train,
        attention,
        einsum_attention,
        rnn_scan,
        gather_rows,
        sort,
        cumsum,
        reductions,
        elementwise,
        transpose_matmul,
        dropout,
        embed_xent,
        *HELD_OUT,
        *BATCHED,
        *STYLES,
        *IDIOMS,
        *LINALG,
        *NUMERICS,
        *KINDS,
        *PRACTICE,
    )
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budget", type=float, default=None, help=BUDGET_HELP)
    parser.add_argument("--curves", default="", help="a results file of kernels records to use")
    parser.add_argument("--out", default="", help="where to save the curves measured")
    parser.add_argument("--only", default="", help="comma-separated program names")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of untraced step walls")
    parser.add_argument("--rows", action="store_true", help=argparse.SUPPRESS)  # a child's part
    args = parser.parse_args()
    if args.rows:
        rows(args.only.split(","), curves.curves(load_results(args.curves)), args.rounds)
        return
    print("load average (1, 5, 15 min) before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    if args.curves:
        records = load_results(args.curves)
    else:
        records = runner.run_suite("kernels", budget_s=kernels_budget(args.budget))
        if args.out:
            save_results(records, args.out)
    measured = curves.curves(records)
    print(f"curves: {len(measured.points)} points, {measured.label}")
    head = f"{'program':<18} {'predicted':>10} {'fastest':>10} {'median':>10} {'error':>7}"
    print(f"{head} {'within':>7}  fastest by round", flush=True)
    names = args.only.split(",") if args.only else list(PROGRAMS)
    if args.only or jax.default_backend() != "cpu":  # one process holds an accelerator
        lines = rows(names, measured, args.rounds)
    else:
        lines = []
        for out in own_processes(__file__, records, names, args.rounds):
            print(out, end="", flush=True)
            lines += out.splitlines()
    within = sum(line.split()[5] == "yes" for line in lines)
    print(f"{within} of {len(names)} within {TARGET:.0%} of the fastest call")
    print("load average (1, 5, 15 min) after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


def rows(names: list[str], measured, rounds: int) -> list[str]:
    """Each named program predicted from `measured` and its walls timed in this process, in
    rounds over them: its line, printed and returned."""
    steps = {name: PROGRAMS[name]() for name in names}
    predicted = {
        n: predict.predict(fn, *inputs, curves=measured) for n, (fn, inputs) in steps.items()
    }
    lines = []
    for name, (wall, fastest) in walls(steps, rounds).items():
        step = predicted[name].step_s
        error = step / wall.min - 1
        ok = "yes" if abs(error) <= TARGET else "no"
        lines.append(
            f"{name:<18} {step * 1e3:>8.3f}ms {wall.min * 1e3:>8.3f}ms "
            f"{wall.median * 1e3:>8.3f}ms {error:>+7.0%} {ok:>7}  "
            + ", ".join(f"{t * 1e3:.3f}" for t in fastest)
        )
        print(lines[-1], flush=True)
    return lines


if __name__ == "__main__":
    main()
