"""A `kernels` record on the CPU, made by hand (curves and the suite's passes)."""

from perfcore.measure import results
from perfcore.measure.clock.harness import Measurement
from perfcore.model.chip import kernel_kinds


def record(kernel, label, samples, flops=None, n_bytes=None, size=None, n_args=2, **kw):
    """A kernels record on the CPU."""
    return results.Record(
        experiment="kernels",
        label=label,
        device="cpu",
        backend="cpu",
        jax_version="0.10.2",
        timestamp="2026-01-31T12:00:00+00:00",
        shapes=kw.pop("shapes", ((4, 4),) * n_args),
        dtype="float32",
        precision="fp32",
        flops=flops,
        bytes=n_bytes,
        size=size,
        size_kind=kernel_kinds.SIZE_UNIT.get(kernel, ""),
        kernel=kernel,
        measurement=Measurement(samples=tuple(samples)),
        **kw,
    )
