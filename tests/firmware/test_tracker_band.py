"""A landing's ambiguity band and confidence carry what calibration and the marble's place
across the groove leave in its angle. Measured on the level bench (docs/simulator.md, "Stop
34"), that error grows with how far out the nearest sensor that sees the landing sees it:
0.35-0.45 deg within 30 deg of a sensor, 0.55 at 30-35 deg, 0.72 at 35-45 deg (the window's far
end, where the marble fills a sliver of the cone). ring.json's
calibration_sigma_by_offset says so, and the tracker takes the sigma of the sensor that sees
the landing nearest, among those that answer."""
import json
from pathlib import Path

from ringfw import geometry
from ringfw import tracker as T

RING_JSON = (Path(__file__).resolve().parents[2] / "hardware" / "ring.json").read_bytes()
RING = geometry.loads(RING_JSON)


def _past(sensor, deg):
    """The point deg degrees past a sensor, the way it looks (cd)."""
    return (RING.sensor_angle[sensor] + RING.sensor_dir[sensor] * deg * 100) % 36000


def test_the_shipped_ring_widens_the_sigma_at_a_window_s_far_end():
    t = T.Tracker(RING)
    # 5 deg past sensor 3 is under its minimum range: only sensor 2 sees it, 35 deg out
    assert t._cal_sigma(_past(3, 5)) == 72
    # 20 deg past sensor 3: sensor 3 sees it 20 deg out
    assert t._cal_sigma(_past(3, 20)) == 39
    # 12 deg past sensor 3, just past its minimum range: the base sigma
    assert t._cal_sigma(_past(3, 12)) == RING.cal_sigma == 43
    # 32 deg past sensor 3 (and 2 deg past sensor 4: under its minimum range)
    assert t._cal_sigma(_past(3, 32)) == 55


def test_a_sensor_that_does_not_answer_leaves_the_landing_to_the_far_end_of_another():
    t = T.Tracker(RING)
    t.faulty[3] = 1
    # 20 deg past sensor 3, without it: sensor 2 would see it 50 deg out, past its window:
    # nobody sees it, and the largest sigma applies
    assert t._cal_sigma(_past(3, 20)) == 72
    # 12 deg past sensor 3, without it: sensor 2 sees it 42 deg out
    assert t._cal_sigma(_past(3, 12)) == 72


def test_a_ring_without_the_table_keeps_one_sigma_everywhere():
    d = json.loads(RING_JSON)
    del d["detection"]["calibration_sigma_by_offset"]
    ring = geometry.loads(json.dumps(d).encode())
    t = T.Tracker(ring)
    assert {t._cal_sigma(_past(3, k)) for k in (2, 12, 20, 32, 40)} == {ring.cal_sigma}


def test_the_confidence_of_a_landing_as_far_from_a_boundary_follows_the_sigma():
    """Two landings 1.2 deg from a boundary: one where a sensor sees it near (conf from 0.43
    deg plus the rest point's own error), one where only a window's far end does (0.72 deg):
    the second is less sure and names the neighbour."""
    from ringfw import ringfile
    side = ringfile.side(RING, "darts")
    probe = T.Tracker(RING)
    # rests 1.2 deg inside a space's end: one where a sensor sees it within 30 deg, one where
    # only a window's far end does
    ends = [(side.end[k] - 120) % 36000 for k in range(side.count)]
    near_x = next(x for x in ends if probe._cal_sigma(x) <= 43)
    far_x = next(x for x in ends if probe._cal_sigma(x) == 72)
    out = {}
    for x in (near_x, far_x):
        t = T.Tracker(RING)
        t.set_side(side)
        # a flicked marble settling at x (the tracker's own landing path)
        t.state = 2
        t.flicked = True
        t.start = x - 3000
        t._settle(1000, x, 10)
        landed = []
        buf = [0] * 6
        while True:
            kind = t.pop(buf)
            if not kind:
                break
            if kind == T.EV_LANDED:
                landed.append(list(buf))    # space, neighbour, angle, travel, conf, flags
        assert landed
        out[x] = landed[-1]
    near, far = out[near_x], out[far_x]
    assert far[4] < near[4]
    assert far[1] >= 0 and near[1] < 0    # only the far-end landing names its neighbour
