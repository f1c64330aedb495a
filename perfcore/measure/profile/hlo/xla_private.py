"""Every private JAX/XLA API perfcore uses, in one place, pinned to the JAX it was tested on.

jaxlib's HloModule reads the HloModuleProto a capture embeds and prints it as text; its
text parser and XLA's HloCostAnalysis (through the CPU client) price a module. None of
these is public JAX API: tests/test_measure_profile_private.py checks each against this
pinned version, and check_version() names the mismatch when another JAX is installed.
"""

from __future__ import annotations

import functools
from typing import Any

PINNED_JAX = "0.10.2"


class PrivateApiError(RuntimeError):
    """The installed JAX lacks a private API this module relies on."""


class Unreadable(ValueError):
    """XLA's parser refuses an op's one-op module (an async op's start without its done)."""


@functools.cache
def _lib() -> tuple[Any, Any, Any]:
    """(jax, jaxlib._hlo, jaxlib._jax), imported on first use."""
    import jax

    try:
        from jaxlib import _hlo, _jax
    except ImportError as error:
        raise PrivateApiError(f"{error}; {version_note(jax.__version__)}") from None
    return jax, _hlo, _jax


def version_note(version: str) -> str:
    """A remark when version differs from the pinned JAX; empty when it matches."""
    if version == PINNED_JAX:
        return ""
    return f"perfcore's profile reader is tested on jax {PINNED_JAX}, this is jax {version}"


def check_version() -> str:
    """The installed JAX's version remark (empty on the pinned version)."""
    return version_note(_lib()[0].__version__)


def module_text(module_proto: bytes) -> str:
    """XLA's text of a serialized HloModuleProto (with its source tables)."""
    _, hlo, _ = _lib()
    try:
        return hlo.HloModule.from_serialized_hlo_module_proto(module_proto).to_string()
    except AttributeError as error:
        raise PrivateApiError(f"{error}; {check_version()}") from None


def module_proto(text: str) -> bytes:
    """A serialized HloModuleProto of HLO module text (to build a capture from text)."""
    _, hlo, _ = _lib()
    return hlo.hlo_module_from_text(text).as_serialized_hlo_module_proto()


def compiled_texts(compiled: Any) -> list[str]:
    """The optimized HLO text of each module of a jax Compiled."""
    return [m.to_string() for m in compiled.runtime_executable().hlo_modules()]


@functools.cache
def _client() -> Any:
    """The CPU client whose cost model prices modules (any backend's module parses here)."""
    jax, _, _ = _lib()
    return jax.devices("cpu")[0].client


@functools.cache
def cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes accessed, transcendentals) of HLO module text, by XLA's cost model."""
    jax, hlo, xla = _lib()
    try:
        analysis = xla.hlo_module_cost_analysis(_client(), hlo.hlo_module_from_text(text))
    except AttributeError as error:
        raise PrivateApiError(f"{error}; {check_version()}") from None
    except jax.errors.JaxRuntimeError as error:
        if error.error_code_string != "INVALID_ARGUMENT":
            raise
        raise Unreadable(str(error)) from None
    get = analysis.get
    return (
        float(get("flops", 0.0)),
        float(get("bytes accessed", 0.0)),
        float(get("transcendentals", 0.0)),
    )
