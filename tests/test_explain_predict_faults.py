"""The fresh pages a step took (its minor page faults, measured untraced) beside those its
prediction priced, in the lines and the JSON of `profile --predict`.

Pure: hand-made Versus objects. A decode step returning two 16 MiB KV caches took 9,900
faults a step in one process (38.7 MiB) and 824 in another, where its prediction priced none
(both under malloc's 32 MiB mmap threshold): the line says the rest is heap memory handed back
and taken again, which no prediction prices.
"""

from perfcore.explain.measure import predict as explain_predict
from perfcore.measure.clock import faults
from perfcore.measure.profile.predict.versus import Versus

MIB = 2**20


def held(taken: float | None, priced: float) -> Versus:
    return Versus((), 1e-3, 1e-3, None, (), faults=taken, fresh_bytes=priced)


def test_faults_beyond_the_priced_pages_are_named_for_what_they_are():
    pages = 16 * MIB // faults.page_bytes()
    (line,) = explain_predict.fault_lines(held(pages, 0.0))
    assert line.startswith(f"fresh pages a step: {pages:,} minor page faults measured (16.0 MiB)")
    assert "0 B predicted: the rest is heap memory malloc handed back" in line


def test_faults_the_prediction_priced_need_no_more_words():
    pages = 32 * MIB // faults.page_bytes()
    (line,) = explain_predict.fault_lines(held(pages, 32 * MIB))
    assert line.endswith("(32.0 MiB), 32.0 MiB predicted")


def test_no_line_where_faults_were_not_counted_and_the_json_says_none():
    assert explain_predict.fault_lines(held(None, 0.0)) == []
    pages = explain_predict.summary(held(None, 0.0), 0.1)["fresh_pages"]
    assert pages == {"predicted_bytes": 0.0, "measured_faults": None, "measured_bytes": None}
    counted = explain_predict.summary(held(256, MIB), 0.1)["fresh_pages"]
    assert counted["measured_bytes"] == 256 * faults.page_bytes()


def test_a_few_faults_a_step_read_as_a_mean_not_rounded_to_none():
    (line,) = explain_predict.fault_lines(held(0.2, 0.0))
    assert line.startswith("fresh pages a step: 0.2 minor page faults measured")
