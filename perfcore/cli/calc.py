"""`specs` lists the devices, `calc` prices one operation on one of them.

`python -m perfcore calc --device NAME --precision bf16 --op matmul --m 4096 --n 4096
--k 4096` prints FLOPs, bytes, intensity, ridge, attainable, limiter and the time floor
(`--json` for scripts, strict JSON). Unknown names exit 2 with a one-line error and the
closest valid names; a size outside its Param's range, a fraction where a count belongs, or a
flag the op does not take exits 2 naming the flag, the value and the range.
"""

from __future__ import annotations

import argparse

from perfcore import format as fmt
from perfcore.cli.common import UsageError, flag, guarded, pick, to_json
from perfcore.model.chip import ops, validate
from perfcore.model.chip.precision import BYTES_PER_ELEMENT
from perfcore.model.chip.roofline import estimate_on
from perfcore.model.chip.specs import PRECISIONS, Device, load_specs

# Every size flag of every catalog op: calc takes them all and refuses the op's strangers.
SIZE_NAMES = sorted({p.name for _, params in ops.CATALOG.values() for p in params})


def sizes(op: str, given: dict[str, str | None]) -> dict[str, float]:
    """The op's sizes from raw flag values, each checked against its Param's range."""
    params = {p.name: p for p in ops.CATALOG[op][1]}
    stray = [flag(name) for name, raw in given.items() if raw is not None and name not in params]
    if stray:
        takes = ", ".join(flag(name) for name in params)
        raise UsageError(f"{', '.join(stray)} does not apply to --op {op}; it takes {takes}")
    return {
        name: validate.param(params[name], raw, flag(name))
        for name, raw in given.items()
        if raw is not None
    }


def missing(device: Device, precision: str) -> str:
    """Which figure `device` lacks for a roofline at `precision`, and what it does publish."""
    if device.memory_bytes_per_s is None:
        return f"{device.name} publishes no memory bandwidth, so it has no memory roof"
    offered = device.published_precisions()
    if not offered:
        return f"{device.name} publishes no peak FLOP/s at any precision"
    return f"{device.name} publishes no {precision} peak; try --precision {' / '.join(offered)}"


def calc(device: Device, precision: str, cost: ops.Cost) -> dict:
    """Every number the calculator prints, in SI units."""
    est = estimate_on(device, precision, cost)
    if est is None:
        raise UsageError(missing(device, precision))
    return {
        "device": device.name,
        "precision": precision,
        "op": cost.name,
        "flops": cost.flops,
        "bytes": cost.bytes,
        "intensity": est.intensity,
        "ridge": est.ridge,
        "peak_flops_per_s": est.peak_flops_per_s,
        "bytes_per_s": est.bytes_per_s,
        "attainable_flops_per_s": est.attainable_flops_per_s,
        "limiter": est.limiter,
        "time_floor_s": est.time_floor_s,
        "source": device.source,
    }


def render_calc(r: dict) -> str:
    """The calculator's result as aligned human-readable lines."""
    rows = [
        ("device", f"{r['device']} ({r['precision']})"),
        ("op", r["op"]),
        ("FLOPs", fmt.flops(r["flops"])),
        ("bytes", fmt.traffic(r["bytes"])),
        ("intensity", fmt.intensity(r["intensity"])),
        ("ridge", fmt.intensity(r["ridge"])),
        ("attainable", fmt.flops_per_s(r["attainable_flops_per_s"])),
        ("limiter", f"{r['limiter']}-bound"),
        ("time floor", fmt.seconds(r["time_floor_s"])),
        ("spec source", r["source"]),
    ]
    return "\n".join(f"{k:<12} {v}" for k, v in rows)


def render_specs(specs: dict[str, Device]) -> str:
    """One line per device: vendor, year, bf16 peak, bandwidth."""
    lines = [f"{'name':<28} {'vendor':<7} {'year':<5} {'bf16 peak':>14} {'memory bw':>11}"]
    for d in specs.values():
        bf16, bw = fmt.flops_per_s(d.peak_flops("bf16")), fmt.bytes_per_s(d.memory_bytes_per_s)
        lines.append(f"{d.name:<28} {d.vendor:<7} {d.year:<5} {bf16:>14} {bw:>11}")
    return "\n".join(lines)


def register(sub) -> None:
    """Add `specs` and `calc` (one flag per catalog size) to the subcommands."""
    s = sub.add_parser("specs", help="list the devices in the specs file")
    s.add_argument("--specs", help="a specs CSV (default: data/specs.csv)")
    s.set_defaults(run=lambda args: guarded(lambda: render_specs(load_specs(args.specs))))
    c = sub.add_parser("calc", help="price one operation on one device")
    c.add_argument("--specs", help="a specs CSV (default: data/specs.csv)")
    c.add_argument("--device", required=True)
    c.add_argument("--precision", default="bf16")
    c.add_argument("--op", default="matmul")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    for name in SIZE_NAMES:  # raw strings: validate.param checks them against the op's Param
        c.add_argument(flag(name), dest=name, metavar="N")
    c.set_defaults(run=lambda args: guarded(lambda: run_calc(args)))


def run_calc(args: argparse.Namespace) -> str:
    """Resolve names, check sizes, price the op, and render it."""
    specs = load_specs(args.specs)
    device = specs[pick("device", args.device, specs)]
    precision = pick("precision", args.precision, PRECISIONS)
    op = pick("op", args.op, ops.CATALOG)
    checked = sizes(op, {name: getattr(args, name) for name in SIZE_NAMES})
    result = calc(device, precision, ops.build(op, BYTES_PER_ELEMENT[precision], **checked))
    return to_json(result) if args.json else render_calc(result)
