"""`python -m perfcore llm` prices a whole model on a device; `models` lists the models.

`python -m perfcore llm --model Llama-2-7B --device "NVIDIA H100 SXM" --phase decode
--batch 8 --context 1024` prints FLOPs, bytes, intensity, both times, memory and fit,
and the ops (`--json` for scripts: always valid JSON, null where a figure is missing).
Unknown names and numbers out of range exit 2 with a one-line error.
"""

from __future__ import annotations

import argparse

from perfcore import format as fmt
from perfcore.cli.common import flag, guarded, pick, to_json
from perfcore.model.chip import validate
from perfcore.model.chip.specs import load_specs
from perfcore.model.llm import phases, serving
from perfcore.model.llm.models import load_models
from perfcore.model.llm.phases import NUMBERS
from perfcore.model.llm.workloads import BITS, Precisions


def run_phase(model, device, phase: str, n: dict, p: Precisions, fused: bool, recompute: bool):
    """(Phase, Memory, extra numbers) for the chosen phase."""
    b, ctx, tp = n["batch"], n["context"], n["tp"]
    if phase == "train":
        step = phases.train(model, device, b, ctx, p, fused, tp, n["dp"], recompute)
        return step, serving.train_memory(model, device, b, ctx, p, fused, tp, recompute), {}
    if phase == "generate":
        g = serving.generate(model, device, b, ctx, n["output_tokens"], p, fused, tp)
        extra = {
            "ttft_s": g.ttft_s,
            "tpot_first_s": g.tpot_first_s,
            "tpot_last_s": g.tpot_last_s,
            "tokens_per_s": g.tokens_per_s,
        }
        mem = serving.inference_memory(model, device, g.phase, b, ctx + n["output_tokens"], p, tp)
        return g.phase, mem, extra
    run = phases.prefill if phase == "prefill" else phases.decode
    step = run(model, device, b, ctx, p, fused, tp)
    tokens = b * ctx if phase == "prefill" else b
    mem = serving.inference_memory(model, device, step, b, ctx, p, tp)
    return step, mem, {"tokens_per_s": tokens / step.time_s}


def result(model, device, phase: str, n: dict, p: Precisions, fused: bool, recompute: bool) -> dict:
    """Every number the command prints, SI units; None where a figure is missing."""
    step, mem, extra = run_phase(model, device, phase, n, p, fused, recompute)
    per_op = [
        {
            "name": pr.op.name,
            "flops": pr.op.flops,
            "bytes": pr.op.bytes,
            "time_s": pr.time_s,
            "bound": pr.bound,
        }
        for pr in phases.by_name(step)
    ]
    parts = {k: step.part(k) for k in ("weights", "kv_read", "kv_write", "activations")}
    memory = {
        "weights": mem.weights,
        "kv_cache": mem.kv_cache,
        "activations": mem.activations,
        "optimizer": mem.optimizer,
    }
    return {
        "model": model.name,
        "device": device.name,
        "phase": phase,
        **n,
        "precisions": {"weights": p.weights, "activations": p.activations, "kv": p.kv},
        "math_precision": step.precision,
        "fused_attention": fused,
        "flops": step.flops,
        "bytes": step.bytes,
        "bytes_parts": parts,
        "intensity": step.intensity,
        "bound": step.bound,
        "time_s": step.time_s,
        "time_bound_s": step.time_bound_s,
        "comm_s": step.comm_s,
        **extra,
        "memory_bytes": memory,
        "capacity_bytes": mem.capacity,
        "fits": mem.fits,
        "gpus_needed": mem.gpus_needed,
        "params": model.params(),
        "active_params": model.active_params(),
        "kv_rule": model.kv_rule(),
        "per_op": per_op,
    }


