"""`python -m perfcore plan train|serve`: the best parallel layout, or one layout priced.

`plan train --model Llama-3.1-70B --device "NVIDIA H100 SXM" --gpus 1024 --seq 8192
--global-batch-tokens 16777216 --tokens 15e12` searches every layout that fits and ranks
them (`best`, `candidates`); any of --tp --pp --dp --cp --ep --zero --micro-batch
--recompute --interleave prices that one layout instead (unset fields at their defaults,
dp from the GPUs; without --zero the first of ZeRO-1 and ZeRO-2 that fits, and without
--grad-accum fp32 main gradients or, where they do not fit, bf16 ones). `plan serve
... --input-tokens 1024 --output-tokens 256 --tpot-ms 50` finds the TP x replicas x batch
with the most output tokens/s within the limits, judged on the expected latencies where
published runs inform them (without limits, also the throughput-latency frontier);
continuous batching at steady state, or with --static a fixed batch in and out together.
`--what-if memory_bw_tbs=6.7` changes the device. Every figure is a bound; `_expected` ones
are (bound + what explain.plans.expected adds) ÷ an efficiency per regime derived from the
published runs of data/runs.csv (perfcore.model.runs.published), each saying what it rests
on (`expected_from`). Bad flags: one line, exit 2.
"""

from __future__ import annotations

import argparse
import functools

from perfcore.cli.common import UsageError, flag, guarded, pick, to_json
from perfcore.cli.plan_output import (
    render_search,
    render_serve,
    render_train,
    serve_dict,
    train_dict,
)
from perfcore.explain.plans import expected
from perfcore.model.chip import validate
from perfcore.model.chip.ops import Param
from perfcore.model.chip.specs import load_specs, parse_what_if, what_if
from perfcore.model.llm.models import load_models
from perfcore.model.llm.workloads import BITS, Precisions
from perfcore.model.plans import serve_plan, train_plan
from perfcore.model.plans.layout import RECOMPUTE, UNSET_ZERO, Layout, LayoutError
from perfcore.model.plans.search import search
from perfcore.model.plans.train_cost import ATTENTION_KERNELS, GRAD_BYTES
from perfcore.model.plans.train_plan import TRAIN_PRECISIONS, Training
from perfcore.model.runs import efficiency
from perfcore.model.runs import published as published_runs

BIG = 2**40
TRAIN_NUMBERS = (
    Param("gpus", 8, "GPUs in all", hi=2**20),
    Param("seq", 4096, "tokens per sequence", hi=2**21),
    Param("global_batch_tokens", 2**22, "tokens per optimizer step, all GPUs", hi=BIG),
    Param("tokens", 1e12, "training tokens in all (days, GPU-hours, energy)", False, 1, 1e17),
    Param("top", 10, "candidates to list", hi=10_000),
)
LAYOUT_NUMBERS = (
    Param("tp", 1, "tensor-parallel GPUs", hi=2**20),
    Param("pp", 1, "pipeline stages", hi=2**20),
    Param("dp", 1, "data-parallel replicas", hi=2**20),
    Param("cp", 1, "context-parallel GPUs", hi=2**20),
    Param("ep", 1, "expert-parallel GPUs", hi=2**20),
    Param("zero", 0, "ZeRO stage 0-3", lo=0, hi=3),
    Param("micro_batch", 1, "sequences per micro-batch", hi=2**20),
    Param("interleave", 1, "model chunks per pipeline stage", hi=2**10),
)
SERVE_NUMBERS = (
    Param("gpus", 8, "GPUs in all", hi=2**20),
    Param("input_tokens", 1024, "prompt tokens per request", hi=2**21),
    Param("output_tokens", 256, "generated tokens per request", hi=2**21),
    Param("tp", 1, "tensor-parallel GPUs per replica", hi=1024),
    Param("batch", 1, "requests in flight per replica", hi=2**20),
    Param("ttft_ms", 1000, "time-to-first-token limit, ms", False, 1e-3, 1e9),
    Param("tpot_ms", 50, "time-per-output-token limit, ms", False, 1e-3, 1e9),
)


@functools.cache
def published() -> dict:
    """The published runs' efficiency per regime, priced once per process (about 0.5 s)."""
    return published_runs.table()


def numbers(args, params) -> dict:
    """The given flags among `params`, each checked against its range (None where not given)."""
    raw = {p.name: getattr(args, p.name) for p in params}
    return {
        p.name: None if raw[p.name] is None else validate.param(p, raw[p.name], flag(p.name))
        for p in params
    }


def resolve(args) -> tuple:
    """(model, device) from the names, the files and --what-if."""
    models, specs = load_models(args.models), load_specs(args.specs)
    model = models[pick("model", args.model, models)]
    device = specs[pick("device", args.device, specs)]
    if args.what_if is not None:
        device = what_if(device, **parse_what_if(args.what_if))
    return model, device


