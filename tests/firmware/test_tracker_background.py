"""The tracker learns each sensor's empty-ring background and sees the marble as a departure
from it; a reading that blends the marble with the background is un-blended, so the angle is
not pulled towards the wall."""
import random
from pathlib import Path

from ringfw import geometry, hal
from ringfw import tracker as T

RING = geometry.loads((Path(__file__).resolve().parents[2] / "hardware" / "ring.json").read_bytes())
S = 3                         # the sensor whose cone sees a wall (no baffle)
WALL_MM, WALL_SIG = 99, 70    # the wall it sees: 99 mm, 0.55 MCPS (9.7 fixed point)
DIM = 14                      # what the others' empty cones return: 0.11 MCPS, signal fail


def feed_round(tr, t, rnd, sensor_range=None, sensor_sig=None, wall_mm=WALL_MM):
    """One schedule round: every sensor once. Sensor S reports the wall, or what it is given."""
    for i in range(RING.sensor_count):
        if i == S:
            r = sensor_range if sensor_range is not None else wall_mm + rnd.choice((-1, 0, 0, 1))
            tr.feed(t, i, r, hal.STATUS_VALID, sensor_sig if sensor_sig is not None else WALL_SIG)
        else:
            tr.feed(t, i, hal.RANGE_OUT_OF_RANGE, hal.STATUS_SIGNAL_FAIL, DIM)


def events(tr):
    out = []
    ev = [0] * 6
    while True:
        k = tr.pop(ev)
        if not k:
            return out
        out.append((k, list(ev)))


def empty_ring(tr, rnd):
    """A tracker that knows the ring is empty, as after the marble was taken off it (the
    calibration lifts it between spaces: tracker.empty is set by the `lost` event)."""
    tr.empty = True
    return 0


def run(tr, t0, ms, rnd, **kw):
    t = t0
    while t < t0 + ms:
        feed_round(tr, t, rnd, **kw)
        t += 34
        tr.tick(t)
    return t


def test_a_wall_in_a_cone_is_learnt_as_background_not_taken_for_a_marble():
    rnd = random.Random(1)
    tr = T.Tracker(RING)
    tr.begin(0)
    t = empty_ring(tr, rnd)
    t = run(tr, t, 3000, rnd)
    assert events(tr) == []                       # no phantom marble at the wall
    assert tr.state == T._NONE
    assert abs(tr.bg_r16[S] / 16 - WALL_MM) < 1.0
    assert tr.bg_valid[S] > 200 and abs(tr.bg_sig[S] - WALL_SIG) <= 2
    assert tr.bg_valid[0] < 10 and tr.bg_sig[0] == DIM     # a baffled sensor: no return
    del t


def test_without_signal_rates_the_same_wall_is_taken_for_a_marble():
    # (what the firmware did before it learned backgrounds: the wall became a marble)
    rnd = random.Random(1)
    tr = T.Tracker(RING)
    tr.begin(0)
    t = 0
    while t < 3000:
        for i in range(RING.sensor_count):
            if i == S:
                tr.feed(t, i, WALL_MM + rnd.choice((-1, 0, 1)), hal.STATUS_VALID)
            else:
                tr.feed(t, i, hal.RANGE_OUT_OF_RANGE, hal.STATUS_SIGNAL_FAIL)
        t += 34
        tr.tick(t)
    assert any(k == T.EV_PLACED for k, _ in events(tr))


def test_a_blended_reading_gives_the_marbles_own_range_not_the_walls():
    rnd = random.Random(2)
    tr = T.Tracker(RING)
    tr.begin(0)
    t = empty_ring(tr, rnd)
    t = run(tr, t, 1000, rnd)
    # the marble 60 mm away returns 2.0 MCPS (256); the device blends it with the wall:
    # r = (s_m r_m + s_b r_b) / (s_m + s_b)
    s_m, r_m = 256, 60
    s = s_m + WALL_SIG
    blended = (s_m * r_m + WALL_SIG * WALL_MM) // s
    assert blended >= r_m + 7                    # the wall pulls it 8 mm (about 3 degrees) out
    t = run(tr, t, 2500, rnd, sensor_range=blended, sensor_sig=s)
    placed = [e for k, e in events(tr) if k == T.EV_PLACED]
    assert placed, "the marble in front of the wall was not found"
    want = RING.reading_angle(S, r_m)
    wall_side = RING.reading_angle(S, blended)
    got = placed[-1][1]
    assert abs(geometry.sdiff(got, want)) <= 40            # within 0.4 deg of the marble
    assert abs(geometry.sdiff(got, wall_side)) > 200       # not the blend's 3 deg off


