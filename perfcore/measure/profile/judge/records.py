"""A Profile as results-file records (experiment `profile`, version 3), and back to rows.

One record per op: label its instruction name, flops and bytes per step, samples_s its
device time in each step, occurrences per step, category, source line and the diagnosis
against the roofs given; what it does and where (`dot 16×64·64×128, examples.py:40`) is the
note `op: ...`, read back by what(). One record per program with category `step`: samples_s the
device span of each step, its notes the host wall, busy time and coverage. A fresh capture
and a file measured elsewhere read back the same (profile_records, step_records).
"""

from __future__ import annotations

import dataclasses
import statistics
from datetime import UTC, datetime

from perfcore import format as fmt
from perfcore.measure.clock.harness import Measurement
from perfcore.measure.profile import hlo
from perfcore.measure.profile.judge.assess import Roofs, assess, program_diagnosis
from perfcore.measure.profile.judge.joined import Op, Profile, Program
from perfcore.measure.profile.judge.price import COST_MODEL, IN_BODY, SHAPES
from perfcore.measure.results.record import PROFILE, Record

STEP = "step"  # the category of a program's whole-step record
WHAT = "op: "  # the note saying what an op does and where
UNENDED = "time: to its hand-off only; its end was not traced (a lower bound)"
DTYPES = {
    "f64": "float64",
    "f32": "float32",
    "bf16": "bfloat16",
    "f16": "float16",
    "s32": "int32",
    "s8": "int8",
    "pred": "bool",
    "c64": "complex64",
    "c128": "complex128",
}


def _flops_source(op: Op) -> str:
    """The results file's flops_source of an op's FLOPs."""
    if op.flops is None:
        return ""
    return "shapes" if op.cost_source.startswith("shapes") else "cost_analysis"


def _operands(op: Op) -> tuple[tuple[tuple[int, ...], ...], str]:
    """The op's operand shapes (dimensions) and its first operand's dtype."""
    inputs = hlo.arrays(op.shapes.split(" -> ")[0])
    dtype = DTYPES.get(inputs[0][0], inputs[0][0]) if inputs else ""
    return tuple(dims for _, dims in inputs), dtype


def _op_record(op: Op, common: dict, roofs: Roofs | None, warmup: int) -> Record:
    """One op's record."""
    shapes, dtype = _operands(op)
    a = assess(op, roofs)
    notes = (
        f"program {op.module} (id {op.program_id})",
        f"shapes {op.shapes}",
        f"cost: {op.cost_source}",
        *([f"{WHAT}{op.what}"] if op.what else []),
        *([UNENDED] if op.open_end else []),
    )
    return Record(
        experiment=PROFILE,
        label=op.name,
        device=op.device,
        shapes=shapes,
        dtype=dtype,
        precision=op.precision,
        flops=op.flops,
        bytes=op.bytes,
        flops_source=_flops_source(op),
        measurement=Measurement(samples=op.samples_s, warmup=warmup),
        category=op.category,
        source=op.source,
        occurrences=max(op.occurrences, 1),
        diagnosis=a.diagnosis,
        notes=notes,
        **common,
    )


def _step_record(program: Program, device: str, common: dict, warmup: int) -> Record:
    """One program's whole-step record."""
    walls = [w for w in program.wall_s if w is not None]
    wall = f"host wall {fmt.seconds(statistics.median(walls))} a step" if walls else ""
    busy = (
        f"device busy {fmt.seconds(statistics.median(program.busy_s))} a step, idle "
        f"between ops {fmt.seconds(statistics.median(program.idle_s))}"
    )
    covered = f"op coverage {fmt.percent(program.coverage)}"
    module = (
        ""
        if program.module_flops is None
        else (
            f"cost_analysis() {fmt.flops(program.module_flops)}, the ops {fmt.flops(program.flops)}"
        )
    )
    notes = tuple(
        filter(
            None,
            [
                f"program {program.module} (id {program.program_id})",
                wall,
                busy,
                covered,
                module,
                *program.notes,
            ],
        )
    )
    return Record(
        experiment=PROFILE,
        label=f"{program.module} step",
        device=device,
        flops=program.flops,
        flops_source="cost_analysis",
        measurement=Measurement(samples=program.span_s, warmup=warmup),
        category=STEP,
        diagnosis=program_diagnosis(program),
        notes=notes,
        **common,
    )


def to_records(
    profile: Profile,
    roofs: Roofs | None = None,
    *,
    spec_name: str = "",
    jax_version: str = "",
    warmup: int = 0,
) -> tuple[Record, ...]:
    """The profile's records: each program's step, then its ops slowest first."""
    common = {
        "spec_name": spec_name,
        "backend": profile.backend,
        "jax_version": profile.jax_version or jax_version or "unknown",
        "timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    device = profile.devices[0] if profile.devices else profile.backend
    steps = [_step_record(g, device, common, warmup) for g in profile.programs]
    return (*steps, *(_op_record(op, common, roofs, warmup) for op in profile.ops))


def profile_records(records: tuple[Record, ...]) -> tuple[Record, ...]:
    """The records of profiled ops (not steps), slowest first."""
    ops = [r for r in records if r.experiment == PROFILE and r.category != STEP]
    return tuple(sorted(ops, key=lambda r: -r.measurement.median))


def step_records(records: tuple[Record, ...]) -> tuple[Record, ...]:
    """The whole-step records of profiled programs."""
    return tuple(r for r in records if r.experiment == PROFILE and r.category == STEP)


def unended(record: Record) -> bool:
    """True for an op record whose end was not traced (joined.Op.open_end): its time is a lower
    bound."""
    return UNENDED in record.notes


def in_body(record: Record) -> bool:
    """True for a loop's or call's record (its control): its cost is in its body's ops."""
    return f"cost: {IN_BODY}" in record.notes


def what(record: Record) -> str:
    """What a profiled op does and where, e.g. `dot 16×64·64×128, examples.py:40`; its
    instruction name (the record's label) where the record does not say."""
    return next((n.removeprefix(WHAT) for n in record.notes if n.startswith(WHAT)), record.label)


def op_of(record: Record) -> Op:
    """The Op a profiled op's record was written from (what assess() needs to judge it)."""
    notes = dict(n.split(": ", 1) for n in record.notes if n.startswith("cost: "))
    shapes = next((n.removeprefix("shapes ") for n in record.notes if n.startswith("shapes ")), "")
    cost = notes.get("cost") or (SHAPES if record.flops_source == "shapes" else COST_MODEL)
    return Op(
        "",
        0,
        record.label,
        "",
        record.category,
        record.source,
        record.precision,
        record.device,
        record.occurrences or 1,
        record.measurement.samples,
        record.flops,
        record.bytes,
        cost,
        shapes,
        what(record),
    )


def rediagnosed(records: tuple[Record, ...], roofs: Roofs | None) -> tuple[Record, ...]:
    """The records, each profiled op's diagnosis computed anew against `roofs`."""
    return tuple(
        dataclasses.replace(r, diagnosis=assess(op_of(r), roofs).diagnosis)
        if r.experiment == PROFILE and r.category != STEP
        else r
        for r in records
    )
