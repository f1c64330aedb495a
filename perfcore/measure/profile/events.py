"""A capture's XLA op events, read by JAX's public reader, jax.profiler.ProfileData.

Device planes (`/device:GPU:0`, `/device:TPU:0`) hold a GPU's or TPU's kernels; on the CPU
backend the ops run on the host's XLA client threads (`/host:CPU`). An event is an XLA op
when it carries the `hlo_op` stat; a jitted call's dispatch is a `PjitFunction(...)` host
event (present when the capture traced Python).
"""

from __future__ import annotations

from perfcore.measure.profile.xspace import HOST_PLANE, Capture, CaptureError, Event, HostEvent

DISPATCH = "PjitFunction("
DEVICE_STATS = ("device_name", "device_type", "gpu_model")  # the plane stats naming a device


def _device(plane) -> str:
    """A device plane's device kind from its stats, else the plane's name."""
    stats = dict(plane.stats)
    return next((str(stats[k]) for k in DEVICE_STATS if stats.get(k)), plane.name)


def _backend(names: list[str]) -> str:
    """`gpu` or `tpu` for a capture with such device planes, else `cpu`."""
    kinds = {n.split(":")[1].lower() for n in names if n.startswith("/device:") and ":" in n[8:]}
    return next((k for k in ("gpu", "tpu") if k in kinds), "cpu")


def _op_events(plane, device: str) -> list[Event]:
    """The XLA op events of one plane."""
    out, make = [], Event._make
    for line in plane.lines:
        for e in line.events:
            stats = dict(e.stats)
            if "hlo_op" in stats:
                get = stats.get
                out.append(
                    make(
                        (
                            get("hlo_module", ""),
                            int(get("program_id", 0)),
                            get("hlo_op"),
                            int(get("run_id", 0)),
                            e.start_ns,
                            e.duration_ns,
                            device,
                        )
                    )
                )
    return out


def _host_events(plane) -> list[HostEvent]:
    """The jitted-call dispatch events of the host plane."""
    events = (e for line in plane.lines for e in line.events)
    return [
        HostEvent(e.name, e.start_ns, e.duration_ns) for e in events if e.name.startswith(DISPATCH)
    ]


def capture(data: bytes, label: str, names: list[str], modules: dict) -> Capture:
    """The Capture of a serialized XSpace already walked by perfcore.measure.profile.xspace."""
    from jax.profiler import ProfileData

    try:
        space = ProfileData.from_serialized_xspace(data)
    except Exception as error:  # noqa: BLE001 - the C++ reader raises untyped errors
        raise CaptureError(
            label, f"JAX's reader refused it ({str(error).splitlines()[0]})"
        ) from None
    backend = _backend(names)
    events, host = [], []
    for plane in space.planes:
        if plane.name.startswith("/device:") or (backend == "cpu" and plane.name == HOST_PLANE):
            device = _device(plane) if plane.name.startswith("/device:") else "cpu"
            events += _op_events(plane, device)
        if plane.name == HOST_PLANE:
            host += _host_events(plane)
    if not events:
        raise CaptureError(
            label,
            "no XLA op events: capture a jitted call's execution "
            "(jax.profiler.trace around it, with block_until_ready)",
        )
    devices = tuple(dict.fromkeys(e.device for e in events))
    return Capture(label, tuple(events), tuple(host), modules, backend, devices)
