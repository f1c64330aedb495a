"""perfcore: a pure-Python model of accelerator performance, and honest JAX measurement.

SI units throughout (FLOPs, bytes, seconds). Importing perfcore imports none of
streamlit, plotly or jax: those load only in the dashboard, figures and
perfcore.measure.jax_bench. perfcore.model is the arithmetic, perfcore.measure the clock;
perfcore.profile(fn, *args) traces a JAX step and joins every op with its cost.
"""

from perfcore.model import ops
from perfcore.model.comm import ring_allreduce_bytes, transfer_time
from perfcore.model.occupancy import utilisation, waves
from perfcore.model.roofline import attainable, ridge_point
from perfcore.model.specs import Device, SpecError, load_specs

__all__ = [
    "Device",
    "SpecError",
    "attainable",
    "load_specs",
    "ops",
    "profile",
    "ridge_point",
    "ring_allreduce_bytes",
    "transfer_time",
    "utilisation",
    "waves",
]


def __getattr__(name: str):
    """perfcore.profile, loaded on first use (perfcore.model never loads perfcore.measure)."""
    if name == "profile":
        from perfcore.measure.jax_profile import profile

        return profile
    raise AttributeError(f"module 'perfcore' has no attribute {name!r}")
