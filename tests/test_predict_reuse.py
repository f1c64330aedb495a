"""predict.reuse: each operand's reuse distance in a step, worked by hand."""

from perfcore.measure.profile import hlo
from perfcore.measure.profile.predict.reuse import cold_bytes, reads

K = 1024.0  # bytes of one f32[256]
MODULE = """HloModule m, entry_computation_layout={(f32[256]{0}, f32[256]{0})->f32[256]{0}}

ENTRY %main (p0: f32[256], p1: f32[256]) -> f32[256] {
  %p0 = f32[256]{0} parameter(0)
  %p1 = f32[256]{0} parameter(1)
  %a = f32[256]{0} add(f32[256]{0} %p0, f32[256]{0} %p0)
  %b = f32[256]{0} multiply(f32[256]{0} %p1, f32[256]{0} %a)
  ROOT %c = f32[256]{0} add(f32[256]{0} %b, f32[256]{0} %p0)
}
"""


def test_each_read_is_at_the_bytes_moved_since_its_buffer_was_last_touched():
    """A step moves 9 KiB: a = p0 + p0 (2 read, 1 written), b = p1 · a (2, 1), c = b + p0 (2, 1).
    In the second step p0 was last touched by c, the step's last op (0 before a); p1 by b, 3 KiB
    before the step ended, so 3 + 3 = 6 KiB before b reads it; a by b just before (0); b by c
    (0); p0 by a, 3 KiB before c reads it."""
    step, read = reads(hlo.parse_module(MODULE))
    assert step == 9 * K
    got = [(n, b, d) for n, b, d in read]
    assert got == [
        ("a", K, 0.0),
        ("a", K, 0.0),
        ("b", K, 6 * K),
        ("b", K, 0.0),
        ("c", K, 0.0),
        ("c", K, 3 * K),
    ]
    # on a cache of 4 KiB, p1 (1 + 6 KiB) and c's p0 (1 + 3) are cold; on 5 KiB, p1; on 8, none
    assert cold_bytes(hlo.parse_module(MODULE), 4 * K) == {"b": K, "c": K}
    assert cold_bytes(hlo.parse_module(MODULE), 5 * K) == {"b": K}
    assert cold_bytes(hlo.parse_module(MODULE), 8 * K) == {}
