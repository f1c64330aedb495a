"""Terminal summaries of the measured roofline, the collectives and fusion, from records.

Used by `python -m perfcore measure`, `python -m perfcore collectives` and
scripts/gpu_check.py; everything is derived from the records, so a results file gives
the same lines wherever it was measured.
"""

from __future__ import annotations

from perfcore import format as fmt
from perfcore.measure.results import Record, empirical, linkfit

ROUND_TRIP = "host round trip"  # how the fusion experiment's round-trip note begins


def roofline_lines(records: tuple[Record, ...]) -> list[str]:
    """The measured roofline: a flat roof per precision, a bandwidth per memory level."""
    roofline = empirical.measured_roofline(records)
    if not (roofline.roofs or roofline.levels):
        return []
    return ["measured roofline (fastest sample of each record):", *empirical.describe(roofline)]


def _notes_starting(records: tuple[Record, ...], prefix: str) -> list[str]:
    """Each distinct note of the records that starts with prefix, in order."""
    return list(dict.fromkeys(n for r in records for n in r.notes if n.startswith(prefix)))


def stream_lines(records: tuple[Record, ...]) -> list[str]:
    """The bandwidth sweep's paths: overhead per pass, working sets timed and overhead-bound."""
    sweep = tuple(r for r in records if r.experiment == empirical.EXPERIMENT)
    streams = [r for r in sweep if empirical.is_stream(r) and r.size is not None]
    lines = [*_notes_starting(sweep, empirical.OVERHEAD_NOTE)]
    for path in _notes_starting(tuple(streams), empirical.PATH_NOTE):
        timed = [r for r in streams if path in r.notes]
        bound = sum(map(empirical.is_overhead_bound, timed))
        lines.append(f"{path}: {len(timed)} records, {bound} overhead-bound (not levels)")
    return lines + _notes_starting(sweep, empirical.PALLAS_UNUSED)


def collectives_lines(records: tuple[Record, ...]) -> list[str]:
    """The collectives table (median time, algbw, busbw per size) and each fitted model."""
    rows = linkfit.table(records)
    if not rows:
        return []
    lines = [
        f"{'collective':<15} {'ranks':>5} {'size':>10} {'median':>10} {'IQR/med':>8} "
        f"{'algbw':>11} {'busbw':>11}"
    ]
    lines += [
        f"{r['collective']:<15} {r['ranks']:>5} {fmt.capacity(r['size']):>10} "
        f"{fmt.seconds(r['seconds']):>10} {fmt.percent(r['spread']):>8} "
        f"{fmt.bytes_per_s(r['algbw']):>11} {fmt.bytes_per_s(r['busbw']):>11}"
        for r in rows
    ]
    fits = {
        linkfit.collective_of(r): n
        for r in records
        if r.experiment == "collectives"
        for n in r.notes
        if n.startswith("alpha-beta")
    }
    return lines + [f"{collective}: {note}" for collective, note in fits.items()]


def fusion_lines(records: tuple[Record, ...]) -> list[str]:
    """Each fused chain's predicted and measured saving, and each chain's host round trip."""
    return [
        f"fusion {r.label}: {n}"
        for r in records
        if r.experiment == "fusion"
        for n in r.notes
        if n.startswith("saving") or (n.startswith(ROUND_TRIP) and "waited" not in r.label)
    ]


def lines(records: tuple[Record, ...]) -> list[str]:
    """Every summary that applies to the records."""
    return [
        *roofline_lines(records),
        *stream_lines(records),
        *collectives_lines(records),
        *fusion_lines(records),
    ]
