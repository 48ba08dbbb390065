"""Reading-level VL53L0X model of the ring simulator (host/ringside/sim/sensors.py)."""
import copy
import json
import math
import random
from pathlib import Path

import pytest

from ringfw.hal import (RANGE_NO_TARGET, RANGE_OUT_OF_RANGE, STATUS_NO_ANSWER, STATUS_PHASE_FAIL,
                        STATUS_SIGMA_FAIL, STATUS_SIGNAL_FAIL, STATUS_VALID)
from ringside.sim.sensors import SensorArray, SensorParams

RING = json.loads((Path(__file__).resolve().parents[2] / "hardware" / "ring.json").read_text())
R = RING["track"]["radius_mm"]
MARBLE_R = RING["track"]["marble_diameter_mm"] / 2


def chord_range(d_deg):
    """The firmware's range model: the lens in the outer wall (192 mm from the centre, 2 mm
    above the marble's centre) to the marble's near surface (ringside.ring.lens_range_mm)."""
    s = math.sin(math.radians(d_deg) / 2)
    return math.sqrt(12.0 ** 2 + 2.0 ** 2 + 4 * 192.0 * 180.0 * s * s) - 8.0


def readings(arr, i, angle, n):
    """n measurements of sensor i with the marble fixed at angle, each when it falls due."""
    out = []
    for _ in range(n):
        t = arr.next_due_ms(i)
        out.append(arr.measure(i, angle, t))
    return out


def mean_sd(xs):
    m = sum(xs) / len(xs)
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


# --- what a sensor sees -------------------------------------------------------------

def test_visibility_window_follows_ring_json():
    arr = SensorArray(RING, model="ideal", rng=1)
    s0 = RING["sensors"][0]
    a, (near, far) = s0["angle_deg"], s0["view_deg"]
    assert arr.true_offset_deg(0, a + near) == pytest.approx(near)
    assert arr.true_offset_deg(0, a + far) == pytest.approx(far)
    assert arr.true_offset_deg(0, a + 30.0) == pytest.approx(30.0)
    assert arr.true_offset_deg(0, a + 30.0 + 720.0) == pytest.approx(30.0)  # unwrapped angles
    for off in (near - 0.1, far + 0.1, 0.0, -20.0, 180.0):
        assert arr.true_offset_deg(0, a + off) is None
        assert arr.true_range_mm(0, a + off) is None
    assert arr.true_offset_deg(0, None) is None
    # the window wraps through 0 degrees (sensor 11 at 345 sees 353..31)
    assert arr.true_offset_deg(11, 10.0) == pytest.approx(25.0)
    # a sensor aimed clockwise looks towards decreasing angles
    ring = copy.deepcopy(RING)
    ring["sensors"][0]["aim"] = "cw"
    cw = SensorArray(ring, model="ideal", rng=1)
    assert cw.true_offset_deg(0, a - 30.0) == pytest.approx(30.0)
    assert cw.true_offset_deg(0, a + 30.0) is None


def test_range_is_the_lens_to_the_marble_surface():
    arr = SensorArray(RING, model="ideal", rng=1)
    a = RING["sensors"][3]["angle_deg"]
    for d in (8.0, 20.0, 33.3, 46.0):
        assert arr.true_range_mm(3, a + d) == pytest.approx(chord_range(d))
    assert arr.window_range_mm(3) == pytest.approx((chord_range(8.0), chord_range(46.0)))
    assert chord_range(30.0) == pytest.approx(89.00, abs=0.01)   # the chord alone: 85.17


def test_ideal_sensor_reads_the_true_range():
    arr = SensorArray(RING, model="ideal", params=SensorParams.ideal(), rng=2)
    a = RING["sensors"][5]["angle_deg"]
    for d in (9.0, 27.5, 45.0):
        for r in readings(arr, 5, a + d, 5):
            assert r == (round(chord_range(d)), STATUS_VALID)


def test_windows_cover_the_whole_ring():
    arr = SensorArray(RING, model="ideal", rng=1)
    seen = []
    for k in range(3600):
        angle = k / 10.0
        seen.append(sum(1 for i in range(arr.count) if arr.true_offset_deg(i, angle) is not None))
    assert min(seen) >= 1  # no blind spot anywhere on the track
    assert max(seen) == 2  # neighbours overlap, so a marble is handed over, not lost


