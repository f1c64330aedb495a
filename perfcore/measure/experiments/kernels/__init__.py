"""Kernel curves: the kernels real layers run, swept over size per dtype, and the dispatch cost.

Per dtype the backend runs: matmuls square, skinny (decode's M = 1..16, on to weights of 256
MiB), tall (prefill's M = 4N), transposed (a weight gradient's Xᵀ·dY, contracted over the
tokens: K = N/4), rhs-transposed (an input gradient's dY·Wᵀ, square) and batched (16 of
attention's per-head scores in one dot), and a decode step's scores over its KV cache (a
batched matvec); int8 a forward pass's matmuls alone, accumulated in int32; fused causal
attention (jax.nn.dot_product_attention) forward and backward over sequence length and head
dim; an elementwise chain, a transcendental
chain, a row reduction, a 2-D transpose copy, a plain copy (its layout kept) and two rank-4
permuted copies (a KV cache's (batch, seq, heads, head dim) -> (batch, heads, head dim, seq),
and attention's head split -> (batch, heads, seq, head dim), rows moved whole) and a strided
transpose (x + 1)ᵀ over sizes; 3×3 convolutions (jax.lax.conv_general_dilated, NHWC) over
channels, as a forward pass runs them and as a weight gradient does (the input convolved with
the output's gradient: a window as large as the image) and grouped ones (depthwise, and 16
input features a group); a sort of a vector, and the
reduce-window of a cumulative sum (XLA:CPU's scan: windows of 16 along a row), over sizes, their
bytes from the kernel model (kernel_kinds.sort_bytes, window_bytes); a 2×2 max pool and the same
windows' maxima with their indices (a max pool's gradient on XLA:CPU); a product's sum over a
shape with a unit dimension (kernel_windows.product_sums); sin, x ** 1.5 and rsqrt one by one;
gathers, top-ks, argmaxes, and real and complex FFTs of rows and of images; on a host the
LAPACK routines jnp.linalg calls (LU, Cholesky, a triangular solve, QR and its Q, a symmetric
eigendecomposition, an SVD, by their textbook FLOPs: kernel_factorizations); the collectives
where several devices exist.
Each point is isolated calls with FLOPs and bytes from cost_analysis (cross-checked with
chip.ops), and `kernel` names its kind (perfcore.model.chip.kernels); on an accelerator each
point is a program of its own whose calls' samples are their device times, read from one
profiler trace over the suite (kernel_traced: a call's wall there is its launch). A tiny program
with 1 and with 16 arguments times the dispatch per launched program, and on an accelerator
one returning a 64 and a 256 MiB array what a large result adds to it (kernel_launches, a few
seconds past the budget); on a CPU the first touch
of fresh pages is timed too (experiments.pages), and the scatter-adds as loop bodies' ops into a
carried table and as programs of their own into a donated one (CARRIED). The sweep keeps to
the suite's kernels_budget_s: each point gets its share of what is left, a sweep's ends are
measured before its middles
(kernel_rounds.spread), and a call longer than kernels_call_s drops the larger points. A matmul
point takes MATMUL_REPEATS times the suite's repeats within its share, and on a CPU a second
pass over every point while the budget lasts, the matmuls first (kernel_rounds): a point's
fastest call (what the curves use) moves from run to run on a shared machine, a matmul's most.
On a host, a few streaming kinds are timed cold too, over copies of their operands in turn
(kernel_cold: what an operand a program last touched far back adds).
"""

from __future__ import annotations

import dataclasses
import functools
import time

from perfcore.measure.clock import faults
from perfcore.measure.experiments import collectives, pages, roofline
from perfcore.measure.experiments.env import (
    Env,
    compile_case,
    free_memory_bytes,
    random_inputs,
)
from perfcore.measure.experiments.kernels import cold as kernel_cold
from perfcore.measure.experiments.kernels import factorizations as kernel_factorizations
from perfcore.measure.experiments.kernels import functions as kernel_functions
from perfcore.measure.experiments.kernels import launches as kernel_launches
from perfcore.measure.experiments.kernels import loops as kernel_loops
from perfcore.measure.experiments.kernels import rounds as kernel_rounds
from perfcore.measure.experiments.kernels import rows as kernel_rows
from perfcore.measure.experiments.kernels import sweeps as kernel_sweeps
from perfcore.measure.experiments.kernels import traced as kernel_traced
from perfcore.measure.experiments.kernels import windows as kernel_windows
from perfcore.measure.experiments.kernels.launches import host_columns, host_threads
from perfcore.measure.experiments.kernels.sweeps import ITEMSIZE, ROW, TRANSPOSES, in_loop, plan
from perfcore.measure.experiments.kernels.traced import Trace
from perfcore.measure.experiments.kernels.windows import MODEL_BYTES, Planned
from perfcore.measure.experiments.suites import Suite, require_fits
from perfcore.measure.results import Record
from perfcore.measure.results.curves import EXPERIMENT, IN_LOOP_IN_PLACE
from perfcore.model.chip import kernel_kinds, kernel_lapack

