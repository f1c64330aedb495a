"""The generations page: every device's ridge against its year, one op's verdict on each.

Devices that publish no peak at the chosen precision stay in the table as "not
published" and are left off the chart. The default op (attention, seq 512, d_head 64
at 256 FLOP/byte in 16-bit) is compute-bound on a V100 and memory-bound on an H100.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd

from perfcore import format as fmt
from perfcore.model.chip import ops
from perfcore.model.chip.generations import Growth, device_ridge
from perfcore.model.chip.ops import Cost, Param
from perfcore.model.chip.precision import BYTES_PER_ELEMENT
from perfcore.model.chip.roofline import Estimate, estimate_on
from perfcore.model.chip.specs import PRECISIONS, Device

DEFAULT_OLD, DEFAULT_NEW = "NVIDIA V100 SXM2", "NVIDIA H100 SXM"
DEFAULT_OP = "attention"
# Page defaults that differ from the catalog's: an op whose verdict flips across generations.
SIZE_DEFAULTS = {"attention": {"seq": 512, "d_head": 64}}
FORMULA = (
    r"I_{\text{ridge}} = \frac{P_{\text{peak}}}{\beta},\qquad"
    r"\frac{I_{\text{ridge}}^{\text{new}}}{I_{\text{ridge}}^{\text{old}}}"
    r" = \frac{P^{\text{new}} / P^{\text{old}}}{\beta^{\text{new}} / \beta^{\text{old}}}"
)


@dataclass(frozen=True)
class GenerationRow:
    """One device: its ridge at the precision and the op's roofline verdict on it."""

    device: Device
    ridge: float | None
    point: Estimate | None

    @property
    def bound(self) -> str:
        """'compute', 'memory' or 'not published'."""
        return fmt.NOT_PUBLISHED if self.point is None else self.point.limiter


def params(op: str) -> tuple[Param, ...]:
    """The catalog op's size inputs, with this page's defaults."""
    chosen = SIZE_DEFAULTS.get(op, {})
    return tuple(
        dataclasses.replace(p, default=chosen.get(p.name, p.default)) for p in ops.CATALOG[op][1]
    )


def vendors(specs: dict[str, Device]) -> list[str]:
    """Every vendor in the spec set, alphabetically."""
    return sorted({d.vendor for d in specs.values()})


def device_names(specs: dict[str, Device]) -> list[str]:
    """Device names grouped by vendor, oldest first (as the sidebar lists them)."""
    return sorted(specs, key=lambda n: (specs[n].vendor, specs[n].year, n))


def default_pair(names: list[str]) -> tuple[str, str]:
    """The default old and new devices: V100 and H100 where listed, else the first and last."""
    old = DEFAULT_OLD if DEFAULT_OLD in names else names[0]
    return old, DEFAULT_NEW if DEFAULT_NEW in names else names[-1]


def op_cost(op: str, precision: str, sizes: dict[str, float]) -> Cost:
    """The catalog op's FLOPs and bytes with elements of the precision's width."""
    return ops.build(op, BYTES_PER_ELEMENT[precision], **sizes)


def rows(
    specs: dict[str, Device], chosen_vendors: list[str], precision: str, cost: Cost
) -> list[GenerationRow]:
    """Each device of the chosen vendors, oldest first, with its ridge and the op's verdict."""
    devices = [d for d in specs.values() if d.vendor in chosen_vendors]
    return [
        GenerationRow(
            d,
            device_ridge(d, precision),
            estimate_on(d, precision, cost),
        )
        for d in sorted(devices, key=lambda d: (d.year, d.name))
    ]


def table(generation_rows: list[GenerationRow], precision: str, cost: Cost) -> pd.DataFrame:
    """One row per device, SI numbers (NaN where unpublished); attrs["units"] names their kinds."""
    r = generation_rows
    peak = f"{precision} peak"
    df = pd.DataFrame(
        {
            "device": [x.device.name for x in r],
            "vendor": [x.device.vendor for x in r],
            "year": [x.device.year for x in r],
            "ridge": [x.ridge for x in r],
            "bound by": [x.point and x.point.limiter for x in r],
            peak: [x.device.peak_flops(precision) for x in r],
            "memory bandwidth": [x.device.memory_bytes_per_s for x in r],
            "op intensity": cost.intensity,
            "attainable": [x.point and x.point.attainable_flops_per_s for x in r],
            "source": [x.device.source for x in r],
        }
    ).astype({"ridge": float, peak: float, "attainable": float})
    df.attrs["units"] = {
        "ridge": "intensity",
        peak: "flops_per_s",
        "memory bandwidth": "bytes_per_s",
        "op intensity": "intensity",
        "attainable": "flops_per_s",
    }
    return df


def shared_precision(old: Device, new: Device, wanted: str) -> str | None:
    """`wanted` if both devices publish it, else the nearest precision both do (the narrower on
    a tie, in PRECISIONS order); None when they share none."""
    both = [p for p in PRECISIONS if device_ridge(old, p) and device_ridge(new, p)]
    at = PRECISIONS.index(wanted)
    return min(
        both, key=lambda p: (abs(PRECISIONS.index(p) - at), -PRECISIONS.index(p)), default=None
    )


