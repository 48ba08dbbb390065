"""The VL53L0X time-of-flight sensors round the ring: a physical model (default) and an ideal one.

API (kept stable; the firmware's simulated board and the bring-up tool build on it)
-----------------------------------------------------------------------------------
    arr = SensorArray(ring_dict, params=SensorParams(...), rng=seed, faults={i: kind},
                      model="physical" | "ideal")          # default: DEFAULT_MODEL = "physical"
    arr.measure(i, marble_angle_deg, now_ms) -> (range_mm, status) | None   # as before
    arr.last[i]                 -> Reading of sensor i's last completed measurement:
                                   range_mm, status (what register 0x14 decodes to),
                                   signal_mcps, ambient_mcps (what 0x1A/0x1C hold), sigma_mm,
                                   api_status (ST API's RangeStatus, sigma check included),
                                   crosstalk_mcps (foreign light in this measurement)
    arr.next_due_ms(i)          when sensor i's running measurement completes (inf: idle)
    arr.start_continuous(i, t)  back-to-back ranging from t (what the boards do at boot;
                                the constructor starts every sensor so, at a random phase)
    arr.start_single(i, t)      one measurement from t (SYSRANGE_START = 0x01): emits over
                                [t, t + period], due at t + period; then the sensor idles
    arr.stop(i, t)              stop ranging (no emission from t)
    arr.emitting(j, t0, t1)     ms of [t0, t1] during which sensor j's laser was on
    arr.set_lateral(mm)         the marble's place across the groove (+ = outwards),
                                drawn per flick by the simulated board (seeded)
    arr.set_marble(diameter_mm=None, material=None)   players bring their own marble
    arr.set_fault(i, kind)      electrical: "dead", "stuck", "noisy"; mount faults:
                                "misaimed" (axis knocked by MISAIM_DEG = (yaw in, pitch)),
                                "nobaffle" (the snout missing); None repairs everything
    arr.set_mount(i, aim_error_deg=(yaw, pitch), baffle=True|False)   the same, explicitly
    arr.mount_of(i) -> dict     the sensor's mount as built (yaw, pitch, height, baffle)
    arr.view(i)                 optics.SensorView: the rays and what the empty ring returns
    arr.background(i) -> dict   the empty ring's reading of sensor i, without noise
    arr.model, arr.describe()   "physical" | "ideal", and the parameters (for bench JSON)

Crosstalk: while sensor i measures over [t0, t1], every neighbour j whose light reaches i's
cone adds K * coupling[i][j] * emitting(j, t0, t1) / (t1 - t0) of foreign signal (the walls
it lights, and the marble when both see it). So the schedule decides: continuous ranging
(every sensor always on) is disturbed; a schedule in which overlapping neighbours never range
at the same time is not. Whoever drives the sensors (sim/board.py) calls start_single /
start_continuous with the times the firmware really starts them.

The physical model (docs/simulator.md, "What a sensor sees"): each sensor's cone is
ray-cast once against the ring's surfaces (optics.py: floor, lips, drum and LED strip, outer
wall, the other sensors' pockets, the baffle); the marble changes only the rays it covers. A
ray that ends at distance d on reflectance rho at incidence theta returns
rho * cos(theta) / (N d^2) of the signal; the reported range is the signal-weighted mean
distance (ST: "a weighted average of all the objects seen in the field of view"), with
sigma from the photon counts (signal, ambient), ST's signal-rate limit (0.25 MCPS: signal
fail, the range register 8190), the ~30 mm minimum range (min range fail), per-sensor
offset and gain, and the rare glitches of the ideal model. The ideal model (model="ideal")
is the earlier reading-level model: only the marble is seen, 8190/8191 otherwise.

Randomness: the constructor's RNG draws the per-sensor errors and one seed per sensor; each
sensor then has its own `random.Random`, so the readings of one sensor do not depend on how
often the others are read.
"""
from __future__ import annotations

import math
import random
from collections import namedtuple
from ringside.ring import lens_range_mm

from ringfw.hal import (RANGE_NO_TARGET, RANGE_OUT_OF_RANGE, STATUS_MIN_RANGE_FAIL,
                        STATUS_NO_ANSWER, STATUS_PHASE_FAIL, STATUS_SIGMA_FAIL,
                        STATUS_SIGNAL_FAIL, STATUS_VALID)
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any
    from ringside.sim.optics import SensorView

MODELS = ("physical", "ideal")
DEFAULT_MODEL = "physical"
FAULTS = ("dead", "stuck", "noisy")
MOUNT_FAULTS = ("misaimed", "nobaffle")
MISAIM_DEG = (9.0, -6.0)      # a knocked sensor: axis 9 deg further in, 6 deg down (our choice)
_RAD = math.pi / 180.0
_NO_TARGET_STATUSES = (STATUS_PHASE_FAIL, STATUS_SIGNAL_FAIL)
_NO_TARGET_RANGES = (RANGE_OUT_OF_RANGE, RANGE_NO_TARGET)
_OUTLIER_STATUSES = (STATUS_SIGNAL_FAIL, STATUS_PHASE_FAIL, STATUS_SIGMA_FAIL)
_NOISY_FACTOR = 10.0
_GARBAGE_MAX = 8191  # a 13-bit range register full of garbage
_INF = float("inf")

Reading = namedtuple("Reading", "range_mm status signal_mcps ambient_mcps sigma_mm api_status "
                                "crosstalk_mcps")

