"""A parallel layout: one frozen value, checked once where it is made.

tp x cp x dp x pp GPUs (ranks numbered TP first, then CP, DP, PP, as Megatron places them);
ep of the data-parallel ranks hold different experts of each MoE layer; ZeRO stage 0-3
shards optimizer states (1), gradients (2) and weights (3) over the data-parallel ranks;
micro_batch sequences per pipeline step; recompute none | selective | full (Korthikanti et
al. 2022); interleave v model chunks per pipeline stage (Narayanan et al. 2021).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from perfcore.errors import UserError

RECOMPUTE = ("none", "selective", "full")
ZERO_STAGES = (0, 1, 2, 3)
# A layout priced without a ZeRO stage takes the first of these that fits: the distributed
# optimizer (Megatron's and NeMo's default; never slower than ZeRO-0 in the model, and lighter),
# then sharded gradients too. ZeRO-0 and ZeRO-3 only when asked for.
UNSET_ZERO = (1, 2)
DEGREE_MAX = 2**20  # past this a degree is a typo


class LayoutError(UserError):
    """A layout that cannot exist: names the field, the value and why; one line."""

    def __init__(self, field: str, value: object, why: str):
        self.field, self.value, self.why = field, value, why
        super().__init__(f"{field} = {value!r} {why}")


@dataclass(frozen=True)
class Layout:
    """How a training step is spread over GPUs; valid on its own or not made at all."""

    tp: int = 1
    pp: int = 1
    dp: int = 1
    cp: int = 1
    ep: int = 1
    zero: int = 0
    micro_batch: int = 1
    recompute: str = "none"
    interleave: int = 1

    def __post_init__(self) -> None:
        """LayoutError for a degree outside 1..DEGREE_MAX, a ZeRO stage or recompute unknown."""
        for field in ("tp", "pp", "dp", "cp", "ep", "micro_batch", "interleave"):
            value = getattr(self, field)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise LayoutError(field, value, "is not usable: expected a whole number from 1")
            if value > DEGREE_MAX:
                raise LayoutError(field, value, f"is not usable: expected at most {DEGREE_MAX:,}")
        if self.zero not in ZERO_STAGES:
            raise LayoutError("zero", self.zero, "is not a ZeRO stage: expected 0, 1, 2 or 3")
        if self.recompute not in RECOMPUTE:
            raise LayoutError("recompute", self.recompute, f"is not one of {', '.join(RECOMPUTE)}")
        if self.interleave > 1 and self.pp < 2:
            raise LayoutError("interleave", self.interleave, "needs pp of 2 or more")

    @property
    def gpus(self) -> int:
        """GPUs the layout spans: tp x cp x dp x pp."""
        return self.tp * self.cp * self.dp * self.pp

    def as_dict(self) -> dict:
        """The fields by name (the JSON `layout` object)."""
        return asdict(self)

    def label(self) -> str:
        """Short name: 'TP 8 × PP 4 × DP 32' plus CP, EP, ZeRO, recompute where they apply."""
        parts = [f"TP {self.tp}", f"PP {self.pp}", f"DP {self.dp}"]
        parts += [f"CP {self.cp}"] if self.cp > 1 else []
        parts += [f"EP {self.ep}"] if self.ep > 1 else []
        extra = [f"ZeRO-{self.zero}"] if self.zero else []
        extra += [f"{self.recompute} recompute"] if self.recompute != "none" else []
        extra += [f"{self.interleave} chunks per stage"] if self.interleave > 1 else []
        extra += [f"micro-batch {self.micro_batch}"]
        return " × ".join(parts) + ", " + ", ".join(extra)


def tp_problems(model, tp: int) -> list[LayoutError]:
    """Why TP `tp` cannot split the model's heads (KV heads may be replicated past t)."""
    found = []
    if model.heads % tp:
        found.append(LayoutError("tp", tp, f"does not divide the {model.heads} attention heads"))
    if model.kv_heads % tp and tp % model.kv_heads:
        found.append(
            LayoutError(
                "tp", tp, f"neither divides the {model.kv_heads} KV heads nor is a multiple of them"
            )
        )
    return found