def precision_note(old: Device, new: Device, wanted: str, shown: str | None) -> str:
    """Which device lacks the sidebar's precision and what the page shows instead; '' if none."""
    if shown == wanted:
        return ""
    lacking = " and the ".join(d.name for d in (old, new) if device_ridge(d, wanted) is None)
    instead = (
        f"this page shows {shown}, the nearest precision both publish"
        if shown
        else "the two share no precision: pick another pair"
    )
    return f"The {lacking} publishes no {wanted} peak, so {instead}."


def _short(device: Device) -> str:
    """The device's name without its vendor: 'H100 SXM'."""
    return device.name.removeprefix(device.vendor).strip()


def title(g: Growth | None) -> str:
    """The page's title, stating which way the ridge moved between the chosen pair."""
    if g is None:
        return "The ridge point by year"
    way = "rose" if g.ridge >= 1 else "fell"
    times = fmt.ratio(max(g.ridge, 1 / g.ridge))
    return f"The {g.precision} ridge point {way} {times} from {_short(g.old)} to {_short(g.new)}"


def bound_count(generation_rows: list[GenerationRow]) -> str:
    """'k of n' devices on which the op is memory-bound, of those that publish the precision."""
    plotted = [r for r in generation_rows if r.point is not None]
    return f"{sum(r.bound == 'memory' for r in plotted)} of {len(plotted)}"


def growth_headline(g: Growth | None) -> list[tuple[str, str]]:
    """(label, value) for the arithmetic, bandwidth and ridge growth; 'not published' if None."""
    values = (None, None, None) if g is None else (g.arithmetic, g.bandwidth, g.ridge)
    labels = ("Arithmetic grew", "Bandwidth grew", "Ridge grew")
    return [(label, fmt.ratio(v)) for label, v in zip(labels, values, strict=True)]


def _bound_sentence(plotted: list[GenerationRow], cost: Cost, precision: str) -> str:
    """How many devices find the op memory-bound, and the spread of ridges."""
    memory = [r for r in plotted if r.bound == "memory"]
    low, high = (f(plotted, key=lambda r: r.ridge) for f in (min, max))
    return (
        f"At {precision}, {cost.name} ({fmt.intensity(cost.intensity)}) is memory-bound on "
        f"{len(memory)} of {len(plotted)} devices ({fmt.percent(len(memory) / len(plotted))}): "
        f"those whose ridge sits above its intensity. Ridges run from {fmt.intensity(low.ridge)} "
        f"({low.device.name}, {low.device.year}) to {fmt.intensity(high.ridge)} "
        f"({high.device.name}, {high.device.year})."
    )


def _flip(g: Growth, cost: Cost) -> str:
    """' The op is X-bound on old and Y-bound on new ...' when its verdict differs, else ''."""
    verdicts = [estimate_on(d, g.precision, cost).limiter for d in (g.old, g.new)]
    if verdicts[0] == verdicts[1]:
        return ""
    return (
        f" The op is {verdicts[0]}-bound on the {g.old.name} and {verdicts[1]}-bound on the "
        f"{g.new.name} without a line of code changing."
    )


def _growth_sentence(g: Growth | None, old: Device, new: Device, cost: Cost) -> str:
    """Arithmetic, bandwidth and ridge growth from old to new, and what it does to the op."""
    if g is None:
        both = [p for p in old.published_precisions() if p in new.published_precisions()]
        return (
            f" Growth from the {old.name} to the {new.name} is {fmt.NOT_PUBLISHED} at this "
            f"precision; both publish {', '.join(both) or 'no common precision'}."
        )
    trend = "the field got more memory-bound" if g.ridge > 1 else "bandwidth kept up"
    return (
        f" From the {old.name} ({old.year}) to the {new.name} ({new.year}) arithmetic grew "
        f"{fmt.ratio(g.arithmetic)} and bandwidth {fmt.ratio(g.bandwidth)}, so the ridge grew "
        f"{fmt.ratio(g.ridge)}: {trend}.{_flip(g, cost)}"
    )


def takeaway(
    generation_rows: list[GenerationRow],
    cost: Cost,
    precision: str,
    g: Growth | None,
    pair: tuple[Device, Device],
) -> str:
    """Which share of the shown devices find the op memory-bound, and the growth ratios."""
    plotted = [r for r in generation_rows if r.point is not None]
    missing = len(generation_rows) - len(plotted)
    growth_text = _growth_sentence(g, *pair, cost)
    if not generation_rows:
        return "No vendor chosen: pick at least one to plot its devices." + growth_text
    if not plotted:
        return f"No chosen device publishes a {precision} peak." + growth_text
    unpublished = f" {missing} shown devices publish no {precision} peak: table only, no marker."
    return _bound_sentence(plotted, cost, precision) + growth_text + unpublished * bool(missing)
