"""measure.profile.predict.wall: a step's untraced wall is a record of its own experiment,
labelled as its step, that a results file carries beside the profile and reads back unchanged."""

from perfcore.measure import results
from perfcore.measure.clock.harness import Measurement
from perfcore.measure.profile.judge.records import STEP, profile_records, step_records
from perfcore.measure.profile.predict.wall import HOW, WALL, wall_record, walls
from perfcore.measure.results.record import PROFILE, Record

STEP_RECORD = Record(
    experiment=PROFILE,
    label="jit_step step",
    device="cpu",
    backend="cpu",
    jax_version="0.0",
    timestamp="2026-01-02T03:04:05+00:00",
    category=STEP,
    measurement=Measurement(samples=(4e-3, 4.2e-3)),
    predicted_s=3e-3,
)
UNTRACED = Measurement(samples=(5e-3, 5.1e-3, 4.9e-3))


def test_the_wall_is_labelled_as_its_step_and_is_neither_a_step_nor_an_op():
    wall = wall_record(STEP_RECORD, UNTRACED)
    assert (wall.experiment, wall.label, wall.device) == (WALL, STEP_RECORD.label, "cpu")
    assert wall.measurement == UNTRACED and wall.notes == (HOW,) and wall.predicted_s is None
    both = (STEP_RECORD, wall)
    assert step_records(both) == (STEP_RECORD,) and profile_records(both) == ()
    assert walls(both) == {STEP_RECORD.label: wall}


def test_a_results_file_carries_the_wall_and_reads_it_back(tmp_path):
    wall = wall_record(STEP_RECORD, UNTRACED)
    for name in ("profile.json", "profile.csv"):
        path = results.save_results((STEP_RECORD, wall), tmp_path / name)
        back = results.load_results(path)
        assert walls(back)[STEP_RECORD.label].measurement.samples == UNTRACED.samples
