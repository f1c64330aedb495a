"""Published measured runs: one frozen Run per row of data/runs.csv.

A row is a training step or a serving benchmark that someone measured and published, with
every setting needed to price it (model, device, layout, lengths, precision) and the figure
as printed (`metric`, `value`). The CSV's units (ms, TFLOP/s, %) become SI here, once;
`printed` keeps the cell as the source wrote it. docs/runs.md gives the schema and sources.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from perfcore.errors import FileProblems
from perfcore.model.chip.csvrows import Schema, at, load_from, parse_table
from perfcore.model.runs.columns import OPTIONAL_COLUMNS, REQUIRED_COLUMNS, convert, row_problems

DEFAULT_PATH = Path(__file__).resolve().parents[3] / "data" / "runs.csv"

# A training run's framework family by its source_id (the first key it starts with);
# a serving run's is its engine. docs/runs.md, "Framework families", says why each.
TRAIN_FRAMEWORKS = {
    "narayanan2021": "Megatron",
    "korthikanti2022": "Megatron",
    "nemo-": "Megatron",
    "megatron-bridge-": "Megatron",
    "llama3-paper": "FSDP",
    "torchtitan": "FSDP",
    "llm-foundry": "llm-foundry",
    "deepspeed": "DeepSpeed",
}


class RunError(FileProblems):
    """A runs file that cannot be loaded; the message lists every problem found."""


SCHEMA = Schema(REQUIRED_COLUMNS, OPTIONAL_COLUMNS, "run", RunError)


@dataclass(frozen=True, kw_only=True)
class Run:
    """One published measured run: its settings, and the figure in SI (`value`) and as printed."""

    name: str
    kind: str  # "train" or "serve"
    model: str
    device: str
    gpus: int
    precision: str
    tp: int
    pp: int = 1
    dp: int | None = None  # train only
    cp: int = 1
    ep: int = 1
    zero: int | None = None  # None: not published
    vp: int | None = None
    micro_batch: int | None = None
    global_batch: int | None = None  # sequences per step
    seq_len: int | None = None
    recompute: str | None = None  # none | selective | full; None: not published
    sp: bool | None = None  # sequence parallelism with TP; None: not published
    flops_convention: str | None = None  # how the source counts FLOPs (FLOP_METRICS only)
    engine: str = ""
    batch_mode: str | None = None  # static | max_throughput | concurrency
    batch: int | None = None  # None with max_throughput: the engine's choice
    input_tokens: int | None = None
    output_tokens: int | None = None
    weights_bits: int | None = None
    act_bits: int | None = None
    kv_bits: int | None = None
    speculative: bool = False
    metric: str
    value: float  # SI: tokens/s, FLOP/s, a fraction or seconds (METRICS)
    printed: str  # the value cell as the source printed it, in the metric's unit
    source_id: str
    source: str
    notes: str = ""

    @property
    def framework(self) -> str:
        """The framework family: the engine serving; training, TRAIN_FRAMEWORKS by source_id
        (an unlisted source is a family of its own)."""
        if self.kind == "serve":
            return self.engine
        key = next((k for k in TRAIN_FRAMEWORKS if self.source_id.startswith(k)), None)
        return self.source_id if key is None else TRAIN_FRAMEWORKS[key]

    @property
    def replicas(self) -> int:
        """Model copies the run's GPUs hold: gpus / (tp x pp x cp x dp), 1 for training."""
        return self.gpus // (self.tp * self.pp * self.cp * (self.dp or 1))

    @property
    def tokens_per_step(self) -> int | None:
        """Training tokens per optimizer step (global batch x sequence length); None serving."""
        return self.global_batch * self.seq_len if self.kind == "train" else None

    @property
    def measured_step_s(self) -> float | None:
        """Seconds per step where the metric fixes it with no FLOP count, else None."""
        if self.metric == "step_s":
            return self.value
        if self.metric == "tokens_per_s_per_gpu":
            return self.tokens_per_step / (self.value * self.gpus)
        return None


def load_runs(
    path: str | Path | BinaryIO | None = None,
    models: dict | None = None,
    devices: dict | None = None,
) -> tuple[Run, ...]:
    """Runs in file order from a runs CSV (default data/runs.csv), names checked against tables."""
    if models is None:
        from perfcore.model.llm.models import load_models

        models = load_models()
    if devices is None:
        from perfcore.model.chip.specs import load_specs

        devices = load_specs()
    return load_from(
        path, DEFAULT_PATH, lambda data, label: load_runs_bytes(data, label, models, devices)
    )


def load_runs_bytes(data: bytes, label: str, models: dict, devices: dict) -> tuple[Run, ...]:
    """Runs in file order; RunError lists every problem, each named by `label`, row and column."""
    clean, problems, in_rows = parse_table(data, label, SCHEMA, convert)
    runs = []
    for n, fields in [] if problems else clean:
        fields = {k: v for k, v in fields.items() if k != "extra"}
        found = row_problems(fields, models, devices)
        in_rows += [f"{at(label, n, column)}: {text}" for column, text in found]
        runs += [] if found else [Run(**fields)]
    problems += in_rows
    if problems:
        raise RunError(label, problems)
    return tuple(runs)
