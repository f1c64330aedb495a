"""measure.experiments.stream: the Pallas kernel (interpret mode here), the model's bytes, the
overhead per pass and the sweep on this machine's CPU."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from perfcore.measure.experiments import runner, stream, suites
from perfcore.measure.results import empirical

# Blocks of 1024: ragged (the last block masked) at 1, 16, 1000, 5000 and 2**20 + 5 (1024
# programs of 2 steps, the second almost all masked); exact at 4096 and 2**21 (2 steps each).
N_SIZES = [1, 16, 1000, 4096, 5000, 2**20 + 5, 2**21]


@pytest.fixture(scope="module")
def env():
    suite = suites.resolve_suite("quick", "cpu")
    return runner.Env(jax, jnp, runner.detect({}), suite, lambda message: None)


def _interpreted(env, kernel, n, passes):
    return jax.jit(stream.pallas_fn(env, kernel, n, passes, interpret=True))


@pytest.mark.parametrize("n", N_SIZES)
def test_the_pallas_scale_computes_x_times_s_to_the_r_exactly(env, n):
    """x * 0.5**3 is exact in float32 (a power of two), and with s = 1.3 the oracle is numpy
    multiplying by s three times in float32: both equal bit for bit."""
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    scale = _interpreted(env, "scale", n, 3)
    assert np.array_equal(np.asarray(scale(x, x, np.float32(0.5))), x * np.float32(0.125))
    expected = x.copy()
    for _ in range(3):
        expected = expected * np.float32(1.3)
    assert np.array_equal(np.asarray(scale(x, x, np.float32(1.3))), expected)


@pytest.mark.parametrize("n", N_SIZES)
def test_the_pallas_triad_computes_a_plus_r_s_c_exactly(env, n):
    """Integers below 1000 and s = 0.5: every partial sum a + i*0.5*c is exact in float32,
    so 4 passes give a + 2c exactly."""
    rng = np.random.default_rng(1)
    a, c = (rng.integers(-1000, 1000, n).astype(np.float32) for _ in range(2))
    got = np.asarray(_interpreted(env, "triad", n, 4)(a, c, np.float32(0.5)))
    assert np.array_equal(got, a + 2 * c)


@pytest.mark.parametrize(("kernel", "moved", "flops"), [("scale", 2, 1), ("triad", 3, 2)])
def test_the_modelled_bytes_are_r_passes_of_reads_and_a_write(kernel, moved, flops):
    """scale reads x and writes it (2 x 4 B per element), triad reads a and c and writes a
    (3 x 4 B): r = 7 passes over n = 1000 float32 move 7 * moved * 4000 bytes."""
    cost = stream.stream_cost(kernel, 1000, 7)
    assert cost.bytes == 7 * moved * 4 * 1000
    assert cost.flops == 7 * flops * 1000


def test_passes_are_the_fewest_that_stream_the_pass_bytes():
    """2**24 B over scale of 4096 float32 (32 KiB a pass) is 512 passes; 1 pass at most size."""
    assert stream.passes_for("scale", 4096, 2**24) == 512
    assert stream.passes_for("triad", 1000, 12001) == 2  # 12000 B a pass: one more needed
    assert stream.passes_for("scale", 2**28, 2**24) == 1


def _lowered_for_a_gpu(fn, n):
    array, scalar = jax.ShapeDtypeStruct((n,), jnp.float32), jax.ShapeDtypeStruct((), jnp.float32)
    traced = jax.jit(fn, donate_argnums=0).trace(array, array, scalar)
    return traced.lower(lowering_platforms=("cuda",)).as_text()


def test_for_a_gpu_the_pallas_path_is_one_triton_kernel_and_the_loop_a_while_loop(env):
    """Lowered for CUDA (no GPU needed): all 8 passes of the Pallas path are one Triton
    custom call over 1024 programs, no XLA loop; the loop path is an XLA while loop."""
    n = 2**20
    pallas = _lowered_for_a_gpu(stream.pallas_fn(env, "triad", n, 8), n)
    assert pallas.count("xla.gpu.triton") == 1 and "stablehlo.while" not in pallas
    assert "grid_x = 1024" in pallas
    loop = _lowered_for_a_gpu(stream.loop_fn(env, "triad", 8), n)
    assert "stablehlo.while" in loop and "xla.gpu.triton" not in loop


def test_the_largest_working_set_of_the_default_suite_lowers_for_a_gpu(env):
    """8 GiB of scale is 2**31 float32: its last index, 2**31 - 1, is the largest int32, and
    no bound of 2**31 may appear in the kernel (a mask idx < 2**31 overflows int32)."""
    n = 2**33 // 4
    assert n == stream.MAX_PALLAS_ELEMENTS
    assert "xla.gpu.triton" in _lowered_for_a_gpu(stream.pallas_fn(env, "scale", n, 1), n)
    with pytest.raises(ValueError, match="int32"):
        stream.pallas_fn(env, "scale", n + 1, 1)


def test_on_a_cpu_the_pallas_path_says_why_it_is_not_used(env):
    assert "GPU only" in stream.pallas_problem(env)
    assert stream.paths(env)[0] == (stream.LOOP,)


@pytest.fixture(scope="module")
def overhead(env):
    return stream.measure_overhead(env, "scale", stream.LOOP)


def test_the_loop_overhead_per_pass_is_reported_and_positive(overhead):
    """A fori_loop iteration over 64 B on this CPU took 3-5 ns when measured (P = 16384 vs
    2P passes differ by about 65 us, far above the timer's resolution); 1 us is a bound 200x
    above that, and the overhead must be positive for the flag to mean anything."""
    assert 0 < overhead.per_pass_s < 1e-6
    for record in overhead.records:
        assert overhead.note in record.notes and stream.PATH_NOTES["loop"] in record.notes
        assert not empirical.is_stream(record) and record.flops is None and record.bytes is None


@pytest.fixture(scope="module")
def swept(env):
    return stream.sweep(env)


def test_every_stream_record_names_its_path_and_its_pass_against_the_overhead(swept):
    streams = [r for r in swept if empirical.is_stream(r)]
    assert len(streams) == 2 * len(suites.resolve_suite("quick", "cpu").stream_bytes)
    assert all(stream.PATH_NOTES["loop"] in r.notes for r in streams)
    assert all(any("the overhead per pass" in n for n in r.notes) for r in streams)


def test_on_this_cpu_no_working_set_is_overhead_bound(swept):
    """The smallest pass here (scale over 16 KiB) took about 150 ns against a 4 ns overhead
    per pass (38x, above the factor 10): on a CPU the sweep's levels come from every size,
    as before the overhead was measured."""
    assert not [r.label for r in swept if empirical.is_overhead_bound(r)]
