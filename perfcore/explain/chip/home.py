"""The home page: the two kinds of number, and the quick calculator's verdict."""

from __future__ import annotations

from perfcore import format as fmt
from perfcore.model.chip.ops import Cost
from perfcore.model.chip.roofline import Estimate, estimate_on
from perfcore.model.chip.specs import Device

# Joined with a space after each \qquad: adjacent raw strings join with none, and \qquad
# followed by I reads as one unknown command (a red KaTeX error).
FORMULA = r"\qquad ".join(
    (
        r"\text{attainable FLOP/s} = \min(P_{\text{peak}},\; I \cdot \beta),",
        r"I = \frac{\text{FLOPs}}{\text{bytes}},",
        r"I_{\text{ridge}} = \frac{P_{\text{peak}}}{\beta}",
    )
)

KINDS_OF_NUMBER = """\
**Three kinds of number, never mixed silently.**

- **Published spec** — a vendor's datasheet figure (peak FLOP/s, bandwidth,
  capacity), one row of `data/specs.csv` with its source. A ceiling nobody reaches.
- **Measurement** — a live JAX timing on the device you have, with its method
  (isolated calls or a back-to-back loop, warmup, repeats, statistic) and its spread.
- **Derived** — ridge point, attainable FLOP/s, time floor: arithmetic on the above,
  labelled with what it came from.
"""


FIX = {
    "memory": "Move fewer bytes (fuse, reuse, lower precision): a faster ALU buys nothing.",
    "compute": "Only a higher compute roof (lower precision, more units) helps.",
}


def quick_calc(device: Device, precision: str, flops: float, n_bytes: float) -> Estimate | None:
    """The roofline verdict for raw FLOPs and bytes; None where a roof is unpublished."""
    cost = Cost(flops, n_bytes, "your operation")
    return estimate_on(device, precision, cost)


def metrics(e: Estimate) -> list[tuple[str, str]]:
    """(label, value) for the calculator's verdict; short values, so none is cut off."""
    return [
        ("Intensity (FLOP/byte)", fmt.figures(e.intensity)),
        ("Bound by", e.limiter),
        ("Attainable", fmt.flops_per_s(e.attainable_flops_per_s)),
        ("Time floor", fmt.seconds(e.time_floor_s)),
    ]


def takeaway(e: Estimate) -> str:
    """One sentence on where the operation sits against the ridge."""
    factor = e.ridge / e.intensity if e.limiter == "memory" else e.intensity / e.ridge
    side = "below" if e.limiter == "memory" else "above"
    fix = FIX[e.limiter]
    return (
        f"At {fmt.intensity(e.intensity)} this operation sits {fmt.ratio(factor)} {side} the "
        f"ridge ({fmt.intensity(e.ridge)}), so it is {e.limiter}-bound at "
        f"{fmt.percent(e.fraction_of_peak)} of peak; it cannot finish in under "
        f"{fmt.seconds(e.time_floor_s)}. {fix}"
    )
