"""measure.experiments.kernel_loops: how long a kernel's loops run, per backend, and a
compile refused for want of device memory (no JAX)."""

from types import SimpleNamespace

import pytest

from perfcore.measure.clock.devices import precision_ran
from perfcore.measure.experiments import kernel_loops
from perfcore.measure.experiments.env import compiled
from perfcore.measure.experiments.suites import DeviceMemoryError
from perfcore.model.chip import ops
from perfcore.model.chip.specs import load_specs


def env_on(backend: str, spec) -> SimpleNamespace:
    def precision(dtype, matmul):
        return precision_ran(dtype, backend, None, matmul=matmul)

    return SimpleNamespace(
        detected=SimpleNamespace(backend=backend, spec=spec, precision=precision)
    )


def test_a_cpu_times_2_and_10_iterations():
    assert kernel_loops.iterations(env_on("cpu", None), ops.matmul(64, 64, 64, 4), "float32") == (
        2,
        10,
    )


def test_a_tpus_long_loop_does_2_ms_more_work_by_its_spec_rows_bound():
    v5e = load_specs()["Google TPU v5e"]  # 197 TFLOP/s bf16, 819 GB/s
    env = env_on("tpu", v5e)
    mm = ops.matmul(1024, 1024, 1024, 2)  # 2.147 GFLOP: 10.9 µs at 197 TFLOP/s
    assert mm.flops / 197e12 > mm.bytes / 819e9
    assert kernel_loops.iterations(env, mm, "bfloat16") == (2, 186)  # 2 ms / 10.9 µs: 184 more
    # a float32 matmul runs as bfloat16 passes there (the same roof); a copy by its bytes
    assert kernel_loops.iterations(env, mm, "float32") == (2, 186)
    copy = ops.Cost(0.0, 8 * 2**20, "copy")  # 8 MiB: 10.2 µs at 819 GB/s
    assert kernel_loops.iterations(env, copy, "float32") == (2, 198)  # 2 ms / 10.24 µs


def test_the_tpus_extra_iterations_stay_within_their_bounds_and_a_row_less_device_runs_256():
    v5e = load_specs()["Google TPU v5e"]
    big, tiny = ops.matmul(8192, 8192, 8192, 2), ops.Cost(2.0, 8.0, "scalar")
    assert kernel_loops.iterations(env_on("tpu", v5e), big, "bfloat16") == (2, 10)
    assert kernel_loops.iterations(env_on("tpu", v5e), tiny, "bfloat16") == (2, 4098)
    assert kernel_loops.iterations(env_on("gpu", None), big, "bfloat16") == (2, 258)


class RuntimeFailure(Exception):
    def __init__(self, code: str):
        super().__init__(f"{code}: Ran out of memory on HBM")
        self.error_code_string = code


class Lowered:
    def __init__(self, code: str):
        self.code = code

    def compile(self):
        raise RuntimeFailure(self.code)


def test_a_compile_refused_for_memory_is_a_size_that_does_not_fit_and_others_propagate():
    jax = SimpleNamespace(errors=SimpleNamespace(JaxRuntimeError=RuntimeFailure))
    with pytest.raises(DeviceMemoryError, match="matmul 16384 float64: refused by the compiler"):
        compiled(jax, Lowered("RESOURCE_EXHAUSTED"), "matmul 16384 float64")
    with pytest.raises(RuntimeFailure):
        compiled(jax, Lowered("INTERNAL"), "matmul 16384 float64")


def test_a_machine_that_opens_no_socket_gets_a_reason_not_a_crash(monkeypatch, tmp_path):
    from perfcore.measure.experiments import distributed

    def no_socket():
        raise OSError(97, "Address family not supported by protocol")

    monkeypatch.setattr(distributed, "free_port", no_socket)
    problem = distributed.launch(2, "quick", tmp_path / "out.json")
    assert problem.startswith("no TCP port on 127.0.0.1") and "Address family" in problem
