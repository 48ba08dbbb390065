"""Marble physics on the circular track.

The marble is a solid sphere rolling in a groove of radius R (ring.json
``track.radius_mm``). Its state is an unwrapped angle (degrees, counter-clockwise
positive) and a signed tangential speed v (mm/s). The tangential acceleration
(mm/s^2) is

    a = -c v                                   viscous drag (groove scrubbing + air)
        - r0 sign(v)                           rolling resistance (Coulomb)
        - (5/7) g sin(tilt) sin(theta - low)   the ring is not level (rolling sphere)

At v == 0 the marble stays at rest while |tilt term| <= r0 (the "static band"),
otherwise it starts moving downhill. Integration: fixed sub-steps of
``substep_ms`` (1 ms), semi-implicit Euler; a sub-step in which v would change
sign is split at the instant v reaches zero, so a stopping marble stops instead
of jittering around v = 0.

A flick faster than ``off_ring_speed_mm_s`` makes the marble ride up the outer
wall: it leaves the ring (``on_ring`` False) after a short random arc drawn from
the marble's seeded RNG. Every number is justified in docs/simulator.md.
"""
import math
import random

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

    def __init__(self, *, drag_per_s=0.8, rolling_decel_mm_s2=50.0, off_ring_speed_mm_s=1500.0,
                 g_mm_s2=9810.0, substep_ms=1.0, off_ring_arc_deg=(10.0, 60.0)):
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


def track_radius_mm(ring):
    """The track radius (mm) from a parsed ring.json dict, with a clear error if absent."""
    try:
        r = float(ring["track"]["radius_mm"])
    except (KeyError, TypeError, ValueError):
        raise ValueError("ring.json needs a numeric track.radius_mm") from None
    if r <= 0:
        raise ValueError("ring.json track.radius_mm must be > 0, not %r" % r)
    return r


def _as_rng(rng):
    if rng is None:
        return random.Random(0)
    if isinstance(rng, random.Random):
        return rng
    if isinstance(rng, int):
        return random.Random(rng)
    raise TypeError("rng must be a random.Random, an int seed or None")


