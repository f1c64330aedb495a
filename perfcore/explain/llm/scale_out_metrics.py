"""The Scale-out page's numbers as metrics: the two links (scale-up as marketed and as used,
scale-out, their ratio), each leg's bytes and time, and the whole all-reduce; each says what
kind of number it is. A link the device does not publish reads "not published", never 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfcore import format as fmt
from perfcore.explain.llm.scale_out import AllReduce
from perfcore.model.chip.comm import Leg


@dataclass(frozen=True)
class Metric:
    """One number as the page shows it: label, formatted value, what kind of number it is."""

    label: str
    value: str
    help: str = ""


def _rate(bytes_per_s: float | None) -> str:
    """A link rate without trailing zeros ('900 GB/s', '112.5 GB/s'); None: 'not published'."""
    if bytes_per_s is None:
        return fmt.NOT_PUBLISHED
    number, unit = fmt.bytes_per_s(bytes_per_s, 4).split(" ", 1)
    return f"{number.rstrip('0').rstrip('.') if '.' in number else number} {unit}"


def link_metrics(ar: AllReduce) -> list[Metric]:
    """The two links: scale-up as marketed and as used, scale-out, and their ratio."""
    device, convention = ar.device, ar.setup.convention
    spec = f"Published spec ({device.source})"
    used = f"Derived: the marketed figure under the {convention} convention."
    return [
        Metric(
            "Scale-up, as marketed",
            _rate(device.scaleup_bytes_per_s),
            f"{spec}, both directions, as marketed.",
        ),
        Metric(f"Scale-up, used ({convention})", _rate(ar.intra.bytes_per_s), used),
        Metric("Scale-out (one direction)", _rate(ar.inter.bytes_per_s), f"{spec}."),
        Metric("Link ratio, up / out", fmt.ratio(ar.link_ratio), "Derived: scale-up used / out."),
    ]


def _or(value: float | None, formatter, none: str) -> str:
    """value formatted, or `none` where there is no value."""
    return none if value is None else formatter(value)


def _leg_time(label: str, leg: Leg, alone: str) -> Metric:
    """A leg's time ('27.2 ms', 'not published'), or 'none' where `alone` leaves it one rank."""
    if leg.ranks < 2:
        return Metric(label, "none", f"{alone}: this leg has nothing to reduce.")
    derived = "Derived: bytes per GPU / link bandwidth (+ hops x alpha)."
    return Metric(label, fmt.seconds(leg.seconds), derived)


def leg_metrics(ar: AllReduce) -> list[Metric]:
    """Bytes per GPU and time of each leg."""
    return [
        Metric(
            "In-node leg: bytes per GPU",
            fmt.traffic(ar.intra.bytes_per_gpu),
            "Derived: 2(g-1)/g x gradient bytes.",
        ),
        _leg_time("In-node leg: time", ar.intra, "One GPU per node"),
        Metric(
            "Network leg: bytes per GPU",
            fmt.traffic(ar.inter.bytes_per_gpu),
            "Derived: 2(N-1)/N x gradient bytes / g.",
        ),
        _leg_time("Network leg: time", ar.inter, "One node"),
    ]


def whole_metrics(ar: AllReduce) -> list[Metric]:
    """The whole operation: the network's share of the time, the time, algbw and busbw."""
    none = "none (1 GPU)" if ar.setup.ranks < 2 else fmt.NOT_PUBLISHED
    time = none if ar.seconds is None or ar.setup.ranks < 2 else fmt.seconds(ar.seconds)
    share = _or(ar.network_share, lambda v: fmt.percent(v, 2), none)
    return [
        Metric(
            "Share of time on the network",
            share if ar.setup.nodes > 1 else "none (1 node)",
            "Derived: network leg time / all-reduce time.",
        ),
        Metric("All-reduce time", time, "Derived: the two legs in turn."),
        Metric("algbw", _or(ar.algbw, fmt.bytes_per_s, none), "nccl-tests: gradient bytes / time."),
        Metric(
            "busbw",
            _or(ar.busbw, fmt.bytes_per_s, none),
            f"nccl-tests: algbw x 2(n-1)/n, n = {ar.setup.ranks} GPUs.",
        ),
        Metric(
            "Pipelined time (NCCL)",
            none if ar.setup.ranks < 2 else _or(ar.pipelined_s, fmt.seconds, none),
            "Derived: the slower leg's bytes plus both legs' latencies, as NCCL streams chunks "
            "through both legs at once (the plans price this).",
        ),
    ]
