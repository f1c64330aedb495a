"""The JAX environment an experiment runs in: JAX imported on first use, the device detected
and matched to a specs row, its free memory, and compiled cases with their costs.

JAX is imported lazily, by jax_modules() only (measure.experiments.distributed imports it too,
for jax.distributed): importing this module, or any experiment module, loads no JAX. Every
timing goes through perfcore.measure.clock.harness: compiled and warmed outside the clock, with
block_until_ready as the sync. FLOPs and bytes come from compiled.cost_analysis(),
cross-checked against perfcore.model.chip.ops; the model stands in where the backend reports none.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from perfcore.measure.clock import harness
from perfcore.measure.clock.devices import Detected, crosscheck, match_device, reported_cost
from perfcore.measure.clock.harness import Measurement
from perfcore.measure.experiments.suites import BackendFailed, DeviceMemoryError, Suite
from perfcore.measure.results import Record
from perfcore.model.chip import ops
from perfcore.model.chip.specs import Device, load_specs


@functools.cache
def jax_modules() -> tuple[Any, Any]:
    """jax and jax.numpy, imported on first use (the app freezes them out of the collector)."""
    import jax
    import jax.numpy as jnp

    return jax, jnp


def start_jax() -> None:
    """Import JAX (about a second in a fresh process) so that later calls start at once."""
    jax_modules()


def detect(specs: dict[str, Device] | None = None) -> Detected:
    """The default JAX device, matched to a row of specs (default: data/specs.csv)."""
    jax, _ = jax_modules()
    specs = load_specs() if specs is None else specs
    try:
        device = jax.local_devices()[0]  # this process's own: jax.distributed lists every one's
    except RuntimeError as error:  # no backend starts (e.g. a CUDA wheel without its driver)
        raise BackendFailed("starting JAX", "", str(error)) from error
    kind, memory = device.device_kind, (device.memory_stats() or {}).get("bytes_limit")
    return Detected(
        jax.default_backend(),
        kind,
        match_device(kind, specs, memory),
        jax.__version__,
        jax.config.jax_default_matmul_precision,
        getattr(device, "compute_capability", None),
    )


def free_memory_bytes() -> float | None:
    """Free memory of the default JAX device in bytes (host RAM on a CPU); None if unknown."""
    jax, _ = jax_modules()
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
        """fn timed by harness.measure, block_until_ready as sync, the suite's budget."""
        kw = {"repeats": self.suite.repeats, "budget_s": self.suite.budget_s} | kw
        return harness.measure(fn, sync=self.jax.block_until_ready, **kw)

    def interleaved(self, fns: tuple[Callable[[], Any], ...], **kw: Any) -> tuple:
        """fns timed in turn by harness.interleaved (one Measurement each), the suite's budget."""
        kw = {"repeats": self.suite.repeats, "budget_s": self.suite.budget_s * len(fns)} | kw
        return harness.interleaved(fns, sync=self.jax.block_until_ready, **kw)

    def loop(self, fn: Callable[[], Any], calls: int, **kw: Any) -> Measurement:
        """fn timed as a back-to-back loop of `calls` calls per sample (mean per call)."""
        return self.measure(fn, method=harness.LOOP, calls_per_sample=calls, **kw)

    def record(self, experiment: str, label: str, m: Measurement, case=None, **kw) -> Record:
        """A Record of m on this device (with the case's costs), reported as progress."""
        self.tick(f"{experiment}: {label}")
        d = self.detected
        notes = (*(case.notes if case else ()), *kw.pop("notes", ()))
        fields = (case.fields() if case else {}) | kw | {"notes": notes}
        return Record(
            experiment=experiment,
            label=label,
            measurement=m,
            device=d.device_kind,
            backend=d.backend,
            jax_version=d.jax_version,
            spec_name=d.spec.name if d.spec else "",
            timestamp=datetime.now(UTC).isoformat(timespec="seconds"),
            **fields,
        )