def test_the_background_is_kept_current_while_the_marble_rests_elsewhere():
    rnd = random.Random(3)
    tr = T.Tracker(RING)
    tr.begin(0)
    t = empty_ring(tr, rnd)
    t = run(tr, t, 1000, rnd)
    # the marble rests where sensor 8 alone sees it (far from sensor 3's window)
    i8 = 8
    r8 = 70
    t_end = t + 3000
    while t < t_end:
        for i in range(RING.sensor_count):
            if i == S:
                tr.feed(t, i, 103 + rnd.choice((-1, 0, 1)), hal.STATUS_VALID, WALL_SIG)
            elif i == i8:
                tr.feed(t, i, r8 + rnd.choice((-1, 0, 1)), hal.STATUS_VALID, 600)
            else:
                tr.feed(t, i, hal.RANGE_OUT_OF_RANGE, hal.STATUS_SIGNAL_FAIL, DIM)
        t += 34
        tr.tick(t)
    assert tr.state == T._REST
    # the wall crept to 103 mm (a warm sensor, a shifted lamp): the background followed,
    # and the creep was not taken for a second marble
    assert abs(tr.bg_r16[S] / 16 - 103) < 1.5
    assert [k for k, _ in events(tr)] == [T.EV_PLACED]     # only the marble, set down


def test_a_marble_taken_off_the_ring_tells_the_tracker_the_ring_is_empty():
    rnd = random.Random(4)
    tr = T.Tracker(RING)
    tr.begin(0)
    assert not tr.empty                       # at boot the marble may lie anywhere
    t = 0
    for k in range(90):
        for i in range(RING.sensor_count):
            if i == 8 and k < 45:
                tr.feed(t, i, 70 + rnd.choice((-1, 0, 1)), hal.STATUS_VALID, 600)
            else:
                tr.feed(t, i, hal.RANGE_OUT_OF_RANGE, hal.STATUS_SIGNAL_FAIL, DIM)
        t += 34
        tr.tick(t)
    assert [k for k, _ in events(tr)] == [T.EV_PLACED, T.EV_LOST] and tr.empty
    assert tr.bg_n[S] == T._BG_WARM and tr.bg_valid[S] == 0   # learnt: this cone sees nothing


def test_a_bright_return_while_the_background_is_still_learnt_is_the_marble_not_background():
    # The marble rests where sensor 8 alone sees it; sensor S's cone returns nothing (it is
    # baffled here). Soon after the rest, S's background is still being learnt when the
    # marble, flicked, rolls into S's cone before the tracker has seen it leave: that bright
    # return must reach the track (a reading away from the rest point), not be learnt and
    # kept back as background (regression: the track starved and called it off the ring).
    rnd = random.Random(5)
    tr = T.Tracker(RING)
    tr.begin(0)
    t = 0
    while tr.state != T._REST and t < 20000:
        for i in range(RING.sensor_count):
            if i == 8:
                tr.feed(t, i, 70 + rnd.choice((-1, 0, 1)), hal.STATUS_VALID, 600)
            else:
                tr.feed(t, i, hal.RANGE_OUT_OF_RANGE, hal.STATUS_SIGNAL_FAIL, DIM)
        t += 34
        tr.tick(t)
    for _ in range(4):         # a few rounds at rest: S learns its (empty) background
        for i in range(RING.sensor_count):
            if i == 8:
                tr.feed(t, i, 70 + rnd.choice((-1, 0, 1)), hal.STATUS_VALID, 600)
            else:
                tr.feed(t, i, hal.RANGE_OUT_OF_RANGE, hal.STATUS_SIGNAL_FAIL, DIM)
        t += 34
        tr.tick(t)
    assert tr.state == T._REST
    n = tr.bg_n[S]
    assert 0 < n < T._BG_WARM                          # still learning
    assert tr.dev_n == 0
    tr.feed(t, S, 60, hal.STATUS_VALID, 1536)          # the marble, 12 MCPS, in S's cone
    assert tr.bg_n[S] == n and tr.bg_valid[S] == 0     # not learnt as the ring's background
    assert tr.dev_n == 1                               # the track saw it, away from the rest


