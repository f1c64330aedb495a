"""Plausibility checks for well-formed specs rows: signs a figure was typed in the wrong unit.

A 2:4-sparse headline entered as dense breaks a ratio between precisions; a Gb/s figure
typed as GB/s is 8x too big for its year or its link. Every row of data/specs.csv passes
(tests/test_sanity.py holds it to that). This module builds on specs.py, never the reverse:
loading a file does not run these checks.
"""

from __future__ import annotations

from perfcore.model.chip.device import Device, column_value

# Sanity limits: each catches a figure typed in the wrong convention; every real row passes.
SPARSE = "a 2:4-sparse headline entered as dense? (halve it)"
BITS = "bits entered as bytes, Gb/s as GB/s? (divide by 8)"
SIXTEEN_BIT = ("bf16_tflops", "fp16_tflops")
# Published figures are rounded: B200's dense tf32 1.1 PFLOP/s is 1/2.05 of its bf16 2.25.
TOLERANCE = 1.1
# (column, reference column, largest plausible column / reference, what a larger one suggests).
# A narrower tensor format at most doubles a wider one's rate and never runs slower; tf32 runs
# at half of bf16, fp16 at bf16's rate. A 2:4-sparse figure entered as dense breaks a bound.
RATIO_LIMITS = (
    ("fp8_tflops", "bf16_tflops", 2 * TOLERANCE, SPARSE),
    ("int8_tops", "fp8_tflops", 2 * TOLERANCE, SPARSE),
    # GeForce bf16 and fp8 figures are the half-rate fp32-accumulate ones: int8 reaches 4x
    # bf16 and fp4 4x fp8 there (RTX 3090, 4090, 5090), so these two bounds are looser.
    ("int8_tops", "bf16_tflops", 4 * TOLERANCE, SPARSE),
    ("fp4_tflops", "fp8_tflops", 4 * TOLERANCE, SPARSE),
    ("bf16_tflops", "fp8_tflops", TOLERANCE, SPARSE),
    ("tf32_tflops", "bf16_tflops", TOLERANCE / 2, SPARSE),
    ("bf16_tflops", "tf32_tflops", 2 * TOLERANCE, SPARSE),
    ("fp16_tflops", "bf16_tflops", TOLERANCE, SPARSE),
    ("bf16_tflops", "fp16_tflops", TOLERANCE, SPARSE),
    # Every real row's 16-bit ridge point is >= 76 FLOP/byte (RTX 3090: 71 TFLOP/s over
    # 0.936 TB/s); below 30, the bandwidth was typed in bits. This catches the parts too
    # slow for the year curve below to notice.
    ("memory_bw_tbs", "bf16_tflops", 1 / 30, BITS),
    ("memory_bw_tbs", "fp16_tflops", 1 / 30, BITS),
    # Scale-out is one direction, scale-up both: a network faster than the device's
    # scale-up link is a Gb/s figure typed as GB/s.
    ("scaleout_gbs", "scaleup_gbs", 1.0, BITS),
)
# 16-bit tensor over fp32 vector rate, per vendor where it is regular: NVIDIA's densest
# part reaches 30x (B200), its 2:4-sparse headline 60x. Other vendors' ratios vary more.
TENSOR_TO_VECTOR_MAX = {"NVIDIA": 40.0}
# (column, largest plausible value in the column's unit, why). A 1.6 Tb/s NIC is 200 GB/s;
# PCIe 6.0 x16 is 256 GB/s both directions. A Gb/s figure typed as GB/s is 8x too big.
CAPS = (("scaleout_gbs", 200.0, BITS), ("pcie_gbs", 256.0, BITS))
# The best memory bandwidth of a year, modelled as (year, TB/s) growing 1.3x a year (0.9 TB/s
# in 2017; 8 TB/s in 2024 is 1.4x the curve). Above 2.5x the curve, bits were read as bytes.
MEMORY_BW_FRONTIER = (2017, 0.9)
MEMORY_BW_GROWTH_PER_YEAR = 1.3
MEMORY_BW_SLACK = 2.5


def sanity_problems(device: Device) -> list[str]:
    """Signs of a data-entry mistake in a well-formed row, one message each; [] if plausible."""
    ratios = [_ratio_problem(device, *rule) for rule in RATIO_LIMITS]
    caps = [_cap_problem(device, column, cap, why) for column, cap, why in CAPS]
    return [p for p in [*ratios, *caps, _vector_problem(device), _memory_bw_problem(device)] if p]


def _ratio_problem(device: Device, column: str, reference: str, limit: float, why: str) -> str:
    """A message when column / reference (both published) is above limit, else ''."""
    value, ref = column_value(device, column), column_value(device, reference)
    if value is None or ref is None or value <= limit * ref:
        return ""
    ratio = f"{value / ref:.3g} times {reference!r} = {ref:g}, above {limit:.3g} times"
    return f"{device.name}: column {column!r} = {value:g} is {ratio}; {why}"


def _cap_problem(device: Device, column: str, cap: float, why: str) -> str:
    """A message when a figure is above the largest plausible value of its column, else ''."""
    value = column_value(device, column)
    if value is None or value <= cap:
        return ""
    return f"{device.name}: column {column!r} = {value:g} is above {cap:g}; {why}"


def _vector_problem(device: Device) -> str:
    """A message when a 16-bit tensor rate is implausibly far above the fp32 vector rate."""
    limit = TENSOR_TO_VECTOR_MAX.get(device.vendor)
    if limit is None:
        return ""
    problems = (_ratio_problem(device, c, "fp32_tflops", limit, SPARSE) for c in SIXTEEN_BIT)
    return next((p for p in problems if p), "")


def _memory_bw_problem(device: Device) -> str:
    """A message when memory bandwidth is above MEMORY_BW_SLACK x its year's best, else ''."""
    year, best_tbs = MEMORY_BW_FRONTIER
    cap = MEMORY_BW_SLACK * best_tbs * MEMORY_BW_GROWTH_PER_YEAR ** (device.year - year)
    value = column_value(device, "memory_bw_tbs")
    if value is None or value <= cap:
        return ""
    plausible = f"{MEMORY_BW_SLACK:g} times the best plausible in {device.year}"
    return (
        f"{device.name}: column 'memory_bw_tbs' = {value:g} is above {cap:.3g}, {plausible}; {BITS}"
    )
