"""The seeds' JAX experiments on whatever device JAX sees, a CPU included and labelled so.

Every timing goes through perfcore.measure.bench: compiled and warmed outside the clock, with
block_until_ready as the sync. FLOPs and bytes come from compiled.cost_analysis(),
cross-checked against perfcore.model.ops; the model stands in where the backend reports none.
This is the only module that imports JAX, lazily; one measurement runs at a time per process.
The experiments' names, titles and counts are in perfcore.measure.registry (JAX-free); each
runner here is a function of an Env returning Records.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from perfcore.measure import bench
from perfcore.measure.bench import Measurement
from perfcore.measure.devices import Detected, crosscheck, match_device, reported_cost
from perfcore.measure.points import measured_points, regime, roof_flops_per_s
from perfcore.measure.registry import EXPERIMENTS, LOCK, WAITING
from perfcore.measure.results import Record
from perfcore.measure.suites import BackendFailed, Suite, require_fits, resolve_suite
from perfcore.model import ops
from perfcore.model.specs import Device, load_specs

Progress = Callable[[float, str], None]


@functools.cache
def _jax() -> tuple[Any, Any]:
    """jax and jax.numpy, imported on first use (the app freezes them out of the collector)."""
    import jax
    import jax.numpy as jnp

    return jax, jnp


def start_jax() -> None:
    """Import JAX (about a second in a fresh process) so that later calls start at once."""
    _jax()


def detect(specs: dict[str, Device] | None = None) -> Detected:
    """The default JAX device, matched to a row of specs (default: data/specs.csv)."""
    jax, _ = _jax()
    specs = load_specs() if specs is None else specs
    try:
        device = jax.local_devices()[0]  # this process's own: jax.distributed lists every one's
    except RuntimeError as error:  # no backend starts (e.g. a CUDA wheel without its driver)
        raise BackendFailed("starting JAX", "", str(error)) from error
    kind, memory = device.device_kind, (device.memory_stats() or {}).get("bytes_limit")
    return Detected(
        jax.default_backend(), kind, match_device(kind, specs, memory), jax.__version__,
        jax.config.jax_default_matmul_precision, getattr(device, "compute_capability", None),
    )  # fmt: skip


def free_memory_bytes() -> float | None:
    """Free memory of the default JAX device in bytes (host RAM on a CPU); None if unknown."""
    jax, _ = _jax()
    device_stats = jax.local_devices()[0].memory_stats()
    if device_stats and "bytes_limit" in device_stats:
        return float(device_stats["bytes_limit"] - device_stats.get("bytes_in_use", 0))
    try:
        with open("/proc/meminfo") as meminfo:
            line = next(x for x in meminfo if x.startswith("MemAvailable:"))
        return float(line.split()[1]) * 1024
    except (OSError, StopIteration):
        return None


@dataclass(frozen=True)
class Case:
    """A compiled call (run() enqueues it) and what it costs per call."""

    run: Callable[[], Any]
    shapes: tuple[tuple[int, ...], ...]
    dtype: str
    precision: str
    flops: float
    bytes: float
    flops_model: float
    bytes_model: float
    flops_source: str
    notes: tuple[str, ...]

    def fields(self) -> dict:
        """The Record fields this case fills in."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "run"}


@dataclass(frozen=True)
class Env:
    """What an experiment needs: JAX, the detected device, the suite and a progress tick."""

    jax: Any
    jnp: Any
    detected: Detected
    suite: Suite
    tick: Callable[[str], None]

    def measure(self, fn: Callable[[], Any], **kw: Any) -> Measurement:
        """fn timed by bench.measure, block_until_ready as sync, the suite's budget."""
        kw = {"repeats": self.suite.repeats, "budget_s": self.suite.budget_s} | kw
        return bench.measure(fn, sync=self.jax.block_until_ready, **kw)

    def interleaved(self, fns: tuple[Callable[[], Any], ...], **kw: Any) -> tuple:
        """fns timed in turn by bench.interleaved (one Measurement each), the suite's budget."""
        kw = {"repeats": self.suite.repeats, "budget_s": self.suite.budget_s * len(fns)} | kw
        return bench.interleaved(fns, sync=self.jax.block_until_ready, **kw)

    def loop(self, fn: Callable[[], Any], calls: int, **kw: Any) -> Measurement:
        """fn timed as a back-to-back loop of `calls` calls per sample (mean per call)."""
        return self.measure(fn, method=bench.LOOP, calls_per_sample=calls, **kw)

    def record(self, experiment: str, label: str, m: Measurement, case=None, **kw) -> Record:
        """A Record of m on this device (with the case's costs), reported as progress."""
        self.tick(f"{experiment}: {label}")
        d = self.detected
        notes = (*(case.notes if case else ()), *kw.pop("notes", ()))
        fields = (case.fields() if case else {}) | kw | {"notes": notes}
        return Record(
            experiment=experiment, label=label, measurement=m, device=d.device_kind,
            backend=d.backend, jax_version=d.jax_version, spec_name=d.spec.name if d.spec else "",
            timestamp=datetime.now(UTC).isoformat(timespec="seconds"), **fields,
        )  # fmt: skip


