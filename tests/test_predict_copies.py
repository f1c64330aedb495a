"""A copy that keeps its layout (a memcpy: a non-donated KV cache duplicated before an update
in place) on its own curve; a copy into another layout stays a `copy` (a 2-D transpose's).

Pure: a hand-written HLO module (tests/data/profile/copies.hlo: `plain`, a copy of a
(8, 1024, 8, 64) cache in its own layout; `relaid`, a (1024, 256) matrix copied into
column-major) with a stub cost model (1e6 bytes an op), on flat hand-made curves at 1e9
bytes/s: copy 0.1, plain copy 0.5.
"""

from pathlib import Path

import pytest

from perfcore.model.chip import kernels
from tests.support.kernels import cpu_curves, predicted_ops, swept_beside

MODULE = (Path(__file__).parent / "data" / "profile" / "copies.hlo").read_text("utf-8")
PLAIN = "plain copy"


def stub_cost(text: str) -> tuple[float, float, float]:
    return 0.0, 1e6, 0.0


def _curves(with_plain: bool = True) -> kernels.Curves:
    return cpu_curves({"copy": 0.1, **({PLAIN: 0.5} if with_plain else {})})


def _ops(curves: kernels.Curves) -> dict:
    return predicted_ops(MODULE, curves, 2, stub_cost)


def test_a_copy_in_its_own_layout_is_a_plain_copy_and_one_into_another_a_copy():
    """1e6 bytes at 1e9 bytes/s: a 1 ms bound; over 0.5 on the plain copy's curve 2 ms, over
    0.1 on the copy's 10 ms."""
    ops = _ops(_curves())
    assert (ops["plain"].kernel, ops["relaid"].kernel) == (PLAIN, "copy")
    assert ops["plain"].predicted_s == pytest.approx(1e-3 / 0.5)
    assert ops["relaid"].predicted_s == pytest.approx(1e-3 / 0.1)


def test_curves_without_it_price_it_as_a_copy_and_say_so():
    ops = _ops(_curves(with_plain=False))
    assert ops["plain"].predicted_s == pytest.approx(1e-3 / 0.1)
    assert f"copy (no {PLAIN} curve measured)" in ops["plain"].derived_from


def test_the_suite_sweeps_it_as_it_does_the_copy():
    """The same element counts and bytes (each read and written once) as the 2-D copy."""
    assert swept_beside(PLAIN, "copy")