def render(r: dict) -> str:
    """The result as aligned lines, then one line per op."""
    fits = {True: "fits", False: "does NOT fit", None: "capacity not published"}[r["fits"]]
    rows = [
        ("model", f"{r['model']} ({r['params'] / 1e9:.2f}B params; {r['kv_rule']})"),
        ("device", f"{r['device']}, math at {r['math_precision']}"),
        ("phase", f"{r['phase']}, batch {r['batch']}, context {r['context']}"),
        ("FLOPs", fmt.flops(r["flops"])),
        ("bytes", fmt.traffic(r["bytes"])),
        ("intensity", f"{fmt.intensity(r['intensity'])} ({r['bound']}-bound)"),
        ("time", f"{fmt.seconds(r['time_s'])} (sum of per-op roofline times)"),
        ("bound", f"{fmt.seconds(r['time_bound_s'])} (single roofline)"),
        ("comm", fmt.seconds(r["comm_s"]) if r["comm_s"] else "none (one GPU)"),
        (
            "memory",
            f"{fmt.capacity(sum(r['memory_bytes'].values()))} per GPU of "
            f"{fmt.capacity(r['capacity_bytes'])}: {fits}",
        ),
        ("GPUs", f"{r['gpus_needed']} needed to hold it"),
    ]
    rows += [(k, fmt.seconds(r[k])) for k in ("ttft_s", "tpot_first_s", "tpot_last_s") if k in r]
    if "tokens_per_s" in r:
        rows.append(("tokens/s", f"{r['tokens_per_s']:,.0f}"))
    ops = [
        f"  {o['name']:<34} {fmt.flops(o['flops']):>12} {fmt.traffic(o['bytes']):>10} "
        f"{fmt.seconds(o['time_s']):>10}  {o['bound']}"
        for o in r["per_op"]
    ]
    return "\n".join([*(f"{k:<10} {v}" for k, v in rows), "ops:", *ops])


def render_models(models: dict) -> str:
    """One line per model: parameters, layers, hidden, heads / KV heads, KV rule."""
    lines = [f"{'name':<22} {'params':>8} {'active':>8} {'layers':>6} {'hidden':>6}  KV rule"]
    for m in models.values():
        lines.append(
            f"{m.name:<22} {m.params() / 1e9:>7.2f}B {m.active_params() / 1e9:>7.2f}B "
            f"{m.layers:>6} {m.hidden:>6}  {m.kv_rule()}"
        )
    return "\n".join(lines)


def register(subparsers) -> None:
    """Add `models` and `llm` to the subcommands."""
    m = subparsers.add_parser("models", help="list the models in the models file")
    m.add_argument("--models", help="a models CSV (default: data/models.csv)")
    m.set_defaults(run=run_models)
    c = subparsers.add_parser("llm", help="price a whole model on a device", description=__doc__)
    c.add_argument("--models", help="a models CSV (default: data/models.csv)")
    c.add_argument("--specs", help="a specs CSV (default: data/specs.csv)")
    c.add_argument("--model", required=True, help="a name from `python -m perfcore models`")
    c.add_argument("--device", required=True, help="a name from `python -m perfcore specs`")
    c.add_argument("--phase", default="decode", help=" | ".join(phases.PHASES))
    for param in NUMBERS:
        c.add_argument(
            flag(param.name), dest=param.name, metavar="N", default=param.default, help=param.help
        )
    for part in ("weights", "act", "kv"):
        c.add_argument(f"--{part}-bits", type=int, choices=BITS, default=16)
    c.add_argument("--unfused-attention", action="store_true", help="s x s scores in memory")
    c.add_argument("--recompute", action="store_true", help="training: recompute activations")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.set_defaults(run=run_llm)


def run_models(args: argparse.Namespace) -> int:
    """`models`: list them."""
    return guarded(lambda: render_models(load_models(args.models)))


def run_llm(args: argparse.Namespace) -> int:
    """`llm`: resolve names, check numbers, price, print."""

    def work() -> str:
        """The rendered result (raises on bad input)."""
        models, specs = load_models(args.models), load_specs(args.specs)
        model = models[pick("model", args.model, models)]
        device = specs[pick("device", args.device, specs)]
        phase = pick("phase", args.phase, phases.PHASES)
        n = {p.name: validate.param(p, getattr(args, p.name), flag(p.name)) for p in NUMBERS}
        p = Precisions(args.weights_bits, args.act_bits, args.kv_bits)
        r = result(model, device, phase, n, p, not args.unfused_attention, args.recompute)
        return to_json(r) if args.json else render(r)

    return guarded(work)
