"""The tracker telling a flick's start from stray readings, on hand-made readings.

Sensors 0..11 sit every 30 degrees from 15, each looking 8-46 degrees anticlockwise. A marble
at angle A is seen by sensor i at range 2 R sin(D/2) - r, D = A - sensor angle.
"""
import math
from pathlib import Path

from ringfw import geometry, hal
from ringfw import tracker as T

RING = geometry.load(str(Path(__file__).resolve().parents[2] / "hardware" / "ring.json"))
R = RING.radius
MARBLE_R = RING.marble_r


def seen_by(angle_deg):
    """(sensor, range mm) for every sensor whose view window holds angle_deg."""
    out = []
    for s in RING.sensors:
        d = (angle_deg - s.angle / 100.0) % 360.0
        if s.view_min / 100.0 <= d <= s.view_max / 100.0:
            out.append((s.index, int(round(2 * R * math.sin(math.radians(d) / 2) - MARBLE_R))))
    return out


def resting_tracker(angle_deg, t0=1000):
    tr = T.Tracker(RING)
    tr.begin(t0)
    tr.set_side(RING.side("darts"))
    t = t0
    for _ in range(40):                      # 1.3 s of every sensor seeing it still
        t += 33
        for i, rng in seen_by(angle_deg):
            tr.feed(t, i, rng, hal.STATUS_VALID)
        for i in range(len(RING.sensors)):
            if i not in dict(seen_by(angle_deg)):
                tr.feed(t, i, hal.RANGE_NO_TARGET, hal.STATUS_SIGNAL_FAIL)
        tr.tick(t)
    return tr, t


def events(tr):
    out = []
    ev = [0] * 6
    while True:
        k = tr.pop(ev)
        if not k:
            return out
        out.append((k, list(ev)))


def test_a_stray_reading_in_the_middle_of_a_flicks_start_does_not_hide_the_flick():
    tr, t = resting_tracker(300.0)
    events(tr)
    assert tr.state == T._REST
    tr.arm()
    stray_sensor, stray_range = seen_by(20.0)[0]
    # a fast flick clockwise, seen by one sensor at a time, with one stray reading between
    path = [(t + 48, 294.6), (t + 80, 281.0), ("stray", None), (t + 112, 268.0)]
    for when, ang in path:
        if when == "stray":
            tr.feed(t + 88, stray_sensor, stray_range, hal.STATUS_VALID)
            continue
        i, rng = seen_by(ang)[0]
        tr.feed(when, i, rng, hal.STATUS_VALID)
    kinds = [k for k, _ in events(tr)]
    assert kinds == [T.EV_MOVING]
    assert tr.state == T._MOVING and tr.dir == -1


def test_a_slow_marble_repeating_a_whole_mm_on_one_sensor_still_starts_moving():
    tr, t = resting_tracker(24.4)
    events(tr)
    tr.arm()
    # only sensor 11 (at 345, looking anticlockwise) sees 19-21 degrees; the marble creeps
    # clockwise and one reading repeats the previous millimetre
    readings = [(t + 88, 20.66), (t + 120, 19.98), (t + 152, 19.98), (t + 184, 19.3)]
    for when, ang in readings:
        i, rng = [x for x in seen_by(ang) if x[0] == 11][0]
        tr.feed(when, i, rng, hal.STATUS_VALID)
    tr.tick(t + 190)
    kinds = [k for k, _ in events(tr)]
    assert kinds == [T.EV_MOVING]            # it rolls on: moving, not a stuck sensor


def test_a_marble_really_gone_from_its_rest_is_off_the_ring_when_armed():
    tr, t = resting_tracker(100.0)
    events(tr)
    tr.arm()
    for k in range(30):                      # nothing sees it any more
        now = t + 33 * (k + 1)
        for i in range(len(RING.sensors)):
            tr.feed(now, i, hal.RANGE_NO_TARGET, hal.STATUS_SIGNAL_FAIL)
        tr.tick(now)
    kinds = [k for k, _ in events(tr)]
    assert kinds == [T.EV_OFF_RING]
