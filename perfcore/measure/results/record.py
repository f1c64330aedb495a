"""The results file's record: one measurement with what was measured and where.

A Record is a Measurement (raw samples in seconds per call, method, warmup) plus what was
measured (experiment, label, shapes, dtype, size, the precision whose roof applies, FLOPs
and bytes) and where (device, backend, JAX version, UTC time stamp). Its fields' metadata
(schema.column) is the file's schema; a profiled op (version 3) adds its category, source
line, occurrences per step and diagnosis; version 4 adds a kernel's kind (the `kernels`
experiment's curves) and a profiled op's predicted time with what it was derived from;
version 5 adds the host threads a kernel was measured with (a step's ops share them); version 6
the host's last-level cache (what a program's operands find still cached).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from perfcore.errors import FileProblems
from perfcore.measure.clock.harness import Measurement
from perfcore.measure.clock.schema import column
from perfcore.model.chip.kernel_kinds import KINDS
from perfcore.model.chip.specs import PRECISIONS

FORMAT = "perfcore-results"
VERSION = 6
VERSIONS = (1, 2, 3, 4, 5, 6)  # versions this code loads; version 1 is upgraded on load (v1)
PROFILE = "profile"  # the experiment of a profiled program's ops (version 3)
PRECISION_DOC = "which roof applies: " + ", ".join(f"`{p}`" for p in PRECISIONS) + " or empty"
# Written for readers after the measurement's fields, checked against the samples on load.
DERIVED = (
    ("min_s", "min", "min of `samples_s`"),
    ("median_s", "median", "median of `samples_s` (linear interpolation)"),
    ("mean_s", "mean", "mean of `samples_s`"),
    ("max_s", "max", "max of `samples_s`"),
    ("iqr_s", "iqr", "interquartile range of `samples_s`"),
    ("spread", "spread", "`iqr_s / median_s`, a fraction; above 0.1 the measurement is noisy"),
)


class ResultsError(FileProblems):
    """A results file that cannot be loaded; the message lists every problem found."""


@dataclass(frozen=True, kw_only=True)
class Record:
    """One measurement with what was measured and where; the fields are the file's columns."""

    experiment: str = column(
        "name", "experiment id, e.g. `sweep` (perfcore.measure.experiments.registry)"
    )
    label: str = column("name", "what was timed within the experiment, e.g. `matmul 1024`")
    device: str = column("name", "JAX `device_kind`, e.g. `NVIDIA H100 80GB HBM3`, or `cpu`")
    spec_name: str = column(
        "text",
        "the data/specs.csv row the device matched; empty when unknown",
        optional=True,
        default="",
    )
    backend: str = column("name", "JAX backend: `cpu`, `gpu` or `tpu`")
    jax_version: str = column("name", "`jax.__version__`")
    timestamp: str = column(
        "timestamp", "ISO 8601 with a UTC offset, e.g. 2025-01-31T12:00:00+00:00"
    )
    shapes: tuple[tuple[int, ...], ...] = column(
        "shapes", "input shapes; CSV: `1024x1024;1024x1024`, `()` a scalar", default=()
    )
    dtype: str = column("text", "input dtype, e.g. `float32`, `bfloat16`", default="")
    precision: str = column("precision", PRECISION_DOC, default="")
    size: float | None = column(
        "amount",
        "the swept size, in the unit `size_kind` names; empty when not swept",
        optional=True,
        default=None,
    )
    size_kind: str = column(
        "size_kind",
        "unit of `size`: `side` (matrix side n), `elements`, `bytes` or `flops`; or empty",
        optional=True,
        default="",
    )
    level: str = column(
        "text",
        "memory level (plateau) of the record, e.g. `cache 1`, `memory`; a `kernels` record's "
        "`memory` for a cold point (its kernel timed over copies of its operands in turn, each "
        "read after 96 MiB of the others: perfcore.model.chip.cold); empty when none",
        optional=True,
        default="",
    )
    flops: float | None = column(
        "amount",
        "FLOPs per call used for FLOP/s: cost_analysis where reported, else the "
        "model; a profiled op's per step (all its occurrences); empty when not applicable "
        "or unknown (a kernel with no cost model)",
        default=None,
    )
    bytes: float | None = column(
        "amount",
        "bytes per call: cost_analysis `bytes accessed`, else the model; a profiled op's per step",
        default=None,
    )
    flops_model: float | None = column(
        "amount", "FLOPs per call from perfcore.model.chip.ops (the cross-check)", default=None
    )
    bytes_model: float | None = column(
        "amount", "bytes per call from perfcore.model.chip.ops", default=None
    )
    flops_source: str = column(
        "flops_source",
        "where `flops` came from: `cost_analysis` (XLA's cost model), "
        "`model`, or `shapes` (a library matmul's 2·M·N·K); empty when none",
        default="",
    )
    measurement: Measurement = column("measurement", "the measurement's fields and statistics")
    regime: str = column(
        "text",
        "the sweep's regime: `overhead`, `utilisation` or `compute roof`; or empty",
        optional=True,
        default="",
    )
    notes: tuple[str, ...] = column(
        "notes",
        "remarks, each one line (a cost_analysis disagreement, the run-to-run "
        "spread); CSV: one per line of the cell",
        optional=True,
        default=(),
    )
    category: str = column(
        "text",
        "a profiled op's category (`matmul/conv`, `elementwise fusion`, `reduction`, "
        "`data movement`, `collective`, `custom call`, `other`) or `step` for a program's "
        "whole step; empty for other experiments",
        optional=True,
        default="",
    )
    source: str = column(
        "text",
        "a profiled op's source `file:line` from its HLO metadata; empty when unknown",
        optional=True,
        default="",
    )
    occurrences: int | None = column(
        "count",
        "times a profiled op ran per step (a loop body: once per iteration); "
        "empty for other experiments",
        optional=True,
        default=None,
    )
    diagnosis: str = column(
        "text",
        "a profiled op's bounding roof, its fraction of it and what to change, "
        "computed when the file was written; empty for other experiments",
        optional=True,
        default="",
    )

    kernel: str = column(
        "text",
        "the kernel kind of a `kernels` record (one of perfcore.model.chip.kernel_kinds.KINDS: "
        + ", ".join(f"`{kind}`" for kind in KINDS)
        + "; `page faults, every core` for the first touch of fresh host pages by every "
        "host thread at once (`page faults`: by one, in files before it), `page faults, an "
        "op's fresh output` and `page faults, an op's donated output` for one XLA op's calls "
        "writing fresh pages and writing mapped ones, `dispatch` for a "
        "launch's overhead, `dispatch, several results` for a launch of a program returning "
        "a tuple, or `dispatch, large result` for a launch of a program returning one large "
        "array: its calls' walls, or under the profiler their device times) or of a predicted "
        "profiled op; empty otherwise",
        optional=True,
        default="",
    )
    predicted_s: float | None = column(
        "amount",
        "a profiled op's time per step (a step record's: the step's) predicted before it ran "
        "(perfcore.predict); empty when not predicted",
        optional=True,
        default=None,
    )
    predicted_from: str = column(
        "text",
        "what `predicted_s` was derived from: measured kernels on a device and date, the "
        "nearest measured kernel, or published runs; empty when not predicted",
        optional=True,
        default="",
    )
    threads: int | None = column(
        "count",
        "a `kernels` record's host threads: the CPU cores the process could run on when it "
        "was measured (XLA:CPU's thread pool); empty on other backends and experiments",
        optional=True,
        default=None,
    )
    cache_bytes: int | None = column(
        "count",
        "a `kernels` record's host last-level cache, bytes: the highest-level data or unified "
        "cache the OS reports for the first core the process could run on (Linux sysfs); "
        "empty where it reports none, on other backends and experiments",
        optional=True,
        default=None,
    )

    @property
    def note(self) -> str:
        """The notes as one line of text."""
        return "; ".join(self.notes)

    def noted(self, note: str) -> Record:
        """The record with one more note (notes are appended, never replaced)."""
        return dataclasses.replace(self, notes=(*self.notes, note))

    def rate(self, amount: float | None, seconds: float | None = None) -> float | None:
        """amount / seconds (default the median) for synchronized work; else None, per second."""
        seconds = self.measurement.median if seconds is None else seconds
        return amount / seconds if self.measurement.synced and amount and seconds > 0 else None

    @property
    def flops_per_s(self) -> float | None:
        """Achieved FLOP/s at the median; None when unsynchronized or without FLOPs."""
        return self.rate(self.flops)

    @property
    def bytes_per_s(self) -> float | None:
        """Achieved bytes/s at the median; None when unsynchronized or without bytes."""
        return self.rate(self.bytes)
