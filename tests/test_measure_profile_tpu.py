"""The TPU branch, on a real capture: the built-in transformer block profiled on a TPU v5e
(tests/data/profile/tpu_transformer.xplane.pb, three steps, made by jax.profiler.trace there).

A TPU's device plane names each op event by its instruction's text (`%fusion.24 = f32[...]
fusion(...)`) on its XLA Ops line, with no `hlo_op` stat; the program and run are those of
the module event around it (`jit_block(6534930182662670041)` on the XLA Modules line). Its
Async XLA Ops line spans each async op from start to done (`hlo_op` names the done): time on
the DMA engines, not the core's, so not an op's time.
"""

from pathlib import Path

import pytest

from perfcore.measure.profile import hlo
from perfcore.measure.profile.hlo import xla_private
from perfcore.measure.profile.judge import join, price
from perfcore.measure.profile.judge.assess import assess, roofs_for
from perfcore.measure.profile.read import capture
from perfcore.model.chip import kernels
from perfcore.model.chip.specs import load_specs

CAPTURE = Path(__file__).parent / "data" / "profile" / "tpu_transformer.xplane.pb"
KERNELS = CAPTURE.parent / "kernels_tpu.json"  # the kernels suite, run on that TPU
PROGRAM = ("jit_block", 6534930182662670041)


@pytest.fixture(scope="module")
def read():
    return capture.read_capture(CAPTURE)


@pytest.fixture(scope="module")
def joined(read):
    return join.join(read)


def test_a_tpu_capture_reads_its_xla_ops_in_the_module_events_around_them(read):
    events = read.events
    assert read.backend == "tpu" and read.devices == ("TPU v5 Lite",)
    assert set(events.modules) == {"jit_block"} and set(events.program_id.tolist()) == {PROGRAM[1]}
    assert sorted(set(events.run_id.tolist())) == [17, 18, 19]  # three steps, each its run
    assert len(events) == 90  # 30 ops a step: the XLA Ops line, not the async spans
    assert PROGRAM in read.modules  # the module's HLO is embedded: every op is found in it


def test_async_spans_are_not_op_time_the_step_is_its_ops_back_to_back(joined):
    (step,) = joined.programs
    # the copy-start of a 1 MiB prefetch spans 6.6 µs to its done; the step is 8.03 µs, its
    # ops 7.91 µs of it: the spans would have counted that prefetch's time twice
    assert step.steps == 3
    for busy, span, ops in zip(step.busy_s, step.span_s, step.op_s, strict=True):
        assert busy == pytest.approx(7.91e-6, abs=0.25e-6) and span == pytest.approx(
            8.1e-6, abs=0.3e-6
        )
        assert ops == pytest.approx(busy, rel=0.01) and busy <= span


def test_the_devices_profiler_name_matches_its_spec_row_in_any_case(read):
    roofs = roofs_for(read.devices[0], load_specs())
    assert roofs is not None and roofs.label.startswith("Google TPU v5e")


def test_every_op_is_in_the_hlo_and_an_async_wait_is_its_start_s_wait(joined):
    sources = {op.name: op.cost_source for op in joined.ops}
    assert price.NOT_IN_HLO not in sources.values()
    assert sources["copy-done"] == price.ASYNC_WAIT and sources["slice-done.3"] == price.ASYNC_WAIT
    assert sources["fusion.24"] == price.COST_MODEL and sources["copy.3"] == price.COST_MODEL
    assert sources["online-softmax"] == price.NO_COST  # a Mosaic kernel: time only
    done = next(op for op in joined.ops if op.name == "copy-done")
    assert "async op's wait" in assess(done, None).diagnosis


def test_the_matmul_fusions_run_2mnk_flops_under_the_bf16_roof(joined):
    roofs = roofs_for("TPU v5 Lite", load_specs())
    qkv = next(op for op in joined.ops if op.name == "fusion.24")  # x (128×256) · W (256×768)
    assert qkv.flops == pytest.approx(2 * 128 * 256 * 768, rel=0.03)
    assert qkv.occurrences == 1 and qkv.median_s == pytest.approx(2.15e-6, rel=0.05)
    # float32 dots at JAX's default precision: bfloat16 passes on a TPU, held to that roof
    matmuls = [op for op in joined.ops if op.category == "matmul/conv"]
    assert matmuls and {op.precision for op in matmuls} == {"bf16"}
    placed = [f for op in matmuls if (f := assess(op, roofs).fraction) is not None]
    assert len(placed) >= 2 and max(placed) < 1  # the rest read VMEM alone: no HBM roof


