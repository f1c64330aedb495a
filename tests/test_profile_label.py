"""Ops named by what they do and where, from hand-written HLO text.

Each case is an instruction of tests/data/profile/labels.hlo, written the way XLA prints
one: a plain dot, a fusion holding one dot, a fusion of several elementwise ops, a reduction
(its combiner not named), a cuBLAS call, a tuple result; sources from the stack-frame table
or inline. And the scan's while loop, with the trip count XLA knew.
"""

from pathlib import Path

from perfcore.measure.profile import hlo

DATA = Path(__file__).parent / "data" / "profile"


def _label(name: str) -> str:
    module = hlo.parse_module((DATA / "labels.hlo").read_text())
    return hlo.label(module, module.instructions[name])


def test_a_dot_is_named_by_its_operands_and_its_source_line():
    assert _label("%dot.1") == "dot 256×512·512×1024, examples.py:74"


def test_a_fusion_of_one_dot_is_named_as_the_dot():
    assert _label("%fusion.1") == "dot 256×512·512×1024, examples.py:74"


def test_a_fusion_of_several_ops_names_them_in_order_without_its_broadcast():
    """multiply then add; the broadcast of a constant moves data and is left out; the source
    is the first fused instruction's that has one (the fusion itself has none)."""
    assert _label("%fusion.2") == "fusion: multiply+add 4096×1024, examples.py:80"


def test_a_reduction_is_named_by_its_result_not_its_combiner():
    assert _label("%reduce.1") == "reduce 4096, model.py:12"


def test_a_library_call_is_named_by_its_target_and_operands():
    assert _label("%gemm") == "cublas$gemm 256×512·512×1024"


def test_a_tuple_result_shows_each_array_and_a_scalar_says_so():
    assert _label("%t") == "tuple (256×1024 4096)"
    assert _label("%zero") == "constant scalar"


def test_a_while_loop_says_its_trip_count():
    """The scan of tests/data/profile: a while loop XLA knew runs 5 times."""
    module = hlo.parse_module((DATA / "cpu_scan.hlo").read_text())
    assert hlo.label(module, module.instructions["%while.5"]).startswith("while ×5")
