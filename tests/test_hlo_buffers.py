"""Buffer assignment: its dump read into slices, and the waits its reuse adds to XLA:CPU's
execution graph (an op waits for every earlier op that writes what it reads or writes, or reads
what it writes), as graph.nodes and the schedule take them; the dump read off a real compile."""

import dataclasses

from perfcore.measure.profile import hlo
from perfcore.measure.profile.hlo import buffers
from perfcore.measure.profile.predict import graph
from perfcore.measure.profile.predict import program as predict
from perfcore.model.chip import concurrency

# The shape of XLA's `*-buffer-assignment.txt` (values named <id instruction @position>):
# allocation 0 holds x's value, then y's where x is dead; `s` is thread-local scratch.
ASSIGNMENT = """BufferAssignment:
allocation 0: size 4096, maybe-live-out:
 value: <3 x @0> (size=4096,offset=0): f32[32,32]{1,0}
 value: <5 y @0> (size=1024,offset=1024): f32[16,16]{1,0}
allocation 1: size 4096, parameter 0, shape |f32[32,32]| at ShapeIndex {}:
 value: <0 p @0> (size=4096,offset=0): f32[32,32]{1,0}
allocation 2: size 4096, maybe-live-out:
 value: <4 z @0> (size=4096,offset=0): f32[32,32]{1,0}
 value: <6 out{} @0> (size=16,offset=0): (f32[32,32]{1,0}, f32[16,16]{1,0})
allocation 3: size 4, thread-local:
 value: <7 s @0> (size=4,offset=0): f32[]
"""

# x = exp(p); z = x + x; y = a slice of p, written where x lay: y waits for z, which reads x
MODULE = hlo.parse_module(
    """HloModule m, is_scheduled=true

ENTRY %main (p: f32[32,32]) -> (f32[32,32], f32[16,16]) {
  %p = f32[32,32]{1,0} parameter(0)
  %x = f32[32,32]{1,0} exponential(%p)
  %z = f32[32,32]{1,0} add(%x, %x)
  %y = f32[16,16]{1,0} slice(%p), slice={[0:16], [0:16]}
  ROOT %out = (f32[32,32]{1,0}, f32[16,16]{1,0}) tuple(%z, %y)
}
"""
)


def test_a_dump_reads_as_each_instructions_slices_scratch_left_out():
    placed = buffers.slices(ASSIGNMENT)
    assert placed["x"] == ((0, 0, 4096),) and placed["y"] == ((0, 1024, 2048),)
    assert placed["out"] == ((2, 0, 16),)  # a tuple's index table, under its name
    assert "s" not in placed  # thread-local: no other op touches it


def test_an_op_waits_for_earlier_ops_that_write_what_it_reads_or_read_what_it_writes():
    ops = [
        ("w", [], [(0, 0, 100)]),  # writes bytes 0-100
        ("r", [(0, 50, 60)], [(1, 0, 8)]),  # reads inside them: waits for w
        ("o", [(0, 200, 300)], [(0, 100, 200)]),  # touches neither: waits for no one
        ("v", [], [(0, 55, 56)]),  # overwrites what w wrote and r read: waits for both
        ("q", [(1, 0, 8)], []),  # reads r's result: waits for r
    ]
    assert buffers.conflicts(ops) == {
        "w": (),
        "r": ("w",),
        "o": (),
        "v": ("w", "r"),
        "q": ("r",),
    }


def test_reuse_adds_a_wait_the_data_flow_does_not_have_and_the_schedule_keeps_it():
    """y reads only p, but is written where x lies, which z reads: XLA's runtime makes y wait
    for z. Without the assignment y and z are independent and run side by side."""
    placed = buffers.slices(ASSIGNMENT)
    assert graph.waits(MODULE, placed)["y"] == ("x", "z")
    seconds = {"x": 1.0, "z": 2.0, "y": 2.0}
    free = {n.name: n for n in graph.nodes(MODULE, seconds, 2)}
    ordered = {n.name: n for n in graph.nodes(MODULE, seconds, 2, placed)}
    assert "z" not in free["y"].after and "z" in ordered["y"].after
    handed = tuple(dataclasses.replace(n, hands_off=True) for n in ordered.values())
    spans = concurrency.simulate(handed, 2)
    assert spans["y"][0] == spans["z"][1] == 3.0  # y starts when z ends, though both could


