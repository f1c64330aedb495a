"""The calculator command line: `specs` lists devices, `calc` prices one operation.

`python -m perfcore calc --device NAME --precision bf16 --op matmul --m 4096 --n 4096
--k 4096` prints FLOPs, bytes, intensity, ridge, attainable, limiter and the time floor
(`--json` for scripts). Unknown names exit 2 with a one-line error and the closest
valid names.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys

from perfcore import format as fmt
from perfcore.model import ops
from perfcore.model.precision import BYTES_PER_ELEMENT
from perfcore.model.roofline import estimate
from perfcore.model.specs import PRECISIONS, Device, SpecError, load_specs


class UsageError(Exception):
    """A bad name on the command line; exit status 2."""


def closest(value: str, valid) -> str:
    """A one-line 'unknown X; did you mean ...' message."""
    near = difflib.get_close_matches(value, list(valid), n=3, cutoff=0.4)
    hint = ", ".join(near) if near else ", ".join(list(valid)[:8])
    return f"{value!r}; closest valid: {hint}"


def pick(kind: str, value: str, valid) -> str:
    """value if it is among `valid`, else UsageError with the closest names."""
    if value not in valid:
        raise UsageError(f"unknown {kind} {closest(value, valid)}")
    return value


def calc(device: Device, precision: str, cost: ops.Cost) -> dict:
    """Every number the calculator prints, in SI units."""
    est = estimate(device.peak_flops(precision), device.memory_bytes_per_s, cost)
    if est is None:
        raise UsageError(f"{device.name} publishes no {precision} peak or no memory bandwidth")
    return {"device": device.name, "precision": precision, "op": cost.name,
            "flops": cost.flops, "bytes": cost.bytes, "intensity": est.intensity,
            "ridge": est.ridge, "peak_flops_per_s": est.peak_flops_per_s,
            "bytes_per_s": est.bytes_per_s, "attainable_flops_per_s": est.attainable_flops_per_s,
            "limiter": est.limiter, "time_floor_s": est.time_floor_s,
            "source": device.source}  # fmt: skip


def render_calc(r: dict) -> str:
    """The calculator's result as aligned human-readable lines."""
    rows = [
        ("device", f"{r['device']} ({r['precision']})"), ("op", r["op"]),
        ("FLOPs", fmt.flops(r["flops"])), ("bytes", fmt.traffic(r["bytes"])),
        ("intensity", fmt.intensity(r["intensity"])), ("ridge", fmt.intensity(r["ridge"])),
        ("attainable", fmt.flops_per_s(r["attainable_flops_per_s"])),
        ("limiter", f"{r['limiter']}-bound"), ("time floor", fmt.seconds(r["time_floor_s"])),
        ("spec source", r["source"]),
    ]  # fmt: skip
    return "\n".join(f"{k:<12} {v}" for k, v in rows)


def render_specs(specs: dict[str, Device]) -> str:
    """One line per device: vendor, year, bf16 peak, bandwidth."""
    lines = [f"{'name':<28} {'vendor':<7} {'year':<5} {'bf16 peak':>14} {'memory bw':>11}"]
    for d in specs.values():
        bf16, bw = fmt.flops_per_s(d.peak_flops("bf16")), fmt.bytes_per_s(d.memory_bytes_per_s)
        lines.append(f"{d.name:<28} {d.vendor:<7} {d.year:<5} {bf16:>14} {bw:>11}")
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    """The argument parser, with one flag per catalog size."""
    p = argparse.ArgumentParser(prog="python -m perfcore", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("specs", help="list the devices in the specs file")
    s.add_argument("--specs", help="a specs CSV (default: data/specs.csv)")
    c = sub.add_parser("calc", help="price one operation on one device")
    c.add_argument("--specs", help="a specs CSV (default: data/specs.csv)")
    c.add_argument("--device", required=True)
    c.add_argument("--precision", default="bf16")
    c.add_argument("--op", default="matmul")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    names = {p.name for _, params in ops.CATALOG.values() for p in params}
    for name in sorted(names):
        c.add_argument(f"--{name.replace('_', '-')}", dest=name, type=float)
    from perfcore import llm_cli
    from perfcore.measure import cli as measure_cli
    from perfcore.measure import distributed

    measure_cli.register(sub)
    llm_cli.register(sub)
    distributed.register(sub)
    return p


def run_calc(args: argparse.Namespace) -> str:
    """Resolve names, price the op, and render it."""
    specs = load_specs(args.specs)
    device = specs[pick("device", args.device, specs)]
    precision = pick("precision", args.precision, PRECISIONS)
    op = pick("op", args.op, ops.CATALOG)
    allowed = {p.name for p in ops.CATALOG[op][1]}
    sizes = {k: v for k, v in vars(args).items() if k in allowed and v is not None}
    result = calc(device, precision, ops.build(op, BYTES_PER_ELEMENT[precision], **sizes))
    return json.dumps(result, indent=2) if args.json else render_calc(result)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    args = parser().parse_args(argv)
    if args.command not in ("specs", "calc"):
        return args.run(args)
    try:
        out = run_calc(args) if args.command == "calc" else render_specs(load_specs(args.specs))
    except (UsageError, SpecError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(out)
    return 0
