"""One command on an accelerator (a CUDA GPU or a TPU): every experiment at accelerator sizes,
beside the spec roofline.

    PYTHONPATH=. python3 scripts/gpu_check.py [--suite default] [--out results/gpu_check.json]

Needs only jax, numpy (and torch or cupy for a reference on a GPU, where importable): no
install, no network. Detects the accelerator and its specs row, runs every experiment (the
classic timings, the measured roofline, collectives over all local devices, fusion; under 8
minutes on one GPU) and prints each record beside the spec roof at its intensity and
precision, then the measured roofline against the spec row, the bandwidth sweep's overhead
per pass for each path (loop: a kernel launch per pass; pallas: every pass inside one kernel)
and how many working sets each found overhead-bound, fusion's host round trip per step, and a
torch or cupy reference. With fewer than two devices the collectives also run across 2 local
processes on the CPU (jax.distributed), so that path is exercised. Measured points are never
clamped: one above its roof is flagged. Exits 2 when JAX sees neither a GPU nor a TPU; --tiny
runs the quick suite on whatever device JAX sees (a CPU too).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from perfcore import format as fmt
from perfcore.measure import results
from perfcore.measure.clock import harness
from perfcore.measure.experiments import distributed, registry, runner, suites
from perfcore.measure.results import empirical, points, report
from perfcore.model.chip import ops

TIME_LIMIT_S = 480  # the whole check, on one GPU


ACCELERATORS = ("gpu", "tpu")


def no_gpu_reason() -> str | None:
    """Why this cannot run here (no JAX, or JAX sees neither a GPU nor a TPU); None when it
    can."""
    missing = registry.jax_available()
    if missing:
        return missing
    backend = runner.detect({}).backend
    if backend not in ACCELERATORS:
        return (
            f"JAX's backend is {backend!r}, not a GPU or a TPU: on a CUDA machine install "
            "'jax[cuda12]' (pip install -e '.[cuda]') and check nvidia-smi"
        )
    return None


def versus(achieved: float, roof: float | None, show) -> str:
    """'achieved of roof  fraction', or the achieved rate alone when there is no roof."""
    if not roof:
        return f"{show(achieved):>13}"
    return f"{show(achieved):>13} of {show(roof)} {achieved / roof:6.1%}"


def roof_cells(record: results.Record, spec) -> str:
    """Achieved rate against the spec roof at the record's intensity; '' for no work."""
    m = record.measurement
    if not (m.synced and record.bytes):
        return ""
    if not record.flops:  # a copy: bandwidth against the memory roof
        roof = spec.memory_bytes_per_s if spec else None
        return versus(record.bytes_per_s, roof, fmt.bytes_per_s)
    point = points.measured_point(record)
    roof = points.roof_flops_per_s(point, spec) if spec else None
    flag = "  ABOVE ROOF" if spec and points.above_roof(point, spec) else ""
    return versus(point.flops_per_s, roof, fmt.flops_per_s) + flag


def table(records: tuple[results.Record, ...], spec) -> str:
    """Each record: statistic, median, spread, achieved vs spec roof (precision named)."""
    lines = [
        f"{'experiment':<12} {'label':<24} {'prec':<5} {'statistic':>10} {'median':>10} "
        f"{'IQR/med':>8}  achieved of spec roof at its intensity"
    ]
    for r in records:
        m = r.measurement
        lines.append(
            f"{r.experiment:<12} {r.label:<24} {r.precision:<5} "
            f"{fmt.seconds(m.statistic):>10} {fmt.seconds(m.median):>10} "
            f"{fmt.percent(m.spread):>8}  {roof_cells(r, spec)}  {r.note}"
        )
    return "\n".join(lines)


