"""Marble physics of the ring simulator (host/ringside/sim/physics.py)."""
import json
import math
import random
from pathlib import Path

import pytest

from ringside.sim.physics import (Flicker, Marble, PhysicsParams, max_travel_deg,
                                  speed_for_travel, travel_for_speed)

RING = json.loads((Path(__file__).resolve().parents[2] / "hardware" / "ring.json").read_text())


def flick_and_settle(marble, speed, max_ms=60000, chunk_ms=5.0):
    """Flick, then step until at rest or off the ring; returns the speeds seen (every chunk)."""
    marble.flick(speed)
    speeds = []
    t = 0.0
    while marble.on_ring and not marble.at_rest:
        marble.step(chunk_ms)
        t += chunk_ms
        speeds.append(marble.speed_mm_s)
        assert t < max_ms, "marble still moving after %d ms" % max_ms
    return speeds


# --- level ring -------------------------------------------------------------------------

def test_level_flick_stops_and_stays_stopped():
    m = Marble(RING)
    m.place(30.0)
    speeds = flick_and_settle(m, 600.0, chunk_ms=1.0)
    assert m.on_ring and m.at_rest and m.speed_mm_s == 0.0
    # never reverses on a level ring: a stopping marble stops, it does not jitter round v = 0
    assert all(v >= 0.0 for v in speeds)
    stopped_at = m.angle_deg
    m.step(5000.0)
    assert m.angle_deg == stopped_at and m.at_rest
    assert 1.5 < len(speeds) / 1000.0 < 5.0  # a 600 mm/s flick rolls for a few seconds


def test_level_travel_grows_with_speed():
    travels = []
    for v in (50, 150, 300, 600, 900, 1200, 1490):
        m = Marble(RING)
        m.place(0.0)
        flick_and_settle(m, float(v))
        assert m.on_ring
        travels.append(m.travel_deg)
    assert all(b > a for a, b in zip(travels, travels[1:], strict=False))
    assert travels[0] < 10.0 and travels[-1] > 360.0  # a soft tap vs more than a full turn


def test_level_directions_are_symmetric():
    for v in (120.0, 700.0):
        a, b = Marble(RING), Marble(RING)
        a.place(100.0)
        b.place(100.0)
        flick_and_settle(a, v)
        flick_and_settle(b, -v)
        assert a.travel_deg > 0 > b.travel_deg
        assert a.travel_deg == pytest.approx(-b.travel_deg, abs=1e-9)
        assert a.angle_deg - 100.0 == pytest.approx(100.0 - b.angle_deg, abs=1e-9)


@pytest.mark.parametrize("travel", [3.0, 25.0, 90.0, 200.0, 360.0, -45.0, -500.0])
def test_speed_for_travel_round_trips(travel):
    v = speed_for_travel(RING, travel)
    assert math.copysign(1.0, v) == math.copysign(1.0, travel)
    assert travel_for_speed(RING, v) == pytest.approx(travel, abs=1e-6)
    m = Marble(RING)
    m.place(-17.0)
    flick_and_settle(m, v)
    assert m.on_ring
    assert m.travel_deg == pytest.approx(travel, abs=1.0)


def test_travel_resets_on_each_flick_and_angle_is_unwrapped():
    m = Marble(RING)
    m.place(350.0)
    flick_and_settle(m, speed_for_travel(RING, 400.0))
    assert m.angle_deg > 700.0  # unwrapped, continuous
    assert m.position_deg == pytest.approx(m.angle_deg % 360.0)
    flick_and_settle(m, speed_for_travel(RING, -30.0))
    assert m.travel_deg == pytest.approx(-30.0, abs=1.0)


def test_too_hard_leaves_the_ring_after_a_short_arc():
    p = PhysicsParams()
    exits = []
    for seed in range(20):
        m = Marble(RING, rng=random.Random(seed))
        m.place(0.0)
        flick_and_settle(m, -1.1 * p.off_ring_speed_mm_s)
        assert not m.on_ring and not m.at_rest and m.speed_mm_s == 0.0
        exits.append(-m.angle_deg)
        with pytest.raises(RuntimeError):
            m.flick(100.0)
        m.place(5.0)  # back on the ring
        assert m.on_ring and m.at_rest
    lo, hi = p.off_ring_arc_deg
    assert all(lo <= e <= hi for e in exits)
    assert len(set(round(e, 6) for e in exits)) == len(exits)  # random, not a fixed arc
    # just below the limit it stays on, and it goes more than a full turn
    m = Marble(RING)
    m.place(0.0)
    flick_and_settle(m, 0.99 * p.off_ring_speed_mm_s)
    assert m.on_ring and m.travel_deg > 360.0
    assert max_travel_deg(RING) == pytest.approx(travel_for_speed(RING, p.off_ring_speed_mm_s))