def _lens_sight(d_deg):
    """Lens in the outer wall (radius R + width/2) looking at the marble centre D degrees ahead:
    (direction in degrees, turned in from the wall's tangent; closest approach of the straight
    sight line to the ring's centre, mm)."""
    rs = R + RING["track"]["width_mm"] / 2
    d = math.radians(d_deg)
    mx, my = R * math.cos(d), R * math.sin(d)
    dx, dy = mx - rs, my
    bearing = math.degrees(math.atan2(-dx, dy))
    t = max(0.0, min(1.0, -(rs * dx) / (dx * dx + dy * dy)))
    return bearing, math.hypot(rs + t * dx, t * dy)


def test_ring_json_window_fits_the_mounting_geometry():
    # The window is a design choice (docs/simulator.md); this checks the optics and the groove
    # allow it for the mounting in hardware/README.md (lens in the outer wall, 10 mm up).
    t = RING["track"]
    inner_wall = R - t["width_mm"] / 2
    assert t["beam_height_mm"] > t["inner_lip_mm"]  # the beam passes over the lip
    assert t["beam_height_mm"] > t["marble_diameter_mm"] / 2  # ...and meets the marble above its centre
    for s in RING["sensors"]:
        near, far = s["view_deg"]
        window = [near + k * (far - near) / 200 for k in range(201)]
        bearings = [_lens_sight(d)[0] for d in window]
        # one fixed aim sees the whole window: its directions span far less than the cone
        assert max(bearings) - min(bearings) < s["fov_deg"] / 2
        # the sight line stays over the groove up to the far edge...
        assert all(_lens_sight(d)[1] > inner_wall for d in window)
        # ...and would cross the inner wall a few degrees beyond it (the far edge has margin)
        d = far
        while _lens_sight(d)[1] > inner_wall:
            d += 0.01
        assert 2.0 <= d - far <= 6.0
        assert chord_range(near) > 10.0  # the marble has passed the sensor's face


# --- noise ----------------------------------------------------------------------------

@pytest.mark.parametrize("d", [12.0, 45.0])
def test_noise_sigma_and_bias_match_the_requirement(d):
    p = SensorParams(outlier_rate=0.0, silent_wrong_rate=0.0, dropout_rate=0.0)
    arr = SensorArray(RING, model="ideal", params=p, rng=7)
    i = 2
    a = RING["sensors"][i]["angle_deg"]
    true = chord_range(d)
    vals = [r for r, s in readings(arr, i, a + d, 6000)]
    m, sd = mean_sd(vals)
    sigma_req = max(1.5, 0.015 * true)
    assert sd >= 0.97 * sigma_req  # never kinder than the requirement
    assert sd <= 1.1 * math.sqrt(sigma_req ** 2 + 1 / 12)  # + integer rounding
    assert m == pytest.approx(arr.scale[i] * true + arr.bias_mm[i], abs=0.15)


def test_bias_and_scale_are_per_sensor_ground_truth():
    arr = SensorArray(RING, model="ideal", rng=3)
    assert len(arr.bias_mm) == len(arr.scale) == arr.count == len(RING["sensors"])
    assert all(-10.0 <= b <= 10.0 for b in arr.bias_mm)
    assert all(0.99 <= s <= 1.01 for s in arr.scale)
    assert max(arr.bias_mm) - min(arr.bias_mm) > 5.0  # drawn, not zero
    assert len(set(arr.bias_mm)) == arr.count
    big = SensorArray(RING, model="ideal", rng=4, params=SensorParams(bias_max_mm=0.0, scale_err_max=0.0))
    assert big.bias_mm == [0.0] * big.count and big.scale == [1.0] * big.count


def test_bad_readings_come_at_their_rates():
    arr = SensorArray(RING, model="ideal", rng=11)
    n = 0
    drop = fail = 0
    for i in range(arr.count):
        angle = RING["sensors"][i]["angle_deg"] + 25.0
        for r in readings(arr, i, angle, 10000):
            n += 1
            if r is None:
                drop += 1
            elif r[1] != STATUS_VALID:
                assert r[1] in (STATUS_SIGNAL_FAIL, STATUS_PHASE_FAIL, STATUS_SIGMA_FAIL)
                assert 0 <= r[0] <= 8191
                fail += 1
    assert drop / n == pytest.approx(0.002, abs=0.0007)
    assert fail / n == pytest.approx(0.01, abs=0.0015)


