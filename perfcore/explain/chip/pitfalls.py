"""The pitfalls page: five wrong beliefs, each priced on the chosen device.

Each belief becomes a Section: the belief in quotes, its priced numbers (SI value, unit and
how the page prints it) and a one-line verdict computed from them. A belief that needs a
figure the device does not publish becomes a "not published" Section; the others stay.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from perfcore import format as fmt
from perfcore.errors import NotPublished
from perfcore.model.chip import ops, pitfalls
from perfcore.model.chip.precision import BYTES_PER_ELEMENT
from perfcore.model.chip.specs import Device

HALF_PRECISIONS = ("fp16", "bf16")
# Each belief's number a reader needs first (indices into its quantities); the
# rest print as one line of text: a metric widget costs the browser a redraw on every rerun.
HEADLINES = {1: (4,), 2: (0,), 3: (4,), 4: (5,), 5: (5,)}
DEFAULT_ELEMENTS = 4096 * 4096  # one 4096 x 4096 tensor
TITLES = {
    1: "The faster chip",
    2: "Batch size one",
    3: "The stray FP32 op",
    4: "The copy inside the loop",
    5: "Sharding for headroom",
}
# Each belief's inputs as the page opens: its widgets' defaults, and what the summary prices.
DEFAULTS = {
    1: {"params": 7e9, "batch": 1},
    2: {"batch": 1},
    3: {"n": 4096, "half": "fp16"},
    4: {"elements": DEFAULT_ELEMENTS, "dtype": "fp16", "iterations": 1000},
    5: {"params": 7e9, "dtype": "bf16", "gpus_per_node": 8, "nodes": 2},
}
FORMULAS = {
    1: r"\text{attainable} = \min(P,\ I\beta),\qquad I_{\text{decode}} = "
    r"\frac{2\cdot\text{params}\cdot B}{\text{params}\cdot b} = \frac{2B}{b}",
    2: r"u = \frac{n}{\lceil n/U \rceil \cdot U},\qquad \text{idle} = \lceil n/U \rceil U - n",
    3: r"I_{\text{matmul}} = \frac{2n^3}{3n^2 b},\qquad "
    r"\text{ceiling} = \min(P_{\text{path}},\ I\beta)",
    4: r"t_{\text{PCIe}} = \frac{S\,k}{\beta_{\text{PCIe}}/2}\quad\text{vs}\quad "
    r"t_{\text{mem}} = \frac{S\,k}{\beta_{\text{mem}}}",
    5: r"\text{bytes} = 2\,\frac{N-1}{N}\cdot\frac{\text{params}\cdot b}{g},\qquad "
    r"t = \frac{\text{bytes}}{\beta_{\text{net}}}",
}

# A ceiling to one decimal in its prefix ('990.0 TFLOP/s'); a link rate as published ('64 GB/s').
_CEILING = partial(fmt.fixed, kind="flops_per_s", decimals=1)
_RATE = partial(fmt.trimmed, kind="bytes_per_s")


@dataclass(frozen=True)
class Quantity:
    """One priced number: label, SI value, its kind (format.py), and how the page prints it."""

    label: str
    value: float
    kind: str
    text: str
    help: str = ""


@dataclass(frozen=True)
class Section:
    """One belief priced on one device; no quantities where it is not published."""

    number: int
    belief: str
    quantities: tuple[Quantity, ...]
    verdict: str
    summary: str = ""
    result: object = None

    @property
    def headline(self) -> tuple[Quantity, ...]:
        """The quantity shown first (none when not published)."""
        return tuple(q for i, q in enumerate(self.quantities) if i in HEADLINES[self.number])

    @property
    def details(self) -> str:
        """The other quantities as one line: 'label: value · label: value'."""
        rest = (q for i, q in enumerate(self.quantities) if i not in HEADLINES[self.number])
        return " · ".join(f"{q.label}: {q.text}" for q in rest)

    @property
    def quote(self) -> str:
        """The belief as a markdown block quote."""
        return f"> “{self.belief}”"

    @property
    def published(self) -> bool:
        """True when the device publishes every figure this belief needs."""
        return bool(self.quantities)


def _guard(number: int, belief: str, device: Device, price: Callable[[], Section]) -> Section:
    """The priced Section, or a 'not published' one naming the missing figure."""
    try:
        return price()
    except NotPublished as e:
        verdict = f"{fmt.NOT_PUBLISHED}: {device.name} does not publish a {e.words}."
        return Section(number, belief, (), verdict)


def _q(label: str, value: float, kind: str, text: Callable, help: str = "") -> Quantity:
    """A Quantity of `kind` (a perfcore.format function name; '' for a count) printed by text."""
    return Quantity(label, value, kind, text(value), help)


def faster_chip(device: Device, precision: str, params: float, batch: int) -> Section:
    """(1) A decode step today, with 2x the arithmetic peak, and with 2x the bandwidth."""
    belief = "We'll buy the faster chip."
    return _guard(1, belief, device, lambda: _faster_chip(device, precision, params, batch, belief))


def _faster_chip(device: Device, precision: str, params: float, batch: int, belief: str) -> Section:
    """(1) priced; raises NotPublished."""
    cost = ops.decode_step(params, int(batch), BYTES_PER_ELEMENT[precision])
    r = pitfalls.faster_chip(device, precision, cost)
    spec = f"Derived: min(peak, intensity x bandwidth), {precision} spec."
    cases = {"today": r.today, "2x the arithmetic peak": r.double_peak}
    cases["2x the memory bandwidth"] = r.double_bandwidth
    q = (
        _q("intensity", cost.intensity, "intensity", fmt.intensity, "Derived: 2 x batch / bytes."),
        *(
            _q(f"{k} ({lim}-bound)", v, "flops_per_s", fmt.flops_per_s, spec)
            for k, (v, lim) in cases.items()
        ),
        _q("gained from 2x the peak", r.gain_from_peak, "flops_per_s", fmt.flops_per_s),
    )
    gain, gain_bw = (
        fmt.flops_per_s(x - r.today[0]) for x in (r.double_peak[0], r.double_bandwidth[0])
    )
    verdict = (
        f"{cost.name} at {fmt.intensity(cost.intensity)} is {r.today[1]}-bound: doubling the "
        f"arithmetic gained {gain}; doubling the bandwidth gained {gain_bw}."
    )
    summary = f"2x the arithmetic gains {gain}"
    return Section(1, belief, q, verdict, summary, r)


def batch_one(device: Device, batch: int) -> Section:
    """(2) One block per sequence: utilisation and idle compute units."""
    belief = "Batch size one is fine, it's just one request."
    return _guard(2, belief, device, lambda: _batch_one(device, int(batch), belief))


def _batch_verdict(r: pitfalls.BatchOne) -> str:
    """(2) in one line: how much of the machine the batch leaves idle."""
    if r.idle_units == 0:
        return f"{r.batch} blocks fill all {r.units} units in every wave: none idle."
    if r.batch < r.units:
        return (
            f"You are renting {r.units} compute units and using {r.batch}: {r.idle_units} sit idle."
        )
    return f"{r.batch} blocks leave {r.idle_units} of {r.units} units idle in the last wave."


def _batch_one(device: Device, batch: int, belief: str) -> Section:
    """(2) priced; raises NotPublished."""
    r = pitfalls.batch_one(device, batch)
    util = fmt.percent(r.utilisation, 2)
    q = (
        _q("utilisation", r.utilisation, "percent", lambda v: util, "Derived: blocks / slots."),
        _q("compute units idle (last wave)", r.idle_units, "", lambda v: f"{v} of {r.units}"),
        _q("compute units (SMs / CUs)", r.units, "", str, f"Published spec: {device.source}"),
    )
    summary = f"batch {batch} keeps {util} of the units busy"
    return Section(2, belief, q, _batch_verdict(r), summary, r)


def fp32_path(device: Device, n: int, half: str) -> Section:
    """(3) An n x n x n matmul on the half-precision tensor path vs the FP32 vector path."""
    belief = f"We cast the model to {half.upper()}, so we get the tensor-core speedup."
    return _guard(3, belief, device, lambda: _fp32_path(device, int(n), half, belief))


def _fp32_path(device: Device, n: int, half: str, belief: str) -> Section:
    """(3) priced; raises NotPublished."""
    r = pitfalls.fp32_path(device, n, half)
    h, derived = half.upper(), "Derived: min(peak, intensity x bandwidth)."
    ratio = fmt.ratio(r.ceiling_ratio, 3)
    q = (
        _q(f"{h} tensor path intensity", r.tensor_intensity, "intensity", fmt.intensity),
        _q(f"{h} tensor path ceiling", r.tensor_ceiling, "flops_per_s", _CEILING, derived),
        _q("FP32 vector path intensity", r.fp32_intensity, "intensity", fmt.intensity),
        _q("FP32 vector path ceiling", r.fp32_ceiling, "flops_per_s", _CEILING, derived),
        _q("ceiling lost", r.ceiling_ratio, "ratio", lambda v: ratio, "tensor / FP32 ceiling"),
    )
    paths = " vs ".join(f"{a.text} → {b.text}" for a, b in (q[:2], q[2:4]))
    verdict = f"{paths}: one op that forces the FP32 path costs {ratio} of the ceiling."
    return Section(3, belief, q, verdict, f"one FP32 op costs {ratio} of the ceiling", r)


def copy_in_loop(device: Device, elements: int, dtype: str, iterations: int) -> Section:
    """(4) A host-to-device copy of one tensor left inside a loop of `iterations`."""
    belief = "The .to(device) call is inside the loop. It's only a copy."
    args = (device, int(elements) * BYTES_PER_ELEMENT[dtype], int(iterations), belief)
    return _guard(4, belief, device, lambda: _copy_in_loop(*args))


def _copy_in_loop(device: Device, tensor_bytes: float, iterations: int, belief: str) -> Section:
    """(4) priced; raises NotPublished."""
    r = pitfalls.copy_in_loop(device, tensor_bytes, iterations)
    q = (
        _q("one tensor", r.tensor_bytes, "traffic", fmt.traffic),
        _q(f"copied over {iterations} iterations", r.total_bytes, "traffic", fmt.traffic),
        _q(
            "PCIe, per direction",
            r.pcie_bytes_per_s,
            "bytes_per_s",
            _RATE,
            "Spec halved: one direction.",
        ),
        _q("time over PCIe", r.pcie_s, "seconds", fmt.seconds),
        _q("same bytes over device memory", r.memory_s, "seconds", fmt.seconds),
        _q("PCIe is further away by", r.distance, "ratio", fmt.ratio),
    )
    pcie, memory = fmt.alike((r.pcie_s, r.memory_s), "seconds")
    hoist = f"Hoisted: {q[0].text} once, {fmt.ratio(iterations)} less traffic."
    verdict = (
        f"{q[1].text} at {q[2].text} = {pcie} of pure copying vs {memory} over device memory: "
        f"PCIe is {q[5].text} further away. " + (hoist if iterations > 1 else "")
    )
    summary = f"the copy in the loop takes {q[3].text}, {q[5].text} its time in device memory"
    return Section(4, belief, q, verdict.strip(), summary, r)


def shard_across_nodes(
    device: Device, params: float, dtype: str, gpus_per_node: int, nodes: int
) -> Section:
    """(5) The per-step network all-reduce of the 1/g gradient shard across nodes."""
    belief = f"We'll shard it across {int(nodes)} nodes for headroom."
    args = (device, params, dtype, int(gpus_per_node), int(nodes), belief)
    return _guard(5, belief, device, lambda: _shard(*args))


def _shard_verdict(r: pitfalls.ShardAcrossNodes, q: tuple[Quantity, ...], nodes: int) -> str:
    """(5) in one line: does it fit, and what the sharding costs per step."""
    weights, capacity, _, net, rate, t = (x.text for x in q)
    fits = f"{weights} {'fits' if r.fits else 'does not fit'} in {capacity}"
    if nodes < 2:
        return f"{fits}; on one node nothing crosses the network."
    cost = f"{net} across the network at {rate} = {t} per step"
    if r.fits:
        return f"{fits}. Sharding it across {nodes} nodes anyway adds {cost}, on every step."
    return f"{fits}, so it must be sharded: across {nodes} nodes that costs {cost}."


def _shard(
    device: Device, params: float, dtype: str, gpus_per_node: int, nodes: int, belief: str
) -> Section:
    """(5) priced; raises NotPublished."""
    bpe = BYTES_PER_ELEMENT[dtype]
    r = pitfalls.shard_across_nodes(device, params, bpe, gpus_per_node, nodes)
    q = (
        _q(
            f"weights ({dtype})",
            r.weight_bytes,
            "capacity",
            fmt.capacity,
            "Derived: params x bytes.",
        ),
        _q("one device's memory", device.memory_bytes, "capacity", fmt.capacity),
        _q("fits on one device", r.fits, "", lambda v: "yes" if v else "no"),
        _q("network bytes per GPU per step", r.network_bytes, "traffic", fmt.traffic),
        _q("network link (one direction)", device.scaleout_bytes_per_s, "bytes_per_s", _RATE),
        _q("network time per step", r.network_s, "seconds", fmt.seconds, "Derived: bytes / link."),
    )
    summary = f"sharding across {nodes} nodes adds {q[5].text} of network per step"
    return Section(5, belief, q, _shard_verdict(r, q, nodes), summary, r)