def test_the_allocations_mapped_afresh_are_the_arena_and_outputs_not_a_parameters():
    """Allocations 0 and 2 are outputs (maybe-live-out) of 4 KiB; 1 is a parameter's, 3 an
    op's scratch."""
    assert buffers.mapped(ASSIGNMENT, 4096) == {0, 2}
    assert buffers.mapped(ASSIGNMENT, 4097) == set()  # none that large
    arena = "allocation 7: size 40000000, preallocated-temp:\n"
    handed_back = "allocation 8: size 40000000, parameter 0, maybe-live-out:\n"
    assert buffers.mapped(arena + handed_back, 2**25) == {7}


def test_the_first_op_to_write_a_fresh_page_takes_its_fault_and_the_schedule_charges_it():
    """Program order: x writes bytes 0-4096 of allocation 0, z all of allocation 2, then y
    bytes 1024-2048 of allocation 0, which x has touched already: y faults nothing."""
    placed = buffers.slices(ASSIGNMENT)
    assert graph.first_writes(MODULE, placed, {0, 2}) == {"x": 4096.0, "z": 4096.0}
    assert graph.first_writes(MODULE, placed, {2}) == {"z": 4096.0}
    assert graph.first_writes(MODULE, placed, set()) == {}
    seconds = {"x": 1.0, "z": 2.0, "y": 2.0}
    nodes = {n.name: n for n in graph.nodes(MODULE, seconds, 2, placed, faults={"x": 0.5})}
    assert nodes["x"].threads == 1 and nodes["x"].seconds == 1.5  # its one thread faults
    assert nodes["z"].seconds == 2.0


def test_a_compile_with_the_dump_options_writes_the_assignment_of_its_module(tmp_path):
    import jax
    import jax.numpy as jnp

    def f(a, b):
        return jnp.tanh(a @ b) + 1.0

    args = (jnp.ones((64, 64)), jnp.ones((64, 64)))
    jax.jit(f).lower(*args).compile(compiler_options=predict.dump_options(str(tmp_path)))
    (name, text), *_ = predict.read_assignments(tmp_path).items()
    assert name == "jit_f" and text.startswith("BufferAssignment:")
    placed = buffers.slices(text)
    assert any(n.startswith(("dot", "ynn_fusion", "fusion")) for n in placed)
    assert all(start < end for slices in placed.values() for _, start, end in slices)


COPIES = hlo.parse_module(
    """HloModule c, is_scheduled=true

ENTRY %main (a: f32[1024,1024], s: f32[256,256]) -> (f32[1024,1024], f32[1024,1024], f32[256,256]) {
  %a = f32[1024,1024]{1,0} parameter(0)
  %s = f32[256,256]{1,0} parameter(1)
  %big = f32[1024,1024]{1,0} copy(%a)
  %turned = f32[1024,1024]{0,1} copy(%a)
  %small = f32[256,256]{1,0} copy(%s)
  ROOT %out = (f32[1024,1024], f32[1024,1024], f32[256,256]) tuple(%big, %turned, %small)
}
"""
)


def test_a_memcpy_of_a_mib_or_more_runs_in_blocks_on_the_pool_and_hands_off():
    """CopyThunk: 4 MiB kept in its layout, 4 blocks (2 threads on 2 cores), its thread let go;
    the same into another layout, and 256 KiB, run whole on one thread."""
    nodes = {n.name: n for n in graph.nodes(COPIES, {}, 2)}
    assert [
        hlo.copy_blocks(COPIES, COPIES.instructions[f"%{k}"]) for k in ("big", "turned", "small")
    ] == [4, 1, 1]
    assert (nodes["big"].threads, nodes["big"].hands_off) == (2, True)
    assert [(nodes[k].threads, nodes[k].hands_off) for k in ("turned", "small")] == [(1, False)] * 2