def test_no_target_codes_and_silent_wrong_readings():
    arr = SensorArray(RING, model="ideal", rng=12)
    n = valid = no_target = 0
    for i in range(arr.count):
        lo, hi = arr.window_range_mm(i)
        for r in readings(arr, i, None, 10000):
            if r is None:
                continue
            n += 1
            if r[1] == STATUS_VALID:  # nothing in view: every valid reading is a silent wrong one
                valid += 1
                assert lo - 1 <= r[0] <= hi + 1
            elif r[0] in (RANGE_OUT_OF_RANGE, RANGE_NO_TARGET):
                assert r[1] in (STATUS_PHASE_FAIL, STATUS_SIGNAL_FAIL)
                no_target += 1
    assert valid / n == pytest.approx(0.005, abs=0.0012)
    assert no_target / n > 0.98
    # a marble outside this sensor's window is no target either
    arr2 = SensorArray(RING, model="ideal", params=SensorParams.ideal(), rng=1)
    r, s = arr2.measure(0, RING["sensors"][0]["angle_deg"] + 90.0, arr2.next_due_ms(0))
    assert r in (RANGE_OUT_OF_RANGE, RANGE_NO_TARGET) and s in (STATUS_PHASE_FAIL, STATUS_SIGNAL_FAIL)


# --- timing ---------------------------------------------------------------------------

def test_measurements_every_33_ms_with_jitter_and_random_phases():
    arr = SensorArray(RING, model="ideal", rng=5)
    phases = [arr.next_due_ms(i) for i in range(arr.count)]
    assert all(0.0 <= ph < 33.0 for ph in phases)
    assert max(phases) - min(phases) > 10.0  # not all in step
    gaps = []
    for i in range(arr.count):
        prev = arr.next_due_ms(i)
        for _ in range(500):
            arr.measure(i, None, prev)
            nxt = arr.next_due_ms(i)
            gaps.append(nxt - prev)
            prev = nxt
    assert all(32.5 - 1e-9 <= g <= 33.5 + 1e-9 for g in gaps)
    m, sd = mean_sd(gaps)
    assert m == pytest.approx(33.0, abs=0.02)
    assert sd == pytest.approx(1.0 / math.sqrt(12), rel=0.1)  # uniform +-0.5 ms


def test_measure_before_due_is_refused_and_a_late_caller_skips_ahead():
    arr = SensorArray(RING, model="ideal", rng=6)
    due = arr.next_due_ms(0)
    with pytest.raises(ValueError, match="not due"):
        arr.measure(0, None, due - 5.0)
    arr.measure(0, None, due + 200.0)  # 200 ms late: the missed results were overwritten
    assert due + 200.0 < arr.next_due_ms(0) <= due + 200.0 + 33.5


# --- faults ---------------------------------------------------------------------------

def test_faults_dead_stuck_noisy_and_repair():
    arr = SensorArray(RING, model="ideal", rng=8, faults={1: "dead", 2: "stuck"})
    a1 = RING["sensors"][1]["angle_deg"] + 20.0
    assert all(r == (0, STATUS_NO_ANSWER) for r in readings(arr, 1, a1, 300))
    a2 = RING["sensors"][2]["angle_deg"]
    stuck = readings(arr, 2, a2 + 20.0, 100) + readings(arr, 2, None, 100) + \
        readings(arr, 2, a2 + 40.0, 100)
    assert all(r == (arr.stuck_mm[2], STATUS_VALID) for r in stuck)
    lo, hi = arr.window_range_mm(2)
    assert lo <= arr.stuck_mm[2] <= hi
    # noisy: ten times the noise
    p = SensorParams(outlier_rate=0.0, silent_wrong_rate=0.0, dropout_rate=0.0)
    arr = SensorArray(RING, model="ideal", params=p, rng=9)
    a = RING["sensors"][4]["angle_deg"] + 20.0
    _, sd_ok = mean_sd([r for r, _ in readings(arr, 4, a, 3000)])
    arr.set_fault(4, "noisy")
    _, sd_noisy = mean_sd([r for r, _ in readings(arr, 4, a, 3000)])
    assert sd_noisy / sd_ok == pytest.approx(10.0, rel=0.15)
    arr.set_fault(4, None)
    _, sd_back = mean_sd([r for r, _ in readings(arr, 4, a, 3000)])
    assert sd_back == pytest.approx(sd_ok, rel=0.15)
    with pytest.raises(ValueError, match="unknown sensor fault"):
        arr.set_fault(4, "melted")
    with pytest.raises(ValueError, match="no sensor"):
        arr.set_fault(99, "dead")


