"""Which dtypes the measured roofline drops: only those the backend does not run, said so.

A fake JAX stands in for the device: its runtime error carries the XLA status code, as
jax.errors.JaxRuntimeError does (error_code_string). No real JAX is imported here.
"""

import contextlib
from types import SimpleNamespace

import pytest

from perfcore.measure.experiments import roofline


class RuntimeFault(RuntimeError):
    """jax.errors.JaxRuntimeError's shape: a status code beside the message."""

    def __init__(self, code: str):
        super().__init__(f"{code}: from the fake runtime")
        self.error_code_string = code


def env_failing_with(error: Exception | None):
    """An Env whose small matmul raises `error` (None: it runs)."""

    def matmul(a, b):
        if error is not None:
            raise error
        return a

    def dtype(name):
        if name == "float9":
            raise TypeError(f"data type {name!r} not understood")
        return name

    jax = SimpleNamespace(
        errors=SimpleNamespace(JaxRuntimeError=RuntimeFault),
        enable_x64=lambda on: contextlib.nullcontext(),
        block_until_ready=lambda x: x,
    )
    jnp = SimpleNamespace(dtype=dtype, ones=lambda shape, d: object(), matmul=matmul)
    return SimpleNamespace(jax=jax, jnp=jnp, detected=SimpleNamespace(backend="gpu"))


def test_a_dtype_that_runs_is_kept():
    assert roofline.unsupported(env_failing_with(None), "bfloat16") is None


@pytest.mark.parametrize("code", ["UNIMPLEMENTED", "INVALID_ARGUMENT"])
def test_a_dtype_the_backend_does_not_run_is_dropped_saying_why(code):
    why = roofline.unsupported(env_failing_with(RuntimeFault(code)), "float8_e4m3fn")
    assert why == f"float8_e4m3fn ({code} on the gpu backend)"


def test_a_dtype_this_jax_does_not_know_is_dropped_saying_why():
    assert roofline.unsupported(env_failing_with(None), "float9") == (
        "float9 (not a dtype this JAX knows)"
    )


@pytest.mark.parametrize(
    "error",
    [RuntimeFault("RESOURCE_EXHAUSTED"), RuntimeFault("INTERNAL"), MemoryError(), KeyError("x")],
)
def test_any_other_failure_stops_the_run_instead_of_dropping_the_dtype(error):
    """Out of memory, a driver fault or a bug: the old check returned False for all of them,
    and the dtype silently vanished from the measured roofline."""
    with pytest.raises(type(error)):
        roofline.unsupported(env_failing_with(error), "bfloat16")
