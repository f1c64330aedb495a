"""The home page's quick calculator and its computed takeaway."""

from perfcore.explain import home


def test_quick_calc_reproduces_the_seed_matmul(h100):
    e = home.quick_calc(h100, "fp16", 2 * 4096**3, 3 * 4096**2 * 2)
    assert (round(e.intensity), e.limiter, e.attainable_flops_per_s) == (1365, "compute", 990e12)


def test_unpublished_peak_gives_no_verdict(specs):
    assert home.quick_calc(specs["NVIDIA V100 SXM2"], "fp8", 1e9, 1e6) is None


def test_takeaway_follows_the_numbers(h100):
    memory = home.takeaway(home.quick_calc(h100, "fp16", 1e9, 1e9))
    compute = home.takeaway(home.quick_calc(h100, "fp16", 1e12, 1e9))
    assert "memory-bound" in memory and "296x below" in memory
    assert "compute-bound" in compute and "3.4x above" in compute