# Marbles players bring. effective_reflectance is what a flat Lambertian target of the same
# cross-section would need to return the same light to a sensor beside the source (docs).
MARBLE_KINDS = {
    "glass": {"effective_reflectance": 0.01, "specular": True},
    "opaque": {"effective_reflectance": 0.35, "specular": False},
    "steel": {"effective_reflectance": 0.15, "specular": True},
}


class SensorParams:
    """Error model of one VL53L0X reading (all sensors share it).

    Both models:
    sigma_min_mm       floor of the Gaussian range noise (mm)
    sigma_frac         noise floor as a fraction of the range (0.015 = 1.5 %)
    bias_max_mm        per-sensor offset drawn uniformly in [-bias_max_mm, +bias_max_mm]
    scale_err_max      per-sensor scale drawn uniformly in [1 - x, 1 + x]
    outlier_rate       readings with a failure status and a garbage range
    silent_wrong_rate  readings with a good status and a random range within the window
    dropout_rate       measurements with no fresh reading at all
    period_ms          measurement period (ms); None: ring.json sensor_timing.budget_ms for the
                       ideal model, budget + overhead_ms for the physical one
    jitter_ms          each period is period_ms + uniform(-jitter_ms, +jitter_ms)
    noise_scale        multiplies sigma (1.0 = the requirement; never below it by default)

    Physical model only (docs/simulator.md gives the source of each):
    signal_k_mcps_m2   signal rate of a full-cone white (rho = 1) target at 1 m, MCPS: 0.83, from
                       the datasheet's ranging limits (DS11555 table 11; docs/simulator.md)
    signal_limit_mcps  the final-range signal-rate check (device): below it, signal fail
    sigma_limit_mm     ST API's sigma check (api_status only: the device does not apply it)
    min_range_mm       nearer than this (the blended range) the device flags min range fail
    ambient_mcps       ambient infrared reaching the sensor (a lamp, daylight)
    pulse_ns           ST API sigma estimate's effective pulse width (cPulseEffectiveWidth, 8.0 ns)
    ambient_ns         its ambient's effective width (cAmbientEffectiveWidth, 6.0 ns): the
                       ambient counts as (ambient_ns * A / S) beside the pulse, in quadrature
    vcsel_us           the VCSEL's total emitting time a measurement (peakVcselDuration_us:
                       3 * 2048 * (pre + final range timeouts in macro periods) * 1.655 ns,
                       5786 us with the timeouts the driver's 33 ms budget leaves): the signal
                       events the sigma estimate counts are S * vcsel_us
    signal_noise_frac  the reported signal rate's scatter beyond its photon count's own
                       (1 / sqrt(N), Poisson): a fraction of the rate, per reading
    integration_frac   part of the period spent counting photons of the final range
    overhead_ms        what the device runs over the 33 ms budget the driver sets: ST's
                       timing formula gives 33.614 ms (start overhead 1910 us, the setter 1320)
    rays               rays per cone
    marble_material    "glass", "opaque", "steel" (None: ring.json marble.material)
    marble_diameter_mm None: ring.json marble.diameter_mm (or track.marble_diameter_mm)
    crosstalk          False switches the neighbours' light off (for comparison only)
    crosstalk_coherent part of a neighbour's light that keeps a phase against this sensor's
                       gate (a phantom target at a random distance); the rest is ambient
    """

    def __init__(self, *, sigma_min_mm: float = 1.5, sigma_frac: float = 0.015, bias_max_mm: float = 10.0, scale_err_max: float = 0.01,
                 outlier_rate: float = 0.01, silent_wrong_rate: float = 0.005, dropout_rate: float = 0.002, period_ms: int | None = None,
                 jitter_ms: float = 0.5, noise_scale: float = 1.0, signal_k_mcps_m2: float = 0.83, signal_limit_mcps: float = 0.25,
                 sigma_limit_mm: float = 18.0, min_range_mm: float = 30.0, ambient_mcps: float = 0.1, pulse_ns: float = 8.0,
                 ambient_ns: float = 6.0, vcsel_us: float = 5786.0,
                 integration_frac: float = 0.75, overhead_ms: float = 0.614, rays: int = 1024, marble_material: str | None = None,
                 signal_noise_frac: float = 0.01,
                 marble_diameter_mm: float | None = None, crosstalk: bool = True, crosstalk_coherent: float = 0.25):
        self.sigma_min_mm = float(sigma_min_mm)
        self.sigma_frac = float(sigma_frac)
        self.bias_max_mm = float(bias_max_mm)
        self.scale_err_max = float(scale_err_max)
        self.outlier_rate = float(outlier_rate)
        self.silent_wrong_rate = float(silent_wrong_rate)
        self.dropout_rate = float(dropout_rate)
        self.period_ms = None if period_ms is None else float(period_ms)
        self.jitter_ms = float(jitter_ms)
        self.noise_scale = float(noise_scale)
        self.signal_k_mcps_m2 = float(signal_k_mcps_m2)
        self.signal_limit_mcps = float(signal_limit_mcps)
        self.sigma_limit_mm = float(sigma_limit_mm)
        self.min_range_mm = float(min_range_mm)
        self.ambient_mcps = float(ambient_mcps)
        self.pulse_ns = float(pulse_ns)
        self.ambient_ns = float(ambient_ns)
        self.vcsel_us = float(vcsel_us)
        self.integration_frac = float(integration_frac)
        self.signal_noise_frac = float(signal_noise_frac)
        self.overhead_ms = float(overhead_ms)
        self.rays = int(rays)
        self.marble_material = marble_material
        self.marble_diameter_mm = None if marble_diameter_mm is None else float(marble_diameter_mm)
        self.crosstalk = bool(crosstalk)
        self.crosstalk_coherent = float(crosstalk_coherent)
        if not 0.0 <= self.crosstalk_coherent <= 1.0:
            raise ValueError("SensorParams.crosstalk_coherent must be in [0, 1]")
        for name in ("sigma_min_mm", "sigma_frac", "bias_max_mm", "scale_err_max", "outlier_rate",
                     "silent_wrong_rate", "dropout_rate", "jitter_ms", "noise_scale",
                     "signal_k_mcps_m2", "signal_limit_mcps", "sigma_limit_mm", "min_range_mm",
                     "ambient_mcps", "pulse_ns", "ambient_ns", "vcsel_us", "overhead_ms",
                     "signal_noise_frac"):
            if getattr(self, name) < 0:
                raise ValueError("SensorParams.%s must be >= 0" % name)
        if self.outlier_rate + self.silent_wrong_rate + self.dropout_rate > 1.0:
            raise ValueError("SensorParams: the outlier, silent and dropout rates add up to over 1")
        if self.scale_err_max >= 0.5:
            raise ValueError("SensorParams.scale_err_max must be < 0.5")
        if self.period_ms is not None and not self.period_ms > 2 * self.jitter_ms:
            raise ValueError("SensorParams.period_ms must exceed twice jitter_ms")
        if not 0.0 < self.integration_frac <= 1.0:
            raise ValueError("SensorParams.integration_frac must be in (0, 1]")
        if self.rays < 16:
            raise ValueError("SensorParams.rays must be at least 16")
        if self.marble_material is not None and not isinstance(self.marble_material, str):
            raise ValueError("SensorParams.marble_material must be a material name")

    @classmethod
    def ideal(cls, **kw: Any) -> SensorParams:
        """No noise, bias, outliers or dropouts (for tests of geometry only)."""
        d = dict(sigma_min_mm=0.0, sigma_frac=0.0, bias_max_mm=0.0, scale_err_max=0.0,
                 outlier_rate=0.0, silent_wrong_rate=0.0, dropout_rate=0.0, jitter_ms=0.0,
                 signal_noise_frac=0.0)
        d.update(kw)
        return cls(**d)

    def as_dict(self) -> dict:
        return {k: v for k, v in vars(self).items()}


