"""An FFT priced on its own curve by the FLOPs XLA counts for it, not as a stream of its bytes.

Pure: a hand-written HLO module (tests/data/profile/fft.hlo: the real FFT of 16 rows of 4,096
floats, as jnp.fft.rfft compiles on a CPU) with a stub cost model, on flat hand-made curves
at 1e9 FLOP/s and 1e9 bytes/s. Before, an FFT was an elementwise op by its bytes: 256 rows of
4,096 predicted at 0.27 ms, where it took 0.81 ms (XLA:CPU ran 110-125 GFLOP/s by XLA's count
for rows of 256 to 65,536, and 7-14 GB/s by its bytes).
"""

from pathlib import Path

import pytest

from perfcore.measure.experiments.kernels import rows as kernel_rows
from perfcore.measure.experiments.suites import SUITES
from perfcore.model.chip import kernel_kinds, kernels
from tests.support.kernels import cpu_curves, predicted_ops

MODULE = (Path(__file__).parent / "data" / "profile" / "fft.hlo").read_text("utf-8")
FLOPS = 16 * 8 * 4096 * 12  # XLA's count: 8 n log2 n a row
BYTES = 16 * 4096 * 4 + 16 * 2049 * 8


def stub_cost(text: str) -> tuple[float, float, float]:
    """(FLOPs, bytes, transcendentals) of the one-op module."""
    return FLOPS, float(BYTES), 0.0


def test_an_fft_takes_its_own_curve_by_flops():
    """6.3e6 FLOPs at 1e9 FLOP/s bound it (its 0.53 MB at 1e9 bytes/s do not): over 0.5."""
    op = predicted_ops(MODULE, cpu_curves({"fft": 0.5, "elementwise": 0.9}), 1, stub_cost)["fft.0"]
    assert op.kernel == "fft"
    assert op.predicted_s == pytest.approx(FLOPS / 1e9 / 0.5)
    assert f"fft float32 at {FLOPS:.3g} flops" in op.derived_from


def test_without_an_fft_curve_it_takes_the_published_efficiency_said_so():
    """Its size is FLOPs: no stream curve (sized by bytes) can price it."""
    op = predicted_ops(MODULE, cpu_curves({"elementwise": 0.9}), 1, stub_cost)["fft.0"]
    assert op.efficiency_source == kernels.PUBLISHED
    assert "fft" not in kernel_kinds.BASE_KIND


def test_every_base_kind_counts_its_size_in_the_same_unit():
    for kind, base in kernel_kinds.BASE_KIND.items():
        assert kernel_kinds.SIZE_UNIT[kind] == kernel_kinds.SIZE_UNIT[base], kind


def test_the_suite_takes_the_real_fft_of_rows_of_4096_at_every_other_element_count():
    suite = SUITES["quick"]
    sweep = kernel_rows.ffts(suite, "float32", 4)
    sizes = [n for n in suite.kernel_elements if n >= 4096][::2]
    assert sweep and [p.shapes for p in sweep] == [((n // 4096, 4096),) for n in sizes]
    assert [p.model.flops for p in sweep] == [n // 4096 * 8 * 4096 * 12 for n in sizes]
    assert {p.fn for p in sweep} == {"fft"} and kernel_kinds.SIZE_UNIT["fft"] == "flops"