def run_train(args: argparse.Namespace) -> str:
    """`plan train`: price the layout given, or search them all."""
    model, device = resolve(args)
    n, fixed = numbers(args, TRAIN_NUMBERS), numbers(args, LAYOUT_NUMBERS)
    missing = [flag(k) for k in ("gpus", "seq", "global_batch_tokens") if n[k] is None]
    if missing:
        raise UsageError(f"plan train needs {', '.join(missing)}")
    if args.recompute is not None:
        fixed["recompute"] = pick("recompute", args.recompute, RECOMPUTE)
    precision = pick("precision", args.precision, TRAIN_PRECISIONS)
    shape = (model, device, n["gpus"], n["seq"], n["global_batch_tokens"], precision)
    accums = [args.grad_accum] if args.grad_accum else list(GRAD_BYTES)
    kernel = args.attention_kernel or published_runs.plan_kernel(args.framework)
    options = {"dropout": args.dropout, "attention_kernel": kernel}
    trainings = [Training(*shape, n["tokens"], grad_accum=g, **options) for g in accums]
    t = trainings[0]
    table = published()
    head = {
        "model": model.name,
        "device": device.name,
        "gpus": t.gpus,
        "seq": t.seq,
        "global_batch_tokens": t.global_batch_tokens,
        "precision": precision,
        "tokens": t.tokens,
        "dropout": t.dropout,
        "attention_kernel": t.attention_kernel,
    }
    given = {k: v for k, v in fixed.items() if v is not None}
    fw = args.framework
    if given:
        stages = [given["zero"]] if "zero" in given else UNSET_ZERO
        pairs = [(tr, layout_of(t, {**given, "zero": z})) for z in stages for tr in trainings]
        result = {**head, **train_dict(train_plan.price_first_fitting(pairs), table, fw)}
        return to_json(result) if args.json else render_train(result)
    rank_on, tie = expected.train_ranking(table, fw)
    found = search(t, top=n["top"] or 10, expected=rank_on, tie=tie)
    lean = found.leanest
    result = {
        **head,
        "considered": found.considered,
        "ranked_on": "expected" if expected else "bound",
        "tie_within": tie,
        "best": train_dict(found.best, table, fw) if found.best else None,
        "candidates": [
            {**train_dict(p, table, fw), "tie_group": g}
            for p, g in zip(found.candidates, found.ties, strict=True)
        ],
        "leanest_misfit": train_dict(lean, table, fw) if lean else None,
    }
    return to_json(result) if args.json else render_search(result)


