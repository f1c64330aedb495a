"""Published measured runs: one frozen Run per row of data/runs.csv.

A row is a training step or a serving benchmark that someone measured and published, with
every setting needed to price it (model, device, layout, lengths, precision) and the figure
as printed (`metric`, `value`). The CSV's units (ms, TFLOP/s, %) become SI here, once;
`printed` keeps the cell as the source wrote it. docs/runs.md gives the schema and sources.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import BinaryIO

from perfcore.errors import FileProblems
from perfcore.model.chip.csvrows import (
    Expected,
    Schema,
    at,
    boolean,
    load_from,
    parse_table,
    positive,
)
from perfcore.model.chip.csvrows import whole as whole_cell
from perfcore.model.chip.specs import PRECISIONS

DEFAULT_PATH = Path(__file__).resolve().parents[3] / "data" / "runs.csv"

REQUIRED_COLUMNS = (
    "name",
    "kind",
    "model",
    "device",
    "gpus",
    "precision",
    "metric",
    "value",
    "source_id",
    "source",
)
TRAIN_COLUMNS = (
    "dp",
    "zero",
    "vp",
    "micro_batch",
    "global_batch",
    "seq_len",
    "recompute",
    "sp",
    "flops_convention",
)
SERVE_COLUMNS = (
    "engine",
    "batch_mode",
    "batch",
    "input_tokens",
    "output_tokens",
    "weights_bits",
    "act_bits",
    "kv_bits",
)
OPTIONAL_COLUMNS = ("tp", "pp", "cp", "ep", *TRAIN_COLUMNS, *SERVE_COLUMNS, "speculative", "notes")
NEEDED = {
    "train": ("tp", "dp", "global_batch", "seq_len"),
    "serve": ("tp", "engine", "batch_mode", "input_tokens", "output_tokens"),
}
OTHER_KIND = {"train": SERVE_COLUMNS, "serve": TRAIN_COLUMNS}

# metric -> (kind it measures, multiplier to SI, what the SI value is)
METRICS = {
    "tokens_per_s_per_gpu": ("train", 1.0, "training tokens/s per GPU"),
    "model_tflops_per_gpu": ("train", 1e12, "model FLOP/s per GPU, as the source counts them"),
    "hardware_tflops_per_gpu": ("train", 1e12, "FLOP/s per GPU with recomputation, as counted"),
    "mfu_percent": ("train", 0.01, "model FLOPs utilisation (a fraction)"),
    "step_s": ("train", 1.0, "seconds per optimizer step"),
    "output_tokens_per_s": ("serve", 1.0, "output tokens/s over all the run's GPUs"),
    "output_tokens_per_s_per_gpu": ("serve", 1.0, "output tokens/s per GPU"),
    "ttft_ms": ("serve", 1e-3, "time to first token (s)"),
    "tpot_ms": ("serve", 1e-3, "time per output token after the first (s)"),
    "latency_s": ("serve", 1.0, "seconds from a static batch's prompts in to its last token out"),
}
CHOICES = {
    "kind": ("train", "serve"),
    "precision": PRECISIONS,
    "recompute": ("none", "selective", "full"),
    "batch_mode": ("static", "max_throughput", "concurrency"),
    "metric": tuple(METRICS),
    "flops_convention": ("megatron-eq3", "palm-mfu", "nemo"),
}
# Metrics that are a FLOP rate: a step time follows only with the source's FLOP count.
FLOP_METRICS = ("model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu_percent")
WHOLE = "a whole number from 1"
WHOLES = {
    "gpus": WHOLE + " (how many GPUs the run used)",
    "tp": WHOLE + " (tensor-parallel size)",
    "pp": WHOLE + " (pipeline-parallel size), or empty for 1",
    "dp": WHOLE + " (data-parallel size)",
    "cp": WHOLE + " (context-parallel size), or empty for 1",
    "ep": WHOLE + " (expert-parallel size), or empty for 1",
    "vp": WHOLE + " (virtual pipeline stages per rank), or empty if not published",
    "micro_batch": WHOLE + " (sequences per micro-batch), or empty if not published",
    "global_batch": WHOLE + " (sequences per optimizer step)",
    "seq_len": WHOLE + " (tokens per training sequence)",
    "batch": WHOLE + " (sequences decoded together, or concurrent requests)",
    "input_tokens": WHOLE + " (prompt tokens per request)",
    "output_tokens": WHOLE + " (generated tokens per request)",
    "weights_bits": "a whole number of bits from 1 to 32, or empty if not published",
    "act_bits": "a whole number of bits from 1 to 32, or empty if not published",
    "kv_bits": "a whole number of bits from 1 to 32, or empty if not published",
}
ZERO = "a ZeRO stage: 0, 1, 2 or 3 (3 for FSDP full sharding), or empty if not published"
NONEMPTY = {
    "name": "a run name (every row needs one)",
    "model": "a model name from the models table (every row needs one)",
    "device": "a device name from the specs table (every row needs one)",
    "source_id": "a short key naming the source (every row needs one)",
    "source": "the title and URL or paper and table the row comes from (every row cites one)",
}
VALUE = "the measured figure as printed: a positive number in the metric's unit"


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
    clean, problems, row_problems = parse_table(data, label, SCHEMA, _convert)
    runs = []
    for n, fields in [] if problems else clean:
        fields = {k: v for k, v in fields.items() if k != "extra"}
        found = _row_problems(fields, models, devices)
        row_problems += [f"{at(label, n, column)}: {text}" for column, text in found]
        runs += [] if found else [Run(**fields)]
    problems += row_problems
    if problems:
        raise RunError(label, problems)
    return tuple(runs)


def _convert(column: str, raw: str) -> dict:
    """{Run field: value} for one known cell (nothing when an optional cell is empty)."""
    text = raw.strip()
    if column in NONEMPTY and not text:
        raise Expected(NONEMPTY[column])
    if column == "value":
        return _value(text)
    if not text:
        if column in REQUIRED_COLUMNS:
            raise Expected(_expected(column) + " (every run needs one)")
        return {}
    if column in CHOICES:
        if text not in CHOICES[column]:
            raise Expected(_expected(column))
        return {column: text}
    if column in WHOLES:
        hi = 32 if column.endswith("_bits") else None
        return {column: whole_cell(text, column, WHOLES[column], lo=1, hi=hi)}
    if column == "zero":
        return {column: whole_cell(text, column, ZERO, lo=0, hi=3)}
    if column == "speculative":
        return {column: boolean(text, "true or false (true for speculative decoding)")}
    if column == "sp":
        return {column: boolean(text, "true or false (sequence parallelism), or empty")}
    return {column: text}


def _expected(column: str) -> str:
    """What a cell of `column` must hold, as the messages say it."""
    if column in CHOICES:
        return "one of " + ", ".join(CHOICES[column])
    return WHOLES.get(column) or NONEMPTY.get(column) or VALUE


def _value(text: str) -> dict:
    """The value cell as printed, kept as text until the metric (another cell) gives its unit."""
    if not text:
        raise Expected(VALUE + " (every run needs one)")
    positive(text, "value", VALUE, " (never 0 or negative)")
    return {"printed": text}


def _row_problems(fields: dict, models: dict, devices: dict) -> list[tuple[str, str]]:
    """(column, 'got ...; expected ...') for each cell that contradicts the others or the tables."""
    found = _kind_problems(fields) + _name_problems(fields, models, devices)
    kind, metric = fields["kind"], fields["metric"]
    if METRICS[metric][0] != kind:
        wanted = ", ".join(m for m, (k, _, _) in METRICS.items() if k == kind)
        found.append(
            ("metric", f"got {metric!r}, a {METRICS[metric][0]} metric; expected one of {wanted}")
        )
    if metric in FLOP_METRICS and "flops_convention" not in fields:
        why = f"for a {metric} run (docs/runs.md says what each counts)"
        found.append(
            ("flops_convention", f"got ''; expected {_expected('flops_convention')} {why}")
        )
    if not found:
        fields["value"] = float(Decimal(fields["printed"]) * Decimal(repr(METRICS[metric][1])))
        found = _layout_problems(fields)
    return found


def _kind_problems(fields: dict) -> list[tuple[str, str]]:
    """Cells a run of its kind needs but lacks, and cells that belong to the other kind."""
    kind = fields["kind"]
    missing = [
        (c, f"got ''; expected {_expected(c)} (every {kind} run needs one)")
        for c in NEEDED[kind]
        if c not in fields
    ]
    mode = fields.get("batch_mode", "max_throughput") if kind == "serve" else "max_throughput"
    if mode != "max_throughput" and "batch" not in fields:
        missing.append(("batch", f"got ''; expected {WHOLES['batch']} for a {mode} run"))
    stray = [
        (c, f"got {fields[c]!r}; expected empty for a {kind} run")
        for c in OTHER_KIND[kind]
        if c in fields
    ]
    return missing + stray


def _name_problems(fields: dict, models: dict, devices: dict) -> list[tuple[str, str]]:
    """Model and device cells naming nothing in the tables; a precision the device lacks."""
    found = []
    for column, table, what in (("model", models, "models"), ("device", devices, "specs")):
        name = fields[column]
        if name not in table:
            close = difflib.get_close_matches(name, list(table), n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            found.append((column, f"got {name!r}; expected a name in the {what} table{hint}"))
    device, precision = devices.get(fields["device"]), fields["precision"]
    if device is not None and device.peak_flops(precision) is None:
        published = ", ".join(device.published_precisions())
        found.append(
            (
                "precision",
                f"got {precision!r}; expected one {device.name} publishes a peak for ({published})",
            )
        )
    return found


def _layout_problems(fields: dict) -> list[tuple[str, str]]:
    """GPUs against the layout: tp x pp x cp x dp (train), a multiple of tp x pp x cp (serve)."""
    gpus, tp, pp, cp = fields["gpus"], fields["tp"], fields.get("pp", 1), fields.get("cp", 1)
    if fields["kind"] == "train":
        dp, ep = fields["dp"], fields.get("ep", 1)
        if tp * pp * cp * dp != gpus:
            return [("gpus", f"got {gpus}; expected tp x pp x cp x dp = {tp * pp * cp * dp}")]
        if (dp * cp) % ep:
            return [("ep", f"got {ep}; expected a divisor of dp x cp ({dp * cp})")]
        return []
    if gpus % (tp * pp * cp):
        return [("gpus", f"got {gpus}; expected a multiple of tp x pp x cp ({tp * pp * cp})")]
    return []
