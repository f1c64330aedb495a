"""A serving plan: TP x replicas x batch on N GPUs, priced from the Workloads phases.

Each replica (t GPUs) keeps `batch` requests in flight (continuous batching, steady state):
TTFT = one request's prefill of I tokens; TPOT = one decode step of the batch at the mean
context I + O/2 (a step's cost is affine in its context) plus the prefills it takes in, batch
/ O of them per step (each request leaves after O tokens and a new one enters), priced as one
pass of the batch's prompts per turnover (prefill_per_request). Output
tokens/s = replicas x batch / TPOT. max_batch: requests whose paged KV cache fits beside the
weights, each held at its average length I + O/2 (vLLM and TensorRT-LLM allocate KV blocks
as a request grows, and requests in steady state are spread evenly over their O tokens).
A static batch (`Serving.static`: a benchmark's fixed batch, its prompts in together and
decoded together to the last token, as TensorRT-LLM's static runs, vLLM's latency benchmark and
LMDeploy's profile_generation run it): TTFT = the batch's prefill of batch x I tokens; TPOT = a
decode step at the mean context, with no prompts taken in; output tokens/s = replicas x batch x
O over the request's whole time; max_batch at the last step's I + O tokens a request.
Energy: every GPU at its TDP. The best plan is the fastest within the
TTFT and TPOT limits; without limits, the throughput-latency frontier.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from perfcore.model.chip.specs import Device
from perfcore.model.llm import phases, serving
from perfcore.model.llm.model import Model
from perfcore.model.llm.workloads import Precisions
from perfcore.model.plans.layout import LayoutError, tp_problems

SERVE_TP_MAX = 64
Expected = Callable[["ServePlan"], tuple[float, float]]  # a plan -> its (TTFT, TPOT) judged


@dataclass(frozen=True)
class Serving:
    """What to serve: a model on up to `gpus` GPUs, I input and O output tokens a request."""

    model: Model
    device: Device
    gpus: int
    input_tokens: int
    output_tokens: int
    precisions: Precisions = Precisions()
    ttft_limit_s: float | None = None
    tpot_limit_s: float | None = None
    static: bool = False  # a fixed batch in and out together, not continuous batching


@dataclass(frozen=True)
class ServePlan:
    """One (TP, replicas, batch) choice priced: latencies, rates, memory limit, energy."""

    serving: Serving
    tp: int
    replicas: int
    batch: int
    ttft_s: float
    tpot_s: float
    max_batch: int

    def request(self, ttft_s: float, tpot_s: float) -> float:
        """Seconds from a request's arrival to its last token at these latencies."""
        return ttft_s + (self.serving.output_tokens - 1) * tpot_s

    @property
    def request_s(self) -> float:
        """Seconds from a request's arrival to its last token (the bounds')."""
        return self.request(self.ttft_s, self.tpot_s)

    def rate(self, ttft_s: float, tpot_s: float) -> float:
        """Output tokens per second over every replica at these latencies: each step gives
        `batch` tokens; a static batch's O tokens take its whole request time, prefill
        included."""
        if self.serving.static:
            o = self.serving.output_tokens
            return self.replicas * self.batch * o / self.request(ttft_s, tpot_s)
        return self.replicas * self.batch / tpot_s

    @property
    def output_tokens_per_s(self) -> float:
        """Output tokens per second over every replica (the bounds' rate)."""
        return self.rate(self.ttft_s, self.tpot_s)

    @property
    def per_gpu(self) -> float:
        """Output tokens per second per GPU in use."""
        return self.output_tokens_per_s / (self.tp * self.replicas)

    @property
    def fits(self) -> bool:
        """Whether `batch` requests' KV cache fits beside the weights on each GPU."""
        return 1 <= self.batch <= self.max_batch

    @property
    def joules_per_token(self) -> float | None:
        """Every GPU in use at TDP over the output rate, J per token; None without a TDP."""
        tdp = self.serving.device.tdp_w
        return None if tdp is None else tdp * self.tp * self.replicas / self.output_tokens_per_s

    def within(self, expected: Expected | None = None) -> bool:
        """Whether TTFT and TPOT meet the limits given: the bounds, or with `expected` the
        (TTFT, TPOT) it gives this plan (explain.plans.expected.serve_judge)."""
        s = self.serving
        ttft, tpot = (self.ttft_s, self.tpot_s) if expected is None else expected(self)
        return (s.ttft_limit_s is None or ttft <= s.ttft_limit_s) and (
            s.tpot_limit_s is None or tpot <= s.tpot_limit_s
        )