class Marble:
    """One marble on the ring, advanced in simulated time by `step`.

    Attributes (read them, do not assign): angle_deg (unwrapped), position_deg
    (angle_deg % 360), speed_mm_s (signed, + = counter-clockwise), on_ring, at_rest,
    travel_deg (signed travel since the last flick), time_ms (simulated time).
    """

    def __init__(self, ring, *, params=None, tilt_deg=0.0, low_deg=0.0, rng=None):
        self.radius_mm = track_radius_mm(ring)
        self.params = params if params is not None else PhysicsParams()
        self.rng = _as_rng(rng)
        self._theta = 0.0          # unwrapped angle, radians
        self._v = 0.0              # mm/s
        self._theta0 = 0.0         # angle at the last flick, radians
        self.on_ring = True
        self.time_ms = 0.0
        self._leave_at = None      # unwrapped angle (rad) where a too-fast marble jumps out
        self._leave_dir = 1.0
        self.set_tilt(tilt_deg, low_deg)

    # --- configuration -------------------------------------------------------------
    def set_tilt(self, tilt_deg, low_deg=0.0):
        """Tilt the ring by tilt_deg (degrees, >= 0) with its low point at low_deg."""
        tilt_deg = float(tilt_deg)
        if not 0.0 <= tilt_deg < 45.0:
            raise ValueError("tilt_deg must be in [0, 45) degrees, not %r" % tilt_deg)
        self.tilt_deg = tilt_deg
        self.low_deg = float(low_deg)
        self._low = self.low_deg * _RAD
        # (5/7) g sin(tilt): the downhill tangential pull on a rolling solid sphere, at its
        # largest 90 degrees from the low point.
        self._k_tilt = 5.0 / 7.0 * self.params.g_mm_s2 * math.sin(tilt_deg * _RAD)

    # --- state read-out ------------------------------------------------------------
    @property
    def angle_deg(self):
        return self._theta * _DEG

    @property
    def position_deg(self):
        return (self._theta * _DEG) % 360.0

    @property
    def speed_mm_s(self):
        return self._v

    @property
    def travel_deg(self):
        return (self._theta - self._theta0) * _DEG

    @property
    def at_rest(self):
        """v == 0 and the tilt force does not exceed rolling resistance here."""
        return self.on_ring and self._v == 0.0 and self._holds(self._theta)

    def tilt_accel_mm_s2(self, angle_deg):
        """Tangential acceleration (mm/s^2) the tilt gives a marble at angle_deg."""
        return -self._k_tilt * math.sin(angle_deg * _RAD - self._low)

    def static_band_deg(self):
        """Half-width (degrees) of the band round the low point where a still marble stays.

        180 when the tilt cannot overcome rolling resistance anywhere (a level ring).
        """
        r0 = self.params.rolling_decel_mm_s2
        if self._k_tilt <= r0:
            return 180.0
        return math.asin(r0 / self._k_tilt) * _DEG

    def _holds(self, theta):
        return abs(self._k_tilt * math.sin(theta - self._low)) <= self.params.rolling_decel_mm_s2

    # --- actions -------------------------------------------------------------------
    def place(self, angle_deg):
        """Put the marble on the track at angle_deg, not moving (on_ring becomes True)."""
        self._theta = float(angle_deg) * _RAD
        self._theta0 = self._theta
        self._v = 0.0
        self.on_ring = True
        self._leave_at = None

    def flick(self, speed_mm_s):
        """Give the marble a signed speed (mm/s, + = counter-clockwise). Resets travel to 0."""
        if not self.on_ring:
            raise RuntimeError("the marble is off the ring: place() it before flicking")
        self._v = float(speed_mm_s)
        self._theta0 = self._theta
        self._leave_at = None
        self._check_off_ring()

    def _check_off_ring(self):
        if self._leave_at is None and abs(self._v) > self.params.off_ring_speed_mm_s:
            lo, hi = self.params.off_ring_arc_deg
            arc = self.rng.uniform(lo, hi) * _RAD
            self._leave_dir = 1.0 if self._v > 0 else -1.0
            self._leave_at = self._theta + self._leave_dir * arc

    def step(self, dt_ms):
        """Advance simulated time by dt_ms (ms, >= 0)."""
        if dt_ms < 0:
            raise ValueError("step: dt_ms must be >= 0, not %r" % dt_ms)
        self.time_ms += dt_ms
        if not self.on_ring:
            return
        h = self.params.substep_ms / 1000.0
        remaining = dt_ms / 1000.0
        while remaining > 1e-12:
            if self._v == 0.0 and self._holds(self._theta):
                return  # at rest: nothing changes until the next flick
            dt = h if remaining > h else remaining
            remaining -= dt
            self._substep(dt)
            if self._leave_at is not None:
                d = self._leave_dir
                if (self._theta - self._leave_at) * d >= 0.0:
                    self._leave()
                    return
                if self._v * d <= 0.0:
                    self._leave_at = None  # slowed to a stop first (steep tilt): it stays on
            elif self._v > self.params.off_ring_speed_mm_s \
                    or -self._v > self.params.off_ring_speed_mm_s:
                self._check_off_ring()

    def _leave(self):
        """The marble jumps out of the groove at the drawn point; it stays where it left."""
        self._theta = self._leave_at
        self.on_ring = False
        self._v = 0.0
        self._leave_at = None

    def _substep(self, dt):
        """One semi-implicit Euler step of dt seconds (v updated first, then the angle)."""
        p = self.params
        r0 = p.rolling_decel_mm_s2
        inv_r = 1.0 / self.radius_mm
        theta = self._theta
        v = self._v
        a_tilt = -self._k_tilt * math.sin(theta - self._low)
        if v == 0.0:
            # Static band already checked by the caller: the tilt wins, start downhill.
            a = a_tilt - (r0 if a_tilt > 0 else -r0)
            v = a * dt
            self._theta = theta + v * dt * inv_r
            self._v = v
            return
        a = a_tilt - p.drag_per_s * v - (r0 if v > 0 else -r0)
        v_new = v + a * dt
        if (v_new > 0.0) == (v > 0.0) and v_new != 0.0:
            self._v = v_new
            self._theta = theta + v_new * dt * inv_r
            return
        # v reaches zero inside this sub-step: stop there (constant deceleration over t0).
        t0 = dt * v / (v - v_new)
        theta += 0.5 * v * t0 * inv_r
        self._theta = theta
        self._v = 0.0
        if self._holds(theta):
            return  # it stops for good
        # The tilt overcomes static friction: it turns back downhill for the rest of dt.
        rest = dt - t0
        a_tilt = -self._k_tilt * math.sin(theta - self._low)
        a = a_tilt - (r0 if a_tilt > 0 else -r0)
        v = a * rest
        self._v = v
        self._theta = theta + v * rest * inv_r

    def run_until_rest(self, max_ms=120000.0, chunk_ms=10.0):
        """Step until the marble is at rest or off the ring; returns the simulated ms taken.

        Raises RuntimeError if it is still moving after max_ms (a model error).
        """
        t = 0.0
        while self.on_ring and not self.at_rest:
            if t >= max_ms:
                raise RuntimeError("marble still moving after %.0f ms" % max_ms)
            self.step(chunk_ms)
            t += chunk_ms
        return t

    def __repr__(self):
        return ("Marble(angle=%.2f deg, v=%.1f mm/s, on_ring=%s, at_rest=%s)"
                % (self.angle_deg, self._v, self.on_ring, self.at_rest))


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


def travel_for_speed(ring, speed_mm_s, params=None):
    """Level ring: the signed travel (degrees) of a flick at speed_mm_s, ignoring leaving the ring."""
    p = params if params is not None else PhysicsParams()
    r = track_radius_mm(ring)
    s = _stop_distance_mm(abs(float(speed_mm_s)), p.drag_per_s, p.rolling_decel_mm_s2)
    return math.copysign(s / r * _DEG, speed_mm_s) if speed_mm_s else 0.0


def speed_for_travel(ring, travel_deg, params=None):
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


def max_travel_deg(ring, params=None):
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

    def __init__(self, ring, params=None):
        self.ring = ring
        self.params = params if params is not None else PhysicsParams()
        track_radius_mm(ring)  # fail early on a bad ring

    @staticmethod
    def spread(skill):
        """Relative standard deviation of the flick speed for a skill in [0, 1]."""
        skill = float(skill)
        if not 0.0 <= skill <= 1.0:
            raise ValueError("skill must be in [0, 1], not %r" % skill)
        return 0.02 + 0.12 * (1.0 - skill)

    def flick_speed(self, rng, target_travel_deg, skill):
        """A signed speed (mm/s) for a player aiming at target_travel_deg (signed degrees)."""
        v = speed_for_travel(self.ring, target_travel_deg, self.params)
        factor = 1.0 + self.spread(skill) * rng.gauss(0.0, 1.0)
        return v * max(0.0, factor)
