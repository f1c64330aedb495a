"""Max pools priced on their own curves (stop 51): a pool's windows, which do not overlap, are
not a cumulative sum's, and the reduce-window of values and their indices that XLA:CPU expands
a max pool's gradient into is a scalar loop over tuples, not a vectorized pool.

Pure: a hand-written module (tests/data/profile/pools.hlo: a 2×2 max pool of stride 2 as
XLA:CPU hands it to YNNPACK, the same windows' maxima with their indices, and a cumulative
sum's windows of 16), on flat hand-made curves at 1e9 FLOP/s and 1e9 bytes/s. Before, all
three were `reduce-window`: a 64×28×28×32 pool's indices were priced at 0.23 ms and took 5-11
ms in a CNN's training step here.
"""

from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from perfcore.measure.experiments.kernels import functions as kernel_functions
from perfcore.measure.experiments.kernels import pools as kernel_pools
from perfcore.measure.experiments.kernels import windows as kernel_windows
from perfcore.measure.experiments.suites import SUITES
from perfcore.model.chip import kernel_kinds, kernels
from tests.support.kernels import cpu_curves, predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "pools.hlo").read_text("utf-8")
IMAGE = 4 * 16 * 16 * 8  # the pools' input elements; their outputs a quarter of it


def stub_cost(text: str) -> tuple[float, float, float]:
    """No FLOPs, and each op's operands and results as XLA counts them: the pool's input and
    output, the indexed pool's two of each, the cumulative sum's input and output."""
    if "s32[" in text:
        return 0.0, 2 * 4 * (IMAGE + IMAGE // 4), 0.0
    if "64,256" in text:
        return 0.0, 2 * 4 * 64 * 256, 0.0
    return 0.0, 4 * (IMAGE + IMAGE // 4), 0.0


def _ops(efficiencies: dict[str, float]) -> dict:
    return predicted_ops(MODULE, cpu_curves(efficiencies), 3, stub_cost)


def test_each_reduce_window_takes_its_kind():
    ops = _ops({"pool": 0.5, "windowed arg reduction": 0.1, "reduce-window": 0.2})
    kinds = {name: ops[name].kernel for name in ("ynn_fusion", "wrapped_reduce-window", "cumsum")}
    assert kinds == {
        "ynn_fusion": "pool",
        "wrapped_reduce-window": "windowed arg reduction",
        "cumsum": "reduce-window",
    }


def test_a_pool_reads_each_input_once_and_the_indexed_one_every_array_it_carries():
    """The pool: its outputs each read a window of 4 and are written (window_bytes: 5 × 256
    outputs × 4 bytes), at 0.5; the indexed pool: XLA's bytes of its two arrays in and out, at
    0.1 of the roof."""
    ops = _ops({"pool": 0.5, "windowed arg reduction": 0.1, "reduce-window": 0.2})
    outputs = IMAGE // 4
    assert ops["ynn_fusion"].predicted_s == pytest.approx(5 * outputs * 4 / 1e9 / 0.5)
    indexed = 2 * 4 * (IMAGE + outputs)
    assert ops["wrapped_reduce-window"].predicted_s == pytest.approx(indexed / 1e9 / 0.1)


def test_an_older_file_prices_them_on_their_base_kinds_said_so():
    ops = _ops({"reduce-window": 0.2, "arg reduction": 0.05})
    assert "(no pool curve measured)" in ops["ynn_fusion"].derived_from
    assert "(no windowed arg reduction curve measured)" in ops["wrapped_reduce-window"].derived_from
    assert ops["wrapped_reduce-window"].efficiency == pytest.approx(0.05)
    assert kernel_kinds.BASE_KIND["pool"] == "reduce-window"
    assert kernel_kinds.BASE_KIND["windowed arg reduction"] == "arg reduction"


def test_without_their_curves_or_a_base_kinds_the_published_runs_price_them():
    ops = _ops({"elementwise": 0.9})
    assert ops["ynn_fusion"].efficiency_source == kernels.PUBLISHED


def test_the_suite_pools_64x64x64_images_and_their_indices_one_per_dimension():
    """Every element count from one image up; the indexed one to ARG_POOL_MAX, with four index
    arrays beside the values (an NHWC pool's rank), compiled to one reduce-window of five."""
    suite = SUITES["default"]
    plain, arg = kernel_pools.pools(suite, "float32", 4)
    image = 64**3
    sizes = [n for n in suite.kernel_elements if n >= image]
    assert [p.shapes for p in plain] == [((n // image, 64, 64, 64),) for n in sizes]
    assert [p.model.bytes for p in plain] == [5 * n // 4 * 4 for n in sizes]
    kept = [n for n in sizes if n <= kernel_pools.ARG_POOL_MAX]
    assert [len(p.shapes) for p in arg] == [5] * len(kept)
    assert [p.model.bytes for p in arg] == [5 * (n + n // 4) * 4 for n in kept]
    p = arg[0]
    args = [jax.ShapeDtypeStruct(s, p.dtype) for s in p.shapes]
    text = jax.jit(kernel_functions.function(jax, jnp, p.fn)).lower(*args).compile().as_text()
    windows = [line for line in text.splitlines() if " reduce-window(" in line]
    assert len(windows) == 1 and windows[0].count("f32[1,32,32,64]") == 5
    assert "pool" in kernel_windows.MODEL_BYTES
