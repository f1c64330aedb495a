"""LAPACK factorizations (what jnp.linalg calls on a host) priced by their textbook FLOPs on
their own measured curves.

Pure: the counts worked by hand (perfcore.model.chip.ops); a hand-written HLO module
(tests/data/profile/linalg.hlo: the custom calls as XLA:CPU compiles jnp.linalg's solve,
a batched Cholesky, QR, eigh and a thin SVD, their targets, layouts and job letters copied
from this CPU's optimized HLO) priced from its shapes and predicted on flat hand-made curves.
Before, each was "no cost model" and left out of the predicted step: a 512×512 solve was
predicted at 0.6 ms against 4.7 ms measured, an SVD at 0.2 against 17 ms.
"""

from pathlib import Path

import pytest

from perfcore.measure.experiments import suites
from perfcore.measure.experiments.kernels import factorizations as kernel_factorizations
from perfcore.measure.experiments.suites import SUITES
from perfcore.measure.profile import hlo
from perfcore.measure.profile.judge import price
from perfcore.model.chip import kernel_kinds, kernel_lapack, ops
from tests.support.kernels import cpu_curves, predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "linalg.hlo").read_text("utf-8")
# name -> (kind, FLOPs worked by hand from the textbook counts)
EXPECTED = {
    "lu.0": ("lu", 2 / 3 * 512**3),  # mn² − n³/3, m = n = 512
    "triangular_solve.4": ("triangular solve", 512 * 512 * 64),  # n²k, 64 right-hand sides
    "cholesky.0": ("cholesky", 4 * 256**3 / 3),  # n³/3 for each of a batch of 4
    "geqrf.0": ("qr", 2 * 512 * 256**2 - 2 * 256**3 / 3),  # 2mn² − 2n³/3
    # 4mnk − 2(m + n)k² + 4k³/3, k = n = 256 reflectors
    "householder_product.0": (
        "householder product",
        4 * 512 * 256 * 256 - 2 * 768 * 256**2 + 4 * 256**3 / 3,
    ),
    "eigh.0": ("eigh", 9 * 512**3),  # mode 86 = 'V': with its eigenvectors
    "svd.0": ("svd", 14 * 512 * 256**2 + 8 * 256**3),  # mode 83 = 'S': the thin U and V
}


def no_cost(text: str) -> tuple[float, float, float]:
    raise AssertionError("a LAPACK call is priced from its shapes, not XLA's cost model")


def test_the_textbook_counts_by_hand():
    assert ops.lu_flops(1000, 10) == pytest.approx(1000 * 100 - 1000 / 3)
    assert ops.lu_flops(10, 1000) == ops.lu_flops(1000, 10)
    assert ops.cholesky_flops(300) == pytest.approx(9e6)
    assert ops.qr_flops(100, 50) == pytest.approx(500_000 - 250_000 / 3)
    assert ops.q_from_reflectors_flops(64, 64, 64) == pytest.approx(4 * 64**3 / 3)
    assert ops.eigh_flops(10, vectors=False) == pytest.approx(4000 / 3)
    assert ops.svd_flops(100, 50, "N") == pytest.approx(1e6 - 500_000 / 3)
    assert ops.svd_flops(100, 50, "A") == pytest.approx(2e6 + 2e6 + 1.125e6)
    assert ops.svd_flops(50, 100, "S") == ops.svd_flops(100, 50, "S") == 4.5e6


def test_each_lapack_call_is_priced_from_its_shapes_and_job():
    module = hlo.parse_module(MODULE)
    for name, (kind, flops) in EXPECTED.items():
        instruction = module.instructions[f"%{name}"]
        p = price.price(module, instruction, no_cost)
        assert (p.cost_source, p.flops) == (price.LAPACK, pytest.approx(flops)), name
        assert kernel_lapack.LAPACK_KINDS[hlo.factorization(instruction)] == kind
    assert hlo.factorization(module.instructions["%tuple"]) == ""


def test_each_takes_its_own_curve_and_an_older_file_the_published_runs_said_so():
    efficiencies = {"lu": 0.1, "triangular solve": 0.2, "cholesky": 0.05, "qr": 0.25}
    efficiencies |= {"householder product": 0.3, "eigh": 0.01, "svd": 0.02}
    ops = predicted_ops(MODULE, cpu_curves(efficiencies), 4, no_cost)
    for name, (kind, flops) in EXPECTED.items():
        assert ops[name].kernel == kind
        assert ops[name].predicted_s == pytest.approx(flops / 1e9 / efficiencies[kind]), name
        assert ops[name].derived_from.startswith(f"{kind} float32"), name  # its own curve
    older = predicted_ops(MODULE, cpu_curves({"matmul": 0.5}), 4, no_cost)["lu.0"]
    assert older.predicted_s is not None and "published" in older.derived_from
    assert kernel_kinds.SIZE_UNIT["lu"] == "flops" and "lu" not in kernel_kinds.BASE_KIND


