"""The GPU branch, on a capture built here: a /device:GPU:0 plane whose op events name a
cuBLAS gemm custom call, a Pallas (Triton) kernel and an XLA fusion of one module.

The module's HLO (tests/data/profile/gpu_step.hlo) is what XLA:GPU emits for
tanh(pallas(x @ w)): the gemm runs as `__cublas$gemm`, priced from its shapes; the Pallas
call has no cost model and must be reported so, never as 0 FLOPs.
"""

from pathlib import Path

import pytest

from perfcore.measure.profile import hlo
from perfcore.measure.profile.hlo import xla_private
from perfcore.measure.profile.judge import join, price
from perfcore.measure.profile.judge.assess import assess, spec_roofs
from perfcore.measure.profile.read import capture, write
from perfcore.model.chip.specs import load_specs

HLO = Path(__file__).parent / "data" / "profile" / "gpu_step.hlo"
DEVICE = "NVIDIA H100 80GB HBM3"
OPS = (("custom-call.1", 50_000), ("pallas.1", 20_000), ("loop_tanh_fusion", 10_000))


@pytest.fixture(scope="module")
def joined():
    """Three steps of the module, each op once per step, 2 µs apart, 30 µs between steps."""
    events, t = [], 1_000
    for run in range(3):
        for op, duration in OPS:
            events.append(write.OpEvent(op, "jit_step", 7, 100 + run, t, duration))
            t += duration + 2_000
        t += 30_000
    proto = xla_private.module_proto(HLO.read_text())
    data = write.xspace({("jit_step", 7): proto}, events, device_stats={"device_name": DEVICE})
    return join.join(capture.parse_capture(data, "gpu.xplane.pb"))


def test_a_gpu_capture_reads_as_gpu_on_its_device(joined):
    assert joined.backend == "gpu" and joined.devices == (DEVICE,)


def test_a_cublas_gemm_gets_2mnk_from_its_shapes(joined):
    """x 256 x 512 @ w 512 x 1024: 2·256·1024·512 = 268,435,456 FLOPs; it reads x and w
    (4·(256·512 + 512·1024) = 2,621,440 bytes) and writes the product (4·256·1024 =
    1,048,576), its s8 scratch buffer not counted: 3,670,016 bytes."""
    gemm = next(o for o in joined.ops if o.name == "custom-call.1")
    assert gemm.category == hlo.MATMUL and gemm.cost_source == price.SHAPES
    assert gemm.flops == 268_435_456 and gemm.bytes == 3_670_016
    assert gemm.source == "model.py:11"


def test_a_pallas_kernel_has_no_cost_model_not_zero_flops(joined):
    pallas = next(o for o in joined.ops if o.name == "pallas.1")
    assert pallas.category == hlo.CUSTOM and pallas.flops is None
    assert pallas.cost_source == price.NO_COST
    assert "no cost model" in assess(pallas, None).diagnosis
    assert "no cost model for pallas.1" in " ".join(joined.programs[0].notes)


def test_gpu_ops_sit_under_the_matched_spec_roof(joined):
    """The gemm: 268,435,456 FLOPs in 50 µs = 5.37 TFLOP/s at intensity 268,435,456 /
    3,670,016 = 73 FLOP/B, above the H100 SXM fp32 ridge (67 TFLOP/s / 3.35 TB/s = 20 FLOP/B),
    so the fp32 roof bounds it, at 5.37 / 67 = 8.0 % of it."""
    specs = load_specs()
    device = next(d for d in specs.values() if "H100" in d.name and "SXM" in d.name)
    gemm = next(o for o in joined.ops if o.name == "custom-call.1")
    a = assess(gemm, spec_roofs(device))
    assert a.bound == "compute"
    assert a.fraction == pytest.approx(0.080, abs=0.001)


def test_gpu_steps_keep_their_idle_gaps(joined):
    """Each step: 80 µs of ops over an 84 µs span (two 2 µs gaps)."""
    g = joined.programs[0]
    assert g.steps == 3
    assert g.busy_s == pytest.approx((80e-6,) * 3) and g.span_s == pytest.approx((84e-6,) * 3)
    assert g.wall_s == (None, None, None)  # no host dispatch events in this capture


def test_a_gemm_launching_two_kernels_is_still_one_run_of_its_flops():
    """cuBLAS may split one gemm into two kernels (a split-K reduction): two events per step
    for one instruction outside any loop. Its time is both kernels', its FLOPs one gemm's."""
    events = []
    for run in range(2):
        t = 1_000_000 * run
        events += [
            write.OpEvent("custom-call.1", "jit_step", 7, run, t, 40_000),
            write.OpEvent("custom-call.1", "jit_step", 7, run, t + 41_000, 5_000),
        ]
    proto = xla_private.module_proto(HLO.read_text())
    data = write.xspace({("jit_step", 7): proto}, events)
    (gemm,) = join.join(capture.parse_capture(data, "split.xplane.pb")).ops
    assert gemm.occurrences == 1 and gemm.flops == 268_435_456
    assert gemm.samples_s == pytest.approx((45e-6, 45e-6))
