"""What JAX reports about a device and a compiled call, read without importing JAX.

A device_kind string names a specs row: exactly, through the row's jax_device_kinds, or
else by the model words of the row's name; where a part is sold in two memory sizes, the
memory JAX reports (memory_stats()['bytes_limit'], at most the physical size) picks the
row. A dtype, the backend and JAX's matmul-precision setting name the roof a computation
ran under (a GPU float32 matmul may run as TF32).
cost_analysis() reports FLOPs and bytes per call, cross-checked against perfcore.model.chip.ops.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from perfcore.model.chip.specs import Device

CROSSCHECK_TOLERANCE = 0.05  # cost_analysis vs perfcore.model.chip.ops, relative
# A specs row naming a bus device_kind does not name is a different board (H100 PCIe vs SXM).
BUS_WORDS = frozenset({"pcie"})
# A device_kind naming a form factor the row's name lacks is a different board (H100 NVL).
FORM_WORDS = frozenset({"pcie", "sxm", "nvl"})
SIZE_WORD = re.compile(r"\d+gb")  # a memory size in a row's name: '32gb'
DTYPE_PRECISION = {"float64": "fp64", "float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}
# jax_default_matmul_precision -> precision a float32 matmul runs at, on gpu / on tpu.
F32_MATMUL = {
    None: ("tf32", "bf16"),
    "default": ("tf32", "bf16"),
    "high": ("tf32", "bf16"),
    "tensorfloat32": ("tf32", "tf32"),
    "TF32_TF32_F32": ("tf32", "tf32"),
    "bfloat16": ("bf16", "bf16"),
    "BF16_BF16_F32": ("bf16", "bf16"),
}


def _tokens(text: str) -> set[str]:
    """Lower-case alphanumeric words of text."""
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _covered(word: str, have: set[str]) -> bool:
    """True when word is in have; a word of letters also matches itself plus digits (sxm5)."""
    pattern = re.escape(word) + (r"\d*" if word.isalpha() else "")
    return any(re.fullmatch(pattern, h) for h in have)


def _match_key(have: set[str], device: Device, sized: bool) -> tuple[int, int] | None:
    """How well a specs row's name fits device_kind words (higher is better); None if not.

    sized: the memory size is known, so a size word of the name ('32gb') need not match."""
    wanted = _tokens(device.name) - _tokens(device.vendor)
    wanted -= {w for w in wanted if sized and SIZE_WORD.fullmatch(w)}
    models = {w for w in wanted if any(c.isdigit() for c in w)}
    if not models or not all(_covered(w, have) for w in models) or (wanted & BUS_WORDS) - have:
        return None
    if any(_covered(w, have) and not _covered(w, wanted) for w in FORM_WORDS):
        return None
    missing = sum(not _covered(w, have) for w in wanted)
    return (-missing, len(wanted) - missing)


def _by_words(device_kind: str, specs: dict[str, Device], memory_bytes: float | None) -> list:
    """The rows whose names' words best fit device_kind (several on a tie)."""
    have, sized = _tokens(device_kind), memory_bytes is not None
    keyed = [(k, d) for d in specs.values() if (k := _match_key(have, d, sized)) is not None]
    best = max((key for key, _ in keyed), default=None)
    return [d for key, d in keyed if key == best]


def _by_memory(rows: list[Device], memory_bytes: float | None) -> Device | None:
    """The one row, or among several the smallest memory that holds memory_bytes; None if
    that does not single one out (no memory reported, no row big enough, a tie)."""
    if len(rows) == 1:
        return rows[0]
    if memory_bytes is None or any(d.memory_bytes is None for d in rows):
        return None
    fits = sorted((d for d in rows if d.memory_bytes >= memory_bytes), key=lambda d: d.memory_bytes)
    if not fits or (len(fits) > 1 and fits[0].memory_bytes == fits[1].memory_bytes):
        return None
    return fits[0]


def match_device(
    device_kind: str, specs: dict[str, Device], memory_bytes: float | None = None
) -> Device | None:
    """The specs row a JAX device_kind names; None when unknown or ambiguous (the user picks).

    A row listing device_kind in its jax_device_kinds wins outright (in any case: a TPU's
    profiler writes `TPU v5 Lite` where JAX says `TPU v5 lite`). Otherwise every word of
    the row's name with a digit in it (h100, 80gb, sxm4) must appear in device_kind, and a
    form factor device_kind names (pcie, sxm, nvl) must appear in the row's name; among those
    rows, the one with the fewest words device_kind lacks wins. Where several rows remain,
    memory_bytes (what JAX reports, bytes) picks the smallest memory that holds it; without
    it, a size word of a row's name (80gb) must appear in device_kind like any other.
    """
    kind = device_kind.lower()
    exact = [d for d in specs.values() if kind in (k.lower() for k in d.jax_device_kinds)]
    return _by_memory(exact or _by_words(device_kind, specs, memory_bytes), memory_bytes)


def precision_ran(
    dtype: str,
    platform: str,
    matmul_precision: str | None,
    *,
    matmul: bool,
    compute_capability: str | None = None,
) -> str:
    """Which precision's roof applies: a GPU float32 matmul may run as TF32 (Ampere+)."""
    base = DTYPE_PRECISION.get(dtype, "")
    if not matmul or base != "fp32" or platform not in ("gpu", "tpu"):
        return base
    ran = F32_MATMUL.get(matmul_precision, ("fp32", "fp32"))[platform == "tpu"]
    pre_ampere = compute_capability is not None and int(compute_capability.split(".")[0]) < 8
    return "fp32" if ran == "tf32" and pre_ampere else ran


@dataclass(frozen=True)
class Detected:
    """The device JAX runs on, its specs row if known, and the JAX that drives it."""

    backend: str
    device_kind: str
    spec: Device | None
    jax_version: str
    matmul_precision: str | None
    compute_capability: str | None

    def precision(self, dtype: str, *, matmul: bool) -> str:
        """The precision (roof) an op of this dtype runs at here."""
        return precision_ran(
            dtype,
            self.backend,
            self.matmul_precision,
            matmul=matmul,
            compute_capability=self.compute_capability,
        )


def reported_cost(analysis: Any) -> tuple[float | None, float | None]:
    """FLOPs and bytes accessed per call from a cost_analysis() result; None where absent."""
    if isinstance(analysis, list | tuple):
        analysis = analysis[0] if analysis else None
    if not isinstance(analysis, dict):
        return None, None
    values = (analysis.get("flops"), analysis.get("bytes accessed"))
    return tuple(float(v) if isinstance(v, int | float) and v > 0 else None for v in values)


def crosscheck(reported: float, modelled: float, tolerance: float = CROSSCHECK_TOLERANCE) -> bool:
    """True when a reported count is within `tolerance` (a fraction) of the modelled one."""
    return abs(reported - modelled) <= tolerance * modelled