def test_a_background_too_faint_to_range_is_taken_out_at_the_designs_distance():
    # The empty cones of the others return 0.11 MCPS (signal fail: no range of their own),
    # yet that light is in every reading of the marble: at 114 mm from a sensor 2 deg from
    # its window's end the marble returns 1.3 MCPS, and the ring's 0.11 at 144 mm
    # (ring.json mount.background_mm) puts the reading 2.4 mm long, 0.8 deg
    rnd = random.Random(3)
    tr = T.Tracker(RING)
    tr.begin(0)
    t = empty_ring(tr, rnd)
    t = run(tr, t, 1000, rnd)
    i = 5                                         # a baffled sensor: signal fail when empty
    assert tr.bg_valid[i] < T._BG_VALID and tr.bg_n[i] >= T._BG_WARM // 2
    assert RING.bg_mm == 144
    s_m, r_m = 166, 114
    s = s_m + DIM
    blended = (s_m * r_m + DIM * RING.bg_mm) // s
    assert blended >= r_m + 2
    tr.feed(t, i, blended, hal.STATUS_VALID, s)
    assert abs(tr.own - r_m) <= 1               # the marble's own range
    # a ring.json that does not give the distance leaves the reading as it is
    ring2 = geometry.loads((Path(__file__).resolve().parents[2] / "hardware" / "ring.json")
                           .read_bytes().replace(b'"background_mm": 144', b'"background_mm": 0'))
    tr2 = T.Tracker(ring2)
    tr2.begin(0)
    t2 = run(tr2, empty_ring(tr2, rnd), 1000, rnd)
    tr2.feed(t2, i, blended, hal.STATUS_VALID, s)
    assert tr2.own == blended


def test_a_faint_wall_read_past_the_tables_end_is_un_blended_too_and_is_no_marble():
    # A cone whose empty ring is under the signal limit (no range of its own), lifted to it by
    # the marble at rest at its cone's edge, ranges the wall now and then: 158 mm at 0.26
    # MCPS, past the range table's end (157 mm). Calibration (this sensor reads 12 mm long)
    # takes that back into its window's last degrees. Before, a range past the table was
    # left blended, and those readings were a second marble there; on a board booted from
    # its saved calibration, two of them and a stray made a phantom flick (stop 40, issue
    # 14). Un-blended, the marble's part is under half the ring's light: nothing.
    ring = geometry.loads((Path(__file__).resolve().parents[2] / "hardware" / "ring.json").read_bytes())
    i = 5
    ring.off16[i] = 12 * 16
    far = ring.range_max + 1
    assert ring.reading_angle(i, far) >= 0          # calibrated, it is in the window
    rnd = random.Random(4)
    tr = T.Tracker(ring)
    tr.begin(0)
    t = 0
    tr.empty = True
    # 1 s of the empty ring: sensor i's cone learnt (DIM, no range)
    while t < 1000:
        for j in range(ring.sensor_count):
            tr.feed(t, j, hal.RANGE_OUT_OF_RANGE, hal.STATUS_SIGNAL_FAIL, DIM)
        t += 34
        tr.tick(t)
    # the marble set down where sensor 8 alone sees it; sensor i's wall ranges one round in 4
    lift = DIM + DIM // 2 - 1                       # the marble's part just under half
    rounds = 0
    while t < 6000:
        for j in range(ring.sensor_count):
            if j == 8:
                tr.feed(t, j, 70 + rnd.choice((-1, 0, 1)), hal.STATUS_VALID, 600)
            elif j == i and rounds % 4 == 3:
                tr.feed(t, j, far + rnd.choice((0, 1)), hal.STATUS_VALID, lift)
            else:
                tr.feed(t, j, hal.RANGE_OUT_OF_RANGE, hal.STATUS_SIGNAL_FAIL,
                        lift if j == i else DIM)
        rounds += 1
        t += 34
        tr.tick(t)
    # what the tracker makes of such a reading: too faint to be the marble (-1); a bright
    # one past the table's end is un-blended as any other (not passed on as it came)
    assert tr._unblend(i, far, lift) == -1
    assert tr._unblend(i, far, 4 * DIM) == (4 * DIM * far - DIM * ring.bg_mm) // (3 * DIM)
    got = events(tr)
    assert [k for k, _ in got] == [T.EV_PLACED], got        # the marble, and nothing else
    assert abs(geometry.sdiff(got[0][1][1], ring.reading_angle(8, 70))) < 100
    assert tr.state == T._REST
