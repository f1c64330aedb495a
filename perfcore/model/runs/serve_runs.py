"""Published serving runs priced: a row's precisions, and each batch mode's pricer.

A static batch is priced by serve_plan's static pricing (its prefill, then every decode step
at the mean context); max_throughput by serve_plan's best rate over the batches that fit a replica;
concurrency by serve_plan at the row's batch (docs/runs.md). Each gives (regime, bound_s,
measured_s, then what serve_basis adds: kernel boundaries, no-overlap). Training rows and the
table of every run: perfcore.model.runs.published.
"""

from __future__ import annotations

from perfcore.model.llm.workloads import Precisions
from perfcore.model.plans import serve_basis, serve_plan

BITS_OF = {"fp4": 4, "fp8": 8, "int8": 8, "bf16": 16, "fp16": 16}  # storage bits by precision


class Unpriced(Exception):
    """A run the model cannot price; the message says why, in one line."""


def precisions_of(run) -> Precisions:
    """Storage bits of weights, activations, KV; an unstated one the smallest stated
    (docs/runs.md: a pricer must not overstate the bound), all unstated the precision's; an
    FP4 row's unstated KV FP8 (NVFP4 checkpoints of TensorRT-LLM keep an FP8 KV cache)."""
    bits = (run.weights_bits, run.act_bits, run.kv_bits)
    stated = [b for b in bits if b]
    default = min(stated) if stated else BITS_OF.get(run.precision, 16)
    w, a, k = (b or default for b in bits)
    if run.kv_bits is None and run.precision == "fp4":
        k = BITS_OF["fp8"]
    return Precisions(w, a, k)


def static_sample(run, model, device, p: Precisions) -> tuple:
    """A static batch (serve_plan's static pricing on one replica): TTFT is its prefill, TPOT
    one decode step of the batch; a latency or rate the prefill plus every step; with what its
    passes add to the bound (serve_basis: kernel boundaries, no-overlap)."""
    b, o = run.batch, run.output_tokens
    s = _serving(run, model, device, p, static=True)
    plan = serve_plan.price(s, run.tp, b)
    (first_k, first_s), (step_k, step_s) = serve_basis.plan_parts(plan)
    if run.metric == "ttft_ms":
        return "prefill", plan.ttft_s, run.value, first_k, first_s
    if run.metric == "tpot_ms":
        return "decode", plan.tpot_s, run.value, step_k, step_s
    measured = {
        "latency_s": run.value,
        "output_tokens_per_s_per_gpu": b * o / (run.value * run.tp),
        "output_tokens_per_s": b * o * run.replicas / run.value,
    }.get(run.metric)
    if measured is None:
        raise Unpriced(f"metric {run.metric} is not a static batch's figure")
    steps = (o - 1) * plan.tpot_s
    regime = "decode" if steps >= plan.ttft_s else "prefill"
    added = (first_k + (o - 1) * step_k, first_s + (o - 1) * step_s)
    return regime, plan.request_s, measured, *added


def _serving(run, model, device, p: Precisions, static: bool = False) -> serve_plan.Serving:
    """The row as a serve_plan.Serving: on its GPUs, or a static batch on one replica."""
    gpus = run.tp if static else run.gpus
    i, o = run.input_tokens, run.output_tokens
    return serve_plan.Serving(model, device, gpus, i, o, p, static=static)


def _rate_sample(plan: serve_plan.ServePlan, run) -> tuple:
    """(regime, seconds per output token over all the run's GPUs: bound, measured, then what
    serve_basis adds: kernel boundaries, no-overlap)."""
    s = plan.serving
    per_request = serve_plan.prefill_per_request(s, plan.tp, plan.batch, plan.ttft_s)
    first_share = plan.batch / s.output_tokens * per_request
    regime = "decode" if plan.tpot_s >= 2 * first_share else "prefill"
    rate = run.value * (run.gpus if run.metric == "output_tokens_per_s_per_gpu" else 1)
    per_token = 1 / (plan.replicas * plan.batch)  # TPOTs per output token, all replicas
    added = (a * per_token for a in serve_basis.plan_parts(plan)[1])
    return regime, 1 / plan.output_tokens_per_s, 1 / rate, *added


def max_throughput_sample(run, model, device, p: Precisions) -> tuple:
    """The most output tokens/s over every batch that fits a replica, times the replicas."""
    if run.metric not in ("output_tokens_per_s", "output_tokens_per_s_per_gpu"):
        raise Unpriced(f"metric {run.metric} is not a throughput")
    plans = serve_plan.plans(_serving(run, model, device, p), run.tp)
    if not plans:
        raise Unpriced(f"no batch fits the KV cache beside the weights on TP {run.tp}")
    return _rate_sample(max(plans, key=lambda q: q.output_tokens_per_s), run)


def concurrency_sample(run, model, device, p: Precisions) -> tuple:
    """`batch` requests in flight: TPOT one step at that batch, TTFT a prefill, or the rate."""
    plan = serve_plan.price(_serving(run, model, device, p), run.tp, run.batch)
    ttft_added, tpot_added = serve_basis.plan_parts(plan)
    if run.metric == "tpot_ms":
        return "decode", plan.tpot_s, run.value, *tpot_added
    if run.metric == "ttft_ms":
        return "prefill", plan.ttft_s, run.value, *ttft_added
    if run.metric in ("output_tokens_per_s", "output_tokens_per_s_per_gpu"):
        return _rate_sample(plan, run)
    raise Unpriced(f"metric {run.metric} is not a concurrency run's figure")


SERVE = {
    "static": static_sample,
    "max_throughput": max_throughput_sample,
    "concurrency": concurrency_sample,
}
