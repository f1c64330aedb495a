"""Every published run of data/runs.csv priced by the plans' own code, and their efficiencies.

A training row is one step of train_plan.price at the row's layout; a serving row is priced by
the Workloads phases (static batches: prefill plus every decode step), serve_plan
(max_throughput: the best rate over the batches that fit; concurrency: that batch) as
docs/runs.md says. Each gives (regime, bound_s,
measured_s); a row the model cannot price is kept with its reason. Empty cells take the value
that keeps the bound a bound: ZeRO 0 or 1, micro-batch 1, no recomputation, the fastest
interleave (docs/plans.md).
"""

from __future__ import annotations

from dataclasses import astuple

from perfcore.errors import NotPublished
from perfcore.model.chip.specs import load_specs
from perfcore.model.chip.validate import InputError
from perfcore.model.llm.models import load_models
from perfcore.model.llm.workloads import Precisions
from perfcore.model.plans import train_cost as tc
from perfcore.model.plans.layout import Layout, LayoutError, interleaves, problems
from perfcore.model.plans.train_plan import Training, TrainPlan, price
from perfcore.model.runs import efficiency, sample
from perfcore.model.runs.efficiency import Table
from perfcore.model.runs.rows import load_runs
from perfcore.model.runs.sample import Sample, Setting
from perfcore.model.runs.serve_runs import BITS_OF, SERVE, Unpriced, precisions_of


class Priced(tuple):
    """The runs priced, one Sample each (this tuple); `unpriced`: (run, reason) of the rest."""

    unpriced: tuple[tuple[object, str], ...]

    def __new__(cls, samples=(), unpriced=()):
        """A tuple of `samples` carrying the runs that could not be priced beside it."""
        self = super().__new__(cls, samples)
        self.unpriced = tuple(unpriced)
        return self

    @property
    def samples(self) -> tuple[Sample, ...]:
        """The priced runs as a plain tuple."""
        return tuple(self)


def layouts_of(run, model) -> list[Layout]:
    """The row's layouts: an empty ZeRO cell ZeRO 0, 1 or 2 (Megatron's and NeMo's distributed
    optimizer is ZeRO-1, Llama 3's FSDP ZeRO-2-like), micro-batch 1, no recomputation, and with
    pp > 1 the interleaves the search offers (layout.interleaves; the fastest is priced: an
    unpublished cell is not allowed to raise the bound)."""
    base = {
        "tp": run.tp,
        "pp": run.pp,
        "dp": run.dp,
        "cp": run.cp,
        "ep": run.ep,
        "micro_batch": run.micro_batch or 1,
        "recompute": run.recompute or "none",
    }
    zeros = [run.zero] if run.zero is not None else [0, 1, 2]
    vs = [run.vp or 1] if run.vp is not None or run.pp == 1 else interleaves(model.layers, run.pp)
    return [Layout(**base, zero=z, interleave=v) for z in zeros for v in vs]


# Sources whose runs kept dropout masks: Megatron-LM's GPT defaults (hidden and attention
# dropout 0.1), which Korthikanti et al. 2022's 34 bytes per element count. The other sources'
# models train without dropout (Llama's, MPT's, BLOOM's configs; NeMo's and torchtitan's).
DROPOUT_SOURCES = ("narayanan2021", "korthikanti2022")
# Sources whose runs ran attention with a kernel written for Ampere (docs/runs.md, "Attention
# kernels"): torchtitan's PyTorch SDPA, whose flash backend is FlashAttention-2 (cuDNN's
# attention opt-in since pytorch/pytorch#138522; under CP flash or efficient only; cuDNN
# chosen on B200 alone, torchtitan#1196) and llm-foundry's Triton FlashAttention (attn_impl
# triton; its FP8 runs installed flash-attn 1.0.7). NeMo and Megatron-Bridge run Transformer
# Engine, which prefers cuDNN's fused attention on Hopper and later.
AMPERE_ATTENTION_SOURCES = ("torchtitan", "llm-foundry")


def attention_kernel(run) -> str:
    """The attention kernel a published training run ran (train_cost.ATTENTION_KERNELS)."""
    return "flash2" if run.source_id.startswith(AMPERE_ATTENTION_SOURCES) else "fused"


