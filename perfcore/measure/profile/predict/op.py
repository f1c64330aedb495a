"""One launched instruction's predicted time: priced as the profiler prices it, its kernel kind
and size, its expected time from the device's kernel curves (or the published runs').

predict_op prices an instruction (join.price: XLA's cost model on the instruction alone),
gives it its kernel kind (kinds.kernel_kind) and its expected time from
perfcore.model.chip.kernels.expected: its bound over the efficiency its device's curves give
at its size, else the published runs' efficiency, said as such. What an op holds is priced
part by part (the fused parts in perfcore.measure.profile.predict.fused): a fusion of several
dots as their sum, what a fusion moves beyond its dots, a batched dot at one of its matmuls, a
sort or reduce-window by what its loops read, transcendentals on the transcendental curve,
bfloat16 roundings between its ops on the rounding curve; an op of a loop's body on the curve
timed as a loop body's op where the curves hold one, an op after its program's first on the
faster of that and its own (kernels.later_efficiency).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from perfcore.measure.profile import hlo
from perfcore.measure.profile.judge import join
from perfcore.measure.profile.judge.records import DTYPES
from perfcore.measure.profile.predict import fused, indexed, kinds, matmuls, permutes
from perfcore.model.chip import kernels
from perfcore.model.chip.roofline import t_lower
from perfcore.model.chip.specs import Device

NO_ROOF = "no roof: no kernel curves for this device and no specs row"
NO_TRAFFIC = (
    "not predicted: no device-memory traffic (its operands and result in on-chip memory, a "
    "TPU's VMEM) and no matmul, so no roof here bounds it"
)
# Said of an op inside a loop whose trip count XLA did not know (a while over the data).
UNKNOWN_TRIPS = (
    "; in a loop whose trip count is unknown before it runs (it depends on the data): "
    "priced once a step"
)


@dataclass(frozen=True)
class OpPrediction:
    """One launched instruction's predicted time per step and what it rests on."""

    name: str  # as the profile names the op (the HLO name without its %)
    opcode: str
    category: str
    kernel: str  # perfcore.model.chip.kernels kind; empty when not predicted
    dtype: str
    source: str
    occurrences: int  # runs per step
    flops: float | None  # per step
    bytes: float | None  # per step
    bound_s: float | None  # per step
    predicted_s: float | None  # per step; None when not predicted (derived_from says why)
    efficiency: float | None
    efficiency_source: str  # kernels.MEASURED, NEAREST or PUBLISHED; empty when none
    derived_from: str
    trips_known: bool = True  # False: in a loop of unknown trip count, priced once a step


@dataclass(frozen=True)
class Context:
    """What prices an op on one device: its curves (or None), roofs and the fallbacks."""

    curves: kernels.Curves | None
    spec: Device | None
    fallback: dict[bool, kernels.Efficiency]  # compute-bound? -> the published efficiency

    def roofs(self, dtype: str, precision: str) -> tuple[float | None, float | None]:
        """(FLOP/s, bytes/s) of the curves' roofs, else the spec row's; None where unknown."""
        if self.curves is not None:
            return self.curves.peak(dtype), self.curves.bytes_per_s
        if self.spec is None:
            return None, None
        peak = self.spec.peak_flops(precision) or self.spec.peak_flops("fp32")
        return peak, self.spec.memory_bytes_per_s


# Kinds whose reduce may consume an array its fusion makes (a broadcast product summed): on a
# host, priced by the bytes that reduce consumes where they exceed what the op moves
# (kinds.reduced_volume). Measured on this CPU (stop 59, fastest of 30): ((x[:, None] -
# y[None]) ** 2).sum(-1) over 1,024 × 512 × 64 took 3.9 ms, priced 0.40 ms by its 2.5 MB; a
# 64 MiB array's row sums 2.3 ms. A GPU's or TPU's reduction makes them in registers at its
# compute rate, which no curve here has measured: not so priced there.
REDUCED = ("reduction", "column reduction", "arg reduction")


