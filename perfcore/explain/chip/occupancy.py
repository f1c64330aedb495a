"""The occupancy page: batch -> blocks -> waves -> utilisation, and matmul tile quantisation.

One block per sequence times blocks-per-sequence, dealt in
waves over the device's compute units (a published spec). Waves, utilisation and idle
units are derived. A device that publishes no unit count gets "not published".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from perfcore import format as fmt
from perfcore.model.chip import occupancy as occ
from perfcore.model.chip.occupancy import TileQuantisation
from perfcore.model.chip.specs import Device

CUSTOM = "custom"
NAMED = ("units", "units + 1", "2 × units")
PRESETS = (CUSTOM, "1", "8", "32", "64", *NAMED, "512")  # small, at the unit count, past it
TILES = ("64x64", "128x128", "128x256", "256x128")
DEFAULT_TILE = "128x128"
BATCH_MAX, PER_SEQUENCE_MAX, SIZE_MAX = 65536, 1024, 2**20
TILE_EFFICIENCY, UTILISATION = "tile efficiency (edge padding)", "utilisation (all waves)"
TILE_UNITS = dict.fromkeys((TILE_EFFICIENCY, UTILISATION, "efficiency"), "percent")

NOTE = (
    "The compute-unit count (SMs, CUs, cores) is the vendor's published spec; waves, "
    "utilisation, idle units and tile efficiency are derived from it with the crudest "
    "model: equal-cost blocks dealt round-robin, the kernel ends when the busiest unit does."
)


def _preset_batch(preset: str, units: int) -> int:
    """The batch a preset stands for on `units` compute units."""
    named = {"units": units, "units + 1": units + 1, "2 × units": 2 * units}
    return named[preset] if preset in named else int(preset)


def _caption(preset: str, units: int | None) -> str:
    """What a preset stands for on this device, if it depends on the unit count."""
    if preset == CUSTOM:
        return "your batch"
    if preset not in NAMED:
        return ""
    return fmt.NOT_PUBLISHED if units is None else str(_preset_batch(preset, units))


def preset_captions(units: int | None) -> list[str]:
    """A caption under each preset: the batch it stands for on this device."""
    return [_caption(p, units) for p in PRESETS]


def batch_for(preset: str, custom: int, units: int | None) -> int:
    """The batch to show: the preset's, or `custom` (also where units are unpublished)."""
    if preset == CUSTOM or units is None:
        return custom
    return _preset_batch(preset, units)


@dataclass(frozen=True)
class Occupancy:
    """A batch of sequences as blocks on `units` compute units."""

    batch: int
    blocks_per_sequence: int
    units: int

    @property
    def blocks(self) -> int:
        """Thread blocks launched: batch x blocks per sequence."""
        return self.batch * self.blocks_per_sequence

    @property
    def waves(self) -> int:
        """Passes over the units."""
        return occ.waves(self.blocks, self.units)

    @property
    def utilisation(self) -> float:
        """Fraction of paid-for block slots doing work."""
        return occ.utilisation(self.blocks, self.units)

    @property
    def idle_units(self) -> int:
        """Units idle in the last wave (empty block slots)."""
        return occ.idle_units(self.blocks, self.units)

    @property
    def free_sequences(self) -> int:
        """Sequences more that fit in the last wave at no extra time."""
        return self.idle_units // self.blocks_per_sequence

    @property
    def tail_blocks(self) -> int:
        """Blocks in the last wave: removing them saves a whole wave."""
        return self.blocks - (self.waves - 1) * self.units


def occupancy(device: Device, batch: int, blocks_per_sequence: int = 1) -> Occupancy | None:
    """The batch on the device's units; None where the unit count is unpublished."""
    if device.compute_units is None:
        return None
    return Occupancy(batch, blocks_per_sequence, device.compute_units)


def ladder(device: Device, batch: int, blocks_per_sequence: int = 1) -> list[Occupancy]:
    """The preset batches (1, 8, 32, 64, u, u+1, 2u, 512) and `batch`, ascending."""
    units = device.compute_units
    if units is None:
        return []
    presets = [_preset_batch(p, units) for p in PRESETS[1:]]
    return [Occupancy(b, blocks_per_sequence, units) for b in sorted({*presets, batch})]


def table(rows: Sequence[Occupancy], batch: int) -> pd.DataFrame:
    """One row per batch: blocks, waves, utilisation (a fraction), idle units; `batch` marked."""
    df = pd.DataFrame(
        {
            "batch (sequences)": [o.batch for o in rows],
            "blocks": [o.blocks for o in rows],
            "waves": [o.waves for o in rows],
            "utilisation": [float(o.utilisation) for o in rows],
            "idle units (last wave)": [o.idle_units for o in rows],
            "your batch": [o.batch == batch for o in rows],
        }
    )
    df.attrs["units"] = {"utilisation": "percent"}
    return df


