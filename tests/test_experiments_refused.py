"""measure.experiments: a compile refused for want of device memory, and a machine that opens
no socket (no JAX)."""

from types import SimpleNamespace

import pytest

from perfcore.measure.experiments.env import compiled
from perfcore.measure.experiments.suites import DeviceMemoryError


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
