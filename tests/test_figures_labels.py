"""Label placement: beside its anchor, inside the plot, no two labels over each other, the
same every time, and a label with no free spot left out rather than drawn over another."""

import itertools

from perfcore.figures.measure import labels

BOUNDS = (0.0, 0.0, 400.0, 300.0)


def _free(boxes):
    placed = [b for b in boxes if b is not None]
    return not any(labels.intersects(a, b) for a, b in itertools.combinations(placed, 2))


def test_boxes_that_touch_do_not_intersect_and_boxes_that_share_area_do():
    assert not labels.intersects((0, 0, 10, 10), (10, 0, 20, 10))
    assert labels.intersects((0, 0, 10, 10), (9, 9, 20, 20))


def test_a_lone_label_sits_above_its_point_at_the_gap():
    (box,) = labels.place([(100.0, 100.0)], [(40.0, 10.0)], BOUNDS)
    assert box == (80.0, 100.0 + labels.GAP_PX, 120.0, 110.0 + labels.GAP_PX)


def test_labels_on_one_point_spread_around_it_and_never_overlap():
    """Eight labels on the same anchor: each takes another spot; none shares area."""
    boxes = labels.place([(200.0, 150.0)] * 8, [(60.0, 16.0)] * 8, BOUNDS)
    assert all(b is not None for b in boxes) and _free(boxes)


def test_a_crowded_cluster_places_what_fits_and_leaves_the_rest_out():
    """Forty wide labels on close points: those placed never overlap, some are left out."""
    anchors = [(150.0 + 2 * i, 140.0 + (i % 3)) for i in range(40)]
    boxes = labels.place(anchors, [(120.0, 16.0)] * 40, BOUNDS)
    assert _free(boxes) and None in boxes and boxes[0] is not None
    assert all(labels.inside(b, BOUNDS) for b in boxes if b is not None)


def test_a_label_at_the_edge_turns_inward():
    (box,) = labels.place([(395.0, 295.0)], [(50.0, 16.0)], BOUNDS)
    assert box is not None and labels.inside(box, BOUNDS) and box[2] <= 395.0


def test_an_obstacle_is_avoided():
    marker = (80.0, 100.0, 120.0, 130.0)  # covers the spot above the point
    (box,) = labels.place([(100.0, 100.0)], [(40.0, 10.0)], BOUNDS, (marker,))
    assert not labels.intersects(box, marker)


def test_the_placement_is_the_same_every_time():
    anchors = [(50.0 + 13 * i, 60.0 + 7 * (i % 5)) for i in range(15)]
    sizes = [(30.0 + 5 * (i % 4), 16.0) for i in range(15)]
    assert labels.place(anchors, sizes, BOUNDS) == labels.place(anchors, sizes, BOUNDS)


def test_labels_placed_for_a_plot_drawn_wider_stay_apart_at_every_width():
    """Thirty labels on a crowded plot placed for widths up to 3x: at the narrowest, at 3x and
    between, every box (moved with its anchor, its offset kept) meets no other."""
    anchors = [(20.0 + (37 * i) % 150, 40.0 + (53 * i) % 200) for i in range(30)]
    sizes = [(40.0 + 10 * (i % 4), 16.0) for i in range(30)]
    boxes = labels.place(anchors, sizes, (0.0, 0.0, 200.0, 300.0), stretch=3.0)
    kept = [(b, x) for b, (x, _) in zip(boxes, anchors, strict=True) if b is not None]
    assert len(kept) >= 5
    for stretch in (1.0, 1.3, 1.7, 2.2, 3.0):
        wide = [labels.stretched(b, x, stretch) for b, x in kept]
        assert _free(wide), stretch
        assert all(labels.inside(b, (0.0, 0.0, 200.0 * stretch, 300.0)) for b in wide)


def test_two_labels_on_one_row_stay_apart_as_the_plot_widens():
    """Anchors 40 px apart on one row: as the plot is drawn up to twice as wide the anchors
    part, each label keeping its offset; the two boxes meet at no width between."""
    anchors, sizes = [(100.0, 100.0), (140.0, 100.0)], [(60.0, 16.0), (60.0, 16.0)]
    first, second = labels.place(anchors, sizes, BOUNDS, stretch=2.0)
    for stretch in (1.0, 1.25, 1.5, 2.0):
        a, b = labels.stretched(first, 100.0, stretch), labels.stretched(second, 140.0, stretch)
        assert not labels.intersects(a, b)