def problems(layout: Layout, model, gpus: int, seq: int, sequences: int) -> list[LayoutError]:
    """Every reason `layout` cannot run `model` on `gpus` GPUs over `sequences` x `seq` tokens."""
    p, v, c, e = layout.pp, layout.interleave, layout.cp, layout.ep
    found = tp_problems(model, layout.tp)
    if p > model.layers:
        found.append(
            LayoutError("pp", p, f"(pp = {p} stages) is more than the {model.layers} layers")
        )
    elif v > stage_layers(model.layers, p):
        found.append(
            LayoutError(
                "interleave",
                v,
                f"is more than the {stage_layers(model.layers, p)} layers of the fullest "
                f"stage (pp {p} over {model.layers} layers)",
            )
        )
    if c > 1 and seq % (2 * c):
        found.append(LayoutError("cp", c, f"needs the sequence ({seq:,}) in 2 x cp equal chunks"))
    if model.experts % e:
        found.append(LayoutError("ep", e, f"does not divide the {model.experts} experts"))
    elif (layout.dp * c) % e:
        found.append(
            LayoutError(
                "ep",
                e,
                f"does not divide dp x cp ({layout.dp * c}): experts "
                "are spread over data-parallel ranks",
            )
        )
    if layout.gpus != gpus:
        found.append(LayoutError("gpus", gpus, f"is not tp x pp x dp x cp = {layout.gpus:,}"))
    found += _batch_problems(layout, sequences)
    return found


def _batch_problems(layout: Layout, sequences: int) -> list[LayoutError]:
    """Micro-batching problems: the step's sequences over dp replicas and micro-batches."""
    per_replica, rest = divmod(sequences, layout.dp)
    if rest or not per_replica:
        return [
            LayoutError("dp", layout.dp, f"does not divide the {sequences:,} sequences of a step")
        ]
    if per_replica % layout.micro_batch:
        return [
            LayoutError(
                "micro_batch",
                layout.micro_batch,
                f"does not divide the {per_replica:,} sequences per data-parallel replica",
            )
        ]
    m = per_replica // layout.micro_batch
    if layout.interleave > 1 and m % layout.pp:
        return [
            LayoutError(
                "interleave",
                layout.interleave,
                f"needs the {m} micro-batches to be a multiple of pp ({layout.pp})",
            )
        ]
    return []


def checked(layout: Layout, model, gpus: int, seq: int, sequences: int) -> Layout:
    """layout, or the first LayoutError of problems() (each names its field)."""
    found = problems(layout, model, gpus, seq, sequences)
    if found:
        raise found[0]
    return layout


def stage_layers(layers: int, pp: int) -> int:
    """Layers on the fullest pipeline stage, ceil(layers / pp): the step waits on it.

    Uneven stages are allowed (Llama 3 405B: 126 layers over 16 stages, fewer on the first
    and last); however they are spread, some stage holds at least ceil(L / p), so pricing that
    one keeps the bound a bound. 126 over 16: ceil(7.875) = 8.
    """
    return -(-layers // pp)


def micro_batches(layout: Layout, sequences: int) -> int:
    """Micro-batches per step in each pipeline: sequences / (dp x micro_batch)."""
    return sequences // (layout.dp * layout.micro_batch)


def largest_chunk(layers: int, pp: int, interleave: int) -> int:
    """Layers in the largest model chunk of the fullest stage: ceil(ceil(L / p) / v)."""
    return -(-stage_layers(layers, pp) // interleave)


def bubble_stages(layers: int, pp: int, interleave: int) -> float:
    """The 1F1B bubble in stages' work per micro-batch: (p - 1) x the largest chunk's share.

    With equal chunks this is Narayanan et al. 2021's (p - 1) / v (section 2.2.2); where v
    does not divide the stage's layers the warm-up waits on the largest chunk, so it sets the
    bubble (126 layers over PP 16 at v 3: chunks of 3, 3 and 2 layers, (p - 1) x 3/8).
    """
    return (pp - 1) * largest_chunk(layers, pp, interleave) / stage_layers(layers, pp)


def interleaves(layers: int, pp: int) -> list[int]:
    """Interleaves worth pricing at pp stages: for each largest chunk, the fewest chunks giving it.

    v runs up to ceil(L / p) (one layer per chunk); a v whose largest chunk a smaller v already
    gives has the same bubble and more sends, so it is left out. [1] without a pipeline.
    """
    if pp < 2:
        return [1]
    per_stage = stage_layers(layers, pp)
    return sorted({-(-per_stage // c) for c in range(1, per_stage + 1)})
