"""The Profile page's bundled example, and the measured records a profile is judged with.

The example is the built-in transformer block (perfcore/measure/profile/examples.py) profiled by
bench/bundled_profile.py on the machine that made it (a CPU of this kind, and a TPU v5e), one
results file each holding its ops with their predictions, its step and untraced wall, and that
machine's roofline and kernel records: the page opens on one, judged against those. A profile
taken here with no spec row for its device and no measured roofline is judged against this
machine's roofline measured on the quick suite (measured once per server by the app, which
keeps it).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from perfcore import format as fmt
from perfcore.measure.profile.judge.assess import Roofs, measured_roofs, spec_roofs
from perfcore.measure.profile.judge.joined import Profile
from perfcore.measure.profile.judge.records import profile_records
from perfcore.measure.results import Record, load_results
from perfcore.measure.results.empirical import EXPERIMENT as ROOFLINE
from perfcore.measure.results.empirical import measured_roofline
from perfcore.model.chip.specs import Device

PROFILES = Path(__file__).resolve().parents[3] / "data" / "profile"
BUNDLED = PROFILES / "transformer_cpu.json"  # the page's first view
# The bundled examples by the machine each was made on, the first the page's default.
MADE_ON = {"CPU": BUNDLED, "TPU v5e": PROFILES / "transformer_tpu.json"}


def bundled(made_on: str = "CPU") -> tuple[Record, ...]:
    """The records of the bundled example made on `made_on` (a MADE_ON key)."""
    return load_results(MADE_ON[made_on])


def bundled_line(records: tuple[Record, ...]) -> str:
    """What the first view shows: the bundled example, where and when it was made."""
    ops = profile_records(records)
    first = ops[0] if ops else None
    where = f"{first.device} ({first.backend}, JAX {first.jax_version})" if first else "no device"
    date = first.timestamp[:10] if first else "no date"
    return (
        "Bundled example: the built-in transformer block (perfcore/measure/profile/examples.py) "
        f"profiled on {where} on {date} by bench/bundled_profile.py, judged against that "
        "machine's measured roofline and predicted from its kernel curves, both in the file. "
        "Upload a capture or a results file, or profile a built-in program, to see your own."
    )


def roofline_records(records: tuple[Record, ...], device: str) -> tuple[Record, ...]:
    """The records of the `roofline` experiment measured on device."""
    return tuple(r for r in records if r.experiment == ROOFLINE and r.device == device)


def method(records: tuple[Record, ...]) -> str:
    """How a roofline's records were measured: the matmul sides and working sets, each rated
    at its fastest call (perfcore.measure.results.empirical)."""
    sides = [r.size for r in records if r.size_kind == "side" and r.size]
    streams = [r.size for r in records if r.size_kind == "bytes" and r.size]
    parts = []
    if sides:
        parts.append(f"best matmul of side {int(min(sides))} to {int(max(sides))}")
    if streams:
        parts.append(
            f"streaming plateaus over {fmt.capacity(min(streams))} to {fmt.capacity(max(streams))}"
        )
    return f"{' and '.join(parts) or 'no sweep'}, each at its fastest call"


def roofline_roofs(
    records: tuple[Record, ...], device: str, label: str, quick: bool = False
) -> Roofs | None:
    """The roofs of the roofline records measured on device, labelled so, their source how
    they were measured (the quick suite, with quick); None if none."""
    mine = roofline_records(records, device)
    roofs = measured_roofs(measured_roofline(mine), device)
    if roofs is None:
        return None
    how = f"quick, {method(mine)}" if quick else method(mine)
    return dataclasses.replace(roofs, label=label, source=how)


def judge(
    choice: str,
    specs: dict[str, Device],
    device: str,
    item: Profile | tuple[Record, ...],
    session: tuple[Record, ...],
) -> Roofs | None:
    """The roofs picked: a specs row's; else the roofline in the item's own file (measured
    where it ran), else the one measured in this session (the Measure page); None if none."""
    if choice in specs:
        return spec_roofs(specs[choice])
    if isinstance(item, tuple) and roofline_records(item, device):
        return roofline_roofs(item, device, f"measured roofline where it ran ({device})")
    return measured_roofs(measured_roofline(session), device)