# Record fields of a timing that is overhead (an empty call, a compile), not a roofline point.
NO_WORK = {"flops": None, "bytes": None, "flops_model": None, "bytes_model": None}
NO_WORK |= {"flops_source": ""}


def random_inputs(env: Env, shapes: tuple[tuple[int, ...], ...], dtype: str) -> tuple:
    """Random arrays of the shapes, in dtype (drawn in float32, then cast), mean 0 and variance
    1. On a CPU numpy draws them uniform on [-sqrt 3, sqrt 3) (jax.random compiles a program
    per shape: 0.3-0.4 s each there, half the kernels suite's budget; numpy's float32 normals
    took 0.9-1.9 s for 2^26 of them here, its uniforms 0.3 s: the suite spent 22 s of 120
    drawing normals); elsewhere jax.random draws standard normals on the device. A kernel's
    time does not depend on which (its operands are finite and varied either way)."""
    jax, jnp = env.jax, env.jnp
    if env.detected.backend == "cpu":
        import numpy as np

        rng, cast, drawn = np.random.default_rng(0), jnp.dtype(dtype), []
        for shape in shapes:  # in place: a 256 MiB operand drawn in 0.6 s, 1.5-2 s with copies
            u = rng.random(shape, np.float32)
            u -= np.float32(0.5)
            u *= np.float32(2 * np.sqrt(3))
            drawn.append(jax.device_put(u.astype(cast, copy=False)))
        return tuple(drawn)
    keys = jax.random.split(jax.random.key(0), len(shapes))
    return tuple(
        jax.random.normal(k, s, jnp.float32).astype(dtype)
        for k, s in zip(keys, shapes, strict=True)
    )


def compiled(jax, lowered, what: str):
    """lowered compiled; a compile the backend refuses for want of device memory (XLA:TPU
    sizes a program's temporaries before it allocates any) raises DeviceMemoryError, as a
    size refused by require_fits does."""
    with refused_for_memory(jax, what, "the compiler"):
        return lowered.compile()


@contextmanager
def refused_for_memory(jax, what: str, by: str):
    """Within it, the runtime's RESOURCE_EXHAUSTED (a compile's, or an allocation's that the
    free memory JAX reported did not foresee: a fragmented TPU heap) raises DeviceMemoryError
    naming what was refused and by whom; any other failure propagates."""
    try:
        yield
    except (jax.errors.JaxRuntimeError, ValueError) as error:
        if not str(error).startswith("RESOURCE_EXHAUSTED"):
            raise
        raise DeviceMemoryError(f"{what}: refused by {by}: {error}") from None


def compile_case(env: Env, fn: Callable, args: tuple, model: ops.Cost, *, matmul: bool) -> Case:
    """fn jit-compiled for args (outside any timing), FLOPs and bytes from cost_analysis.

    Where the backend reports no cost the model's are used; a FLOP count off the model's
    is noted. Every experiment module builds its timed calls with this.
    """
    program = compiled(env.jax, env.jax.jit(fn).lower(*args), model.name or "a kernel")
    try:
        flops, n_bytes = reported_cost(program.cost_analysis())
    except NotImplementedError:
        flops, n_bytes = None, None
    leaves = env.jax.tree.leaves(args)
    dtype = str(leaves[0].dtype)
    off = flops is not None and model.flops > 0 and not crosscheck(flops, model.flops)
    notes = (f"cost_analysis FLOPs {flops:.4g} vs model {model.flops:.4g}",) if off else ()
    return Case(
        lambda: program(*args),
        tuple(tuple(a.shape) for a in leaves[:2]),
        dtype,
        env.detected.precision(dtype, matmul=matmul),
        float(flops if flops is not None else model.flops),
        float(n_bytes or model.bytes),
        float(model.flops),
        float(model.bytes),
        "cost_analysis" if flops is not None else "model",
        notes,
    )
