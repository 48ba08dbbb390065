"""The tracker's verdicts on a level ring that its noise must not call tilted, on hand-made
readings (sensors as in test_tracker_start: every 30 degrees from 15, looking 8-46 degrees
anticlockwise)."""
from ringfw import hal
from ringfw import tracker as T

from tests.firmware.test_tracker_start import RING, events, resting_tracker, seen_by


def flick(tr, t, a0, peak, back):
    """Feed a flick from a0 that slows to a stop at a0 + peak, then (as a noisy, faint
    track near the end of a flick can seem to) comes back by `back` degrees and rests
    there. Returns the time after 4 s of rest and the events."""
    tr.arm()
    ms = 0
    while True:
        ms += 33
        if ms <= 1000:
            u = ms / 1000.0
            a = a0 + peak * (1 - (1 - u) ** 2)
        elif ms <= 1500:
            a = a0 + peak - back * (ms - 1000) / 500.0
        elif ms <= 5500:
            a = a0 + peak - back
        else:
            break
        seen = seen_by(a % 360.0)
        for i, rng in seen:
            tr.feed(t + ms, i, rng, hal.STATUS_VALID)
        for i in range(RING.sensor_count):
            if i not in dict(seen):
                tr.feed(t + ms, i, hal.RANGE_NO_TARGET, hal.STATUS_SIGNAL_FAIL)
        tr.tick(t + ms)
    return t + ms, events(tr)


def kinds(evs):
    return [k for k, _ in evs]


def test_a_track_that_only_seems_to_turn_back_at_the_end_is_not_a_tilt():
    # Two flicks on a level ring whose tracks "turn back" 3 degrees at their ends (what
    # faint far-window readings did under the physical model: seeds 2 and 3 of the ring
    # bench then reported not_level and waited the long window after every flick).
    tr, t = resting_tracker(100.0)
    events(tr)
    t, evs = flick(tr, t, 100.0, 33.0, 3.0)
    assert T.EV_LANDED in kinds(evs), evs
    assert tr.turns == 0 and tr.state == T._REST
    t, evs = flick(tr, t, 130.0, 33.0, 3.0)
    assert T.EV_LANDED in kinds(evs), evs
    assert T.EV_NOT_LEVEL not in kinds(evs), evs
    assert not tr.tilted


def test_a_real_swing_back_still_shows_the_tilt():
    # the same flicks swinging 12 degrees back from their turning points: a slope
    tr, t = resting_tracker(100.0)
    events(tr)
    t, evs = flick(tr, t, 100.0, 33.0, 12.0)
    assert T.EV_LANDED in kinds(evs), evs
    t, evs = flick(tr, t, 121.0, 33.0, 12.0)
    assert T.EV_NOT_LEVEL in kinds(evs), evs
    assert tr.tilted
