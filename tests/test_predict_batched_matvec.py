"""A decode step's attention dots are batched matvecs (stop 51): one query a head against its
KV cache, 64 instances of 1×64·64×1,024 in one dot, read along a curve of their own. On the
single-matvec curve (one weight matrix streamed by a library kernel) they were priced at 0.32
ms where the step profiled them at 0.49-0.81 ms here; alone, the suite's point of that shape
took 0.52.

The decode step is bench/predict.py's, compiled on JAX's CPU backend (nothing runs); the curves
are flat, made by hand.
"""

import jax
import jax.numpy as jnp
import pytest

from bench.predict import decode
from perfcore.measure.experiments.kernels import functions as kernel_functions
from perfcore.measure.experiments.kernels import windows as kernel_windows
from perfcore.measure.experiments.suites import SUITES
from perfcore.measure.profile.predict import program
from perfcore.measure.results import curves
from perfcore.model.chip import kernel_kinds, kernels
from tests.support.kernel_records import record


def _curves(**efficiencies: float) -> kernels.Curves:
    """Flat float32 curves of the given kinds (batched_matvec for `batched matvec`), the
    matvec's and batched matvec's on their 1-row sweep, against roofs of 1e11 FLOP/s and 1e10
    bytes/s."""
    points = tuple(
        kernels.Point(
            kind.replace("_", " "), "float32", size, e, sweep=1 if "matvec" in kind else 0
        )
        for kind, e in efficiencies.items()
        for size in (1e2, 1e10)
    )
    return kernels.Curves("cpu", "2026-12-07", points, (("float32", 1e11),), 1e10, "hand")


def test_a_skinny_dot_of_several_matmuls_is_a_batched_matvec():
    assert kernel_kinds.matmul_kind(1, 1024, instances=64) == "batched matvec"
    assert kernel_kinds.matmul_kind(1, 1024) == "matvec"
    assert kernel_kinds.matmul_kind(256, 256, instances=64) == "batched matmul"
    assert kernel_kinds.BASE_KIND["batched matvec"] == "matvec"


@pytest.fixture(scope="module")
def decode_step():
    fn, args = decode()
    return fn, args


def test_the_decode_steps_attention_dots_read_the_batched_matvec_curve(decode_step):
    """Its two dots over the cache (scores and values) take the batched matvec's 0.25, its
    four projections (8 rows each, one matmul a dot) the matvec's 0.5."""
    fn, args = decode_step
    got = program.predict(fn, *args, curves=_curves(matvec=0.5, batched_matvec=0.25))
    dots = {o.name: o for o in got.ops if o.kernel in ("matvec", "batched matvec")}
    batched = [o for o in dots.values() if o.kernel == "batched matvec"]
    assert len(batched) == 2 and len(dots) == 6
    for o in batched:
        assert o.efficiency == pytest.approx(0.25) and "rows 1, on the 1 sweep" in o.derived_from


def test_an_older_file_prices_them_on_the_matvec_curve_said_so(decode_step):
    fn, args = decode_step
    got = program.predict(fn, *args, curves=_curves(matvec=0.5))
    batched = [o for o in got.ops if o.kernel == "batched matvec"]
    assert batched and all(o.efficiency == pytest.approx(0.5) for o in batched)
    assert all("(no batched matvec curve measured)" in o.derived_from for o in batched)


def test_the_suite_times_the_scores_dot_over_caches_from_16_tokens():
    """(8, 8, 1, 64)·(8, 8, 64, t): one dot of 64 instances, batched on its first two dims,
    compiled with no copy of the cache (its query is moved: 64 floats a head); its record's
    second coordinate its 1 row."""
    suite = SUITES["default"]
    sweep = kernel_windows.batched_matvecs(suite, "float32", 4)
    tokens = [n // 4096 for n in suite.kernel_elements if n >= 16 * 4096]
    assert [p.shapes for p in sweep] == [((8, 8, 1, 64), (8, 8, 64, t)) for t in tokens]
    assert [p.model.bytes for p in sweep] == [(4096 * t + 64 * (t + 64)) * 4 for t in tokens]
    p = sweep[0]
    args = [jax.ShapeDtypeStruct(s, p.dtype) for s in p.shapes]
    text = jax.jit(kernel_functions.function(jax, jnp, p.fn)).lower(*args).compile().as_text()
    dots = [line for line in text.splitlines() if " dot(" in line]
    assert len(dots) == 1 and "lhs_batch_dims={0,1}" in dots[0]
    moves = [line for line in text.splitlines() if " copy(" in line or "transpose(" in line]
    assert not [line for line in moves if "[8,8,64,16]" in line]  # the query moves, not the cache
    r = record("batched matvec", p.label, [1e-3], shapes=p.shapes, n_args=0)
    assert curves._sweep(r) == 1