def _called(partitions: str) -> hlo.Module:
    """An entry that calls a body of two independent loop kernels over `partitions`."""
    config = f'backend_config={{"outer_dimension_partitions":[{partitions}]}}'
    return hlo.parse_module(
        f"""HloModule n, is_scheduled=true

%body (p: f32[512,512]) -> (f32[512,512], f32[512,512]) {{
  %p = f32[512,512]{{1,0}} parameter(0)
  %a = f32[512,512]{{1,0}} fusion(%p), kind=kLoop, calls=%fa, {config}
  %b = f32[512,512]{{1,0}} fusion(%p), kind=kLoop, calls=%fb, {config}
  %c = f32[512,512]{{1,0}} fusion(%p), kind=kLoop, calls=%fc, {config}
  %d = f32[512,512]{{1,0}} fusion(%p), kind=kLoop, calls=%fd, {config}
  %e = f32[512,512]{{1,0}} fusion(%p), kind=kLoop, calls=%fe, {config}
  %f = f32[512,512]{{1,0}} fusion(%p), kind=kLoop, calls=%ff, {config}
  %g = f32[512,512]{{1,0}} fusion(%p), kind=kLoop, calls=%fg, {config}
  %h = f32[512,512]{{1,0}} fusion(%p), kind=kLoop, calls=%fh, {config}
  %i = f32[512,512]{{1,0}} fusion(%p), kind=kLoop, calls=%fi, {config}
  ROOT %t = (f32[512,512], f32[512,512]) tuple(%a, %h)
}}

ENTRY %main (x: f32[512,512]) -> (f32[512,512], f32[512,512]) {{
  %x = f32[512,512]{{1,0}} parameter(0)
  ROOT %r = (f32[512,512], f32[512,512]) call(%x), to_apply=%body
}}
"""
    )


def test_a_calls_body_is_scheduled_by_its_own_executor_not_summed():
    """Nine independent 1 s kernels in a called body (more than the 8 XLA runs in order) on 8
    cores: split over 2 threads each, they hand off and share the cores, 18 core-seconds over
    8 (2.25 s); on one thread each, they hold the nested executor's thread: after the first,
    eight wait, so none is split off, and they run in turn (9 s)."""
    seconds = dict.fromkeys("abcdefghi", 1.0)
    split = {n.name: n for n in graph.nodes(_called('"2"'), seconds, 8)}
    whole = {n.name: n for n in graph.nodes(_called(""), seconds, 8)}
    assert split["r"].seconds == 2.25 and whole["r"].seconds == 9.0


LOOP = hlo.parse_module(
    """HloModule w, is_scheduled=true

%body (p: (s32[], f32[8])) -> (s32[], f32[8]) {
  %p = (s32[], f32[8]) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %v = f32[8]{0} get-tuple-element(%p), index=1
  %e = f32[8]{0} exponential(%v)
  ROOT %t = (s32[], f32[8]) tuple(%i, %e)
}

%cond (q: (s32[], f32[8])) -> pred[] {
  %q = (s32[], f32[8]) parameter(0)
  %j = s32[] get-tuple-element(%q), index=0
  %c = s32[] constant(4)
  ROOT %lt = pred[] compare(%j, %c), direction=LT
}

ENTRY %main (a: f32[8]) -> (s32[], f32[8]) {
  %a = f32[8]{0} parameter(0)
  %z = s32[] constant(0)
  %init = (s32[], f32[8]) tuple(%z, %a)
  ROOT %w = (s32[], f32[8]) while(%init), condition=%cond, body=%body
}
"""
)


def test_a_loop_takes_the_faults_of_what_its_body_writes_first():
    """The body's exp writes the fresh arena's 32 bytes: the while op that runs it takes them."""
    dump = (
        "allocation 0: size 32, preallocated-temp:\n"
        " value: <5 e @0> (size=32,offset=0): f32[8]{0}\n"
    )
    placed = buffers.slices(dump)
    assert graph.first_writes(LOOP, placed, buffers.mapped(dump, 32)) == {"w": 32.0}