# Record fields of a timing that is overhead (an empty call, a compile), not a roofline point.
_NO_WORK = {"flops": None, "bytes": None, "flops_model": None, "bytes_model": None}
_NO_WORK |= {"flops_source": ""}


def compile_case(env: Env, fn: Callable, args: tuple, model: ops.Cost, *, matmul: bool) -> Case:
    """fn jit-compiled for args (outside any timing), FLOPs and bytes from cost_analysis.

    Where the backend reports no cost the model's are used; a FLOP count off the model's
    is noted. Every experiment module builds its timed calls with this.
    """
    compiled = env.jax.jit(fn).lower(*args).compile()
    try:
        flops, n_bytes = reported_cost(compiled.cost_analysis())
    except NotImplementedError:
        flops, n_bytes = None, None
    leaves = env.jax.tree.leaves(args)
    dtype = str(leaves[0].dtype)
    off = flops is not None and model.flops > 0 and not crosscheck(flops, model.flops)
    notes = (f"cost_analysis FLOPs {flops:.4g} vs model {model.flops:.4g}",) if off else ()
    return Case(
        lambda: compiled(*args), tuple(tuple(a.shape) for a in leaves[:2]), dtype,
        env.detected.precision(dtype, matmul=matmul),
        float(flops if flops is not None else model.flops), float(n_bytes or model.bytes),
        float(model.flops), float(model.bytes),
        "cost_analysis" if flops is not None else "model", notes,
    )  # fmt: skip


def _matmul(env: Env, n: int, dtype: str | None = None) -> Case:
    """A compiled (n x n) @ (n x n) on random inputs, refused first if it would not fit."""
    jax, jnp = env.jax, env.jnp
    dtype = dtype or env.suite.matmul_dtype
    model = ops.matmul(n, n, n, jnp.dtype(dtype).itemsize)
    require_fits(model.bytes, free_memory_bytes(), f"matmul {n}x{n}x{n} {dtype}")
    a, b = (jax.random.normal(k, (n, n), dtype) for k in jax.random.split(jax.random.key(0)))
    return compile_case(env, jnp.matmul, (a, b), model, matmul=True)


def _elementwise_case(env: Env, fn: Callable, side: int, flops_per_element: int = 1) -> Case:
    """A compiled one-in, one-out elementwise fn over a side x side float32 array."""
    jax = env.jax
    model = ops.elementwise(side * side, 1, 1, flops_per_element, 4)
    require_fits(model.bytes, free_memory_bytes(), f"elementwise {side}x{side} float32")
    x = jax.random.normal(jax.random.key(0), (side, side))
    return compile_case(env, fn, (x,), model, matmul=False)


def _timer(env: Env) -> list[Record]:
    """Naive vs synchronized timer: the same 10-call matmul loop (performance_model)."""
    case = _matmul(env, env.suite.timer_size)
    naive = env.loop(case.run, 10, blocking=False)
    synced = env.loop(case.run, 10)
    return [env.record("timer", "naive timer", naive, case),
            env.record("timer", "synchronized", synced, case)]  # fmt: skip


def _barriers(env: Env) -> list[Record]:
    """Implicit barriers: read a value every step vs accumulate on the device, seconds/step."""
    jax, jnp, side = env.jax, env.jnp, env.suite.barrier_side
    x = jnp.ones((side, side))
    step = jax.jit(lambda x: (x * 1.01).sum())
    total = [jnp.zeros(())]

    def accumulate():
        total[0] = total[0] + step(x)
        return total[0]

    every = env.loop(lambda: float(step(x)), env.suite.barrier_steps)
    once = env.loop(accumulate, env.suite.barrier_steps)
    shape = {"shapes": ((side, side),), "dtype": "float32"}
    return [env.record("barriers", "read every step", every, **shape),
            env.record("barriers", "accumulate, read once", once, **shape)]  # fmt: skip