def held_tokens(s: Serving) -> int:
    """Tokens a request's paged KV cache holds when the batch is sized: its average I + O/2
    (rounded down: more requests fit), a static batch's its last I + O."""
    return s.input_tokens + s.output_tokens // (1 if s.static else 2)


def max_batch(s: Serving, tp: int) -> int:
    """Requests at held_tokens whose paged KV cache fits beside the weights on t GPUs (0:
    none)."""
    return serving.max_sequences(s.model, s.device, held_tokens(s), s.precisions, tp) or 0


def prefill_per_request(s: Serving, tp: int, batch: int, first: float) -> float:
    """Seconds of prefill per request entering the batch: the batch's prompts as one pass per
    turnover, / batch. The weights are then read once in O steps for the prompts, which is
    within 1/O of chunked prefill (vLLM's, TensorRT-LLM's and SGLang's default: the prompts
    ride the decode steps' own weight reads), so the bound stays a bound where a pass of the
    batch / O prompts a step takes in (a pass per prompt where batch < O) would read the weights
    once a prompt."""
    if batch == 1:
        return first
    pass_s = phases.prefill(s.model, s.device, batch, s.input_tokens, s.precisions, tp=tp).time_s
    return pass_s / batch


def price(s: Serving, tp: int, batch: int) -> ServePlan:
    """The plan of `batch` requests per replica of TP `tp` (LayoutError where TP cannot be)."""
    problems = tp_problems(s.model, tp)
    if problems:
        raise problems[0]
    if tp > s.gpus:
        raise LayoutError("tp", tp, f"is more than the {s.gpus:,} GPUs given")
    p, ctx = s.precisions, s.input_tokens + s.output_tokens / 2
    prompts = batch if s.static else 1
    first = phases.prefill(s.model, s.device, prompts, s.input_tokens, p, tp=tp).time_s
    tpot = phases.decode(s.model, s.device, batch, round(ctx), p, tp=tp).time_s
    if not s.static:  # the prompts it takes in as requests leave
        tpot += batch / s.output_tokens * prefill_per_request(s, tp, batch, first)
    return ServePlan(s, tp, s.gpus // tp, batch, first, tpot, max_batch(s, tp))


def tps(s: Serving) -> list[int]:
    """TP degrees dividing the GPUs that split the heads, up to SERVE_TP_MAX."""
    top = min(s.gpus, SERVE_TP_MAX)
    return [t for t in range(1, top + 1) if s.gpus % t == 0 and not tp_problems(s.model, t)]


def plans(s: Serving, tp: int | None = None, batch: int | None = None) -> list[ServePlan]:
    """Every (TP, batch) that fits: batches 1, 2, 4, ... up to max_batch (or the one given)."""
    out = []
    for t in [tp] if tp else tps(s):
        limit = max_batch(s, t)
        for b in [batch] if batch else serving.batches(limit):
            out.append(price(s, t, b))
    return [p for p in out if p.fits]


def best(candidates: list[ServePlan], expected: Expected | None = None) -> ServePlan | None:
    """The most output tokens/s within the limits (judged on `expected`'s latencies where
    given, as ServePlan.within); None where none meets them."""
    ok = [p for p in candidates if p.within(expected)]
    return max(ok, key=lambda p: p.output_tokens_per_s) if ok else None


def frontier(candidates: list[ServePlan]) -> list[ServePlan]:
    """Plans no other beats on both TPOT and tokens/s per GPU, fastest TPOT first."""
    out: list[ServePlan] = []
    for p in sorted(candidates, key=lambda p: (p.tpot_s, -p.per_gpu)):
        if not out or p.per_gpu > out[-1].per_gpu:
            out.append(p)
    return out
