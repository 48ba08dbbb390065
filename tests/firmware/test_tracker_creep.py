"""A marble that creeps the last degrees of a flick: its ranges are too noisy to show it
(1.5 mm per reading is 0.5 deg), its signal rate is not (it follows 1/r^2, and scatters about
1 %). The tracker lands it only once the signal has stopped moving, and from the readings
taken since (tracker._track, _check_still: the signal-rate rule)."""
import json
import random
from pathlib import Path

from ringfw import geometry, hal
from ringfw import tracker as T
from ringside.ring import lens_range_mm

RING_BYTES = (Path(__file__).resolve().parents[2] / "hardware" / "ring.json").read_bytes()
RING = geometry.loads(RING_BYTES)
RD = json.loads(RING_BYTES)
DIM = 14            # an empty cone: 0.11 MCPS, signal fail
K = 1800 * 53 * 53  # signal rate (9.7 MCPS) x range^2 of the marble: 14 MCPS at 53 mm


def path(t):
    """The marble's angle (deg) at t ms: rolls 10 -> 60.5 deg in 900 ms, creeps the last
    2.5 deg over 700 ms (slowing to a stop), then rests at 63 deg."""
    if t < 900:
        u = t / 900.0
        return 10.0 + 50.5 * (2 * u - u * u)
    if t < 1600:
        u = (t - 900) / 700.0
        return 60.5 + 2.5 * (2 * u - u * u)
    return 63.0


def reading(j, a, rnd):
    d = ((a - RD["sensors"][j]["angle_deg"]) * (1 if RD["sensors"][j]["aim"] == "ccw" else -1)) % 360
    lo, hi = RD["sensors"][j]["view_deg"]
    if not lo <= d <= hi:
        return hal.RANGE_OUT_OF_RANGE, hal.STATUS_SIGNAL_FAIL, DIM
    r = lens_range_mm(RD, d)
    s_m = K / (r * r)
    # the device blends in the empty ring's faint light (0.11 MCPS from 144 mm away)
    r = (s_m * r + DIM * RING.bg_mm) / (s_m + DIM)
    sig = (s_m + DIM) * (1 + rnd.gauss(0, 0.01))
    return int(round(r + rnd.gauss(0, 1.5))), hal.STATUS_VALID, int(sig)


def landing(seed, way=path, rest_at=10.0, ms=6000):
    """Where (deg) and when (ms after the flick) the marble, at rest at rest_at, then flicked
    along way, is landed; None if not within ms."""
    rnd = random.Random(seed)
    tr = T.Tracker(RING)
    tr.begin(0)
    t = 0
    ev = [0] * 6
    # the marble rests (found, at rest), then it is flicked
    while t < 3000:
        for j in range(RING.sensor_count):
            tr.feed(t, j, *reading(j, rest_at, rnd))
        t += 34
        tr.tick(t)
    tr.level = True          # rests have shown the ring level: the short still window
    tr.arm()
    t0 = t
    while t < t0 + ms:
        a = way(t - t0)
        for j in range(RING.sensor_count):
            tr.feed(t, j, *reading(j, a, rnd))
        t += 34
        tr.tick(t)
        while True:
            k = tr.pop(ev)
            if not k:
                break
            if k == T.EV_LANDED:
                return ev[2] / 100.0, t - t0
    return None


def test_a_creeping_marble_lands_where_it_stops_not_where_its_ranges_averaged():
    errs = []
    for seed in range(1, 7):
        got = landing(seed)
        assert got is not None, "seed %d: no landing" % seed
        ang, at = got
        assert at >= 1600, (seed, got)                # not before it stopped
        assert abs(ang - 63.0) < 0.7, (seed, got)     # where it stopped
        errs.append(abs(ang - 63.0))
    assert sum(errs) / len(errs) < 0.25, errs


def test_without_the_signal_rate_rule_the_same_creep_lands_early_and_short(monkeypatch):
    # the rule off (a signal must move by over all of itself): the still window of ranges
    # holds while the marble still creeps, and a landing comes before it stops, short of it
    monkeypatch.setattr(T, "_SG_SHIFT", 0)
    early = [landing(seed) for seed in range(1, 7)]
    assert any(g is not None and g[1] < 1600 and 63.0 - g[0] > 0.5 for g in early), early


# Stop 35: at a window's far end the signal moves slowest. A marble creeping its last 2.5 deg
# there, 36 deg out from the one sensor that sees it, changes its signal by less than a cut
# (1/32 of it, +2) from one reading to the next; after the last cut it goes on the same way.
FAR = RD["sensors"][1]["angle_deg"] + 36.5     # 36.5 deg past sensor 1; 6.5 past sensor 2,
                                               # inside its minimum view: sensor 1 alone


def far_path(t):
    """Rolls FAR - 30 -> FAR - 2.5 deg in 900 ms, creeps the last 2.5 deg over 2 s."""
    if t < 900:
        u = t / 900.0
        return FAR - 30 + 27.5 * (2 * u - u * u)
    if t < 2900:
        u = (t - 900) / 2000.0
        return FAR - 2.5 + 2.5 * (2 * u - u * u)
    return FAR


def far_landing(seed):
    return landing(seed, far_path, FAR - 30, 8000)


def _shortfalls():
    got = [far_landing(seed) for seed in range(1, 13)]
    assert all(g is not None for g in got), got
    return [FAR - g[0] for g in got]


def test_a_slow_creep_at_a_window_s_far_end_lands_near_where_it_stops():
    # The ranges cannot see it (3 mm per degree there, read to 2-3 mm); the signal can,
    # 6 % per degree against 1 % noise, and a landing waits while it keeps going one way.
    # Still short by what a creep under ~1 deg/s leaves (measured: 0.71 deg on average,
    # 1.54 at most): the band by offset (0.72 deg sigma there) names the neighbour then.
    short = _shortfalls()
    assert sum(short) / len(short) < 0.8 and max(short) < 1.6, short


def test_without_going_on_the_same_way_the_far_creep_lands_shorter(monkeypatch):
    # (measured: 1.04 deg on average, 1.83 at most)
    monkeypatch.setattr(T, "_SG_ON", 0)
    short = _shortfalls()
    assert sum(short) / len(short) > 0.95 and max(short) > 1.7, short
