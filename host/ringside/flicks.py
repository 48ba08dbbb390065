"""A flick on a level ring, as a computer player knows it: no simulator needed.

The closed-form stopping distance of a marble rolling in the groove (viscous drag plus
rolling resistance), the flick speed that gives a travel, the longest travel that stays on
the ring, and the skill model of a player's flick (Flicker). FlickModel turns an aimed
travel into the ring result a board would report, so games and their computer players
can flick with no ring attached; the simulator's marble (ringside.sim.physics) takes its
constants and its level-ring formulas from here. Every number is justified in
docs/simulator.md.
"""
from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.ring import RingSide

_DEG = 180.0 / math.pi
_RAD = math.pi / 180.0


class PhysicsParams:
    """Physical constants of the marble on the ring.

    drag_per_s           viscous drag coefficient c (1/s): a = -c v
    rolling_decel_mm_s2  rolling resistance r0 (mm/s^2), a constant deceleration
    off_ring_speed_mm_s  above this speed (mm/s) the marble leaves the ring
    off_ring_arc_deg     (min, max) arc (degrees) it still runs before it jumps out
    g_mm_s2              gravity (mm/s^2)
    substep_ms           integration sub-step (ms)
    """

    def __init__(self, *, drag_per_s: float = 0.8, rolling_decel_mm_s2: float = 50.0, off_ring_speed_mm_s: float = 1500.0,
                 g_mm_s2: float = 9810.0, substep_ms: float = 1.0, off_ring_arc_deg: tuple[float, float] = (10.0, 60.0)):
        self.drag_per_s = float(drag_per_s)
        self.rolling_decel_mm_s2 = float(rolling_decel_mm_s2)
        self.off_ring_speed_mm_s = float(off_ring_speed_mm_s)
        self.g_mm_s2 = float(g_mm_s2)
        self.substep_ms = float(substep_ms)
        lo, hi = off_ring_arc_deg
        self.off_ring_arc_deg = (float(lo), float(hi))
        if self.drag_per_s < 0 or self.rolling_decel_mm_s2 < 0:
            raise ValueError("drag_per_s and rolling_decel_mm_s2 must be >= 0")
        if self.drag_per_s == 0 and self.rolling_decel_mm_s2 == 0:
            raise ValueError("with no drag and no rolling resistance the marble never stops")
        if self.off_ring_speed_mm_s <= 0 or self.g_mm_s2 <= 0:
            raise ValueError("off_ring_speed_mm_s and g_mm_s2 must be > 0")
        if not 0 < self.substep_ms <= 10:
            raise ValueError("substep_ms must be in (0, 10] ms")
        if not 0 <= self.off_ring_arc_deg[0] <= self.off_ring_arc_deg[1]:
            raise ValueError("off_ring_arc_deg must be (min, max) with 0 <= min <= max")

    def __repr__(self):
        return ("PhysicsParams(drag_per_s=%g, rolling_decel_mm_s2=%g, off_ring_speed_mm_s=%g, "
                "g_mm_s2=%g, substep_ms=%g, off_ring_arc_deg=%r)"
                % (self.drag_per_s, self.rolling_decel_mm_s2, self.off_ring_speed_mm_s,
                   self.g_mm_s2, self.substep_ms, self.off_ring_arc_deg))


def track_radius_mm(ring: dict) -> float:
    """The track radius (mm) from a parsed ring.json dict, with a clear error if absent."""
    try:
        r = float(ring["track"]["radius_mm"])
    except (KeyError, TypeError, ValueError):
        raise ValueError("ring.json needs a numeric track.radius_mm") from None
    if r <= 0:
        raise ValueError("ring.json track.radius_mm must be > 0, not %r" % r)
    return r


# --- level-ring stopping distance ------------------------------------------------------

def _stop_distance_mm(v0, c, r0):
    """Distance (mm) a marble starting at speed v0 >= 0 rolls on a level ring (continuous model).

    Solving dv/dt = -c v - r0 from v0 down to 0: s = v0/c - (r0/c^2) ln(1 + c v0 / r0).
    """
    if v0 <= 0.0:
        return 0.0
    if c == 0.0:
        return v0 * v0 / (2.0 * r0)
    if r0 == 0.0:
        return v0 / c
    x = c * v0 / r0
    if x < 1e-6:  # series, avoids cancellation for tiny speeds
        return v0 * v0 / (2.0 * r0) * (1.0 - 2.0 * x / 3.0)
    return v0 / c - r0 / (c * c) * math.log1p(x)


def travel_for_speed(ring: dict, speed_mm_s: float, params: PhysicsParams | None = None) -> float:
    """Level ring: the signed travel (degrees) of a flick at speed_mm_s, ignoring leaving the ring."""
    p = params if params is not None else PhysicsParams()
    r = track_radius_mm(ring)
    s = _stop_distance_mm(abs(float(speed_mm_s)), p.drag_per_s, p.rolling_decel_mm_s2)
    return math.copysign(s / r * _DEG, speed_mm_s) if speed_mm_s else 0.0


