"""What a measurement run times: named suites of sizes and budgets, and the memory guard.

A Suite fixes every size the experiments use (matrix sides, element counts, loop lengths)
and the time budget per measurement. The default suite runs the timing lessons' sizes on a GPU; on a
CPU a named suite runs in float32 with sides capped so it finishes in about a minute. Any
size whose arrays would not fit in free device memory is refused before allocating.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

CPU_MAX_MATMUL = 2048  # largest matmul side a named suite runs on a CPU
# Other sizes a named suite runs on a CPU: field -> largest value.
CPU_CAPS = {
    "timer_size": 1024,
    "elementwise_side": 2048,
    "copy_side": 4096,
    "mlp_batch": 128,
    "roofline_call_s": 0.25,
    "stream_pass_bytes": 2**27,
    "fusion_elements": 2**25,
}
# Swept sizes a named suite runs on a CPU: field -> largest value (bytes or matrix side).
CPU_SWEEP_CAPS = {
    "roofline_sides": CPU_MAX_MATMUL,
    "stream_bytes": 2**30,
    "collective_bytes": 2**24,  # larger outputs are fresh pages: the timing is page faults
    "kernel_sides": CPU_MAX_MATMUL,
    "kernel_seqs": 1024,
    "kernel_elements": 2**24,
}
FIT_FRACTION = 0.8  # refuse work needing more than this share of free device memory
# An accelerator's kernels budget, times the suite's: each point there is a program of its own
# that compiles (about a second a point on a TPU v5e), and a sweep needs its two ends measured
# (kernel_rounds' first two rounds) for an op to sit inside its range. On a TPU v5e
# (docs/profile.md), with the kinds of 2026-12-05: 181 points in 120 s (a block's forward and
# backward then predicted +161 %), 240 in 240 s (+10 %); with the 204 sweeps of 2026-12-07: 232
# points in 240 s, 38 kinds in bfloat16 and float16 at their smallest size alone (+60 %), and
# 400 in 480 s, every kind at two sizes or more (+2 %). No GPU has been measured: a GPU keeps
# twice the suite's, which scripts/gpu_check.py's whole run was sized for; so does any other.
ACCELERATOR_KERNELS = {"gpu": 2, "tpu": 4}
# A host's kernel dtypes: float32's every kind, int8's forward matmuls (a quantized layer's),
# complex64's square matmuls (a signal's or a physics program's)
CPU_KERNEL_DTYPES = ("float32", "int8", "complex64")


@dataclass(frozen=True)
class Suite:
    """Sizes (matrix sides, element counts) and time budgets for one run of the experiments."""

    name: str
    matmul_sizes: tuple[int, ...] = (256, 512, 1024, 2048, 4096, 8192)
    matmul_dtype: str = "bfloat16"
    timer_size: int = 4096
    dispatch_sizes: tuple[int, ...] = (128, 512, 1024)
    elementwise_side: int = 4000
    barrier_side: int = 256
    barrier_steps: int = 1000
    mlp_layers: int = 6
    mlp_width: int = 512
    mlp_batch: int = 256
    compile_runs: int = 3
    loop_size: int = 512
    loop_calls: int = 50
    spread_size: int = 1024
    spread_runs: int = 5
    copy_side: int = 8192
    repeats: int = 25
    budget_s: float = 1.0
    roofline_dtypes: tuple[str, ...] = (
        "float64",
        "float32",
        "bfloat16",
        "float16",
        "float8_e4m3fn",
    )
    roofline_sides: tuple[int, ...] = (256, 512, 1024, 2048, 4096, 8192, 16384)
    roofline_call_s: float = 0.5  # a dtype's matmul sweep stops after a call this long
    stream_bytes: tuple[int, ...] = tuple(2**i for i in range(14, 34))  # working sets, 16 KiB up
    stream_pass_bytes: int = 2**28  # each timed call streams at least this many bytes
    stream_repeats: int = 15  # samples per working set, no time budget: the min needs them
    collective_bytes: tuple[int, ...] = tuple(4**i for i in range(5, 16))  # per rank, 1 KiB up
    fusion_chain: tuple[int, ...] = (1, 2, 4, 8)
    fusion_elements: int = 2**28
    experiments: tuple[str, ...] = ()  # what the suite runs when none are named: all
    kernel_dtypes: tuple[str, ...] = ("float32", "bfloat16", "float16", "float8_e4m3fn", "int8")
    kernel_sides: tuple[int, ...] = tuple(2**i for i in range(5, 14))  # 32 to 8192
    kernel_rows: tuple[int, ...] = (1, 4, 16)  # M of the skinny (decode) matmuls
    kernel_narrow: tuple[int, ...] = (32, 64, 128)  # the narrow side of the narrow matmuls
    kernel_seqs: tuple[int, ...] = tuple(2**i for i in range(7, 13))  # 128 to 4096
    kernel_head_dims: tuple[int, ...] = (64, 128)
    kernel_elements: tuple[int, ...] = tuple(4**i for i in range(5, 15))  # 1024 to 256M
    # The n of the n×n LAPACK factorizations XLA:CPU calls (kernel_factorizations); a host's
    # alone: an accelerator runs its own (cuSOLVER, a TPU's loops), which these do not price.
    kernel_factorization_sides: tuple[int, ...] = (64, 128, 256, 512, 1024)
    kernels_budget_s: float = 120.0  # the whole kernels experiment's time, compiles included
    kernels_call_s: float = 0.1  # a call this long drops its sweep's larger points


SUITES = {
    "default": Suite("default"),
    "quick": Suite(
        "quick",
        matmul_sizes=(32, 64, 128),
        matmul_dtype="float32",
        timer_size=128,
        dispatch_sizes=(16, 32, 64),
        elementwise_side=256,
        barrier_side=32,
        barrier_steps=20,
        mlp_layers=2,
        mlp_width=64,
        mlp_batch=16,
        compile_runs=2,
        loop_size=64,
        loop_calls=5,
        spread_size=64,
        spread_runs=3,
        copy_side=256,
        repeats=5,
        budget_s=0.05,
        roofline_dtypes=("float32", "bfloat16"),
        roofline_sides=(128, 256, 512),
        roofline_call_s=0.05,
        stream_bytes=(*(4**i for i in range(7, 14)), 2**27, 2**28),
        stream_pass_bytes=2**24,
        stream_repeats=10,
        fusion_chain=(1, 2, 4, 8),
        collective_bytes=tuple(4**i for i in range(5, 11)),
        fusion_elements=2**23,
        kernel_sides=(64, 128, 256),
        kernel_rows=(1, 16),
        kernel_seqs=(128, 256),
        kernel_head_dims=(64,),
        kernel_elements=(4**6, 4**8, 4**10),
        kernel_factorization_sides=(64, 128),
        kernels_budget_s=10.0,
        kernels_call_s=0.02,
    ),
    "kernels": Suite("kernels", experiments=("kernels",)),
}


def for_platform(suite: Suite, platform: str) -> Suite:
    """The suite as run on `platform`: on a CPU, float32 and sizes capped; on an accelerator,
    ACCELERATOR_KERNELS times the kernels budget (a GPU's where the platform is neither) and no
    LAPACK factorizations."""
    if platform != "cpu":
        times = ACCELERATOR_KERNELS.get(platform, ACCELERATOR_KERNELS["gpu"])
        return dataclasses.replace(
            suite,
            kernels_budget_s=suite.kernels_budget_s * times,
            kernel_factorization_sides=(),
        )
    sizes = tuple(n for n in suite.matmul_sizes if n <= CPU_MAX_MATMUL)
    capped = {field: min(getattr(suite, field), cap) for field, cap in CPU_CAPS.items()}
    capped |= {
        f: tuple(n for n in getattr(suite, f) if n <= cap) for f, cap in CPU_SWEEP_CAPS.items()
    }
    capped["kernel_dtypes"] = CPU_KERNEL_DTYPES
    return dataclasses.replace(suite, matmul_sizes=sizes, matmul_dtype="float32", **capped)


def resolve_suite(suite: str | Suite, platform: str) -> Suite:
    """A named suite sized for the platform; a Suite given as a value is used as given."""
    if isinstance(suite, Suite):
        return suite
    if suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r}; expected one of {', '.join(SUITES)}")
    return for_platform(SUITES[suite], platform)


class DeviceMemoryError(ValueError):
    """A size refused before allocating because it would not fit in free device memory."""


class BackendFailed(RuntimeError):
    """JAX's runtime failed a call (the device, its driver or the backend, not perfcore's
    code): where it failed (an experiment, or starting JAX), the runtime's error code, and
    the runtime's own message, quoted whole."""

    def __init__(self, where: str, code: str, message: str):
        self.where, self.code, self.message = where, code, message
        super().__init__(f"{where}: {message}")


def require_fits(needed_bytes: float, free_bytes: float | None, what: str) -> None:
    """Raise DeviceMemoryError when needed_bytes exceed FIT_FRACTION of free_bytes."""
    if free_bytes is not None and needed_bytes > FIT_FRACTION * free_bytes:
        raise DeviceMemoryError(
            f"{what} needs {needed_bytes:.3g} bytes but {free_bytes:.3g} bytes of device memory "
            f"are free (at most {FIT_FRACTION:.0%} may be used): refused before allocating; "
            "choose a smaller size or suite"
        )
