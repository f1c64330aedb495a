"""Every row of data/specs.csv draws the per-device charts: the slow tier's full sweep of what
the fast tier checks on a device of each vendor (tests.support.devices.representative)."""

from tests.support.devices import representative, unpublished
from tests.support.figures import occupancy_charts_draw, precision_charts_draw


def test_every_device_builds_both_precision_charts(specs):
    assert [d.name for d in specs.values() if not precision_charts_draw(d)] == []


def test_every_device_builds_both_occupancy_charts(specs):
    v100 = specs["NVIDIA V100 SXM2"]
    assert [d.name for d in specs.values() if not occupancy_charts_draw(d, v100)] == []


def test_the_representative_rows_hold_each_vendors_sparsest_and_the_fullest_row(specs):
    chosen = representative(specs)
    assert len(chosen) < len(specs) / 2
    for vendor in {d.vendor for d in specs.values()}:
        rows = [d for d in specs.values() if d.vendor == vendor]
        sparsest = max(map(unpublished, rows))
        assert any(d.vendor == vendor and unpublished(d) == sparsest for d in chosen), vendor
    assert min(map(unpublished, chosen)) == min(map(unpublished, specs.values()))
