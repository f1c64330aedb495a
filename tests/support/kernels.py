"""Kernel curves made by hand (every kind flat at one efficiency), predictions on them, and a
kind's sweep checked against its base kind's."""

import dataclasses

from perfcore.model.chip import kernel_kinds, kernels

H100 = "NVIDIA H100 SXM"


def h100_curves(efficiency: float, kinds: tuple[str, ...] = kernel_kinds.KINDS) -> kernels.Curves:
    """Flat curves of `kinds` in bfloat16 on the H100 row, at one efficiency."""
    points = tuple(
        kernels.Point(kind, "bfloat16", size, efficiency) for kind in kinds for size in (1e3, 1e15)
    )
    return kernels.Curves(
        "NVIDIA H100 80GB HBM3", "2026-01-31", points, (), 1.0, "spec row", spec_name=H100
    )


def cpu_curves(efficiencies: dict[str, float]) -> kernels.Curves:
    """Flat float32 curves of a CPU from 100 to 1e9 FLOPs or bytes, each kind at its
    efficiency, against roofs of 1e9 FLOP/s and 1e9 bytes/s."""
    points = tuple(
        kernels.Point(kind, "float32", size, e)
        for kind, e in efficiencies.items()
        for size in (1e2, 1e9)
    )
    return kernels.Curves("cpu", "2026-12-03", points, (("float32", 1e9),), 1e9, "hand")


def with_sweeps(curves: kernels.Curves, kind: str, by_value: dict[int, float]) -> kernels.Curves:
    """curves with flat float32 points of `kind` at each second-coordinate value's efficiency
    (SWEPT), from 100 to 1e12 FLOPs or bytes."""
    points = tuple(
        kernels.Point(kind, "float32", size, e, sweep=v)
        for v, e in by_value.items()
        for size in (1e2, 1e12)
    )
    return dataclasses.replace(curves, points=curves.points + points)


def convolutions(module) -> dict:
    """A parsed module's convolution instructions by name (without its %)."""
    return {
        i.name.lstrip("%"): i for i in module.instructions.values() if i.opcode == "convolution"
    }


def predicted_ops(module: str, curves: kernels.Curves, n_args: int, cost) -> dict:
    """Each op of a hand-written HLO module predicted on the curves, by name."""
    from perfcore.measure.profile.predict import program

    got = program.predict_modules([module], "cpu", curves, n_args, cost)
    return {o.name: o for o in got.ops}


def swept_beside(kind: str, base: str) -> list:
    """The quick suite's float32 sweep of kind, checked to run its own function over its base
    kind's shapes and bytes."""
    from perfcore.measure.experiments.kernels import sweeps as kernel_plan
    from perfcore.measure.experiments.suites import SUITES

    sweeps = {s[0].kind: s for s in kernel_plan.plan(SUITES["quick"], "float32") if s}
    ours, theirs = sweeps[kind], sweeps[base]
    assert [p.shapes for p in ours] == [p.shapes for p in theirs]
    assert [p.model.bytes for p in ours] == [p.model.bytes for p in theirs]
    assert {p.fn for p in ours} == {kind} and kernel_kinds.BASE_KIND[kind] == base
    return ours
