"""The tracker telling a flick's start from stray readings, on hand-made readings.

Sensors 0..11 sit every 30 degrees from 15, each looking 8-46 degrees anticlockwise. A marble
at angle A is seen by sensor i at range 2 R sin(D/2) - r, D = A - sensor angle.
"""
import math
from pathlib import Path

from ringfw import geometry, hal, ringfile
from ringfw import tracker as T

RING = geometry.load(str(Path(__file__).resolve().parents[2] / "hardware" / "ring.json"))
R = RING.radius
MARBLE_R = RING.marble_r


def lens_mm(d_deg):
    """The range to a marble d_deg ahead of a sensor: from the lens in the outer wall
    (ring.json mount), as ringfile's table reads it."""
    sn = math.sin(math.radians(d_deg) / 2)
    return math.sqrt((RING.lens_r - R) ** 2 + RING.lens_h ** 2 + 4 * RING.lens_r * R * sn * sn) - MARBLE_R


def seen_by(angle_deg):
    """(sensor, range mm) for every sensor whose view window holds angle_deg."""
    out = []
    for i in range(RING.sensor_count):   # every sensor looks counter-clockwise here
        d = (angle_deg - RING.sensor_angle[i] / 100.0) % 360.0
        if RING.view_min[i] / 100.0 <= d <= RING.view_max[i] / 100.0:
            out.append((i, int(round(lens_mm(d)))))
    return out


def resting_tracker(angle_deg, t0=1000):
    tr = T.Tracker(RING)
    tr.begin(t0)
    tr.set_side(ringfile.side(RING, "darts"))
    t = t0
    for _ in range(40):                      # 1.3 s of every sensor seeing it still
        t += 33
        for i, rng in seen_by(angle_deg):
            tr.feed(t, i, rng, hal.STATUS_VALID)
        for i in range(RING.sensor_count):
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
        for i in range(RING.sensor_count):
            tr.feed(now, i, hal.RANGE_NO_TARGET, hal.STATUS_SIGNAL_FAIL)
        tr.tick(now)
    kinds = [k for k, _ in events(tr)]
    assert kinds == [T.EV_OFF_RING]


def test_a_new_calibration_under_a_resting_marble_is_not_a_flick():
    # `cal` shifts every reading of that sensor; the tracker finds the rest point again
    # quietly instead of taking the jump for a flick (and a landing after it)
    from ringside.sim.board import SimBoard
    b = SimBoard(seed=3)
    b.place(88.0)
    b.advance(2000)
    for _ in range(40):       # the physical model's board takes ~4 s to find it, the ideal ~1
        if b.frames_of("placed"):
            break
        b.advance(100)
    assert b.frames_of("placed")
    since = len(b.out)
    for sensor in (1, 2):                      # both sensors that see 88 deg: 12 mm off
        b.send("cal", id=sensor, off=12 * 16, scale=4096)
    b.advance(3000)
    for _ in range(70):       # found again (physical: ~4.4 s, ideal: ~0.6 s), quietly
        if b.controller.tracker.rest_angle() >= 0:
            break
        b.advance(100)
    after = bytes(b.out[since:])
    assert b"moving" not in after and b"landed" not in after
    assert b"nack" not in after
    assert b.controller.tracker.rest_angle() >= 0     # at rest again, found quietly