# --- determinism ----------------------------------------------------------------------

def _sweep(arr, t_end=3000.0):
    out = []
    t = 0.0
    while t < t_end:
        for i in range(arr.count):
            if arr.next_due_ms(i) <= t:
                out.append((i, t, arr.measure(i, (t * 0.05) % 360.0, t)))
        t += 1.0
    return out


def test_same_seed_same_readings():
    a = SensorArray(RING, model="ideal", rng=random.Random(21))
    b = SensorArray(RING, model="ideal", rng=random.Random(21))
    c = SensorArray(RING, model="ideal", rng=random.Random(22))
    assert a.bias_mm == b.bias_mm
    sa, sb, sc = _sweep(a), _sweep(b), _sweep(c)
    assert sa == sb
    assert sa != sc
    assert len(sa) > 1000


def test_one_sensor_does_not_disturb_another():
    a = SensorArray(RING, model="ideal", rng=30)
    b = SensorArray(RING, model="ideal", rng=30)
    ang = RING["sensors"][0]["angle_deg"] + 20.0
    ra = readings(a, 0, ang, 200)
    rb = []
    for _ in range(200):
        readings(b, 1, None, 3)  # reading sensor 1 more often must not change sensor 0
        rb += readings(b, 0, ang, 1)
    assert ra == rb


def test_bad_ring_is_rejected_clearly():
    with pytest.raises(ValueError, match="marble_diameter_mm"):
        SensorArray(model="ideal", ring={"track": {"radius_mm": 180}, "sensors": []})
    ring = copy.deepcopy(RING)
    ring["sensors"][0]["view_deg"] = [50, 10]
    with pytest.raises(ValueError, match="sensor 0"):
        SensorArray(ring, model="ideal")


# --- the physical model: it must not quietly become ideal again ----------------------

def quiet(**kw):
    """Physical model without the glitches (outliers, silent wrong readings, dropouts)."""
    d = dict(outlier_rate=0.0, silent_wrong_rate=0.0, dropout_rate=0.0)
    d.update(kw)
    return SensorParams(**d)


def no_baffles(ring):
    r = copy.deepcopy(ring)
    r.setdefault("mount", {})["baffle"] = None
    for s in r["sensors"]:
        s.get("mount", {}).pop("baffle", None)
    return r


def alone(arr, i):
    """Stop every sensor but i (no crosstalk), and let i range back to back."""
    for j in range(arr.count):
        if j != i:
            arr.stop(j, 0.0)


def physical_readings(arr, i, angle, n):
    out = []
    for _ in range(n):
        arr.measure(i, angle, arr.next_due_ms(i))
        out.append(arr.last[i])
    return out


def test_physical_is_the_default_model():
    assert SensorArray(RING, rng=1).model == "physical"
    assert SensorArray(RING, rng=1).describe()["sensor_model"] == "physical"


def test_without_marble_or_baffle_a_sensor_reports_the_wall():
    arr = SensorArray(no_baffles(RING), params=quiet(), rng=2)
    alone(arr, 0)
    got = physical_readings(arr, 0, None, 40)
    valid = [g for g in got if g.status == STATUS_VALID]
    assert len(valid) == len(got)                       # a steady valid range, not "no target"
    assert all(g.range_mm < RANGE_OUT_OF_RANGE for g in got)
    m, _ = mean_sd([g.range_mm for g in valid])
    bg = arr.background(0)
    assert 60 < bg["range_mm"] < 130                    # floor, lips, drum, wall, pocket blend
    assert m == pytest.approx(arr.scale[0] * bg["range_mm"] + arr.bias_mm[0], abs=3.0)
    assert min(g.signal_mcps for g in valid) > arr.params.signal_limit_mcps
    # the cone meets the floor first (10 mm up, 12.5 deg half-cone: ~46 mm)
    v = arr.view(0)
    import numpy as np
    floor = v.t[(v.sid == 1)]
    assert 44 < float(np.min(floor)) < 50


