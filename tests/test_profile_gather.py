"""A gather reads the rows it gathers, not the table: its bytes as priced.

XLA's cost model counts all of a gather's source operand as accessed (here a 50,000 × 256
float32 table, 51.2 MB, for 4,096 rows of it). Timed on this machine's CPU, that gather
(fused with its bitcast) took 0.70-0.88 ms (fastest of 20), which 55.4 MB would put at 63-79
GB/s, above the best copy the kernels suite measured here (47 GB/s); the rows it reads (4 MB)
and writes (4 MB) put it at 10-12 GB/s. A bound must not exceed the time measured, so the
bytes a gather never reads are taken off (price.unread_bytes). Module:
tests/data/profile/gather.hlo.
"""

from pathlib import Path

from perfcore.measure.profile import hlo
from perfcore.measure.profile.judge import price

MODULE = hlo.parse_module((Path(__file__).parent / "data" / "profile" / "gather.hlo").read_text())
TABLE, ROWS = 50_000 * 256 * 4, 4096 * 256 * 4


def test_a_bare_gather_reads_only_its_rows():
    assert price.unread_bytes(MODULE, MODULE.instructions["%bare"]) == TABLE - ROWS


def test_a_fused_gather_reads_only_its_rows_of_the_parameter_it_gathers_from():
    assert price.unread_bytes(MODULE, MODULE.instructions["%fused"]) == TABLE - ROWS


def test_an_op_that_reads_the_whole_table_keeps_its_bytes():
    assert price.unread_bytes(MODULE, MODULE.instructions["%scaled"]) == 0.0


def test_the_priced_bytes_are_the_cost_models_less_what_is_not_read():
    """A stub cost model counting the table, the indices and the result."""
    counted = TABLE + 4096 * 4 + ROWS
    priced = price.price(MODULE, MODULE.instructions["%fused"], lambda text: (0.0, counted, 0.0))
    assert priced.bytes == ROWS + 4096 * 4 + ROWS


def test_a_cost_model_that_counts_only_the_rows_is_never_taken_below_the_result():
    """Were XLA to count the rows alone, taking the table off would leave less than the op
    writes: the result's bytes are the floor."""
    priced = price.price(MODULE, MODULE.instructions["%fused"], lambda text: (0.0, ROWS, 0.0))
    assert priced.bytes == ROWS
