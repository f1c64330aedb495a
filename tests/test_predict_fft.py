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
from perfcore.measure.profile import hlo
from perfcore.measure.results import curves
from perfcore.model.chip import kernel_kinds, kernels
from tests.support.kernel_records import record
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


def test_the_suite_takes_real_and_complex_ffts_of_rows_of_4096_and_of_256x256_images():
    """Four sweeps at every other element count: rfft and fft of rows, rfft2 and fft2 of
    images; their FLOPs 8 N log2 N a transform (rows: N = 4,096, log2 12; images: N = 65,536,
    log2 16), the complex ones complex64, reading 8 bytes an element."""
    suite = SUITES["quick"]
    sweeps = kernel_rows.ffts(suite, "float32", 4)
    by_fn = {s[0].fn: s for s in sweeps}
    assert sorted(by_fn) == ["complex fft", "complex fft2", "fft", "fft2"]
    rows = [n for n in suite.kernel_elements if n >= 4096][::2]
    images = [n for n in suite.kernel_elements if n >= 65536][::2]
    for fn, dtype in (("fft", "float32"), ("complex fft", "complex64")):
        sweep = by_fn[fn]
        assert [p.shapes for p in sweep] == [((n // 4096, 4096),) for n in rows]
        assert [p.model.flops for p in sweep] == [n // 4096 * 8 * 4096 * 12 for n in rows]
        assert {p.dtype for p in sweep} == {dtype} and {p.kind for p in sweep} == {"fft"}
    for fn, dtype in (("fft2", "float32"), ("complex fft2", "complex64")):
        sweep = by_fn[fn]
        assert [p.shapes for p in sweep] == [((n // 65536, 256, 256),) for n in images]
        assert [p.model.flops for p in sweep] == [n // 65536 * 8 * 65536 * 16 for n in images]
        assert {p.dtype for p in sweep} == {dtype}
    one_image = by_fn["complex fft2"][0]  # 256x256 complex64 read and written: 8 bytes each
    assert one_image.model.bytes == 2 * 65536 * 8 * (images[0] // 65536)
    assert kernel_kinds.SIZE_UNIT["fft"] == "flops"


FFT2 = """HloModule jit_fft2, is_scheduled=true

ENTRY %main.2 (x.1: c64[4,512,512]) -> c64[4,512,512] {
  %x.1 = c64[4,512,512]{2,1,0} parameter(0)
  ROOT %fft.0 = c64[4,512,512]{2,1,0} fft(%x.1), fft_type=FFT, fft_length={512,512}
}
"""
IRFFT = """HloModule jit_irfft, is_scheduled=true

ENTRY %main.2 (x.1: c64[16,2049]) -> f32[16,4096] {
  %x.1 = c64[16,2049]{1,0} parameter(0)
  ROOT %fft.0 = f32[16,4096]{1,0} fft(%x.1), fft_type=IRFFT, fft_length={4096}
}
"""
FFT2_FLOPS = 4 * 8 * 512 * 512 * 18  # 4 transforms of N = 262,144 points: log2 N = 18


def test_an_ffts_flops_are_8_n_log2_n_of_its_points_not_xlas_product_of_logs():
    """XLA's cost model counts a 512x512 fft2 as 8 N x 9 x 9 (679 MFLOP for 4 of them, read
    off its cost_analysis on this CPU); the count here is 8 N log2 N, 18 not 81: 151 MFLOP. An
    inverse real FFT's points are its result's."""
    for module, flops in ((FFT2, FFT2_FLOPS), (IRFFT, FLOPS), (MODULE, FLOPS)):
        parsed = hlo.parse_module(module)
        fft = next(i for i in parsed.instructions.values() if i.opcode == "fft")
        assert hlo.fft_flops(parsed, fft) == pytest.approx(flops)
    priced = predicted_ops(FFT2, cpu_curves({"fft": 0.5}), 1, lambda text: (679e6, 1.6e7, 0.0))
    assert priced["fft.0"].flops == pytest.approx(FFT2_FLOPS)


def _complex_curves(one_d: float, two_d: float) -> kernels.Curves:
    """complex64 FFT points: a sweep of rows (1 dimension) at one_d and one of images (2) at
    two_d, flat over 1e2-1e10 FLOPs, against a roof of 1e9 FLOP/s."""
    points = tuple(
        kernels.Point("fft", "complex64", size, e, sweep=rank)
        for rank, e in ((1, one_d), (2, two_d))
        for size in (1e2, 1e10)
    )
    return kernels.Curves("cpu", "2026-12-07", points, (("float32", 1e9),), 1e9, "hand")


def test_a_2d_fft_reads_the_images_sweep_and_a_3d_one_the_nearest_said_so():
    op = predicted_ops(FFT2, _complex_curves(0.1, 0.4), 1, lambda t: (0.0, 1.6e7, 0.0))["fft.0"]
    assert op.kernel == "fft" and op.dtype == "complex64"
    assert op.predicted_s == pytest.approx(FFT2_FLOPS / 1e9 / 0.4)
    assert "dimensions transformed 2, on the 2 sweep" in op.derived_from
    fft3 = FFT2.replace("c64[4,512,512]", "c64[4,64,64,64]").replace("{2,1,0}", "{3,2,1,0}")
    fft3 = fft3.replace("fft_length={512,512}", "fft_length={64,64,64}")
    op = predicted_ops(fft3, _complex_curves(0.1, 0.4), 1, lambda t: (0.0, 1.6e7, 0.0))["fft.0"]
    assert op.predicted_s == pytest.approx(4 * 8 * 64**3 * 18 / 1e9 / 0.4)
    assert op.efficiency_source == kernels.NEAREST
    assert "outside the swept 1-2" in op.derived_from


def test_a_records_fft_coordinate_is_its_dimensions_transformed():
    rows = record("fft", "rfft float32 16 rows of 4096", [1e-3], shapes=((16, 4096),), n_args=0)
    images = record("fft", "fft2 4 images", [1e-3], shapes=((4, 256, 256),), n_args=0)
    assert (curves._sweep(rows), curves._sweep(images)) == (1, 2)
