"""Reading-level model of the VL53L0X time-of-flight sensors round the ring.

Each sensor in ring.json ``sensors`` sits on the track at ``angle_deg`` and looks
along the groove (``aim`` "ccw" = towards increasing angle). A marble whose centre
is D degrees ahead of it (in the aim direction) is in view when D lies in the
sensor's ``view_deg`` window [near, far]. The sensor then reports the distance to
the marble's near surface:

    true range = 2 R sin(D / 2) - marble_diameter / 2         (mm)

and a reading is

    range = round(scale_i * true + bias_i + N(0, sigma)),  sigma = max(1.5 mm, 1.5 % of true)

with the per-sensor bias and scale drawn once (ground truth in ``bias_mm`` and
``scale``), plus outliers with a failure status, silent wrong readings with a good
status, dropouts, out-of-range codes when nothing is in view, a 33 ms +- 0.5 ms
measurement period with a random phase per sensor, and injectable faults.
Every number is justified in docs/simulator.md.

Randomness: the constructor's RNG draws the per-sensor errors and one seed per
sensor; each sensor then has its own `random.Random`, so the readings of one
sensor do not depend on how often the others are read.
"""
import math
import random

from ringfw.hal import (RANGE_NO_TARGET, RANGE_OUT_OF_RANGE, STATUS_NO_ANSWER,
                        STATUS_PHASE_FAIL, STATUS_SIGMA_FAIL, STATUS_SIGNAL_FAIL,
                        STATUS_VALID)

FAULTS = ("dead", "stuck", "noisy")
_RAD = math.pi / 180.0
_NO_TARGET_STATUSES = (STATUS_PHASE_FAIL, STATUS_SIGNAL_FAIL)
_NO_TARGET_RANGES = (RANGE_OUT_OF_RANGE, RANGE_NO_TARGET)
_OUTLIER_STATUSES = (STATUS_SIGNAL_FAIL, STATUS_PHASE_FAIL, STATUS_SIGMA_FAIL)
_NOISY_FACTOR = 10.0
_GARBAGE_MAX = 8191  # a 13-bit range register full of garbage


class SensorParams:
    """Error model of one VL53L0X reading (all sensors share it).

    sigma_min_mm       floor of the Gaussian range noise (mm)
    sigma_frac         noise as a fraction of the range (0.015 = 1.5 %)
    bias_max_mm        per-sensor offset drawn uniformly in [-bias_max_mm, +bias_max_mm]
    scale_err_max      per-sensor scale drawn uniformly in [1 - x, 1 + x]
    outlier_rate       readings with a failure status and a garbage range
    silent_wrong_rate  readings with a good status and a random range within the window
    dropout_rate       measurements with no fresh reading at all
    period_ms          measurement period (the timing budget, ms)
    jitter_ms          each period is period_ms + uniform(-jitter_ms, +jitter_ms)
    noise_scale        multiplies sigma (1.0 = the requirement; never below it by default)
    """

    def __init__(self, *, sigma_min_mm=1.5, sigma_frac=0.015, bias_max_mm=10.0, scale_err_max=0.01,
                 outlier_rate=0.01, silent_wrong_rate=0.005, dropout_rate=0.002, period_ms=33.0,
                 jitter_ms=0.5, noise_scale=1.0):
        self.sigma_min_mm = float(sigma_min_mm)
        self.sigma_frac = float(sigma_frac)
        self.bias_max_mm = float(bias_max_mm)
        self.scale_err_max = float(scale_err_max)
        self.outlier_rate = float(outlier_rate)
        self.silent_wrong_rate = float(silent_wrong_rate)
        self.dropout_rate = float(dropout_rate)
        self.period_ms = float(period_ms)
        self.jitter_ms = float(jitter_ms)
        self.noise_scale = float(noise_scale)
        for name in ("sigma_min_mm", "sigma_frac", "bias_max_mm", "scale_err_max", "outlier_rate",
                     "silent_wrong_rate", "dropout_rate", "jitter_ms", "noise_scale"):
            if getattr(self, name) < 0:
                raise ValueError("SensorParams.%s must be >= 0" % name)
        if self.outlier_rate + self.silent_wrong_rate + self.dropout_rate > 1.0:
            raise ValueError("SensorParams: the outlier, silent and dropout rates add up to over 1")
        if self.scale_err_max >= 0.5:
            raise ValueError("SensorParams.scale_err_max must be < 0.5")
        if not self.period_ms > 2 * self.jitter_ms:
            raise ValueError("SensorParams.period_ms must exceed twice jitter_ms")

    @classmethod
    def ideal(cls, **kw):
        """No noise, bias, outliers or dropouts (for tests of geometry only)."""
        d = dict(sigma_min_mm=0.0, sigma_frac=0.0, bias_max_mm=0.0, scale_err_max=0.0,
                 outlier_rate=0.0, silent_wrong_rate=0.0, dropout_rate=0.0, jitter_ms=0.0)
        d.update(kw)
        return cls(**d)


