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
from __future__ import annotations
import math
import random

from ringside.flicks import (  # noqa: F401  (the level-ring model lives with the players)
    Flicker, PhysicsParams, max_travel_deg, speed_for_travel,
    track_radius_mm, travel_for_speed)

_DEG = 180.0 / math.pi
_RAD = math.pi / 180.0


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

    def __init__(self, ring: dict, *, params: PhysicsParams | None = None, tilt_deg: float = 0.0, low_deg: float = 0.0, rng: random.Random | None = None):
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
    def set_tilt(self, tilt_deg: float, low_deg: float = 0.0) -> None:
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
    def angle_deg(self) -> float:
        return self._theta * _DEG

    @property
    def position_deg(self) -> float:
        return (self._theta * _DEG) % 360.0

    @property
    def speed_mm_s(self) -> float:
        return self._v

    @property
    def travel_deg(self) -> float:
        return (self._theta - self._theta0) * _DEG

    @property
    def at_rest(self) -> bool:
        """v == 0 and the tilt force does not exceed rolling resistance here."""
        return self.on_ring and self._v == 0.0 and self._holds(self._theta)

    def tilt_accel_mm_s2(self, angle_deg: float) -> float:
        """Tangential acceleration (mm/s^2) the tilt gives a marble at angle_deg."""
        return -self._k_tilt * math.sin(angle_deg * _RAD - self._low)

    def static_band_deg(self) -> float:
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
    def place(self, angle_deg: float) -> None:
        """Put the marble on the track at angle_deg, not moving (on_ring becomes True)."""
        self._theta = float(angle_deg) * _RAD
        self._theta0 = self._theta
        self._v = 0.0
        self.on_ring = True
        self._leave_at = None

    def flick(self, speed_mm_s: float) -> None:
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

    def step(self, dt_ms: float) -> None:
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

    def run_until_rest(self, max_ms: float = 120000.0, chunk_ms: float = 10.0) -> float:
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
