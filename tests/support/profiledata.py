"""A capture's op events as JAX's own reader gives them (jax.profiler.ProfileData): the
reference the wire-format reader (perfcore.measure.profile.read.events) is held against."""

from __future__ import annotations

HOST_PLANE = "/host:CPU"


def profiledata_events(data: bytes) -> tuple[list[tuple], list[tuple]]:
    """(op events as (module, program id, op, run id, start ns, duration ns, plane), host
    dispatch events as (name, start ns, duration ns)), each event's stats read as a dict."""
    from jax.profiler import ProfileData

    space = ProfileData.from_serialized_xspace(data)
    ops, host = [], []
    for plane in space.planes:
        on_device = plane.name.startswith("/device:")
        for line in plane.lines:
            for e in line.events:
                stats = dict(e.stats)
                if "hlo_op" in stats and (on_device or plane.name == HOST_PLANE):
                    ops.append(
                        (
                            stats.get("hlo_module", ""),
                            int(stats.get("program_id", 0)),
                            stats["hlo_op"],
                            int(stats.get("run_id", 0)),
                            e.start_ns,
                            e.duration_ns,
                            plane.name,
                        )
                    )
                if plane.name == HOST_PLANE and e.name.startswith("PjitFunction("):
                    host.append((e.name, e.start_ns, e.duration_ns))
    return ops, host