def speed_for_travel(ring: dict, travel_deg: float, params: PhysicsParams | None = None) -> float:
    """Level ring: the signed flick speed (mm/s) that makes the marble travel travel_deg.

    Inverts the closed-form stopping distance by bisection. The answer may exceed
    params.off_ring_speed_mm_s: such a flick leaves the ring (see max_travel_deg).
    """
    p = params if params is not None else PhysicsParams()
    r = track_radius_mm(ring)
    travel_deg = float(travel_deg)
    target = abs(travel_deg) * _RAD * r
    if target == 0.0:
        return 0.0
    c, r0 = p.drag_per_s, p.rolling_decel_mm_s2
    lo, hi = 0.0, 100.0
    while _stop_distance_mm(hi, c, r0) < target:
        hi *= 2.0
        if hi > 1e9:
            raise ValueError("travel %r deg is out of reach" % travel_deg)
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if _stop_distance_mm(mid, c, r0) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-9 * hi:
            break
    return math.copysign(0.5 * (lo + hi), travel_deg)


def max_travel_deg(ring: dict, params: PhysicsParams | None = None) -> float:
    """Level ring: the longest travel (degrees) of a flick that stays on the ring."""
    p = params if params is not None else PhysicsParams()
    return travel_for_speed(ring, p.off_ring_speed_mm_s, p)


# --- a player's flick ------------------------------------------------------------------

class Flicker:
    """Skill model of a flick: the intended speed plus a relative, Gaussian error.

    skill is in [0, 1]; the relative standard deviation of the speed is
    0.02 + 0.12 * (1 - skill): 14 % for a beginner, 8 % at skill 0.5, 2 % at best.
    Aim errors on a ring only waste speed into the wall, so one spread covers both.
    """

    def __init__(self, ring: dict, params: PhysicsParams | None = None):
        self.ring = ring
        self.params = params if params is not None else PhysicsParams()
        track_radius_mm(ring)  # fail early on a bad ring

    @staticmethod
    def spread(skill: float) -> float:
        """Relative standard deviation of the flick speed for a skill in [0, 1]."""
        skill = float(skill)
        if not 0.0 <= skill <= 1.0:
            raise ValueError("skill must be in [0, 1], not %r" % skill)
        return 0.02 + 0.12 * (1.0 - skill)

    def flick_speed(self, rng: random.Random, target_travel_deg: float, skill: float) -> float:
        """A signed speed (mm/s) for a player aiming at target_travel_deg (signed degrees)."""
        v = speed_for_travel(self.ring, target_travel_deg, self.params)
        factor = 1.0 + self.spread(skill) * rng.gauss(0.0, 1.0)
        return v * max(0.0, factor)


# ----- a flick by a computer player (no ring attached) -----------------------------------

class FlickModel:
    """A computer player's flick: the level-ring physics and skill model, no sensors.

    result() turns an aimed travel into the ring result a board would report: the speed
    is spread by the skill (Flicker), too fast leaves the ring, and a
    stop within the ambiguity margin of a boundary reports the neighbour as alt."""

    def __init__(self, ring: dict):
        self.ring = ring
        self.params = PhysicsParams()
        self.flicker = Flicker(ring, self.params)
        self.max_travel = max_travel_deg(ring, self.params)

    def speed(self, target_travel: float, skill: float, rng: random.Random) -> float:
        return self.flicker.flick_speed(rng, target_travel, skill)

    def result(self, side: RingSide, origin: str, target_travel: float, skill: float,
               rng: random.Random) -> dict:
        v = self.speed(target_travel, skill, rng)
        if abs(v) > self.params.off_ring_speed_mm_s:
            lo, hi = self.params.off_ring_arc_deg   # it rides up the wall and jumps out
            return {"type": "off_ring", "travel": round(math.copysign(rng.uniform(lo, hi), v), 2)}
        t = travel_for_speed(self.ring, v, self.params)
        if abs(t) < 3.0:   # the board reports a nudge as no flick; a player flicks again
            t = math.copysign(3.0, target_travel or 1.0)
        angle = side.centre(origin) + t
        sid = side.space_at(angle)
        a = {"type": "landed", "space": sid, "travel": round(t, 2)}
        edge, other = side.edge_distance(angle % 360.0)
        if edge < side.ambiguity_deg:
            a["alt"] = other
        return a


_models: dict = {}


def flick_model(ring: dict) -> FlickModel:
    key = id(ring)
    m = _models.get(key)
    if m is None or m.ring is not ring:
        m = FlickModel(ring)
        _models.clear()
        _models[key] = m
    return m


NORMAL_QUANTILES = (-1.83, -1.28, -0.97, -0.73, -0.52, -0.34, -0.17, 0.0,
                    0.17, 0.34, 0.52, 0.73, 0.97, 1.28, 1.83)   # 15 equal-mass slices of N(0, 1)

_odds: dict = {}


def travel_odds(ring: dict, target: float, skill: float) -> list:
    """[(probability, travel or None when it leaves the ring)] of a flick aimed at target."""
    key = (id(ring), round(target, 2), round(skill, 3))
    hit = _odds.get(key)
    if hit is not None and hit[0] is ring:
        return hit[1]
    m = flick_model(ring)
    v0 = speed_for_travel(ring, target, m.params)
    sd = Flicker.spread(skill)
    w = 1.0 / len(NORMAL_QUANTILES)
    out = []
    for z in NORMAL_QUANTILES:
        v = v0 * max(0.0, 1.0 + sd * z)
        if abs(v) > m.params.off_ring_speed_mm_s:
            out.append((w, None))
            continue
        t = travel_for_speed(ring, v, m.params)
        out.append((w, t if abs(t) >= 3.0 else math.copysign(3.0, target)))
    if len(_odds) > 20000:
        _odds.clear()
    _odds[key] = (ring, out)
    return out