def test_operands_a_tpu_holds_in_vmem_are_not_device_memory_traffic(joined):
    # fusion.15 reads four operands XLA prefetched into VMEM (S(1)) and writes its
    # 128×256 float32 result to HBM: 135 MFLOP in 1.30 µs would need 1.92 TB/s of HBM
    # (2.3 × the v5e's 819 GB/s) if those reads were HBM's
    out = next(op for op in joined.ops if op.name == "fusion.15")
    assert out.bytes >= 128 * 256 * 4 and out.bytes_per_s < 819e9


def instruction(module, name: str):
    return next(i for c in module.computations.values() for i in c if i.name.lstrip("%") == name)


def test_an_op_xla_will_not_read_alone_keeps_its_bytes_and_has_no_cost_model(read):
    def refuses(text):
        raise hlo.Unreadable("AsyncUpdate and AsyncDone expect a single async op")

    module = hlo.parse_module(xla_private.module_text(read.modules[PROGRAM]))
    priced = price.price(module, instruction(module, "fusion.24"), refuses)
    assert priced.cost_source == price.NO_COST and priced.flops is None
    assert priced.bytes >= 256 * 768 * 4  # the qkv weight it reads from device memory


def test_an_async_copy_or_slice_start_is_an_issue_with_no_core_work_and_its_done_a_wait(read):
    module = hlo.parse_module(xla_private.module_text(read.modules[PROGRAM]))
    for name in ("copy-start", "slice-start"):  # a copy-start; an async-start of a slice
        start = instruction(module, name)
        assert hlo.category(module, start) == hlo.DATA
        priced = price.price(module, start, xla_private.cost)
        assert priced.cost_source == price.ASYNC_MOVE and priced.flops is None
    done = price.price(module, instruction(module, "slice-done"), xla_private.cost)
    assert done.cost_source == price.ASYNC_WAIT
    fusion = price.price(module, instruction(module, "fusion.24"), xla_private.cost)
    assert fusion.cost_source == price.COST_MODEL and fusion.flops > 0


def test_a_tpus_dots_written_as_convolutions_are_priced_as_matmuls(read):
    """A TPU writes every dot as a convolution (dim_labels=bf_io->bf; a batched dot's batch as
    a spatial dimension under a dilated window): JAX's op_name says dot_general."""
    from perfcore.measure.profile.predict import kinds, matmuls

    module = hlo.parse_module(xla_private.module_text(read.modules[PROGRAM]))
    qkv = price.price(module, instruction(module, "fusion.24"), xla_private.cost)
    assert kinds.kernel_kind(module, qkv.instruction, qkv) == "matmul"
    (dot,) = kinds.dots(module, qkv.instruction)
    assert matmuls.conv_flops(module, dot) == 2 * 128 * 768 * 256  # x·W_qkv: 128×256 · 256×768
    scores = price.price(module, instruction(module, "fusion.10"), xla_private.cost)
    (batched,) = kinds.dots(module, scores.instruction)
    assert kinds.kernel_kind(module, scores.instruction, scores) == "batched matmul"
    assert matmuls.dot_instances(module, batched) == 4  # one per head
    assert matmuls.conv_flops(module, batched) == 4 * 2 * 128 * 128 * 64  # one tap, not 4


def test_the_captured_step_predicted_offline_from_the_tpus_own_kernel_curves(read, joined):
    """The capture's module priced on this machine with the curves measured on the same TPU
    (tests/data/profile/kernels_tpu.json): every dot on a matmul curve measured at its size
    but the narrow ones below their sweep's sizes, said so (fusion.15's 128 x 256 · 256 x 1024:
    the side-128 sweep starts at 128 x 1024 · 1024 x 1024), the async moves' issues and waits
    left out, the launch the fastest measured (the module returns one array: no tuple's
    launch, which that suite measured 178 µs above a one-result program's 423 µs)."""
    from perfcore.measure.profile.predict import op
    from perfcore.measure.profile.predict.program import predict_modules
    from perfcore.measure.results import curves, load_results

    tpu = curves.curves(load_results(KERNELS))
    text = xla_private.module_text(read.modules[PROGRAM])
    got = predict_modules([text], tpu.device, tpu, 5, xla_private.cost)
    by = {o.name: o for o in got.ops}
    dots = [o for o in got.ops if o.category == hlo.MATMUL]
    assert {o.kernel for o in dots} == {"matmul", "batched matmul"}
    below = {o.name for o in dots if o.efficiency_source == kernels.NEAREST}
    assert below == {
        "fusion.15"
    } and "smallest side 128, on the 128 sweep outside the measured" in (
        by["fusion.15"].derived_from
    )
    assert {o.efficiency_source for o in dots if o.name not in below} == {kernels.MEASURED}
    for name in ("copy-start", "slice-start", "copy-done", "slice-done"):
        assert by[name].predicted_s is None
    for name in ("copy.3", "multiply_reduce_fusion"):  # VMEM in, VMEM out: no roof bounds it
        assert by[name].predicted_s is None and by[name].derived_from == op.NO_TRAFFIC
    assert by["fusion.39"].predicted_s > 0  # a matmul on VMEM operands: the compute roof
    fastest = min(r.measurement.min for r in load_results(KERNELS) if r.kernel == "dispatch")
    assert got.dispatch_s == pytest.approx(tpu.dispatch(5)) and tpu.dispatch_s <= fastest
    assert tpu.dispatch_results_s > 0.25 * tpu.dispatch_s
    # the ops' sum against the 7.91 µs the device was busy a step: within 2x either way
    # (the 3x3-convolution pricing of these dots put one fusion alone at 48 µs)
    (step,) = joined.programs
    assert 0.5 < got.op_s / step.busy_s[0] < 2


