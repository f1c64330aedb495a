"""The columns of data/runs.csv: which a row needs, what each cell may hold, and the checks of
one row against itself and the models and specs tables (docs/runs.md, "Schema")."""

from __future__ import annotations

import difflib
from decimal import Decimal

from perfcore.model.chip.csvrows import Expected, boolean, positive
from perfcore.model.chip.csvrows import whole as whole_cell
from perfcore.model.chip.specs import PRECISIONS

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


def convert(column: str, raw: str) -> dict:
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


def row_problems(fields: dict, models: dict, devices: dict) -> list[tuple[str, str]]:
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