# A plan's kernel where none is asked for: its framework family's where the family's stack
# calls a kernel written for Ampere (PyTorch's FSDP trainers SDPA, llm-foundry its Triton
# kernel), else the device's own.
FAMILY_KERNELS = {"FSDP": "flash2", "llm-foundry": "flash2"}


def plan_kernel(framework: str | None) -> str:
    """The attention kernel of a plan for `framework` (FAMILY_KERNELS; "fused" without one)."""
    return FAMILY_KERNELS.get(framework, "fused")


def train_plans(run, model, device, accums=tuple(tc.GRAD_BYTES)) -> list[TrainPlan]:
    """Every layout of layouts_of the model accepts, priced with each gradient accumulation
    of `accums` (no row states it; NeMo's and Megatron-Bridge's performance recipes set
    grad_reduce_in_fp32 = False), with dropout masks where the source kept them
    (DROPOUT_SOURCES); LayoutError: the first layout's reason."""
    layouts = layouts_of(run, model)
    tokens = run.global_batch * run.seq_len
    shape = (model, device, run.gpus, run.seq_len, tokens, run.precision)
    dropout, kernel = run.source_id in DROPOUT_SOURCES, attention_kernel(run)
    plans = []
    trainings = (
        Training(*shape, grad_accum=g, dropout=dropout, attention_kernel=kernel) for g in accums
    )
    for t in trainings:
        ok = [lay for lay in layouts if not problems(lay, model, t.gpus, t.seq, t.sequences)]
        plans += [price(t, lay) for lay in ok or layouts[:1]]  # [:1]: raises its reason
    return plans


def source_flops_per_step(run, model) -> float:
    """FLOPs of one step as the source counts them (docs/runs.md, "FLOP counts")."""
    b, s = run.global_batch, run.seq_len
    if run.flops_convention == "megatron-eq3":
        return tc.megatron_flops_per_iteration(b, s, model.layers, model.hidden, model.vocab)
    if run.flops_convention == "palm-mfu":  # 6N + 12 L H Q T per token (PaLM, Appendix B)
        per_token = 6 * model.params() + 12 * model.layers * model.heads * model.head_dim * s
        return b * s * per_token
    if run.flops_convention == "nemo":
        return b * s * nemo_flops_per_token(model, s)
    raise Unpriced(f"metric {run.metric} needs a flops_convention (got {run.flops_convention!r})")


def nemo_flops_per_token(model, seq: int) -> float:
    """FLOPs per token NeMo's flops_formulas.py counted before August 2025 (docs/runs.md):
    L h^2 (12 + 12 g/a + 18 k f/h + 12 s/h) + 6 V h, attention over the full sequence."""
    h, k = model.hidden, model.experts_per_token
    mlp = (18 if model.gated_mlp else 12) * k * model.expert_width / h
    layer = 12 + 12 * model.kv_heads / model.heads + mlp + 12 * seq / h
    return model.layers * h * h * layer + 6 * model.vocab * h


def measured_step_s(run, model, device) -> float:
    """Seconds per step the row implies: printed, from tokens/s, or the source's FLOPs / rate."""
    if run.measured_step_s is not None:
        return run.measured_step_s
    flops = source_flops_per_step(run, model)
    rate = run.value  # FLOP/s per GPU as counted
    if run.metric == "mfu_percent":
        rate = run.value * device.peak_flops(run.precision)
    return flops / (rate * run.gpus)


def train_sample(run, model, device) -> tuple:
    """(train, the step's bound, the step measured, (part, seconds the overlap rule hides),
    FP8's BF16 seconds, the memory-bound math's seconds, the attention core's seconds and its
    kernel's slowdown) at the row's layout and precision, of its fastest layout."""
    plans = train_plans(run, model, device, ("bf16",))  # the fewest bytes per Adam update
    best = min(plans, key=lambda plan: plan.step_s)
    hidden = tuple(best.hidden_s_by.items())
    measured = measured_step_s(run, model, device)
    parts = (hidden, best.bf16_s, best.elementwise_s, best.attention_s, slowdown(best))
    return "train", best.step_s, measured, *parts


def slowdown(plan: TrainPlan) -> float:
    """The plan's attention kernel's time over the device's own (sample.attention_slowdown)."""
    t = plan.training
    return sample.attention_slowdown(t.attention_kernel, t.device.architecture)


