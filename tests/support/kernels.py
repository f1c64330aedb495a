"""Kernel curves made by hand: every kind flat at one efficiency on the H100 specs row."""

from perfcore.model.chip import kernels

H100 = "NVIDIA H100 SXM"


def h100_curves(efficiency: float, kinds: tuple[str, ...] = kernels.KINDS) -> kernels.Curves:
    """Flat curves of `kinds` in bfloat16 on the H100 row, at one efficiency."""
    points = tuple(
        kernels.Point(kind, "bfloat16", size, efficiency) for kind in kinds for size in (1e3, 1e15)
    )
    return kernels.Curves(
        "NVIDIA H100 80GB HBM3", "2026-01-31", points, (), 1.0, "spec row", spec_name=H100
    )