VMEM_DOTS = CAPTURE.parent / "tpu_vmem_dots.hlo"


def test_dots_inside_a_fusion_read_the_weights_a_tpu_prefetched_into_vmem_for_nothing():
    """An MLP's up and down projections fused into one op on a TPU v5e (a decode layer's, 8
    rows: tests/data/profile/tpu_vmem_dots.hlo, from bench/zoo_idioms.py's
    decode_dynamic_update). XLA:TPU prefetched both 4 MiB weights into VMEM (S(1)) and the
    dots read them through bitcast fusions, so each dot moves only its activations in device
    memory: the up projection writes 8 x 2,048 floats (65,536 bytes), the down projection reads
    them as bfloat16 (32,768) and writes 8 x 512 floats (16,384). Priced on the 4 MiB they
    stream from memory, the fusion was 16 µs; it took 1.1 µs there."""
    from perfcore.measure.profile.predict import fused, kinds
    from perfcore.measure.profile.predict.program import predict_modules
    from perfcore.measure.results import curves, load_results

    text = VMEM_DOTS.read_text()
    module = hlo.parse_module(text)
    up, down = kinds.dots(module, module.instructions["%fusion.80"])
    assert fused.dot_bytes(module, up) == 65_536
    assert fused.dot_bytes(module, down) == 32_768 + 16_384
    tpu = curves.curves(load_results(KERNELS))
    got = predict_modules([text], tpu.device, tpu, 3, xla_private.cost)
    (fusion,) = [o for o in got.ops if o.name == "fusion.80"]
    assert 0 < fusion.predicted_s < 2e-6


def test_a_step_lasts_at_least_as_long_as_its_async_moves_take_at_the_memory_roof(read):
    """The moves a TPU's DMA engines run beside the core's ops (hlo.move_bytes): a prefetch
    reads its destination's bytes from device memory, and a cross-program prefetch nothing a
    call (XLA:TPU keeps its buffer in VMEM from one run to the next). The captured block's
    prefetches, by hand from its HLO: 131,072 + 262,144 (copies of 128 x 256 and 256 x 256
    floats) + 4 x 262,144 (slices of 64 x 1024 floats) = 1,441,792 bytes (its 1024 x 256
    weight, 1 MiB, is the cross-program one), 1.76 µs at the suite's 819 GB/s, shorter than
    its ops (4.8 µs): the ops set the step. The fixture's two prefetched 4 MiB weights take
    10.2 µs beside a 0.5 µs fusion: they set it, and the step says so (its input's prefetch is
    cross-program: 0 bytes)."""
    from perfcore.measure.profile.predict.program import predict_modules
    from perfcore.measure.results import curves, load_results

    tpu = curves.curves(load_results(KERNELS))
    text = xla_private.module_text(read.modules[PROGRAM])
    module = hlo.parse_module(text)
    moved = [hlo.move_bytes(module, i) for i in module.instructions.values()]
    assert sum(moved) == 1_441_792
    block = predict_modules([text], tpu.device, tpu, 5, xla_private.cost)
    assert block.dma_s == pytest.approx(1_441_792 / tpu.bytes_per_s)
    assert block.ops_step_s == pytest.approx(block.op_s) and "async" not in block.step_from
    mlp_module = hlo.parse_module(VMEM_DOTS.read_text())
    assert hlo.move_bytes(mlp_module, mlp_module.instructions["%copy-start.2"]) == 0
    mlp = predict_modules([VMEM_DOTS.read_text()], tpu.device, tpu, 3, xla_private.cost)
    assert mlp.dma_s == pytest.approx(2 * 4 * 2**20 / tpu.bytes_per_s)
    assert mlp.op_s < mlp.dma_s and mlp.ops_step_s == mlp.dma_s
    assert "move 8.0 MiB" in mlp.step_from