def added_s(plan: TrainPlan) -> float:
    """Seconds the chosen expected model adds to a training plan's bound (sample.EXPOSURE:
    its critical path's hidden communication, a quarter of the rest, FP8's BF16 parts, the
    memory-bound math, the attention core once more, at its kernel's slowdown)."""
    hidden = tuple(plan.hidden_s_by.items())
    parts = (plan.bf16_s, plan.elementwise_s, plan.attention_s, slowdown(plan))
    return sample.EXPOSURE.added_s(hidden, *parts)


def sample_of(run, models: dict, specs: dict) -> tuple:
    """(regime, bound_s, measured_s), a training run's with its hidden parts and BF16 seconds
    (train_sample), a serving run's with its kernel boundaries and no-overlap seconds
    (serve_basis); Unpriced with the reason where it cannot be."""
    model, device = models.get(run.model), specs.get(run.device)
    if model is None or device is None:
        what = f"model {run.model!r}" if model is None else f"device {run.device!r}"
        raise Unpriced(f"{what} is not in the tables given")
    try:
        if run.kind == "train":
            return train_sample(run, model, device)
        return SERVE[run.batch_mode](run, model, device, precisions_of(run))
    except (LayoutError, InputError, NotPublished) as e:  # a refused layout, a figure unpublished
        raise Unpriced(str(e)) from None


def attention_heavy(model, seq: int) -> bool:
    """True where the attention core is sample.ATTENTION_HEAVY or more of a training step's
    model FLOPs (train_cost.forward: causal pairs)."""
    f = tc.forward(model, seq)
    return f.attention >= sample.ATTENTION_HEAVY * f.total


def train_setting(t: Training, framework: str | None = None) -> Setting:
    """The efficiency cell of a training step: its attention share, precision and framework
    (not its CP degree: a layout is priced, not conditioned on; sample.setting)."""
    heavy = attention_heavy(t.model, t.seq)
    return sample.setting("train", heavy, BITS_OF[t.precision], framework)


def serve_setting(
    regime: str, p: Precisions, context_tokens: int, framework: str | None = None
) -> Setting:
    """The efficiency cell of a serving phase: its context (I + O), the narrower of the
    weights' and activations' bits and the engine. Not its batching: cells split by it
    predicted fewer held-out runs (docs/plans.md, "Serving: which expected model")."""
    bits = min(p.weights, p.activations)
    heavy = context_tokens >= sample.LONG_CONTEXT_TOKENS
    return sample.setting(regime, heavy, bits, framework)


def run_setting(run, regime: str, model) -> Setting:
    """The cell of a published run of `model`, by the rules a plan's setting follows."""
    if run.kind == "train":
        heavy = attention_heavy(model, run.seq_len)
        return sample.setting(regime, heavy, BITS_OF[run.precision], run.framework)
    context = run.input_tokens + run.output_tokens
    return serve_setting(regime, precisions_of(run), context, run.framework)


# what sample_of adds after the times
TRAIN_PARTS = ("hidden_by", "bf16_s", "elementwise_s", "attention_s", "attention_slowdown")
SERVE_PARTS = ("launch_s", "serial_s")


def priced_runs(runs=None, models=None, specs=None) -> Priced:
    """Every run priced, a tuple[Sample, ...] (data/runs.csv and the bundled tables by
    default); its `.unpriced` holds each run the model cannot price, with the reason."""
    models = load_models() if models is None else models
    specs = load_specs() if specs is None else specs
    runs = load_runs(models=models, devices=specs) if runs is None else runs
    samples, unpriced = [], []
    for run in runs:
        try:
            regime, bound_s, measured_s, *parts = sample_of(run, models, specs)
        except Unpriced as e:
            unpriced.append((run, str(e)))
            continue
        cell = run_setting(run, regime, models[run.model])
        named = TRAIN_PARTS if run.kind == "train" else SERVE_PARTS
        case = (
            run.model,
            run.device,
            run.precision,
            run.seq_len,
            run.input_tokens,
            run.output_tokens,
        )
        extra = dict(zip(named, parts, strict=True))
        fields = (run, regime, run.source_id, bound_s, measured_s, *astuple(cell)[1:4], case)
        samples.append(Sample(*fields, **extra))
    return Priced(tuple(samples), tuple(unpriced))


def table(samples=None) -> Table:
    """Efficiency per cell from the priced runs, speculative-decoding runs left out."""
    if samples is None:
        samples = priced_runs()
    return efficiency.efficiencies(s for s in samples if not getattr(s.run, "speculative", False))