def test_the_suite_sweeps_each_routine_and_its_second_coordinate_on_a_host_alone():
    quick = SUITES["quick"]  # n of 64 and 128
    sweeps = kernel_factorizations.factorizations_of(quick, "float32", 4)
    found = [(s[0].kind, [p.shapes for p in s]) for s in sweeps]
    assert found[:4] == [
        ("lu", [((64, 64),), ((128, 128),)]),
        ("cholesky", [((64, 64),), ((128, 128),)]),
        ("triangular solve", [((64, 64), (64, 1)), ((128, 128), (128, 1))]),
        ("triangular solve", [((64, 64), (64, 16)), ((128, 128), (128, 16))]),
    ]  # no 256 right-hand sides against a triangle of 128
    kinds = ["qr", "householder product", "svd", "singular values"]
    assert [kind for kind, _ in found[4:]] == [k for k in kinds for _ in (1, 8)] + ["eigh"]
    assert found[5][1] == [((512, 64),), ((1024, 128),)]  # the tall QR, 8 rows per column
    points = {(p.kind, p.shapes[0]): p for s in sweeps for p in s}
    assert points["qr", (64, 64)].model.flops == pytest.approx(4 * 64**3 / 3)  # 2n³ − 2n³/3
    assert points["qr", (512, 64)].model.flops == pytest.approx(2 * 512 * 64**2 - 2 * 64**3 / 3)
    q = points["householder product", (64, 64)]
    assert q.shapes == ((64, 64), (64,)) and q.model.flops == pytest.approx(4 * 64**3 / 3)
    assert q.model.bytes == (2 * 64 * 64 + 64) * 4  # reflectors and scalars read, Q written
    solve = sweeps[3][0]  # 64×64 against 16: n²k FLOPs, the triangle and 2 × 64×16 moved
    assert (solve.model.flops, solve.model.bytes) == (64 * 64 * 16, (64 * 64 + 2 * 64 * 16) * 4)
    assert points["svd", (64, 64)].model.flops == 22 * 64**3  # the thin U and V: 14n³ + 8n³
    assert points["singular values", (64, 64)].model.flops == pytest.approx(8 * 64**3 / 3)
    assert kernel_factorizations.factorizations_of(quick, "bfloat16", 2) == []
    assert suites.for_platform(quick, "tpu").kernel_factorization_sides == ()


def test_a_call_s_second_coordinate_is_read_as_the_suite_sweeps_it():
    module = hlo.parse_module(MODULE)
    got = {
        n: hlo.factorization_kind(module, module.instructions[f"%{n}"])
        for n in ("lu.0", "triangular_solve.4", "geqrf.0", "svd.0", "eigh.0")
    }
    assert got == {
        "lu.0": ("lu", 0),
        "triangular_solve.4": ("triangular solve", 64),  # 64 right-hand sides
        "geqrf.0": ("qr", 2),  # 512×256: 2 rows per column
        "svd.0": ("svd", 2),
        "eigh.0": ("eigh", 0),
    }
    assert kernel_lapack.lapack_kind("gesdd", "N") == "singular values"
    batched = ((4, 8, 8), (4, 8, 3))  # 4 triangles of 8, each against 3 right-hand sides
    assert kernel_lapack.lapack_coordinate("triangular solve", batched) == 3


def test_a_complex_routine_stays_unpriced():
    module = hlo.parse_module(MODULE.replace("lapack_sgetrf_ffi", "lapack_cgetrf_ffi"))
    p = price.price(module, module.instructions["%lu.0"], no_cost)
    assert (p.cost_source, p.flops) == (price.NO_COST, None)  # complex arithmetic, not counted
    assert hlo.factorization(module.instructions["%lu.0"]) == ""


def test_a_lapack_call_is_named_by_its_kind_operands_and_routine():
    module = hlo.parse_module(MODULE)
    named = {n: hlo.label(module, module.instructions[f"%{n}"]) for n in EXPECTED}
    assert named["lu.0"] == "lu 512×512 (getrf)"
    assert named["triangular_solve.4"] == "triangular solve 512×512·512×64 (trsm)"
    assert named["cholesky.0"] == "cholesky 4×256×256 (potrf)"  # a batch of 4
    assert named["svd.0"] == "svd 512×256 (gesdd)"
