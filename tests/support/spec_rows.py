"""One valid specs row and inline CSV files built from it, for tests that must not depend on
data/specs.csv."""

import csv
import io

from perfcore.model.chip.specs import REQUIRED_COLUMNS, Device, load_specs_bytes

# One valid row (the round-figures H100), for tests that must not depend on data/specs.csv.
VALID_ROW = dict(
    zip(
        REQUIRED_COLUMNS,
        (
            "Test H100",
            "NVIDIA",
            "2022",
            "Hopper",
            "SXM5",
            "132",
            "80",
            "3.35",
            "50",
            "228",
            "256",
            "34",
            "67",
            "495",
            "990",
            "990",
            "1979",
            "1979",
            "",
            "900",
            "50",
            "128",
            "700",
            "gpu_from_scratch.py seed",
            "dense, rounded",
        ),
        strict=True,
    )
)


def csv_bytes(*rows: dict[str, str], columns=REQUIRED_COLUMNS) -> bytes:
    """A specs CSV of `rows` (column -> raw cell) under a header of `columns`, as UTF-8."""
    out = io.StringIO()
    writer = csv.DictWriter(out, list(columns), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def row(**changes: str) -> dict[str, str]:
    """VALID_ROW with some cells changed."""
    return {**VALID_ROW, **changes}


def load_one(**changes: str) -> Device:
    """The single Device of an inline file holding VALID_ROW with some cells changed."""
    (device,) = load_specs_bytes(csv_bytes(row(**changes)), "inline.csv").values()
    return device