def torch_reference(n: int, copy_elements: int) -> list[str] | None:
    """torch bf16 matmul FLOP/s and float32 copy bytes/s on the GPU; None without torch."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    x = torch.randn(copy_elements, device="cuda")
    return reference_lines("torch", lambda: a @ a, x.clone, torch.cuda.synchronize, n)


def cupy_reference(n: int, copy_elements: int) -> list[str] | None:
    """cupy float16 matmul FLOP/s and float32 copy bytes/s; None without cupy."""
    try:
        import cupy
    except ImportError:
        return None
    a = cupy.random.standard_normal((n, n), dtype=cupy.float32).astype(cupy.float16)
    x = cupy.random.standard_normal(copy_elements, dtype=cupy.float32)
    sync = cupy.cuda.Device().synchronize
    return reference_lines("cupy (fp16)", lambda: a @ a, x.copy, sync, n)


def reference_lines(name: str, matmul, copy, sync, n: int) -> list[str]:
    """A 16-bit n x n matmul's FLOP/s and a float32 copy's bytes/s, timed by the same harness."""
    mm = harness.measure_loop(matmul, sync=lambda _: sync(), calls=10, repeats=10)
    cp = harness.measure_loop(copy, sync=lambda _: sync(), calls=10, repeats=10)
    flops = ops.matmul(n, n, n, 2).flops
    copy_bytes = 2 * 4 * copy().shape[0]  # float32, read once and written once
    bandwidth = fmt.bytes_per_s(copy_bytes / cp.statistic)
    return [
        f"{name} matmul {n}: {fmt.flops_per_s(flops / mm.statistic)} (loop mean)",
        f"{name} copy: {bandwidth} (read + write, loop mean)",
    ]


def spec_lines(records: tuple[results.Record, ...], spec) -> list[str]:
    """Each measured roof beside the spec row's figure for the same precision or memory."""
    if spec is None:
        return []
    roofline = empirical.measured_roofline(records)
    lines = [f"measured vs spec ({spec.name}):"]
    for roof in roofline.roofs:
        cells = versus(roof.flops_per_s, spec.peak_flops(roof.precision), fmt.flops_per_s)
        lines.append(f"  {roof.precision or roof.dtype:<5} {cells}")
    if roofline.levels:
        floor = roofline.levels[-1].bytes_per_s
        lines.append(f"  memory {versus(floor, spec.memory_bytes_per_s, fmt.bytes_per_s)}")
    return lines


def across_processes(out: str) -> list[str]:
    """The collectives across 2 local CPU processes (when this machine lacks 2 GPUs)."""
    path = Path(out).with_name(Path(out).stem + "-collectives-2proc.json").resolve()
    problem = distributed.launch(2, "quick", path, env=os.environ | {"JAX_PLATFORMS": "cpu"})
    if problem:
        return [f"collectives across 2 processes: {problem}"]
    lines = report.collectives_lines(results.load_results(path))
    return [
        "collectives across 2 local CPU processes (jax.distributed, gloo):",
        *lines,
        f"wrote {path}",
    ]


def main(argv: list[str] | None = None) -> int:
    """Run the suite on the GPU and print it beside the spec roofline; the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="default")
    parser.add_argument("--out", default="results/gpu_check.json")
    parser.add_argument("--tiny", action="store_true", help="quick sizes, on any device")
    parser.add_argument("--experiment", action="append", help="only this one (repeatable)")
    args = parser.parse_args(argv)
    reason = registry.jax_available() if args.tiny else no_gpu_reason()
    if reason:
        print(f"gpu_check: no GPU or TPU to check: {reason}", file=sys.stderr)
        return 2
    suite = "quick" if args.tiny else args.suite
    start = time.perf_counter()
    progress = runner.progress_printer(sys.stderr)
    records = runner.run_suite(suite, experiments=tuple(args.experiment or ()), progress=progress)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    saved = results.save_results(records, args.out)  # first: a later step's failure keeps them
    detected = runner.detect()
    spec = detected.spec
    print(
        f"{detected.device_kind} ({detected.backend}, JAX {detected.jax_version}); "
        f"spec row: {spec.name if spec else 'none matched: roofs not shown'}"
    )
    print("\n".join([table(records, spec), *report.lines(records), *spec_lines(records, spec)]))
    if not any(r.experiment == "collectives" for r in records):  # fewer than 2 devices
        print("\n".join(across_processes(args.out)))
    sized = suites.resolve_suite(suite, detected.backend)
    n, copy_elements = max(sized.matmul_sizes), sized.copy_side**2
    references = [torch_reference(n, copy_elements), cupy_reference(n, copy_elements)]
    found = [line for lines in references if lines for line in lines]
    print("\n".join(found) or "reference: neither torch (with CUDA) nor cupy is importable")
    elapsed = time.perf_counter() - start
    print(f"wrote {saved}; the check took {elapsed:.0f} s")
    return 0 if elapsed < TIME_LIMIT_S else 1


if __name__ == "__main__":
    sys.exit(main())