def metrics(o: Occupancy | None) -> list[tuple[str, str]]:
    """(label, value) headline numbers; 'not published' without a unit count."""
    if o is None:
        return [("compute units", fmt.NOT_PUBLISHED)]
    return [
        ("compute units (spec)", f"{o.units}"),
        ("blocks", f"{o.blocks}"),
        ("waves", f"{o.waves}"),
        ("utilisation", fmt.percent(o.utilisation)),
        ("idle units (last wave)", f"{o.idle_units} of {o.units}"),
    ]


def _count(k: int, word: str) -> str:
    """'1 block', '2 blocks'."""
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


def _occupancy_sentence(o: Occupancy) -> str:
    """Where the batch sits on the sawtooth, and what the next full wave would need."""
    head = (
        f"Batch {o.batch} makes {_count(o.blocks, 'block')} on {o.units} compute units: "
        f"{_count(o.waves, 'wave')} at {fmt.percent(o.utilisation)} utilisation"
    )
    if o.units == 1:
        return f"{head}: with one unit every block is a wave of its own, so nothing idles."
    if o.idle_units == 0:
        one_more = fmt.percent(occ.utilisation(o.blocks + 1, o.units))
        return f"{head}, every unit busy; one block more costs a whole extra wave ({one_more})."
    fill = (
        f"{head}, {o.idle_units} of {o.units} units idle in the last wave. The next full wave "
        f"needs {_count(o.idle_units, 'more block')}: {_count(o.free_sequences, 'more sequence')} "
        f"ride free (batch {o.batch + o.free_sequences})"
    )
    if o.waves == 1:
        return f"{fill}."
    return f"{fill}; {_count(o.tail_blocks, 'block')} fewer would save a whole wave."


def tile_shape(tile: str) -> tuple[int, int]:
    """'128x256' -> (128, 256): tile rows and columns."""
    rows, cols = tile.split("x")
    return int(rows), int(cols)


def tiles_compared(m: int, n: int, device: Device) -> dict[str, TileQuantisation]:
    """Each offered tile shape on an (m x n) output; {} where the unit count is unpublished."""
    if device.compute_units is None:
        return {}
    return {t: TileQuantisation(m, n, *tile_shape(t), device.compute_units) for t in TILES}


def tile_table(compared: dict[str, TileQuantisation]) -> pd.DataFrame:
    """One row per tile shape: tiles, waves and the three efficiencies (fractions)."""
    qs = list(compared.values())
    df = pd.DataFrame(
        {
            "tile shape": list(compared),
            "tiles": [q.tiles for q in qs],
            "waves": [q.waves for q in qs],
            TILE_EFFICIENCY: [q.tile_efficiency for q in qs],
            UTILISATION: [q.utilisation for q in qs],
            "efficiency": [q.efficiency for q in qs],
        }
    ).astype({c: float for c in TILE_UNITS})
    df.attrs["units"] = TILE_UNITS
    return df


def tile_metrics(compared: dict[str, TileQuantisation], tile: str) -> list[tuple[str, str]]:
    """(label, value) numbers for the chosen tile shape; 'not published' without units."""
    q = compared.get(tile)
    if q is None:
        return [("compute units", fmt.NOT_PUBLISHED)]
    return [
        ("tiles", f"{q.tiles}"),
        ("waves", f"{q.waves}"),
        ("tile efficiency", fmt.percent(q.tile_efficiency)),
        ("overall efficiency", fmt.percent(q.efficiency)),
    ]


def _tile_sentence(compared: dict[str, TileQuantisation], tile: str) -> str:
    """The chosen tile shape's efficiency, and the best of the offered shapes."""
    q = compared[tile]
    best = max(compared, key=lambda t: compared[t].efficiency)
    verdict = (
        "the best of the offered shapes"
        if compared[best].efficiency <= q.efficiency
        else f"{best} would reach {fmt.percent(compared[best].efficiency)}"
    )
    return (
        f"A {q.m}x{q.n} output in {tile} tiles is {_count(q.tiles, 'tile')} in "
        f"{_count(q.waves, 'wave')}: {fmt.percent(q.efficiency)} efficient "
        f"({fmt.percent(q.tile_efficiency)} after edge padding, {fmt.percent(q.utilisation)} "
        f"of the waves' unit slots used), {verdict}."
    )


def _unpublished(device: Device) -> str:
    return (
        f"{device.name}: compute-unit count {fmt.NOT_PUBLISHED}, so waves and utilisation "
        "cannot be derived. Pick a device that publishes it."
    )


def takeaway(o: Occupancy | None, device: Device) -> str:
    """Utilisation at the chosen batch, idle units and the next full wave."""
    return _unpublished(device) if o is None else _occupancy_sentence(o)


def tile_takeaway(compared: dict[str, TileQuantisation], tile: str, device: Device) -> str:
    """The chosen tile shape's efficiency, against the best offered."""
    return _tile_sentence(compared, tile) if compared else _unpublished(device)