def layout_of(t: Training, given: dict) -> Layout:
    """The layout of the flags given; dp from the GPUs when not given."""
    tp, pp, cp = (given.get(k, 1) for k in ("tp", "pp", "cp"))
    dp = given.get("dp", max(1, t.gpus // (tp * pp * cp)))
    return Layout(**{**given, "tp": tp, "pp": pp, "cp": cp, "dp": dp})


def run_serve(args: argparse.Namespace) -> str:
    """`plan serve`: the best TP x replicas x batch within the limits, and the frontier."""
    model, device = resolve(args)
    n = numbers(args, SERVE_NUMBERS)
    missing = [flag(k) for k in ("gpus", "input_tokens", "output_tokens") if n[k] is None]
    if missing:
        raise UsageError(f"plan serve needs {', '.join(missing)}")
    p = Precisions(args.weights_bits, args.act_bits, args.kv_bits)
    ms = {k: None if n[k] is None else n[k] / 1e3 for k in ("ttft_ms", "tpot_ms")}
    s = serve_plan.Serving(
        model,
        device,
        n["gpus"],
        n["input_tokens"],
        n["output_tokens"],
        p,
        ms["ttft_ms"],
        ms["tpot_ms"],
        args.static,
    )
    candidates = serve_plan.plans(s, n["tp"], n["batch"])
    by_regime = expected.serve_cells(published(), s, args.framework)
    cells = {"ttft": by_regime["prefill"], "tpot": by_regime["decode"]}
    best = serve_plan.best(candidates, expected.serve_judge(by_regime))
    head = {
        "model": model.name,
        "device": device.name,
        "gpus": s.gpus,
        "input_tokens": s.input_tokens,
        "output_tokens": s.output_tokens,
        "precisions": {"weights": p.weights, "activations": p.activations, "kv": p.kv},
        "batching": "static" if s.static else "continuous",
        "ttft_limit_s": s.ttft_limit_s,
        "tpot_limit_s": s.tpot_limit_s,
        "limits_judged_on": "expected" if cells["tpot"] else "bound",
        "considered": len(candidates),
    }
    if best is None:
        why = "no plan meets the limits" if candidates else misfit(s, n["tp"], n["batch"])
        result = {**head, "layout": None, "fits": False, "reason": why}
    else:
        result = {**head, **serve_dict(best, cells)}
    if s.ttft_limit_s is None and s.tpot_limit_s is None:
        result["frontier"] = [serve_dict(q, cells) for q in serve_plan.frontier(candidates)]
    return to_json(result) if args.json else render_serve(result)


def misfit(s: serve_plan.Serving, tp: int | None, batch: int | None) -> str:
    """Why no serving plan fits: the most requests whose KV cache fits beside the weights at
    the largest TP tried, at the tokens each holds."""
    t = tp or max(serve_plan.tps(s), default=1)
    most = serve_plan.max_batch(s, t)
    held = f"{serve_plan.held_tokens(s):,} tokens each, " + (
        "at their last token" if s.static else "at their average length"
    )
    if most == 0:
        return f"no plan fits in memory: at TP {t} the weights leave no room for a KV cache"
    asked = f"batch {batch:,} does not fit" if batch else "no plan fits"
    return (
        f"{asked} in memory: at TP {t} at most {most:,} requests' KV cache ({held}) fits "
        "beside the weights"
    )


def as_flags(work):
    """work, with a LayoutError about a setting that has a flag named by its flag."""

    def run() -> str:
        """work(), a layout's refusal naming the flag that set it."""
        try:
            return work()
        except LayoutError as e:
            raise UsageError(f"{flag(e.field)} {e.value}: {e.why}") from None

    return run


def _common(c) -> None:
    """Flags both plan commands take."""
    c.add_argument("--models", help="a models CSV (default: data/models.csv)")
    c.add_argument("--specs", help="a specs CSV (default: data/specs.csv)")
    c.add_argument("--model", required=True, help="a name from `python -m perfcore models`")
    c.add_argument("--device", required=True, help="a name from `python -m perfcore specs`")
    c.add_argument(
        "--what-if",
        dest="what_if",
        metavar="FIGURE=VALUE,...",
        help="change the device's figures, e.g. memory_bw_tbs=6.7,scaleup_domain=72",
    )
    c.add_argument(
        "--framework",
        help="the framework family whose published runs set the efficiency where they are "
        f"{efficiency.MIN_RUNS}+ (e.g. Megatron, FSDP, llm-foundry, TensorRT-LLM, vLLM; "
        "default: every family's)",
    )
    c.add_argument("--json", action="store_true", help="machine-readable output")


def register(subparsers) -> None:
    """Add `plan train` and `plan serve` to the subcommands."""
    plan = subparsers.add_parser("plan", help="the best parallel layout for training or serving")
    sub = plan.add_subparsers(dest="plan", required=True)
    t = sub.add_parser("train", help="a training layout, priced or searched", description=__doc__)
    _common(t)
    for param in (*TRAIN_NUMBERS, *LAYOUT_NUMBERS):
        t.add_argument(flag(param.name), dest=param.name, metavar="N", help=param.help)
    t.add_argument("--recompute", help=" | ".join(RECOMPUTE))
    t.add_argument("--precision", default="bf16", help=" | ".join(TRAIN_PRECISIONS))
    t.add_argument(
        "--grad-accum",
        dest="grad_accum",
        choices=tuple(GRAD_BYTES),
        help="main gradients in fp32 (Megatron's default with bf16) or bf16 (NeMo's and "
        "Megatron-Bridge's performance recipes); a priced layout without it takes fp32 where "
        "it fits",
    )
    t.add_argument(
        "--dropout",
        action="store_true",
        help="keep dropout masks in the activations (Megatron's GPT default; Llama and MPT "
        "train without)",
    )
    t.add_argument(
        "--attention-kernel",
        dest="attention_kernel",
        choices=ATTENTION_KERNELS,
        help=f"{expected.ATTENTION_HELP} Default: flash2 with --framework "
        f"{' or '.join(published_runs.FAMILY_KERNELS)}, else fused.",
    )
    t.set_defaults(run=lambda args: guarded(as_flags(lambda: run_train(args))))
    s = sub.add_parser("serve", help="a serving plan within latency limits", description=__doc__)
    _common(s)
    for param in SERVE_NUMBERS:
        s.add_argument(flag(param.name), dest=param.name, metavar="N", help=param.help)
    for part in ("weights", "act", "kv"):
        s.add_argument(f"--{part}-bits", type=int, choices=BITS, default=16)
    s.add_argument(
        "--static",
        action="store_true",
        help="a fixed batch (a benchmark's static batch): its prompts prefilled together, "
        "then decoded together to the last token; TTFT is the batch's prefill (default: "
        "continuous batching at steady state)",
    )
    s.set_defaults(run=lambda args: guarded(as_flags(lambda: run_serve(args))))
