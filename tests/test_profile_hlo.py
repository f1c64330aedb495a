"""Reading optimized HLO text without JAX: instructions, sources, categories, library FLOPs.

Oracles: the module texts in tests/data/profile (an XLA:CPU MLP as XLA printed it; the
XLA:GPU form of a cuBLAS gemm, a Pallas kernel and a fusion), and FLOPs counted by hand.
"""

from pathlib import Path

import pytest

from perfcore.measure.profile import hlo

DATA = Path(__file__).parent / "data" / "profile"
CPU = hlo.parse_module((DATA / "cpu_mlp.hlo").read_text())
GPU = hlo.parse_module((DATA / "gpu_step.hlo").read_text())
CONV = (DATA / "cudnn_conv.hlo").read_text()  # a cuDNN forward convolution, 8×32²×16 → 64


def test_a_cpu_module_reads_its_entry_instructions_and_sources():
    """tanh(x @ w1) @ w2 on XLA:CPU: two dot fusions and a tanh between, from line 5."""
    entry = [i.name for i in CPU.computations[CPU.entry] if i.opcode not in hlo.FREE]
    assert entry == ["%ynn_fusion.1", "%wrapped_tanh", "%ynn_fusion"]
    tanh = CPU.instructions["%wrapped_tanh"]
    assert tanh.operands == ("%ynn_fusion.1",) and tanh.calls == ("%wrapped_tanh_computation",)
    assert CPU.source(tanh) == "<string>:5"


@pytest.mark.parametrize(
    ("module", "name", "category"),
    [
        (CPU, "%ynn_fusion.1", hlo.MATMUL),
        (CPU, "%wrapped_tanh", hlo.ELEMENTWISE),
        (GPU, "%custom-call.1", hlo.MATMUL),
        (GPU, "%pallas.1", hlo.CUSTOM),
        (GPU, "%loop_tanh_fusion", hlo.ELEMENTWISE),
    ],
)
def test_each_instruction_gets_its_category(module, name, category):
    assert hlo.category(module, module.instructions[name]) == category


def test_a_cublas_gemm_is_2mnk_from_its_shapes():
    """(256 x 512) @ (512 x 1024): 2·256·1024·512 = 268,435,456 FLOPs."""
    gemm = GPU.instructions["%custom-call.1"]
    assert hlo.is_library_matmul(gemm) and hlo.library_flops(GPU, gemm) == 268_435_456
    assert GPU.source(gemm) == "model.py:11"


def test_a_cudnn_convolution_counts_2_flops_per_output_per_kernel_tap():
    """8·32·32·64 outputs, each a 3·3·16 window: 2·524,288·144 = 150,994,944 FLOPs."""
    module = hlo.parse_module(CONV)
    conv = module.instructions["%cudnn-conv.1"]
    assert hlo.category(module, conv) == hlo.MATMUL
    assert hlo.library_flops(module, conv) == 150_994_944


def test_a_one_op_module_computes_the_op_from_parameters():
    text = hlo.one_op_module(CPU, CPU.instructions["%wrapped_tanh"])
    assert "%ynn_fusion.1 = f32[16,128]{1,0} parameter(0)" in text
    assert "ROOT %wrapped_tanh" in text and "%wrapped_tanh_computation" in text
    assert "stack_frame_id" not in text  # the one-op module has no source table


def test_a_one_op_module_drops_its_ordering_on_instructions_it_does_not_hold():
    line = "%copy.24 = u32[4]{0} copy(%copy.15), control-predecessors={%copy.16, %copy.2}"
    ordered = hlo.Module("m", "%main", {"%main": (hlo.parse_instruction(line, "%main"),)}, {})
    text = hlo.one_op_module(ordered, ordered.computations["%main"][0])
    assert "ROOT %copy.24 = u32[4]{0} copy(%copy.15)\n" in text
    assert "control-predecessors" not in text


def test_shapes_price_every_array_of_a_tuple():
    """(f32[256,1024], s8[4194304]): 4·262,144 + 4,194,304 = 5,242,880 bytes."""
    assert hlo.shape_bytes(GPU.instructions["%custom-call.1"].shape) == 5_242_880


def test_text_that_is_not_hlo_is_refused():
    with pytest.raises(ValueError, match="HloModule"):
        hlo.parse_module("not a module")


def test_a_loop_body_runs_its_trip_count_per_step():
    """A scan of 5 steps (XLA:CPU's while, known_trip_count 5): its body's ops run 5 times,
    the condition's 6, the entry's once."""
    module = hlo.parse_module((DATA / "cpu_scan.hlo").read_text())
    body = module.instructions["%ynn_fusion"]
    cond = module.instructions["%wrapped_compare"]
    entry = module.instructions["%copy.6"]
    assert [hlo.runs_per_step(module, i) for i in (body, cond, entry)] == [5, 6, 1]
    assert hlo.trip_count(module.instructions["%while.5"]) == 5