def _with_regimes(records: list[Record], overhead_s: float, spec: Device | None) -> list[Record]:
    """The sweep records, each with its regime against the spec roof (else the best measured)."""
    points = measured_points(tuple(records))
    best = max(p.flops_per_s for p in points)
    typed = []
    for record, point in zip(records, points, strict=True):
        spec_roof = roof_flops_per_s(point, spec) if spec else None
        kind = regime(point.seconds_median, overhead_s, point.flops_per_s, spec_roof or best)
        against = (
            "regime against the spec roof" if spec_roof else "regime against the best measured"
        )
        typed.append(dataclasses.replace(record, regime=kind).noted(against))
    return typed


def _sweep(env: Env) -> list[Record]:
    """Matmul size sweep: achieved FLOP/s per size, after the cost of an empty call."""
    empty = _elementwise_case(env, lambda x: x + 1, 1)
    floor = env.record("sweep", "empty call", env.loop(empty.run, 10), empty, **_NO_WORK)
    sized = []
    for n in env.suite.matmul_sizes:
        case = _matmul(env, n)
        m = env.loop(case.run, 10)
        sized.append(env.record("sweep", f"matmul {n}", m, case, size=n, size_kind="side"))
    return [floor, *(_with_regimes(sized, floor.measurement.median, env.detected.spec))]


def _elementwise(env: Env) -> list[Record]:
    """add, mul, sin, sigmoid on one large array: alike in time, all bandwidth-bound."""
    jax, jnp, side = env.jax, env.jnp, env.suite.elementwise_side
    fns = {"add": lambda x: x + 1, "mul": lambda x: x * 1.5, "sin": jnp.sin,
           "sigmoid": jax.nn.sigmoid}  # fmt: skip
    records = []
    for name, fn in fns.items():
        case = _elementwise_case(env, fn, side)
        records.append(env.record("elementwise", name, env.loop(case.run, 10), case))
    return records


def _square(env: Env, n: int) -> Case:
    """The clock seed's x @ x on an n x n float32 array of ones."""
    model = ops.Cost(2 * n**3, 2 * n * n * 4, f"x @ x, n={n}")  # x is read once: 2 matrices move
    require_fits(model.bytes, free_memory_bytes(), f"matmul {n}x{n}x{n} float32")
    return compile_case(env, lambda x: x @ x, (env.jnp.ones((n, n)),), model, matmul=True)


def _dispatch(env: Env) -> list[Record]:
    """Dispatch vs compute: min of isolated calls, unblocked and blocked, at each size."""
    records = []
    for n in env.suite.dispatch_sizes:
        case = _square(env, n)
        side = {"size": n, "size_kind": "side"}
        unblocked = env.measure(case.run, blocking=False)
        records.append(env.record("dispatch", f"dispatch {n}", unblocked, case, **side))
        records.append(env.record("dispatch", f"compute {n}", env.measure(case.run), case, **side))
    return records


def _mlp_fn() -> Callable:
    """A fresh tanh MLP function (a new function object, so jax.jit compiles it anew)."""

    def mlp(params, x):
        for w, b in params:
            x = env_tanh(x @ w + b)
        return x.sum()

    env_tanh = _jax()[1].tanh
    return mlp


def _compile(env: Env) -> list[Record]:
    """Compile vs steady state of a small MLP: first call (upper bound on compile), steady step."""
    jax, jnp, s = env.jax, env.jnp, env.suite
    layer = ops.linear(s.mlp_batch, s.mlp_width, s.mlp_width, 4)
    model = ops.Cost(s.mlp_layers * layer.flops, s.mlp_layers * layer.bytes, "mlp")
    require_fits(model.bytes, free_memory_bytes(), f"MLP {s.mlp_layers}x{s.mlp_width}")
    keys = jax.random.split(jax.random.key(0), s.mlp_layers)
    params = [(jax.random.normal(k, (s.mlp_width,) * 2) * 0.05, jnp.zeros(s.mlp_width))
              for k in keys]  # fmt: skip
    x = jnp.ones((s.mlp_batch, s.mlp_width))
    first = env.measure(lambda: jax.jit(_mlp_fn())(params, x), warmup=0, repeats=s.compile_runs)
    case = compile_case(env, _mlp_fn(), (params, x), model, matmul=True)
    steady = env.loop(case.run, 20)
    ratio = f"first call / steady step = {first.median / steady.mean:.0f}"
    return [env.record("compile", "first call", first, case, notes=(ratio,), **_NO_WORK),
            env.record("compile", "steady step", steady, case)]  # fmt: skip