def test_glass_returns_less_signal_than_a_matte_marble_of_the_same_size():
    sig = {}
    for material in ("glass", "opaque", "steel", "white"):
        arr = SensorArray(no_baffles(RING), params=quiet(marble_material=material), rng=3)
        alone(arr, 0)
        empty = arr.background(0)["signal_mcps"]
        got = physical_readings(arr, 0, RING["sensors"][0]["angle_deg"] + 25.0, 10)
        sig[material] = sum(g.signal_mcps for g in got) / len(got) - empty
    assert sig["glass"] < sig["steel"] < sig["opaque"] < sig["white"]
    assert sig["glass"] < 0.1 * sig["opaque"]
    # the marble's part of the signal goes as its effective reflectance (ring.json kinds)
    assert sig["white"] / sig["opaque"] == pytest.approx(0.57 / 0.35, rel=0.1)


def test_a_whiter_marble_reads_nearer_its_true_range_at_the_far_edge():
    """More of the blend is the marble's own light, so less of the wall pulls it in."""
    s0 = RING["sensors"][0]
    angle = s0["angle_deg"] + s0["view_deg"][1]
    short = {}
    for material in ("opaque", "white"):
        arr = SensorArray(no_baffles(RING), params=quiet(marble_material=material), rng=4)
        alone(arr, 0)
        arr.set_lateral(0.0)
        true_lens = arr.lens_range_mm(0, angle)
        got = physical_readings(arr, 0, angle, 60)
        m, _ = mean_sd([(g.range_mm - arr.bias_mm[0]) / arr.scale[0] for g in got])
        short[material] = true_lens - m
    assert 0 < short["white"] < short["opaque"]


def test_far_edge_marble_reads_short_by_the_blend():
    arr = SensorArray(no_baffles(RING), params=quiet(), rng=4)
    alone(arr, 0)
    s0 = RING["sensors"][0]
    angle = s0["angle_deg"] + s0["view_deg"][1]
    arr.set_lateral(0.0)
    true_lens = arr.lens_range_mm(0, angle)
    got = physical_readings(arr, 0, angle, 60)
    m, _ = mean_sd([(g.range_mm - arr.bias_mm[0]) / arr.scale[0] for g in got])
    # the nearer floor, lips and wall pull the reading in: well short of the marble
    assert m < true_lens - 10.0
    assert m > arr.background(0)["range_mm"] - 5.0


def test_two_neighbours_ranging_at_once_disturb_each_other():
    ring = no_baffles(RING)
    angle = RING["sensors"][1]["angle_deg"] + 12.0     # seen by 0 (far part) and 1 (near)
    a = SensorArray(ring, params=quiet(), rng=5)
    b = SensorArray(ring, params=quiet(), rng=5)
    for arr in (a, b):
        for j in range(arr.count):
            arr.stop(j, 0.0)
    # a: sensors 0 and 1 range over the same 33 ms; b: one after the other
    t = 100.0
    a.start_single(0, t)
    a.start_single(1, t)
    b.start_single(0, t)
    b.start_single(1, t + 40.0)
    a.measure(0, angle, a.next_due_ms(0))
    a.measure(1, angle, a.next_due_ms(1))
    b.measure(0, angle, b.next_due_ms(0))
    b.measure(1, angle, b.next_due_ms(1))
    for i in (0, 1):
        assert a.last[i].crosstalk_mcps > 0.05
        assert b.last[i].crosstalk_mcps == 0.0
        assert a.last[i].ambient_mcps > b.last[i].ambient_mcps
    assert a.emitting(1, t, t + 33) > 30 and b.emitting(1, t, t + 33) == 0.0


def test_ambient_raises_the_ambient_rate_and_the_noise():
    sds = {}
    for amb in (0.1, 3.0):
        arr = SensorArray(RING, params=quiet(ambient_mcps=amb), rng=6)
        alone(arr, 0)
        angle = RING["sensors"][0]["angle_deg"] + 40.0
        got = physical_readings(arr, 0, angle, 200)
        assert all(g.ambient_mcps >= amb for g in got)
        sds[amb] = (mean_sd([g.range_mm for g in got if g.status == STATUS_VALID])[1],
                    got[-1].sigma_mm)
    assert sds[3.0][1] > sds[0.1][1] * 1.2
    assert sds[3.0][0] > sds[0.1][0]