# c/2 in mm per ns, as ST's API has it (VL53L0X_SPEED_OF_LIGHT_IN_AIR = 2997, in 0.1 mm/ns)
_HALF_C_MM_NS = 299.7 / 2.0


def shot_sigma_mm(p: SensorParams, signal_mcps: float, ambient_mcps: float) -> float:
    """A reading's photon-limited range noise (mm, one sigma): ST API's sigma estimate
    (VL53L0X_calc_sigma_estimate, without crosstalk compensation and without its 1 mm
    reference term, which the noise floor stands for):
    c/2 * sqrt(pulse^2 + (ambient_width * A / S)^2) / sqrt(12 * S * vcsel_us).
    The ambient counts in quadrature beside the pulse, so daylight on a faint return
    costs far more than sqrt(1 + A/S) would (docs/simulator.md)."""
    events = signal_mcps * p.vcsel_us
    amb = p.ambient_ns * min(ambient_mcps / signal_mcps, 102.4)   # the API's ratio cap
    return _HALF_C_MM_NS * math.sqrt(p.pulse_ns * p.pulse_ns + amb * amb) / math.sqrt(12.0 * events)


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


def _mount_spec(ring, i, s):
    """The mount of sensor i: ring.json "mount" (all sensors), then the sensor's own "mount"."""
    base = dict(ring.get("mount", {}))
    base.update(s.get("mount", {}))
    t = ring["track"]
    try:
        spec = {
            "lens_r_mm": float(base.get("lens_radius_mm", float(t["radius_mm"])
                                        + float(t.get("width_mm", 24)) / 2)),
            "height_mm": float(base.get("height_mm", t.get("beam_height_mm", 10))),
            "yaw_in_deg": float(base.get("yaw_in_deg", 24.6)),
            "pitch_deg": float(base.get("pitch_deg", 0.0)),
            "fov_deg": float(s.get("fov_deg", base.get("fov_deg", 25))),
        }
        baf = base.get("baffle")
        if baf in (None, False):
            spec["baffle"] = None
        else:
            y0, y1 = (float(x) for x in baf["yaw_deg"])
            p0, p1 = (float(x) for x in baf["pitch_deg"])
            if not (y0 < y1 and p0 < p1):
                raise ValueError
            spec["baffle"] = ((y0, y1), (p0, p1))
    except (KeyError, TypeError, ValueError):
        raise ValueError("ring.json sensor %d: mount needs numbers (lens_radius_mm, height_mm, "
                         "yaw_in_deg, pitch_deg) and a baffle with yaw_deg and pitch_deg "
                         "[low, high]" % i) from None
    if not 0 < spec["fov_deg"] < 90:
        raise ValueError("ring.json sensor %d: fov_deg must be 0..90" % i)
    return spec


