"""measure.results.renamed: files written before a label was renamed load under today's name."""

import json

import pytest

from perfcore.measure import results
from perfcore.measure.clock.harness import LOOP, Measurement
from perfcore.measure.results import Record

STAMP = "2025-01-31T12:00:00+00:00"


def stream(experiment: str, label: str) -> Record:
    """A streaming record as the roofline experiment writes it (one read, one write per pass)."""
    return Record(
        experiment=experiment,
        label=label,
        measurement=Measurement((1e-4, 2e-4), 1, LOOP, 3),
        device="cpu",
        backend="cpu",
        jax_version="0.10.2",
        timestamp=STAMP,
        dtype="float32",
        precision="fp32",
        bytes=8.0 * 4096,
        size=16384.0,
        size_kind="bytes",
    )


def written_as(label: str, suffix: str, experiment: str = "roofline") -> bytes:
    """A version 2 file whose one record carries `label`, as an older build wrote it."""
    one = (stream(experiment, label),)
    text = results.to_json(one) if suffix == ".json" else results.to_csv(one)
    return text.encode()


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_an_old_roofline_copy_kernel_loads_as_scale(suffix):
    """x <- s*x is STREAM's scale: 'copy 16 KiB' from an older file reads 'scale 16 KiB'."""
    (loaded,) = results.load_results_bytes(written_as("copy 16 KiB", suffix), f"old{suffix}")
    assert loaded.label == "scale 16 KiB"
    assert loaded == stream("roofline", "scale 16 KiB")


@pytest.mark.parametrize(
    ("experiment", "label"),
    [("ceilings", "copy"), ("roofline", "triad 16 KiB"), ("roofline", "copycat 1 KiB")],
)
def test_labels_that_were_never_renamed_load_unchanged(experiment, label):
    """The ceilings' copy is a real copy (x.copy()); only the roofline's first word maps."""
    data = written_as(label, ".json", experiment)
    assert json.loads(data)["records"][0]["label"] == label
    (loaded,) = results.load_results_bytes(data, "kept.json")
    assert loaded.label == label