def _st_sigma_rtn_mm(signal_mcps, ambient_mcps, vcsel_us=5786):
    """ST API 1.0.x VL53L0X_calc_sigma_estimate's return-signal part (sigmaEstRtn), in its
    own fixed point, for a valid range with no crosstalk compensation (pwMult = 1.0)."""
    isqrt = math.isqrt
    sig = int(signal_mcps * 65536)
    amb_kcps = (int(ambient_mcps * 65536) * 1000) >> 16
    peak_kcps = (sig * 1000 + 0x8000) >> 16
    events = (((sig + 0x80) >> 8) * vcsel_us + 0x80) >> 8
    p2 = min((amb_kcps << 16) // peak_kcps, 0xF0000000 // 600) * 600
    p3 = 2 * isqrt(max(events, 1) * 12)
    sqr1 = ((65536 * 800 + 0x8000) >> 16) ** 2
    sqr2 = ((p2 + 0x8000) >> 16) ** 2
    rtn = (((isqrt(sqr1 + sqr2) << 16) + 50) // 100) // p3
    rtn = (rtn * 2997 + 5000) // 10000          # Fix1616 metres
    return rtn * 1000 / 65536


@pytest.mark.parametrize("signal, ambient", [(0.25, 0.1), (0.64, 0.1), (1.1, 0.1), (14.0, 0.1),
                                             (0.64, 0.5), (0.9, 2.1), (0.3, 2.1)])
def test_the_photon_noise_is_st_apis_own_sigma_estimate(signal, ambient):
    """The shot noise of a reading is ST's sigma estimate, term for term: the API's
    integer code (ported above) and the model agree to its rounding."""
    from ringside.sim.sensors import shot_sigma_mm
    st = _st_sigma_rtn_mm(signal, ambient)
    assert shot_sigma_mm(SensorParams(), signal, ambient) == pytest.approx(st, rel=0.03)


def test_daylight_costs_a_faint_return_far_more_than_a_bright_one():
    """ST's estimate counts the ambient beside the pulse (6 ns x A/S, in quadrature): an
    overcast day (2.1 MCPS) multiplies a faint return's noise about five times, a bright
    one's hardly at all. (The model's earlier sqrt(1 + A/S) form gave 2.4 and was kinder.)"""
    from ringside.sim.sensors import shot_sigma_mm
    p = SensorParams()
    faint = shot_sigma_mm(p, 0.3, 2.1) / shot_sigma_mm(p, 0.3, 0.1)
    bright = shot_sigma_mm(p, 14.0, 2.1) / shot_sigma_mm(p, 14.0, 0.1)
    assert faint > 4.5 and bright < 1.05
    # ST's sigma check (18 mm) then ends a grey 17 % target's range in daylight near the
    # datasheet's 50 cm (table 11): K * rho / d^2 at 0.5 m
    grey = p.signal_k_mcps_m2 * 0.17 / 0.5 ** 2
    assert 16.0 < shot_sigma_mm(p, grey, 2.1) < 20.0


def test_minimum_range_fail_near_the_lens():
    from ringfw.hal import STATUS_MIN_RANGE_FAIL
    arr = SensorArray(RING, params=quiet(), rng=7)
    alone(arr, 0)
    angle = RING["sensors"][0]["angle_deg"] + 8.5      # the window's near edge: ~22 mm
    got = physical_readings(arr, 0, angle, 20)
    assert all(g.status == STATUS_MIN_RANGE_FAIL for g in got)
    got = physical_readings(arr, 0, RING["sensors"][0]["angle_deg"] + 20.0, 20)
    assert all(g.status == STATUS_VALID for g in got)


def test_mount_faults_change_what_the_sensor_sees():
    arr = SensorArray(RING, params=quiet(), rng=8)
    good = arr.background(3)
    assert good["signal_mcps"] < arr.params.signal_limit_mcps     # the snout: an empty ring is dark
    arr.set_fault(3, "nobaffle")
    bare = arr.background(3)
    assert bare["signal_mcps"] > 3 * good["signal_mcps"] and arr.mount_of(3)["baffle"] is None
    arr.set_fault(3, None)
    arr.set_fault(3, "misaimed")
    m = arr.mount_of(3)
    assert m["pitch_deg"] < 0 and m["yaw_in_deg"] > RING["mount"]["yaw_in_deg"]
    assert arr.background(3)["parts"] != good["parts"]
    arr.set_fault(3, None)
    assert arr.background(3) == good and arr.mount_of(3)["baffle"] is not None
    with pytest.raises(ValueError, match="unknown sensor fault"):
        arr.set_fault(3, "bent")


def test_board_reads_on_the_firmware_schedule_with_the_physical_model():
    from ringside.sim.board import SimBoard
    b = SimBoard(seed=2, sensor_model="physical")
    assert b.read_schedule == "firmware"
    b.place(100.0)
    b.advance(3000)
    s = b.sensors
    # the firmware's schedule (ringfw.sched): two groups in turn, the one sensor that sees the
    # resting marble in most slots: ~15 Hz each, more for that one
    assert s.reads > 12 * 40
    # read in the ms the result is ready, taken by core 0 at its next 8 ms step
    assert s.ages and max(s.ages) <= b.loop_ms + 1
    assert sum(b.model.overwritten) == 0          # single-shot: nothing overwritten
    # the sensor's own period is ST's 33.6 ms; the schedule asks for readiness from 31 ms
    assert b.model.period_ms == pytest.approx(33.614)
    ideal = SimBoard(seed=2, sensor_model="ideal")
    assert ideal.read_schedule == "firmware"      # the same schedule drives the ideal model


def test_bench_sweep_grid_and_bad_input():
    from ringside.bench import ring as bench
    g = bench.parse_sweep("marble=glass,steel;sensors=16;baffle=no")
    assert g["marble"] == ("glass", "steel") and g["sensors"] == (16,) and g["baffle"] == (False,)
    assert g["ambient"] == ("low", "high")
    for bad, msg in (("foo=1", "unknown key"), ("marble=wood", "unknown marble"),
                     ("baffle=maybe", "yes/no"), ("sensors=x", "counts"), ("ambient=dim", "low")):
        with pytest.raises(ValueError, match=msg):
            bench.parse_sweep(bad)
    d = json.loads(bench.design_ring(sensors=16, baffle=False))
    assert len(d["sensors"]) == 16 and d["mount"]["baffle"] is None
    assert d["sensors"][1]["angle_deg"] - d["sensors"][0]["angle_deg"] == pytest.approx(22.5)
    assert len({s["xshut_pin"] for s in d["sensors"]}) == 16


def _two_along_crosstalk(ring, off):
    """Crosstalk (MCPS) in sensor 0's reading when sensor 2, in the same slot of the
    schedule, ranges with it and the marble lies `off` deg past sensor 2's lens."""
    arr = SensorArray(ring, params=quiet(), rng=5)
    for j in range(arr.count):
        arr.stop(j, 0.0)
    arr.start_single(0, 100.0)
    arr.start_single(2, 100.0)
    arr.measure(0, ring["sensors"][2]["angle_deg"] + off, arr.next_due_ms(0))
    return arr.last[0].crosstalk_mcps


def test_sixteen_sensors_have_their_snouts_cut_so_the_sensor_two_along_is_out_of_sight():
    # With sixteen, sensor 2 (45 deg on, ranging in sensor 0's slot: neighbours alternate)
    # lights a marble near its lens that sensor 0's cone still sees with twelve's snout:
    # foreign light in sensor 0's reading. The sixteen-sensor design narrows the slot on its
    # far side until that marble is out of sight; twelve are the design as built.
    from ringside.bench import ring as bench
    assert json.loads(bench.design_ring(sensors=12)) == RING
    d16 = json.loads(bench.design_ring(sensors=16))
    assert d16["mount"]["baffle"]["yaw_deg"] == [-7.5, 1.0]
    assert bench._two_along(d16) <= bench.TWO_ALONG_MAX
    uncut = json.loads(json.dumps(d16))
    uncut["mount"]["baffle"]["yaw_deg"] = [-7.5, 7.5]
    assert bench._two_along(uncut) > 0.5
    for off in (2.0, 4.0, 6.0):    # (the far-end marble's own signal is about 1 MCPS)
        assert _two_along_crosstalk(uncut, off) > 0.3
        assert _two_along_crosstalk(d16, off) < 0.05


def test_register_model_carries_the_physical_signal_and_ambient_rates():
    from ringside.sim.vl53l0x_regs import VL53L0XModel
    arr = SensorArray(RING, params=quiet(ambient_mcps=1.5), rng=9)
    alone(arr, 0)
    angle = RING["sensors"][0]["angle_deg"] + 25.0

    def source():
        arr.measure(0, angle, arr.next_due_ms(0))
        return arr.last[0]
    t = [0]
    dev = VL53L0XModel(source, clock=lambda: t[0])
    dev.power(True)
    dev.regs[(0, 0x0A)] = 0x04
    dev.i2c_write(bytes((0x00, 0x02)))          # continuous ranging
    t[0] = 40
    dev.i2c_write(bytes((0x13,)))
    burst = dev.i2c_read(13)
    assert burst[0] & 0x07
    sig = ((burst[7] << 8) | burst[8]) / 128
    amb = ((burst[9] << 8) | burst[10]) / 128
    assert sig == pytest.approx(arr.last[0].signal_mcps, abs=0.01) and sig > 1.0
    assert amb == pytest.approx(arr.last[0].ambient_mcps, abs=0.01) and amb >= 1.49
    assert ((burst[11] << 8) | burst[12]) == arr.last[0].range_mm


def test_sweep_plot_writes_a_png(tmp_path):
    from ringside.bench import ring as bench
    row = dict(marble="opaque", baffle=True, sensors=12, ambient="low", accuracy=1.0,
               primary_accuracy=0.98, ambiguous_rate=0.02, misreported=0, no_verdict=0,
               false_off_ring=0, off_ring_missed=0, latency_ms_p50=200, latency_ms_p95=480,
               angle_error_deg_p95=0.5)
    glass = dict(row, marble="glass", accuracy=None, primary_accuracy=None, no_verdict=3,
                 latency_ms_p50=None, latency_ms_p95=None)
    out = tmp_path / "sweep.png"
    bench.plot({"sweep": [row, glass], "flicks": 4, "seed": 1}, str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000


def test_the_signal_rate_scatters_like_a_count_never_a_fixed_value():
    # The rate the device reports is counted from photons too: a marble at rest gives a
    # rate that scatters by sqrt(1/N_s (1 + N_a/N_s) + 1 %^2) a reading, N_s the marble's
    # counts in the integration. (A model whose rates never scatter would let the firmware
    # lean on a precision no sensor has.)
    arr = SensorArray(RING, params=quiet(), rng=5)
    alone(arr, 1)
    arr.set_lateral(0.0)
    for d in (18.0, 40.0):
        got = physical_readings(arr, 1, RING["sensors"][1]["angle_deg"] + d, 400)
        sig = [g.signal_mcps for g in got]
        m, sd = mean_sd(sig)
        amb = got[0].ambient_mcps
        n = m * arr.period_ms * arr.params.integration_frac * 1000.0
        want = m * math.sqrt((1 + amb / m) / n + 0.01 ** 2)
        assert 0.8 * want < sd < 1.2 * want, (d, m, sd, want)
        assert sd > 0.009 * m
    # the device's own part can be set (0: the photon count's scatter alone)
    arr0 = SensorArray(RING, params=quiet(signal_noise_frac=0.0), rng=5)
    alone(arr0, 1)
    arr0.set_lateral(0.0)
    sig0 = [g.signal_mcps for g in physical_readings(arr0, 1, RING["sensors"][1]["angle_deg"] + 18.0, 400)]
    m0, sd0 = mean_sd(sig0)
    assert sd0 < 0.5 * 0.01 * m0


def test_ring_json_background_distance_is_the_models():
    # ring.json mount.background_mm is what the firmware takes out of a reading where a cone's
    # own background is too faint to range: it must be what the design's cones see
    arr = SensorArray(RING, rng=1)
    want = RING["mount"]["background_mm"]
    for i in range(arr.count):
        bg = arr.background(i)
        assert bg["signal_mcps"] < arr.params.signal_limit_mcps      # it never ranges alone
        assert abs(bg["range_mm"] - want) < 5.0, (i, bg["range_mm"], want)