def marble_kinds(ring: dict) -> dict:
    """The marbles a ring description knows: the built-in kinds, then ring.json's
    marble.kinds (which add kinds or replace them), name -> {effective_reflectance, specular}."""
    kinds = {k: dict(v) for k, v in MARBLE_KINDS.items()}
    for name, v in ring.get("marble", {}).get("kinds", {}).items():
        try:
            kinds[name] = {"effective_reflectance": float(v["effective_reflectance"]),
                           "specular": bool(v.get("specular", False))}
        except (KeyError, TypeError, ValueError):
            raise ValueError("ring.json marble.kinds.%s needs effective_reflectance" % name) \
                from None
    return kinds


class SensorArray:
    """All the VL53L0X on the ring, in ring.json order, at the reading level.

    bias_mm[i], scale[i]   ground truth of sensor i's systematic error:
                           mean reading = scale[i] * (range seen) + bias_mm[i]
    stuck_mm[i]            the constant a "stuck" sensor i reports
    faults[i]              None, "dead", "stuck" or "noisy"
    mount_faults[i]        set of "misaimed", "nobaffle"
    """

    def __init__(self, ring: dict, *, params: SensorParams | None = None, rng: random.Random | None = None, faults: dict[int, str] | None = None, model: str | None = None):
        self.model = DEFAULT_MODEL if model is None else model
        if self.model not in MODELS:
            raise ValueError("sensor model must be one of %s, not %r" % (", ".join(MODELS), model))
        self.params = p = params if params is not None else SensorParams()
        if rng is None:
            rng = random.Random(0)
        elif isinstance(rng, int):
            rng = random.Random(rng)
        elif not isinstance(rng, random.Random):
            raise TypeError("rng must be a random.Random, an int seed or None")
        self.ring = ring
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
        budget = float(ring.get("sensor_timing", {}).get("budget_ms", 33))
        if p.period_ms is not None:
            self.period_ms = p.period_ms
        elif self.model == "ideal":
            self.period_ms = budget
        else:
            self.period_ms = budget + p.overhead_ms
        if not self.period_ms > 2 * p.jitter_ms:
            raise ValueError("the sensor period must exceed twice jitter_ms")
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
        self._due = [r.uniform(0.0, self.period_ms) for r in self._rngs]
        # emission windows: the running measurement's [start, end] and the two before it
        self._mode = ["continuous"] * self.count
        self._wins = [[(d - self.period_ms, d)] for d in self._due]
        self.faults = [None] * self.count
        self.mount_faults = [set() for _ in range(self.count)]
        self._sigma_mult = [p.noise_scale] * self.count
        self.last = [None] * self.count
        self.overwritten = [0] * self.count   # results replaced in the register before a read
        self.completed = [0] * self.count     # measurements taken (read or not)
        self.lateral_mm = 0.0
        # Cumulative thresholds for the one uniform draw that picks a reading's kind.
        self._t_drop = p.dropout_rate
        self._t_out = self._t_drop + p.outlier_rate
        self._t_silent = self._t_out + p.silent_wrong_rate
        if self.model == "physical":
            self._init_physical(ring, sensors)
        for i, kind in (faults or {}).items():
            self.set_fault(i, kind)

    # --- the physical scene ----------------------------------------------------------
    def _init_physical(self, ring, sensors):
        from ringside.sim import optics   # numpy: only the physical model needs it
        p = self.params
        self.scene = optics.Scene(ring)
        self.scene.pocket_angles = [a * _RAD for a in self._angle]
        self._spec = [_mount_spec(ring, i, s) for i, s in enumerate(sensors)]
        self._kinds = marble_kinds(ring)
        m = ring.get("marble", {})
        self.set_marble(p.marble_diameter_mm if p.marble_diameter_mm is not None
                        else m.get("diameter_mm", 2 * self.marble_radius_mm),
                        p.marble_material if p.marble_material is not None
                        else m.get("material", "opaque"))
        self._k = p.signal_k_mcps_m2 * 1e6       # MCPS * mm^2
        self._views = [None] * self.count
        self._mcache = [None] * self.count
        for i in range(self.count):
            self._build_view(i)
        self._couple()

    def _mount(self, i):
        spec = dict(self._spec[i])
        if "misaimed" in self.mount_faults[i]:
            spec["yaw_in_deg"] += MISAIM_DEG[0]
            spec["pitch_deg"] += MISAIM_DEG[1]
        if "nobaffle" in self.mount_faults[i]:
            spec["baffle"] = None
        from ringside.sim import optics
        return optics.Mount(self._angle[i], self._dir[i], **spec)

    def _build_view(self, i):
        from ringside.sim import optics
        self._views[i] = optics.SensorView(self.scene, self._mount(i), i, self.params.rays)
        self._mcache[i] = None

    def _neighbours(self, i):
        """Sensors whose cones can share light with sensor i (two each way round the ring)."""
        out = []
        for k in (-2, -1, 1, 2):
            j = (i + k) % self.count
            if j != i and j not in out:
                out.append(j)
        return out

    def _couple(self):
        """coupling[i][j]: the weight (like a view's bg_w) of sensor j's light, scattered by
        the empty ring's surfaces, that enters sensor i's cone."""
        import numpy as np
        self.coupling = [dict() for _ in range(self.count)]
        for i in range(self.count):
            vi = self._views[i]
            for j in self._neighbours(i):
                self.coupling[i][j] = self._coupling(vi, self._views[j], i, np)

    def _coupling(self, vi, vj, i, np):
        ok = np.isfinite(vj.t) & vj.open
        if not ok.any():
            return 0.0
        pts = vj.origin + vj.dirs[ok] * vj.t[ok][:, None]
        rho = self.scene.rho[vj.sid[ok]]
        v = pts - vi.origin
        dist = np.linalg.norm(v, axis=1)
        u = v / dist[:, None]
        inside = vi.accepts(u)
        if not inside.any():
            return 0.0
        # does i see that point, or a nearer surface in front of it?
        t_occ, _, cos_out = self.scene.cast(vi.origin, u, skip_pocket=i)
        seen = inside & (dist <= t_occ + 2.0)
        # Lambertian: what leaves towards i goes as the cosine to the surface normal
        w = rho * cos_out / (vj.n * dist ** 2)
        return float(w[seen].sum())

    def set_marble(self, diameter_mm: float | None = None, material: str | None = None) -> None:
        """The marble on the ring: diameter (mm) and material ("glass", "opaque", "steel" or
        a kind ring.json's marble.kinds declares)."""
        if self.model != "physical":
            return
        if diameter_mm is not None:
            d = float(diameter_mm)
            width = float(self.ring["track"].get("width_mm", 24))
            if not 0 < d < width:
                raise ValueError("marble diameter must be between 0 and the groove's %g mm" % width)
            self.marble_d_mm = d
        if material is not None:
            if material not in self._kinds:
                raise ValueError("unknown marble material %r (use one of %s)"
                                 % (material, ", ".join(sorted(self._kinds))))
            self.marble_material = material
            self._mcache = [None] * self.count
            k = self._kinds[material]
            self._m_rho = k["effective_reflectance"]
            self._m_specular = k["specular"]

    def lateral_max_mm(self) -> float:
        """How far the marble's centre can sit off the groove's centre line (mm)."""
        width = float(self.ring["track"].get("width_mm", 24))
        d = self.marble_d_mm if self.model == "physical" else 2 * self.marble_radius_mm
        return max(0.0, (width - d) / 2.0)

    def set_lateral(self, mm: float) -> None:
        m = self.lateral_max_mm()
        self.lateral_mm = max(-m, min(m, float(mm)))

    def set_mount(self, i: int, aim_error_deg: tuple[float, float] | None = None, baffle: bool | None = None) -> None:
        """Mis-mount (or put right) sensor i: aim_error_deg = (yaw, pitch) != (0, 0) knocks its
        axis by MISAIM_DEG; baffle False takes its snout off."""
        self._check_index(i)
        mf = self.mount_faults[i]
        if aim_error_deg is not None:
            (mf.add if tuple(aim_error_deg) != (0, 0) else mf.discard)("misaimed")
        if baffle is not None:
            (mf.discard if baffle else mf.add)("nobaffle")
        if self.model == "physical":
            self._build_view(i)
            self._couple()

    def mount_of(self, i: int) -> dict:
        self._check_index(i)
        if self.model != "physical":
            return {}
        m = self._mount(i)
        return {"yaw_in_deg": m.yaw_in_deg, "pitch_deg": m.pitch_deg, "height_mm": m.height_mm,
                "lens_r_mm": m.lens_r_mm, "fov_deg": m.fov_deg,
                "baffle": None if m.baffle is None else {"yaw_deg": list(m.baffle[0]),
                                                         "pitch_deg": list(m.baffle[1])}}

    def view(self, i: int) -> SensorView | None:
        return self._views[i] if self.model == "physical" else None

    def background(self, i: int) -> dict:
        """What sensor i sees of the empty ring, without noise: blended range (mm, None if
        nothing returns), signal rate (MCPS), and each surface's share of it."""
        self._check_index(i)
        if self.model != "physical":
            return {"range_mm": None, "signal_mcps": 0.0, "parts": {}}
        v = self._views[i]
        return {"range_mm": (v.bg_wd / v.bg_w) if v.bg_w > 0 else None,
                "signal_mcps": self._k * v.bg_w, "parts": v.background_parts()}

    def unblended_mm(self, i: int, offset_deg: float) -> float | None:
        """What the firmware makes of sensor i's reading of a marble offset_deg ahead of it on
        the groove's centre line, without noise (mm): the device's mean reading (with this
        sensor's own scale and bias) with the empty ring's light taken out as
        ringfw.tracker._unblend takes it out - all of it, at its own range if it ranges, else
        at ring.json mount.background_mm. None if the cone misses the marble. (The bench's
        --exact-calibration fits each sensor to these: a calibration without noise, without
        the marble's place across the groove, with every point of the window.)"""
        self._check_index(i)
        if self.model != "physical":
            raise ValueError("unblended_mm needs the physical model")
        v = self._views[i]
        keep = self.lateral_mm
        self.lateral_mm = 0.0
        try:
            centre = self.marble_centre(self._angle[i] + self._dir[i] * offset_deg)
        finally:
            self.lateral_mm = keep
        part = self._marble_part_calc(i, centre)
        if part is None or part[0] <= 0:
            return None
        w = v.bg_w + part[0]
        raw = self.scale[i] * (v.bg_wd + part[1]) / w + self.bias_mm[i]
        if v.bg_w <= 0:
            return raw
        if self._k * v.bg_w >= self.params.signal_limit_mcps:
            rb = self.scale[i] * v.bg_wd / v.bg_w + self.bias_mm[i]   # it ranges on its own
        else:
            rb = float((self.ring.get("mount") or {}).get("background_mm", 0))
            if not rb:
                return raw                # the firmware leaves it in
        return (w * raw - v.bg_w * rb) / part[0]

    def describe(self) -> dict:
        """The model and its parameters, for a bench's JSON."""
        d = {"sensor_model": self.model, "period_ms": round(self.period_ms, 3),
             "params": self.params.as_dict()}
        if self.model == "physical":
            d["marble"] = {"diameter_mm": self.marble_d_mm, "material": self.marble_material,
                           "effective_reflectance": self._m_rho}
            d["baffles"] = sum(1 for i in range(self.count) if self._mount(i).baffle is not None)
            d["empty_ring_signal_mcps"] = [round(self._k * v.bg_w, 3) for v in self._views]
        return d

    # --- geometry (no noise) ------------------------------------------------------
    def _chord_range(self, d_deg):
        """The firmware's range model: lens to the near surface of a marble on the centre
        line (ringside.ring.lens_range_mm)."""
        return lens_range_mm(self.ring, d_deg)

    def window_deg(self, i: int) -> tuple:
        """Sensor i's view window (near, far), degrees of track ahead of it."""
        return self._near[i], self._far[i]

    def window_range_mm(self, i: int) -> tuple:
        """True ranges (mm) of a marble at the near and the far edge of sensor i's window."""
        return self._win_mm[i]

    def true_offset_deg(self, i: int, marble_angle_deg: float) -> float | None:
        """How far (degrees, in the aim direction) the marble centre is ahead of sensor i,
        if it is inside the view window; None otherwise (or if marble_angle_deg is None)."""
        if marble_angle_deg is None:
            return None
        d = ((marble_angle_deg - self._angle[i]) * self._dir[i]) % 360.0
        if self._near[i] <= d <= self._far[i]:
            return d
        return None

    def true_range_mm(self, i: int, marble_angle_deg: float) -> float | None:
        """Exact distance (mm) from sensor i to the marble's near surface, or None if not in view
        (the firmware's range model: ringside.ring.lens_range_mm)."""
        d = self.true_offset_deg(i, marble_angle_deg)
        if d is None:
            return None
        return self._chord_range(d)

    def marble_centre(self, marble_angle_deg: float) -> tuple:
        """The marble centre (x, y, z) in mm for the physical scene."""
        a = marble_angle_deg * _RAD
        r = self.radius_mm + self.lateral_mm
        z = self.marble_d_mm / 2.0 if self.model == "physical" else self.marble_radius_mm
        return (r * math.cos(a), r * math.sin(a), z)

    def lens_range_mm(self, i: int, marble_angle_deg: float) -> float:
        """Distance from sensor i's real lens (in the outer wall) to the marble's near surface."""
        import numpy as np
        c = np.array(self.marble_centre(marble_angle_deg))
        o = self._views[i].origin if self.model == "physical" else np.array(
            [(self.radius_mm + 12) * math.cos(self._angle[i] * _RAD),
             (self.radius_mm + 12) * math.sin(self._angle[i] * _RAD), 10.0])
        r = self.marble_d_mm / 2.0 if self.model == "physical" else self.marble_radius_mm
        return float(np.linalg.norm(c - o)) - r

    # --- timing, emission and faults ------------------------------------------------
    def _check_index(self, i):
        if not isinstance(i, int) or not 0 <= i < self.count:
            raise ValueError("no sensor %r (there are %d)" % (i, self.count))

    def next_due_ms(self, i: int) -> float:
        """Simulated time (ms) at which sensor i's current measurement completes."""
        return self._due[i]

    def _period(self, i):
        j = self.params.jitter_ms
        return self.period_ms + (self._rngs[i].uniform(-j, j) if j else 0.0)

    def _add_window(self, i, t0, t1):
        w = self._wins[i]
        w.append((t0, t1))
        if len(w) > 3:
            del w[0]

    def start_continuous(self, i: int, t_ms: float) -> None:
        self._check_index(i)
        self._mode[i] = "continuous"
        due = t_ms + self._period(i)
        self._due[i] = due
        self._add_window(i, t_ms, due)

    def start_single(self, i: int, t_ms: int) -> float:
        """Start one measurement at t_ms; returns when it completes."""
        self._check_index(i)
        if self._mode[i] == "continuous" or self._due[i] != _INF and self._due[i] > t_ms:
            self._cut(i, t_ms)
        self._mode[i] = "single"
        due = t_ms + self._period(i)
        self._due[i] = due
        self._add_window(i, t_ms, due)
        return due

    def _cut(self, i, t_ms):
        w = self._wins[i]
        if w and w[-1][1] > t_ms:
            w[-1] = (w[-1][0], max(w[-1][0], t_ms))

    def stop(self, i: int, t_ms: int) -> None:
        self._check_index(i)
        self._cut(i, t_ms)
        self._mode[i] = "idle"
        self._due[i] = _INF

    def emitting(self, j: int, t0: float, t1: float) -> float:
        """ms of [t0, t1] during which sensor j's laser was on (a sensor ranging back to
        back is on from its last start until it is stopped)."""
        tot = 0.0
        wins = self._wins[j]
        last = len(wins) - 1
        cont = self._mode[j] == "continuous"
        for k, (a, b) in enumerate(wins):
            if cont and k == last:
                b = _INF
            lo = a if a > t0 else t0
            hi = b if b < t1 else t1
            if hi > lo:
                tot += hi - lo
        return tot

    def set_fault(self, i: int, kind: str) -> None:
        """Inject a fault into sensor i: "dead", "stuck", "noisy" (electrical), "misaimed",
        "nobaffle" (mount), or None to repair it (both kinds)."""
        self._check_index(i)
        if kind is not None and kind not in FAULTS and kind not in MOUNT_FAULTS:
            raise ValueError("unknown sensor fault %r (use one of %s or None)"
                             % (kind, ", ".join(FAULTS + MOUNT_FAULTS)))
        if kind in MOUNT_FAULTS:
            if kind == "misaimed":
                self.set_mount(i, aim_error_deg=MISAIM_DEG)
            else:
                self.set_mount(i, baffle=False)
            return
        if kind is None and self.mount_faults[i]:
            self.mount_faults[i].clear()
            if self.model == "physical":
                self._build_view(i)
                self._couple()
        self.faults[i] = kind
        self._sigma_mult[i] = self.params.noise_scale * (_NOISY_FACTOR if kind == "noisy" else 1.0)

    # --- one reading ------------------------------------------------------------------
    def measure(self, i: int, marble_angle_deg: float | None, now_ms: float) -> tuple[int, int] | None:
        """Complete sensor i's measurement that is due by now_ms and schedule the next one.

        marble_angle_deg: where the marble centre was (best: the middle of the integration
        window), or None when no marble is on the ring. Returns (range_mm, status) with
        ints, or None for a dropout (no fresh reading this cycle). If the caller is more
        than a period late, the missed measurements are overwritten, as on the device.
        arr.last[i] holds the whole Reading.
        """
        due = self._due[i]
        if now_ms < due - 1e-6:
            raise ValueError("sensor %d: measurement not due until %.3f ms (now %.3f ms)"
                             % (i, due, now_ms))
        rng = self._rngs[i]
        p = self.params
        win = self._wins[i][-1] if self._wins[i] else (due - self.period_ms, due)
        if self._mode[i] == "continuous":
            nxt = due + self._period(i)
            self.completed[i] += 1
            while nxt <= now_ms:
                self._add_window(i, due, nxt)
                self.overwritten[i] += 1
                self.completed[i] += 1
                due = nxt
                win = (due - self.period_ms, due)
                nxt = due + self._period(i)
            self._due[i] = nxt
            self._add_window(i, due, nxt)
        else:
            self.completed[i] += 1
            self._mode[i] = "idle"
            self._due[i] = _INF

        fault = self.faults[i]
        if fault == "dead":
            return self._done(i, 0, STATUS_NO_ANSWER)
        if fault == "stuck":
            return self._done(i, self.stuck_mm[i], STATUS_VALID, signal=5.0)

        u = rng.random()
        if u < self._t_silent:
            if u < self._t_drop:
                return None
            if u < self._t_out:
                status = _OUTLIER_STATUSES[rng.randrange(3)]
                if rng.random() < 0.5:  # plausible-looking garbage, up to twice the far edge
                    return self._done(i, rng.randint(0, int(2 * self._win_mm[i][1])), status)
                return self._done(i, rng.randint(0, _GARBAGE_MAX), status)
            lo, hi = self._win_mm[i]
            return self._done(i, rng.randint(int(math.ceil(lo)), int(hi)), STATUS_VALID,
                              signal=1.0)
        if self.model == "physical":
            return self._physical(i, marble_angle_deg, win, rng)

        # The ideal model: the marble if it is in view, else the device's no-target codes.
        if marble_angle_deg is None:
            d = -1.0
        else:
            d = ((marble_angle_deg - self._angle[i]) * self._dir[i]) % 360.0
        if not self._near[i] <= d <= self._far[i]:
            return self._done(i, _NO_TARGET_RANGES[rng.randrange(2)],
                              _NO_TARGET_STATUSES[rng.randrange(2)])
        true = self._chord_range(d)
        sigma = p.sigma_frac * true
        if sigma < p.sigma_min_mm:
            sigma = p.sigma_min_mm
        r = self.scale[i] * true + self.bias_mm[i] + rng.gauss(0.0, sigma * self._sigma_mult[i])
        r = int(round(r))
        return self._done(i, (r if r > 0 else 0), STATUS_VALID, signal=12.0, sigma=sigma)

    def _done(self, i, r, status, *, signal=0.0, ambient=None, sigma=0.0, api=None, xt=0.0):
        if ambient is None:
            ambient = self.params.ambient_mcps
        self.last[i] = Reading(r, status, signal, ambient, sigma,
                               status if api is None else api, xt)
        return r, status

    def _marble_part(self, i, centre):
        """(delta weight, delta weight*distance, share of the cone the marble fills, coverage
        of the marble's disc inside the cone) for sensor i, or None if it is not in the cone."""
        key = (centre, self.marble_d_mm, self._m_rho)
        hit = self._mcache[i]
        if hit is not None and hit[0] == key:      # a marble at rest: the same answer
            return hit[1]
        res = self._marble_part_calc(i, centre)
        self._mcache[i] = (key, res)
        return res

    def _marble_part_calc(self, i, centre):
        v = self._views[i]
        got = v.coverage(centre, self.marble_d_mm / 2.0)
        if got is None:
            return None
        idx, cov, t_hit, dist, beta = got
        bw = v.w[idx]
        bwd = v.wd[idx]
        if self._m_specular:   # a glint from the point facing the sensor
            t_m = dist - self.marble_d_mm / 2.0
            cs = float(cov.sum())
            dw = cs * self._m_rho / (v.n * t_m * t_m) - float(cov @ bw)
            dwd = cs * self._m_rho / (v.n * t_m) - float(cov @ bwd)
        else:
            wm = cov * (self._m_rho / v.n) / (t_hit * t_hit)
            dw = float(wm.sum() - cov @ bw)
            dwd = float(wm @ t_hit - cov @ bwd)
            cs = float(cov.sum())
        share = cs / v.n
        disc = math.pi * beta * beta / (v.spacing * v.spacing)   # rays the whole disc would take
        return dw, dwd, share, min(1.0, cs / max(disc, 1e-9)), dist

    def _in_reach(self, i, angle):
        d = ((angle - self._angle[i]) * self._dir[i]) % 360.0
        return d < 80.0 or d > 355.0

    def _physical(self, i, marble_angle_deg, win, rng):
        p = self.params
        v = self._views[i]
        w = v.bg_w
        wd = v.bg_wd
        centre = None
        mp = None
        if marble_angle_deg is not None and self._in_reach(i, marble_angle_deg):
            centre = self.marble_centre(marble_angle_deg)
            mp = self._marble_part(i, centre)
            if mp is not None:
                w += mp[0]
                wd += mp[1]
        # crosstalk: the neighbours' light while this measurement ran
        xt = 0.0
        if p.crosstalk:
            t0, t1 = win
            span = t1 - t0
            if span > 0:
                for j, c in self.coupling[i].items():
                    on = self.emitting(j, t0, t1)
                    if on <= 0:
                        continue
                    x = c
                    if mp is not None and self._in_reach(j, marble_angle_deg):
                        mj = self._marble_part(j, centre)
                        if mj is not None:
                            x += self._marble_crosstalk(i, j, mp, mj, centre)
                    xt += x * on / span
        k = self._k
        sig = k * w
        xs = k * xt
        # unsynchronised foreign pulses: a part keeps a phase against this sensor's gate
        # over the measurement (a phantom target anywhere in the 2.48 m wrap of the 10-PCLK
        # final-range VCSEL period); the rest averages out into ambient (docs/simulator.md)
        coh = p.crosstalk_coherent * xs
        total = sig + coh
        amb = p.ambient_mcps + (xs - coh)
        if total <= 0:
            return self._done(i, _NO_TARGET_RANGES[rng.randrange(2)],
                              _NO_TARGET_STATUSES[rng.randrange(2)], ambient=amb, xt=xs)
        rng_mm = (k * wd + (coh * rng.uniform(0.0, 2480.0) if coh else 0.0)) / total
        n_counts = total * self.period_ms * p.integration_frac * 1000.0
        shot = shot_sigma_mm(p, total, amb)
        # the rate the device reports is counted too: the signal's photons and the
        # ambient's under them scatter it by sqrt(N_s + N_a) / N_s (Poisson), and the rest
        # of the device (VCSEL power, SPAD count) by signal_noise_frac more
        rel = math.sqrt((1.0 + amb / total) / n_counts
                        + p.signal_noise_frac * p.signal_noise_frac) * p.noise_scale
        total = total * (1.0 + rel * rng.gauss(0.0, 1.0))
        if total <= 0:
            total = 1e-6
        floor = max(p.sigma_min_mm, p.sigma_frac * rng_mm)
        sigma = math.sqrt(floor * floor + shot * shot) * self._sigma_mult[i]
        api = STATUS_SIGMA_FAIL if sigma > p.sigma_limit_mm else STATUS_VALID
        if total < p.signal_limit_mcps:
            st = STATUS_PHASE_FAIL if amb > 4.0 * total else STATUS_SIGNAL_FAIL
            return self._done(i, RANGE_OUT_OF_RANGE, st, signal=total, ambient=amb,
                              sigma=sigma, xt=xs)
        r = self.scale[i] * rng_mm + self.bias_mm[i] + rng.gauss(0.0, sigma)
        r = int(round(r))
        if r < 0:
            r = 0
        if rng_mm < p.min_range_mm:
            return self._done(i, r, STATUS_MIN_RANGE_FAIL, signal=total, ambient=amb,
                              sigma=sigma, xt=xs)
        return self._done(i, r, STATUS_VALID, signal=total, ambient=amb, sigma=sigma, api=api,
                          xt=xs)

    def _marble_crosstalk(self, i, j, mp_i, mp_j, centre):
        """Sensor j's light scattered by the marble into sensor i's cone (weight units)."""
        share_j = mp_j[2]           # part of j's emitted light the marble catches
        seen_i = mp_i[3]            # part of the marble's disc inside i's cone
        d_i = mp_i[4]
        # Lambertian sphere's phase function, normalised to 1 at zero phase
        oi = self._views[i].origin
        oj = self._views[j].origin
        a = [oi[k] - centre[k] for k in range(3)]
        b = [oj[k] - centre[k] for k in range(3)]
        cosg = sum(a[k] * b[k] for k in range(3)) / (
            math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(x * x for x in b)))
        g = math.acos(max(-1.0, min(1.0, cosg)))
        phase = (math.sin(g) + (math.pi - g) * math.cos(g)) / math.pi
        if self._m_specular:
            phase = 1.0     # a mirror ball scatters evenly in every direction
        return self._m_rho * share_j * phase * seen_i / (d_i * d_i)
