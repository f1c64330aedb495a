"""perfcore: a pure-Python model of accelerator performance, and honest JAX measurement.

SI units throughout (FLOPs, bytes, seconds). Importing perfcore imports none of
streamlit, plotly or jax: those load only in the dashboard, figures and a
measurement run (perfcore.measure.experiments.env, perfcore.measure.experiments.distributed).
perfcore.model is the arithmetic, perfcore.measure the clock; perfcore.profile(fn, *args)
traces a JAX step and joins every op with its cost; perfcore.predict(fn, *args, curves=...)
predicts its step op by op before it runs.
"""

from perfcore.model.chip import ops
from perfcore.model.chip.comm import ring_allreduce_bytes, transfer_time
from perfcore.model.chip.occupancy import utilisation, waves
from perfcore.model.chip.roofline import attainable, ridge_point
from perfcore.model.chip.specs import Device, SpecError, load_specs

__all__ = [
    "Device",
    "SpecError",
    "attainable",
    "load_specs",
    "ops",
    "predict",
    "profile",
    "ridge_point",
    "ring_allreduce_bytes",
    "transfer_time",
    "utilisation",
    "waves",
]


def __getattr__(name: str):
    """perfcore.profile and perfcore.predict, loaded on first use (perfcore.model never loads
    perfcore.measure)."""
    if name == "profile":
        from perfcore.measure.profile.run import profile

        return profile
    if name == "predict":
        from perfcore.measure.profile.predict.program import predict

        return predict
    raise AttributeError(f"module 'perfcore' has no attribute {name!r}")