def _track(ring):
    try:
        t = ring["track"]
        radius = float(t["radius_mm"])
        marble_r = float(t["marble_diameter_mm"]) / 2.0
        sensors = ring["sensors"]
    except (KeyError, TypeError, ValueError):
        raise ValueError("ring.json needs track.radius_mm, track.marble_diameter_mm and sensors") \
            from None
    if radius <= 0 or marble_r <= 0 or marble_r >= radius:
        raise ValueError("ring.json: need 0 < marble radius < track radius")
    return radius, marble_r, sensors


def _sensor_geometry(i, s):
    try:
        angle = float(s["angle_deg"])
        aim = s.get("aim", "ccw")
        near, far = (float(x) for x in s["view_deg"])
    except (KeyError, TypeError, ValueError):
        raise ValueError("ring.json sensor %d needs angle_deg and view_deg [near, far]" % i) from None
    if aim not in ("ccw", "cw"):
        raise ValueError("ring.json sensor %d: aim must be 'ccw' or 'cw', not %r" % (i, aim))
    if not 0.0 < near < far < 180.0:
        raise ValueError("ring.json sensor %d: view_deg must be 0 < near < far < 180" % i)
    return angle % 360.0, (1.0 if aim == "ccw" else -1.0), near, far


class SensorArray:
    """All the VL53L0X on the ring, in ring.json order, at the reading level.

    bias_mm[i], scale[i]   ground truth of sensor i's systematic error:
                           mean reading = scale[i] * true range + bias_mm[i]
    stuck_mm[i]            the constant a "stuck" sensor i reports
    faults[i]              None, "dead", "stuck" or "noisy"
    """

    def __init__(self, ring, *, params=None, rng=None, faults=None):
        self.params = p = params if params is not None else SensorParams()
        if rng is None:
            rng = random.Random(0)
        elif isinstance(rng, int):
            rng = random.Random(rng)
        elif not isinstance(rng, random.Random):
            raise TypeError("rng must be a random.Random, an int seed or None")
        self.radius_mm, self.marble_radius_mm, sensors = _track(ring)
        self.count = len(sensors)
        if self.count == 0:
            raise ValueError("ring.json lists no sensors")
        geo = [_sensor_geometry(i, s) for i, s in enumerate(sensors)]
        self._angle = [g[0] for g in geo]
        self._dir = [g[1] for g in geo]
        self._near = [g[2] for g in geo]
        self._far = [g[3] for g in geo]
        self._win_mm = [(self._chord_range(g[2]), self._chord_range(g[3])) for g in geo]
        self.bias_mm = []
        self.scale = []
        self.stuck_mm = []
        self._rngs = []
        for i in range(self.count):
            self.bias_mm.append(rng.uniform(-p.bias_max_mm, p.bias_max_mm))
            self.scale.append(1.0 + rng.uniform(-p.scale_err_max, p.scale_err_max))
            lo, hi = self._win_mm[i]
            self.stuck_mm.append(rng.randint(int(math.ceil(lo)), int(hi)))
            self._rngs.append(random.Random(rng.getrandbits(64)))
        # The sensors start free-running at random phases within one period.
        self._due = [r.uniform(0.0, p.period_ms) for r in self._rngs]
        self.faults = [None] * self.count
        self._sigma_mult = [p.noise_scale] * self.count
        for i, kind in (faults or {}).items():
            self.set_fault(i, kind)
        # Cumulative thresholds for the one uniform draw that picks a reading's kind.
        self._t_drop = p.dropout_rate
        self._t_out = self._t_drop + p.outlier_rate
        self._t_silent = self._t_out + p.silent_wrong_rate

    # --- geometry (no noise) ------------------------------------------------------
    def _chord_range(self, d_deg):
        return 2.0 * self.radius_mm * math.sin(d_deg * 0.5 * _RAD) - self.marble_radius_mm

    def window_deg(self, i):
        """Sensor i's view window (near, far), degrees of track ahead of it."""
        return self._near[i], self._far[i]

    def window_range_mm(self, i):
        """True ranges (mm) of a marble at the near and the far edge of sensor i's window."""
        return self._win_mm[i]

    def true_offset_deg(self, i, marble_angle_deg):
        """How far (degrees, in the aim direction) the marble centre is ahead of sensor i,
        if it is inside the view window; None otherwise (or if marble_angle_deg is None)."""
        if marble_angle_deg is None:
            return None
        d = ((marble_angle_deg - self._angle[i]) * self._dir[i]) % 360.0
        if self._near[i] <= d <= self._far[i]:
            return d
        return None

    def true_range_mm(self, i, marble_angle_deg):
        """Exact distance (mm) from sensor i to the marble's near surface, or None if not in view."""
        d = self.true_offset_deg(i, marble_angle_deg)
        if d is None:
            return None
        return self._chord_range(d)

    # --- timing and faults ----------------------------------------------------------
    def next_due_ms(self, i):
        """Simulated time (ms) at which sensor i's next measurement completes."""
        return self._due[i]

    def set_fault(self, i, kind):
        """Inject a fault into sensor i: "dead", "stuck", "noisy", or None to repair it."""
        if not isinstance(i, int) or not 0 <= i < self.count:
            raise ValueError("no sensor %r (there are %d)" % (i, self.count))
        if kind is not None and kind not in FAULTS:
            raise ValueError("unknown sensor fault %r (use one of %s or None)"
                             % (kind, ", ".join(FAULTS)))
        self.faults[i] = kind
        self._sigma_mult[i] = self.params.noise_scale * (_NOISY_FACTOR if kind == "noisy" else 1.0)

    # --- one reading ------------------------------------------------------------------
    def measure(self, i, marble_angle_deg, now_ms):
        """Complete sensor i's measurement that is due by now_ms and schedule the next one.

        marble_angle_deg: where the marble centre was (best: the middle of the integration
        window), or None when no marble is on the ring. Returns (range_mm, status) with
        ints, or None for a dropout (no fresh reading this cycle). If the caller is more
        than a period late, the missed measurements are overwritten, as on the device.
        """
        due = self._due[i]
        if now_ms < due - 1e-6:
            raise ValueError("sensor %d: measurement not due until %.3f ms (now %.3f ms)"
                             % (i, due, now_ms))
        rng = self._rngs[i]
        p = self.params
        period, jitter = p.period_ms, p.jitter_ms
        due += period + (rng.uniform(-jitter, jitter) if jitter else 0.0)
        while due <= now_ms:
            due += period + (rng.uniform(-jitter, jitter) if jitter else 0.0)
        self._due[i] = due

        fault = self.faults[i]
        if fault == "dead":
            return 0, STATUS_NO_ANSWER
        if fault == "stuck":
            return self.stuck_mm[i], STATUS_VALID

        u = rng.random()
        if u < self._t_silent:
            if u < self._t_drop:
                return None
            if u < self._t_out:
                status = _OUTLIER_STATUSES[rng.randrange(3)]
                if rng.random() < 0.5:  # plausible-looking garbage, up to twice the far edge
                    return rng.randint(0, int(2 * self._win_mm[i][1])), status
                return rng.randint(0, _GARBAGE_MAX), status
            lo, hi = self._win_mm[i]
            return rng.randint(int(math.ceil(lo)), int(hi)), STATUS_VALID

        # A normal reading: the marble if it is in view, else the device's no-target codes.
        if marble_angle_deg is None:
            d = -1.0
        else:
            d = ((marble_angle_deg - self._angle[i]) * self._dir[i]) % 360.0
        if not self._near[i] <= d <= self._far[i]:
            return _NO_TARGET_RANGES[rng.randrange(2)], _NO_TARGET_STATUSES[rng.randrange(2)]
        true = 2.0 * self.radius_mm * math.sin(d * 0.5 * _RAD) - self.marble_radius_mm
        sigma = p.sigma_frac * true
        if sigma < p.sigma_min_mm:
            sigma = p.sigma_min_mm
        r = self.scale[i] * true + self.bias_mm[i] + rng.gauss(0.0, sigma * self._sigma_mult[i])
        r = int(round(r))
        return (r if r > 0 else 0), STATUS_VALID