MATMUL_REPEATS = 3  # a matmul point takes this many times the suite's repeats (within its share)
COPIES = ("copy", "plain copy", *TRANSPOSES)  # kinds with no FLOPs: their bytes from the model
# Kinds that update a table in place (a host's): timed as a loop body's op into a table the loop
# carries, and as a program of its own with the table donated (an in-place update, no copy)
CARRIED = ("scatter",)
IN_LOOP = "in a loop"  # the label suffix of a loop body's point
COLD_S = 0.3  # seconds of calls a cold point takes (its copies' drawing and compiling aside)


def _carried(suite: Suite) -> list[list[Planned]]:
    """The sweeps a host times updating a table in place (CARRIED), in a loop and alone: the
    scatters of the suite's first dtype, of rows of ROW and of kernel_rows.SMALL_ROWS."""
    dtype = suite.kernel_dtypes[0]
    b = ITEMSIZE.get(dtype, 4)
    return [
        s for r in (ROW, *kernel_rows.SMALL_ROWS) for s in kernel_rows.scatters(suite, dtype, b, r)
    ]


def count(suite: Suite) -> int:
    """How many measurements the kernels experiment plans on a host (collectives not
    counted)."""
    sweeps, carried = [s for d in suite.kernel_dtypes for s in plan(suite, d)], _carried(suite)
    extra = (*in_loop(sweeps), *carried, *carried, _cold(suite, sweeps))  # in loops and alone
    return len(kernel_launches.DISPATCH_ARGS) + 1 + sum(len(s) for s in (*sweeps, *extra))


def _cold(suite: Suite, sweeps: list[list[Planned]]) -> list[Planned]:
    """The cold points a host times (kernel_cold): its first dtype's."""
    return kernel_cold.points(sweeps, suite.kernel_dtypes[0])


def _measure_cold(env: Env, p: Planned, budget_s: float) -> Record:
    """A cold point (kernel_cold.measure) with its kind, shapes and the host's columns."""
    fields = {"kernel": p.kind, "shapes": p.shapes, **host_columns(env)}
    return kernel_cold.measure(env, p, budget_s, kernel_functions.function, **fields)


def _measure_in_loop(env: Env, p: Planned, budget_s: float) -> Record:
    """A point as a loop body's op: seconds per iteration (harness.in_program), each loop
    length timed as isolated calls within half of budget_s; costs as one call's. A scatter
    updates a table the loop carries (kernel_loops.carried); its bytes are the model's (those
    its rows move), where XLA counts the whole table. A point in_place writes its result into
    the loop's carry in place (kernel_loops.in_place), its label saying so."""
    require_fits(3 * p.model.bytes, free_memory_bytes(), p.label)
    fn, inputs = (
        kernel_functions.function(env.jax, env.jnp, p.fn),
        random_inputs(env, p.shapes, p.dtype),
    )
    case = compile_case(env, fn, inputs, p.model, matmul=p.fn not in COPIES)
    case, carry = _real_flops(case, p), p.kind in CARRIED
    if carry:
        case = dataclasses.replace(case, bytes=p.model.bytes)
    budget = max(budget_s, 1e-3)
    m = kernel_loops.per_iteration(env, fn, inputs, budget, carry=carry, place=p.in_place)
    unit = kernel_kinds.SIZE_UNIT[p.kind]
    size = case.flops if unit == "flops" else case.bytes
    fields = {"size": size, "size_kind": unit, "kernel": p.kind, "shapes": p.shapes}
    label = f"{p.label} {IN_LOOP_IN_PLACE if p.in_place else IN_LOOP}"
    return env.record(EXPERIMENT, label, m, case, **host_columns(env), **fields)


def _counted(case, note: str, **counted):
    """case with the model's counts given in place of XLA's cost model's, flops_source
    `model`, and a note why in place of its cross-check's."""
    return dataclasses.replace(case, notes=(note,), flops_source="model", **counted)