def _dtype(module: hlo.Module, instruction: hlo.Instruction) -> str:
    """The dtype of the instruction's first operand (else its result), e.g. `float32`."""
    kind = fused.element_type(module, instruction)
    return DTYPES.get(kind, kind)


def predict_op(
    module: hlo.Module, instruction: hlo.Instruction, ctx: Context, cost, later: bool = False
):
    """One instruction's OpPrediction on the context's device (later: launched after its
    program's first op, kernels.later_efficiency)."""
    p = join.price(module, instruction, cost)
    counted = hlo.runs_per_step(module, instruction)
    runs, trips = counted or 1, ("" if counted is not None else UNKNOWN_TRIPS)
    kind, dtype = kinds.kernel_kind(module, instruction, p), _dtype(module, instruction)
    base = (instruction.name.lstrip("%"), instruction.opcode, p.category, kind, dtype, p.source)
    per_step = (runs, *(None if v is None else v * runs for v in (p.flops, p.bytes)))
    peak, bandwidth = ctx.roofs(dtype, p.precision)
    if not kind or p.flops is None or p.bytes is None or not peak or not bandwidth:
        why = NO_ROOF if kind and p.flops is not None else f"not predicted: {p.cost_source}"
        return OpPrediction(*base, *per_step, None, None, None, "", why)
    if not p.bytes and p.category != hlo.MATMUL and hlo.on_chip_bytes(module, instruction):
        return OpPrediction(*base, *per_step, None, None, None, "", NO_TRAFFIC)  # VMEM alone
    bound = t_lower(p.flops, p.bytes, peak, bandwidth)
    fallback = ctx.fallback[p.flops / peak >= p.bytes / bandwidth]
    body = hlo.in_loop(module, instruction)  # a loop's op (its curves: operands warm)
    inner = kinds.dots(module, instruction) if p.category == hlo.MATMUL else []
    if len(inner) > 1:
        seconds, eff = fused.fused_dots(module, inner, dtype, (peak, bandwidth), ctx, bound, body)
    else:
        instances = matmuls.dot_instances(module, inner[0] if inner else None)
        size = fused.curve_size(kind, p.flops, p.bytes, instances)
        capped, host = False, ctx.curves is not None and ctx.curves.threads  # a host's curves
        if kind == "convolution" and inner and host:
            size, capped = matmuls.conv_size(module, inner[0], size)
        if kind in WINDOWED and (host or kind == "sort"):  # sized by what its loops read
            bound, size = _windowed(module, instruction, kind, p.flops, (peak, bandwidth))
        # its data on the stream's curve; what it evaluates is added below (fused.with_evaluations)
        own = "elementwise" if kind == "transcendental" else kind
        at = _second_coordinate(module, instruction, kind, inner)
        e = kernels.expected(bound, own, dtype, size, ctx.curves, fallback, body, at, later)
        seconds, eff = e.seconds, e.efficiency
        volume = kinds.reduced_volume(module, instruction) if kind in REDUCED and host else 0.0
        if volume > p.bytes:  # a reduce of what its fusion made from less: by what it consumes
            e = kernels.expected(
                volume / bandwidth, own, dtype, volume, ctx.curves, fallback, body, at, later
            )
            said = (
                f"{e.efficiency.derived_from}; over the {volume:.3g} bytes its reduce consumes, "
                f"made in its fusion from the {p.bytes:.3g} it moves"
            )
            seconds, eff = (
                e.seconds,
                kernels.Efficiency(bound / e.seconds, e.efficiency.source, said),
            )
        if capped:
            said = f"{eff.derived_from}; sized at the suite's convolution of its channels"
            eff = kernels.Efficiency(eff.value, eff.source, said)
        if kind == "strided transpose":
            seconds, eff = _walks(module, instruction, p.bytes, bound, seconds, eff)
    if inner and instruction.opcode not in hlo.MATMUL_OPS:
        seconds, eff = fused.with_epilogue(
            module, inner, p.bytes, (bandwidth, dtype), ctx, body, seconds, eff
        )
    if evals := kinds.evaluations(module, instruction, p):
        seconds, eff = fused.with_evaluations(
            module, p, evals, dtype, body, bandwidth, ctx, bound, seconds, eff
        )
    return OpPrediction(
        *base,
        *per_step,
        bound * runs,
        seconds * runs,
        eff.value,
        eff.source,
        eff.derived_from + trips,
        counted is not None,
    )


