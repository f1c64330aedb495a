"""perfcore: a pure-Python model of accelerator performance, and honest JAX measurement.

SI units throughout (FLOPs, bytes, seconds). Importing perfcore imports none of
streamlit, plotly or jax: those load only in the dashboard, figures and jax_bench.
"""

from perfcore import ops
from perfcore.comm import ring_allreduce_bytes, transfer_time
from perfcore.occupancy import utilisation, waves
from perfcore.roofline import attainable, ridge_point
from perfcore.specs import Device, SpecError, load_specs

__all__ = [
    "Device",
    "SpecError",
    "attainable",
    "load_specs",
    "ops",
    "ridge_point",
    "ring_allreduce_bytes",
    "transfer_time",
    "utilisation",
    "waves",
]