def _in_place(env: Env, fn, inputs: tuple, case):
    """case run with its first input donated: each call updates the table in place (as a
    program's scatter into a buffer it owns) and hands it to the next call."""
    program = env.jax.jit(fn, donate_argnums=0).lower(*inputs).compile()
    table = [env.jnp.array(inputs[0], copy=True)]  # the compiled case keeps the original

    def run():
        table[0] = program(table[0], *inputs[1:])
        return table[0]

    return dataclasses.replace(case, run=run)


def _real_flops(case, p: Planned):
    """case at a complex matmul's real FLOPs, 8·M·N·K, where p is one (as a prediction counts
    a complex dot: hlo.complex_dot_flops; XLA's cost model counts 2·M·N·K), else as it is."""
    if p.dtype not in kernel_sweeps.COMPLEX:
        return case
    note = f"FLOPs a complex matmul's real ones; XLA's cost model counts {case.flops:.4g}"
    return _counted(case, note, flops=p.model.flops)


def _measure(env: Env, p: Planned, budget_s: float, trace: Trace | None = None) -> Record:
    """One point timed within budget_s, with its costs and kind: as isolated calls, their
    samples the calls' device times once the trace that runs over them ends where one is
    given (an accelerator's, and a host's LAPACK points': kernel_traced; a call's wall on an
    accelerator times its launch, on a host a LAPACK call's copies and selects). Its bytes
    are the model's where its loops read other than its operands (MODEL_BYTES) and on an
    accelerator, whose compiler counts bytes its own way (XLA:TPU's cost analysis: 2.9× a
    4096×1024·1024×1024 matmul's operands and result, 5× a row sum's), where a prediction
    prices a program's ops by XLA:CPU's count, the operands and results the model counts."""
    require_fits(3 * p.model.bytes, free_memory_bytes(), p.label)
    fn, inputs = (
        kernel_functions.function(env.jax, env.jnp, p.fn),
        random_inputs(env, p.shapes, p.dtype),
    )
    inputs = kernel_factorizations.prepared(env.jnp, p.fn, inputs)
    lapack = p.fn in kernel_lapack.FACTORIZATIONS  # its LAPACK call's own events, where traced
    fn = trace.named(fn, p.label, calls_only=lapack) if trace is not None else fn
    case = compile_case(env, fn, inputs, p.model, matmul=p.fn not in COPIES)
    case = dataclasses.replace(
        case, precision=case.precision or roofline.EXTRA_PRECISION.get(p.dtype, "")
    )
    if p.kind in CARRIED:  # updates its donated table in place, each call's result the next's
        case = _in_place(env, fn, inputs, case)
    if p.kind in (*MODEL_BYTES, *CARRIED) or trace is not None:  # as the prediction counts them
        case = dataclasses.replace(case, bytes=p.model.bytes)
    if p.fn in kernel_lapack.FACTORIZATIONS:  # a LAPACK call XLA's cost model cannot see
        seen = f"XLA's cost model counts {case.flops:.4g}: the ops around the LAPACK call"
        note = f"FLOPs the routine's textbook count; {seen}"
        case = _counted(case, note, flops=p.model.flops, bytes=p.model.bytes)
    elif p.kind == "fft":  # as a prediction counts an FFT's (hlo.fft_flops), not as XLA does
        note = f"FLOPs 8 N log2 N a transform; XLA's cost model counts {case.flops:.4g}"
        case = _counted(case, note, flops=p.model.flops)
    case = _real_flops(case, p)
    repeats = env.suite.repeats * (MATMUL_REPEATS if p.fn.startswith("matmul") else 1)
    m = env.measure(case.run, repeats=repeats, budget_s=max(budget_s, 1e-3))  # >= 3 calls
    unit = kernel_kinds.SIZE_UNIT[p.kind]
    size = case.flops / kernel_windows.instances(p) if unit == "flops" else case.bytes
    fields = {"size": size, "size_kind": unit, "kernel": p.kind, "shapes": p.shapes}
    return env.record(EXPERIMENT, p.label, m, case, **host_columns(env), **fields)


def _is_matmul(p: Planned) -> bool:
    """True for a matmul point (on a CPU, the first measured a second time: kernel_rounds)."""
    return p.fn.startswith("matmul")


def _by_points(deadline: float, sweeps: list[list], then: list[list]) -> float:
    """When the sweeps' pass must end for the sweeps timed after it (`then`) to get their
    share of the time left to deadline: each pass's share is its share of the points (the
    loop bodies' came after a first pass that took all 120 s once the suite held 420 points)."""
    now, first, rest = time.perf_counter(), sum(map(len, sweeps)), sum(map(len, then))
    return now + (deadline - now) * first / max(first + rest, 1)


