"""Collectives: all-reduce = reduce-scatter + all-gather, conventions, algbw/busbw."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfcore.model.chip.comm import (
    algbw,
    alpha_beta_time,
    busbw,
    collective_bytes,
    hierarchical_allreduce,
    link_bytes_per_s,
    ring_allreduce_bytes,
    transfer_time,
)

sizes = st.floats(min_value=1, max_value=1e13, allow_nan=False)
ranks = st.integers(min_value=1, max_value=4096)


@given(sizes, ranks)
def test_allreduce_bytes_equal_reduce_scatter_plus_all_gather(s, n):
    rs, ag = collective_bytes("reduce-scatter", s, n), collective_bytes("all-gather", s, n)
    assert ring_allreduce_bytes(s, n) == pytest.approx(rs + ag)


def test_an_8_rank_ring_allreduce_of_1_gb_sends_1_75_gb_per_rank():
    """Patarasuk & Yuan's ring: 2(N-1)/N x S per rank, 2 x 7/8 x 1e9 = 1.75e9 bytes."""
    assert ring_allreduce_bytes(1e9, 8) == pytest.approx(1.75e9, rel=1e-12)


@given(sizes, st.integers(min_value=2, max_value=4096))
def test_allreduce_sends_between_one_and_two_buffers(s, n):
    assert s <= ring_allreduce_bytes(s, n) < 2 * s


def test_one_rank_sends_nothing():
    assert ring_allreduce_bytes(1e9, 1) == 0.0


def test_per_direction_halves_a_marketed_both_directions_figure():
    assert link_bytes_per_s(900e9, "as-marketed") == 900e9
    assert link_bytes_per_s(900e9, "per-direction") == 450e9
    with pytest.raises(ValueError, match="convention"):
        link_bytes_per_s(900e9, "sideways")


@pytest.mark.parametrize(
    ("collective", "factor"),
    [("all-reduce", 1.75), ("reduce-scatter", 0.875), ("all-gather", 0.875), ("all-to-all", 0.875)],
)
def test_busbw_uses_nccl_tests_published_factors_for_8_ranks(collective, factor):
    """nccl-tests' PERFORMANCE.md: busbw = algbw x 2(n-1)/n for all-reduce, (n-1)/n for
    reduce-scatter, all-gather and all-to-all; n = 8 gives 1.75 and 0.875. 14 GB in 0.1 s is
    an algbw of 140 GB/s."""
    a = algbw(14e9, 0.1)
    assert a == pytest.approx(140e9)
    assert busbw(a, collective, 8) == pytest.approx(140e9 * factor)


def test_alpha_beta_adds_a_latency_per_step():
    assert alpha_beta_time(1e9, 1e9, 1e-6, 14) == pytest.approx(1 + 14e-6)
    assert transfer_time(1e9, 1e9) == 1


@given(sizes, st.integers(2, 16), st.integers(2, 64))
def test_hierarchical_shares_sum_to_one_and_the_network_leg_carries_the_shard(s, g, nodes):
    ar = hierarchical_allreduce(s, g, nodes, 900e9, 50e9)
    assert ar.inter.bytes_per_gpu == pytest.approx(2 * (nodes - 1) / nodes * s / g)
    assert ar.seconds == pytest.approx(ar.intra.seconds + ar.inter.seconds)
    assert 0 < ar.network_share < 1


def test_hierarchical_with_latency_adds_each_legs_steps():
    """By hand, 1 GB over 8 GPUs x 4 nodes: in the node 2 x 7/8 x 1e9 = 1.75e9 bytes at
    900 GB/s = 1.9444 ms plus 14 hops x 2 µs; across nodes 2 x 3/4 x 1e9/8 = 1.875e8 bytes at
    50 GB/s = 3.75 ms plus 6 hops x 5 µs."""
    ar = hierarchical_allreduce(1e9, 8, 4, 900e9, 50e9, 2e-6, 5e-6)
    assert ar.intra.seconds == pytest.approx(1.944444e-3 + 28e-6, rel=1e-6)
    assert ar.inter.seconds == pytest.approx(3.75e-3 + 30e-6, rel=1e-6)


def test_pipelined_legs_reach_the_rail_bandwidth_nccl_does():
    """A rail-aligned ring over 32 DGX H100s (8 GPUs, 450 GB/s NVLink, 50 GB/s NIC each), 1 GB:
    in-node 2 x 7/8 x 1e9 / 450e9 = 3.8889 ms, network 2 x 31/32 x 1e9/8 / 50e9 = 4.8438 ms.
    NCCL streams chunks through both at once: 4.8438 ms, a busbw of 1e9 / 4.8438 ms x 2 x
    255/256 = 411 GB/s ~ min(450, 8 x 50); the legs in turn take 8.7326 ms (228 GB/s)."""
    ar = hierarchical_allreduce(1e9, 8, 32, 450e9, 50e9)
    assert ar.pipelined_s == pytest.approx(4.84375e-3, rel=1e-9)
    assert ar.seconds == pytest.approx(3.888889e-3 + 4.84375e-3, rel=1e-6)
    bus = busbw(algbw(1e9, ar.pipelined_s), "all-reduce", 256)
    assert bus == pytest.approx(411.29e9, rel=1e-4)