def test_seeded_runs_repeat_exactly():
    def run(seed):
        m = Marble(RING, rng=random.Random(seed), tilt_deg=0.7, low_deg=200.0)
        m.place(20.0)
        flick_and_settle(m, 1700.0)
        return m.angle_deg, m.on_ring

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_step_size_does_not_change_the_outcome():
    a, b = Marble(RING), Marble(RING)
    for m in (a, b):
        m.place(10.0)
        m.flick(800.0)
    for _ in range(3000):
        a.step(1.0)
    for _ in range(300):
        b.step(10.0)
    assert a.angle_deg == pytest.approx(b.angle_deg, abs=1e-6)
    assert a.speed_mm_s == pytest.approx(b.speed_mm_s, abs=1e-6)


# --- tilted ring ------------------------------------------------------------------------

def test_tilted_marble_swings_then_settles_in_the_static_band():
    low = 90.0
    m = Marble(RING, tilt_deg=1.0, low_deg=low)
    band = m.static_band_deg()
    # (5/7) g sin(1 deg) = 122 mm/s^2 against 50 mm/s^2 rolling resistance: +-24 deg
    assert band == pytest.approx(math.degrees(math.asin(50.0 / (5 / 7 * 9810 * math.sin(math.radians(1))))))
    assert 20.0 < band < 30.0
    m.place(low - 60.0)
    speeds = flick_and_settle(m, speed_for_travel(RING, 90.0), chunk_ms=5.0)
    moving = [v for v in speeds if v != 0.0]
    reversals = sum(1 for a, b in zip(moving, moving[1:], strict=False) if a * b < 0)
    assert reversals >= 1
    assert len(speeds) * 5.0 > 4000.0  # it swings for seconds, not a quick stop
    off = (m.position_deg - low + 180.0) % 360.0 - 180.0
    assert m.at_rest and abs(off) <= band + 1e-9


def test_tilted_marble_released_outside_the_band_rolls_down_into_it():
    low = 250.0
    m = Marble(RING, tilt_deg=1.0, low_deg=low)
    m.place(low + 70.0)  # outside the band: it cannot stay there
    assert not m.at_rest
    offs = []
    while not m.at_rest:
        m.step(20.0)
        offs.append((m.position_deg - low + 180.0) % 360.0 - 180.0)
        assert len(offs) < 3000
    assert all(b <= a for a, b in zip(offs, offs[1:], strict=False))  # downhill all the way, no creep back up
    assert m.on_ring and abs(offs[-1]) <= m.static_band_deg() + 1e-9
    assert abs(offs[-1]) > m.static_band_deg() - 10.0  # it stops as soon as friction can hold it


def test_marble_placed_inside_the_static_band_stays():
    low = 0.0
    m = Marble(RING, tilt_deg=1.0, low_deg=low)
    for off in (0.0, 10.0, -0.95 * m.static_band_deg()):
        m.place(low + off)
        assert m.at_rest
        m.step(10000.0)
        assert m.at_rest and m.angle_deg == pytest.approx(low + off, abs=1e-12)


def test_pendulum_period_matches_small_swing_theory():
    # With no friction at all (tiny drag only) the swing period is 2 pi sqrt(R / ((5/7) g sin tilt)).
    p = PhysicsParams(drag_per_s=1e-6, rolling_decel_mm_s2=0.0)
    m = Marble(RING, params=p, tilt_deg=1.0, low_deg=0.0)
    m.place(5.0)
    crossings = []
    prev = m.angle_deg
    for k in range(1, 20001):
        m.step(1.0)
        if prev > 0.0 >= m.angle_deg:
            crossings.append(k)
        prev = m.angle_deg
    period_s = (crossings[1] - crossings[0]) / 1000.0
    theory = 2 * math.pi * math.sqrt(180.0 / (5 / 7 * 9810 * math.sin(math.radians(1.0))))
    assert period_s == pytest.approx(theory, rel=0.01)
    assert 6.5 < theory < 8.5


# --- input checks and the flick skill model ---------------------------------------------

def test_bad_input_is_rejected_clearly():
    with pytest.raises(ValueError, match="radius_mm"):
        Marble({"track": {}})
    with pytest.raises(ValueError):
        PhysicsParams(drag_per_s=-1.0)
    with pytest.raises(ValueError):
        Marble(RING, tilt_deg=-1.0)
    m = Marble(RING)
    with pytest.raises(ValueError):
        m.step(-1.0)


def test_flicker_spread_follows_skill():
    f = Flicker(RING)
    assert Flicker.spread(0.5) == pytest.approx(0.08)
    assert Flicker.spread(1.0) < Flicker.spread(0.5) < Flicker.spread(0.0)
    target = speed_for_travel(RING, 120.0)
    rng = random.Random(11)
    rel = [f.flick_speed(rng, 120.0, 0.5) / target - 1.0 for _ in range(4000)]
    mean = sum(rel) / len(rel)
    sd = math.sqrt(sum((x - mean) ** 2 for x in rel) / (len(rel) - 1))
    assert abs(mean) < 0.006
    assert sd == pytest.approx(0.08, rel=0.08)
    assert f.flick_speed(random.Random(3), -60.0, 0.9) < 0  # direction kept
    assert f.flick_speed(random.Random(3), 60.0, 0.2) == f.flick_speed(random.Random(3), 60.0, 0.2)
    with pytest.raises(ValueError):
        f.flick_speed(rng, 60.0, 1.5)