def _second_pass(env: Env, first: list[tuple], deadline: float) -> list[Record]:
    """The first pass's records, each point measured once more while the budget lasts: the
    matmuls first (their fastest call moves most from run to run), then the rest."""
    matmuls = kernel_rounds.again(env, first, deadline, _measure, _is_matmul)
    points = [(p, r) for (p, _), r in zip(first, matmuls, strict=True)]
    return kernel_rounds.again(env, points, deadline, _measure, lambda p: not _is_matmul(p))


def _lapack(env: Env, sweeps: list[list], deadline: float, refused: list[str]) -> list[Record]:
    """A host's LAPACK sweeps, their points' calls under one trace, each sample its call's
    LAPACK routine alone (kernel_traced, calls_only); none traced where there are none."""
    if not sweeps:
        return []
    with kernel_traced.Trace(env.jax) as trace:
        measure = functools.partial(_measure, trace=trace)
        calls = kernel_rounds.sweep(env, sweeps, deadline, measure, refused)
    return trace.profiled([r for _, r in calls])


def run(env: Env) -> list[Record]:
    """Dispatch, every dtype's sweeps within the budget, and the collectives over devices.
    What takes a fixed time (dispatch; on a host the cold points and the page faults) is
    measured first, so that the sweeps, which stop at the deadline, end the budget: measured
    after them, a host's 12 cold points and its pages took 9 s past a budget of 120 s. The
    page faults again after them too (in time kept back), both passes in one record."""
    deadline = time.perf_counter() + env.suite.kernels_budget_s
    dropped = {d: why for d in env.suite.kernel_dtypes if (why := roofline.unsupported(env, d))}
    sweeps = [s for d in env.suite.kernel_dtypes if d not in dropped for s in plan(env.suite, d)]
    refused: list[str] = []
    launches = kernel_launches.dispatch(env)
    if env.detected.backend == "cpu":
        faults.settle_heap()  # outputs under 32 MiB from the heap, whatever ran before
        colds = [_measure_cold(env, p, COLD_S) for p in _cold(env.suite, sweeps)]
        fresh = pages.record(env, EXPERIMENT, threads=host_threads(env))  # fresh pages
        deadline -= sum(fresh.measurement.samples)  # their second pass, after the sweeps
        in_place = pages.in_place(env, EXPERIMENT, threads=host_threads(env))  # as an op takes them
        bodies = [*in_loop(sweeps), *_carried(env.suite)]
        sweeps = [*sweeps, *_carried(env.suite)]  # again as programs, their tables donated
        lapack = [s for s in sweeps if s and s[0].fn in kernel_lapack.FACTORIZATIONS]
        sweeps = [s for s in sweeps if s not in lapack]
        first = kernel_rounds.sweep(
            env, sweeps, _by_points(deadline, sweeps, [*lapack, *bodies]), _measure, refused
        )
        calls = _lapack(env, lapack, _by_points(deadline, lapack, bodies), refused)
        bodies = kernel_rounds.sweep(env, bodies, deadline, _measure_in_loop, refused)
        records = [*_second_pass(env, first, deadline), *calls, *(r for _, r in bodies), *colds]
        later = pages.record(env, EXPERIMENT, threads=host_threads(env))
        launches += [kernel_rounds.joined(fresh, later), *in_place]
    else:  # every point a program of its own, timed by the device's clock (kernel_traced)
        with kernel_traced.Trace(env.jax) as trace:
            measure = functools.partial(_measure, trace=trace)
            first = kernel_rounds.sweep(env, sweeps, deadline, measure, refused)
            traced = kernel_launches.large_results(env, trace)
        records = [
            *trace.profiled([*(r for _, r in first), *traced]),
            *kernel_launches.large_results(env),
        ]
    records = [*launches, *records]
    if len(env.jax.devices()) > 1:
        records += [
            dataclasses.replace(r, experiment=EXPERIMENT, kernel="collective")
            for r in collectives.run(env)
        ]
    if dropped:
        note = f"not measured, the backend does not run: {', '.join(dropped.values())}"
        records = [r.noted(note) for r in records]
    if refused:
        note = f"not measured, the backend does not compile: {', '.join(dict.fromkeys(refused))}"
        records = [r.noted(note) for r in records]
    return records