def _blocking(env: Env) -> list[Record]:
    """Block once at the end vs on every call: mean per call of the same loop."""
    case = _square(env, env.suite.loop_size)
    calls = env.suite.loop_calls
    end = env.loop(case.run, calls)
    every = env.loop(lambda: env.jax.block_until_ready(case.run()), calls)
    return [env.record("blocking", "block at the end", end, case),
            env.record("blocking", "block every call", every, case)]  # fmt: skip


def _spread(env: Env) -> list[Record]:
    """Min vs mean, and the run-to-run spread of the min over repeated runs."""
    case = _square(env, env.suite.spread_size)
    runs = [env.record("spread", f"isolated min, run {i + 1}", env.measure(case.run), case)
            for i in range(env.suite.spread_runs)]  # fmt: skip
    mean = env.record("spread", "back-to-back mean", env.loop(case.run, 10), case)
    spread = bench.run_to_run_spread([r.measurement for r in runs])
    note = f"run-to-run spread {spread:.1%}: a difference smaller than this is not a result yet"
    return [*(r.noted(note) for r in runs), mean]


def _ceilings(env: Env) -> list[Record]:
    """Empirical ceilings: the largest matmul's FLOP/s and a device-memory copy's bytes/s."""
    s = env.suite
    n = max(s.matmul_sizes, default=s.timer_size)
    case = _matmul(env, n)
    best = env.record("ceilings", "best matmul", env.loop(case.run, 10), case,
                      size=n, size_kind="side")  # fmt: skip
    copy = _elementwise_case(env, lambda x: x.copy(), s.copy_side, flops_per_element=0)
    working_set = 8 * s.copy_side**2  # float32 in and out
    m = env.loop(copy.run, 10)
    return [best, env.record("ceilings", "copy", m, copy, size=working_set, size_kind="bytes")]


@contextmanager
def _exclusive(wait_callback: Callable[[str], None] | None) -> Iterator[None]:
    """Hold the process-wide measurement lock, telling wait_callback if we must wait."""
    if not LOCK.acquire(blocking=False):
        if wait_callback is not None:
            wait_callback(WAITING)
        LOCK.acquire()
    try:
        yield
    finally:
        LOCK.release()


def _run_all(names: tuple[str, ...], env_of: Callable, plan: Suite, report: Progress) -> list:
    """Every named experiment's records, reporting progress after each measurement."""
    total, done, records = sum(EXPERIMENTS[n].count(plan) for n in names), [0], []

    def tick(message: str) -> None:
        done[0] += 1
        report(min(done[0] / total, 0.99), message)

    runtime_error = _jax()[0].errors.JaxRuntimeError
    for name in names:
        report(min(done[0] / total, 0.99), EXPERIMENTS[name].title)
        try:
            records += EXPERIMENTS[name].load()(env_of(tick))
        except runtime_error as error:  # the device or its driver; any other error is a bug
            raise BackendFailed(name, error.error_code_string, str(error)) from error
    report(1.0, f"done: {len(records)} records")
    return records


def run_suite(
    suite: str | Suite = "default",
    *,
    experiments: tuple[str, ...] | None = None,
    progress: Progress | None = None,
    wait_callback: Callable[[str], None] | None = None,
    specs: dict[str, Device] | None = None,
) -> tuple[Record, ...]:
    """Run experiments (all by default) on JAX's default device, one suite at a time per process."""
    names = tuple(experiments or EXPERIMENTS)
    unknown = [n for n in names if n not in EXPERIMENTS]
    if unknown:
        raise ValueError(f"unknown experiment(s) {unknown}; expected some of {list(EXPERIMENTS)}")
    report = progress or (lambda fraction, message: None)
    with _exclusive(wait_callback):
        report(0.0, "starting JAX")
        detected = detect(specs)
        plan = resolve_suite(suite, detected.backend)
        jax, jnp = _jax()

        def env_of(tick: Callable[[str], None]) -> Env:
            return Env(jax, jnp, detected, plan, tick)

        return tuple(_run_all(names, env_of, plan, report))