def _walks(module, instruction, moved: float, bound: float, seconds: float, eff):
    """(seconds, Efficiency) of a strided transpose whose k operands of its output's size are
    each walked on their own (permutes.walked_operands): its bytes count each read once (k + 1
    arrays), k walks move 2k, so its bytes' time is scaled by (moved + (k - 1) x one) / moved."""
    k, one = permutes.walked_operands(module, instruction)
    if k < 2 or not moved:
        return seconds, eff
    scale = (moved + (k - 1) * one) / moved
    said = (
        f"{eff.derived_from}; {k} operands walked strided, each a walk of its own (x {scale:.2f})"
    )
    return seconds * scale, kernels.Efficiency(bound / (seconds * scale), eff.source, said)


WINDOWED = ("sort", "reduce-window", "pool")


def _windowed(module, instruction, kind: str, flops: float, roofs) -> tuple[float, float]:
    """(bound, size on its curve) of a sort or a reduce-window (a pool's too), from the bytes
    the kernel model sizes them by: a sort's keys read and written once, at one row's share
    (its rows sorted one after another: a sort of R rows takes R times one row's); a
    reduce-window's outputs each reading its window (kernel_kinds.sort_bytes, window_bytes),
    as XLA:CPU's loop emitter reads them: on a host's curves alone. A TPU's reduce-window of
    4,194,304 outputs so sized read 8.6 GB and was priced 0.36 s in a 0.39 ms step (stop 59);
    an accelerator's is priced by the bytes its cost model counts."""
    if kind == "sort":
        moved, rows = kinds.sorted_keys(module, instruction)
    else:
        moved, rows = kinds.window_reads(module, instruction), 1
    return t_lower(flops, moved, *roofs), moved / rows


def _second_coordinate(module, instruction, kind: str, inner: list) -> int:
    """An op's second coordinate (kernel_kinds.SWEPT): a column reduction's kept elements, a
    strided transpose's KiB a walk spans, a LAPACK call's (hlo.factorization_kind), an FFT's
    dimensions transformed, a top-k's heap steps, a gather's or scatter's elements a row, else
    its one dot's or convolution's (matmuls.second_coordinate; a cuDNN call's its own), else 0."""
    if hlo.factorization(instruction):
        return hlo.factorization_kind(module, instruction)[1]
    if kind == "column reduction":
        return kinds.kept_elements(module, instruction)
    if kind == "strided transpose":
        return permutes.strided_span(module, instruction)
    if kind == "fft":
        return kinds.fft_rank(module, instruction)
    if kind == "top-k":
        return kinds.top_k_steps(module, instruction)
    if kind in ("gather", "scatter"):
        return indexed.row_elements(module, instruction)
    if not inner and matmuls.is_convolution(instruction):  # a cuDNN call: no dot inside
        inner = [instruction]
    return matmuls.second_coordinate(module, inner[0]) if inner else 0


@functools.cache
def fallbacks() -> dict[bool, kernels.Efficiency]:
    """The published runs' efficiency for compute-bound (True) and memory-bound (False) ops
    (data/runs.csv priced once per process: 0.8 s)."""
    from perfcore.model.runs import efficiency, published

    table = published.table()
    return {bound: efficiency.kernel_fallback(table, bound) for bound in (True, False)}
