"""`ringside bench ring`: detection accuracy and latency over many simulated flicks.

The simulated board (the real firmware controller on the simulated ring) is calibrated
first, as a user would, then flicked N times with seeded random directions and forces,
a few of them too hard (off the ring). Each verdict of the board is checked against
the simulator's ground truth.
"""
from __future__ import annotations

import copy
import itertools
import json
import math
import random
import time

from ringside.calibration import FAR_EDGE_DEG, CalibrationError, calibrate, fit_line
from ringside.ring import lens_range_mm, load_side
from ringside.sim.board import FAULT_KINDS, SimBoard, SimTable, default_ring_bytes
from ringside.sim.physics import max_travel_deg, speed_for_travel
from ringside.sim.sensors import SensorParams, marble_kinds
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

OFF_RING_SHARE = 0.03
# --faults random: a new single fault (the last one repaired) every RANDOM_EVERY flicks
RANDOM_EVERY = (150, 250)
SLOWEST = 12                # the slowest landings a run names (flick, latency, where)
# what the firmware says about a sensor's health on the link
FAULT_FRAMES = ("sensor_fault", "sensor_ok", "degraded")
_SEG_KEYS = ("flicks", "correct", "misreported", "false_off_ring", "no_verdict",
             "off_ring_flicks", "off_ring_missed", "blind_landings")


def parse_fault(text: str, count: int | None = None) -> tuple[str, int]:
    """'KIND:SENSOR' (e.g. 'bus-stuck:3') -> (kind, sensor); ValueError says what is wrong."""
    kind, sep, num = text.partition(":")
    kind = kind.strip().lower()
    if not sep or kind not in FAULT_KINDS or not num.strip().isdigit():
        raise ValueError("--fault takes KIND:SENSOR, KIND one of %s (e.g. stuck:3), not %r"
                         % (", ".join(FAULT_KINDS), text))
    i = int(num)
    if count is not None and not 0 <= i < count:
        raise ValueError("--fault %s: no sensor %d (there are %d, 0 to %d)"
                         % (text, i, count, count - 1))
    return kind, i


class _Fault:
    """One fault while it lasts in a bench run: what the firmware said and how the flicks went."""

    def __init__(self, board, kind, sensor, flick, sim0):
        self.b = board
        self.kind = kind
        self.sensor = sensor
        self.flick0 = flick
        self.flick1 = None
        self.t0 = board.now
        self.t1 = None
        self.sim0 = sim0
        self.frames0 = len(board.frames)
        self.frames1 = None
        self.strikes0 = len(board.strikes)
        self.strikes1 = None
        rs = getattr(board.sensors, "rs", None)
        self.rs = rs
        self.fw0 = _fw_counts(rs)
        self.fw1 = None
        self.stats = dict.fromkeys(_SEG_KEYS, 0)
        board.set_fault(sensor, kind)

    def end(self, flick, repair=True):
        self.flick1 = flick
        self.t1 = self.b.now
        self.frames1 = len(self.b.frames)
        self.strikes1 = len(self.b.strikes)
        self.fw1 = _fw_counts(self.rs)
        if repair:
            self.b.set_fault(self.sensor, None)

    def report(self):
        if self.t1 is None:
            self.end(None, repair=False)
        said = []
        for t, kind, f in self.b.frames[self.frames0:self.frames1]:
            if kind in FAULT_FRAMES and (f.get("id") == self.sensor or kind == "degraded"):
                e = {"at_ms": t - self.t0, "said": kind}
                e.update({k: v for k, v in f.items() if k != "id"})
                said.append(e)
        flagged = next((e["at_ms"] for e in said if e["said"] == "sensor_fault"), None)
        trusted = None
        if flagged is not None:
            trusted = next((e["at_ms"] for e in said
                            if e["said"] == "sensor_ok" and e["at_ms"] >= flagged), None)
        st = self.stats
        landings = st["flicks"] - st["off_ring_flicks"]
        strikes = [s for s in self.b.strikes[self.strikes0:self.strikes1]
                   if s["sensor"] == self.sensor]
        back = [s["back_ms"] for s in strikes if s["back_ms"] is not None]
        fw = {k: self.fw1[k] - self.fw0[k] for k in self.fw0}
        out = {
            "kind": self.kind, "sensor": self.sensor,
            "from_flick": self.flick0, "to_flick": self.flick1,
            "from_s": round((self.t0 - self.sim0) / 1000.0, 1),
            "to_s": round((self.t1 - self.sim0) / 1000.0, 1),
            "flagged_at_ms": flagged,
            "trusted_again_at_ms": trusted,
            "flag_changes": sum(1 for e in said if e["said"] in ("sensor_fault", "sensor_ok")),
            "firmware_said": said[:20],
            "results": dict(st, accuracy=round(st["correct"] / landings, 5) if landings else None),
        }
        if strikes:
            out["strikes"] = len(strikes)
            out["recovered"] = len(back)
            out["recovery_ms_max"] = max(back) if back else None
            out["recovery_ms_p50"] = _pct(back, 50)
            out["recovery_ms"] = back[:20]
            if self.kind == "intermittent":     # from the end of each NACK stretch
                after = [s["back_ms"] - s["gone_ms"] for s in strikes if s["back_ms"] is not None]
                out["recovery_after_stretch_ms_max"] = max(after) if after else None
                out["recovery_after_stretch_ms_p50"] = _pct(after, 50)
        if self.rs is not None:
            out["firmware"] = fw
            if self.kind == "bus-stuck" and self.rs.cleared_at >= 0:
                out["firmware"]["last_clear_s"] = round((self.rs.cleared_at - self.sim0) / 1000.0, 3)
            ra = self.rs.recovered_at[self.sensor]
            if fw["recoveries"] and ra >= 0:
                out["firmware"]["last_recovery_s"] = round((ra - self.sim0) / 1000.0, 3)
        return out


def _fw_counts(rs):
    keys = ("io_errors", "bus_clears", "recoveries", "recovery_fails")
    return {k: (getattr(rs, k) if rs is not None else 0) for k in keys}


def idle(board: SimBoard, seconds: float, sim0: int) -> dict:
    """The marble at rest, the board armed, nobody touching it for `seconds`: every flick or
    landing the board reports is a phantom (the table would score it). Re-armed after each."""
    start = len(board.frames)
    t0 = board.now
    tr = board.controller.tracker
    tr.arm()
    at0 = board.marble.position_deg
    end = board.now + int(seconds * 1000)
    while board.now < end:
        board.advance(min(1000, end - board.now))
        if not tr.armed:
            tr.arm()
    got = [f for f in board.frames[start:] if f[1] in ("moving", "landed", "off_ring")]
    return {"idle_s": seconds, "from_s": round((t0 - sim0) / 1000.0, 1),
            "phantom_moving": sum(1 for f in got if f[1] == "moving"),
            "phantom_landed": sum(1 for f in got if f[1] == "landed"),
            "phantom_off_ring": sum(1 for f in got if f[1] == "off_ring"),
            "phantoms": [{"at_s": round((f[0] - t0) / 1000.0, 2), "said": f[1], **f[2]}
                         for f in got[:20]],
            "marble_moved_deg": round(abs(board.marble.position_deg - at0), 3)}
AMBIENT = {"low": 0.1, "high": 2.1}      # MCPS: a room lamp; ST's overcast day (docs)


def marble_names() -> tuple[str, ...]:
    """The marbles the default ring knows (ring.json marble.kinds and the built-in ones)."""
    return tuple(sorted(marble_kinds(json.loads(default_ring_bytes()))))


def check_design(marble: str | None = None, marble_mm: float | None = None,
                 sensors: int | None = None) -> None:
    """Refuse a design the bench cannot build, before any flick (ValueError, with the
    reason and what would do)."""
    d = json.loads(default_ring_bytes())
    if marble is not None and marble not in marble_kinds(d):
        raise ValueError("unknown marble %r (use one of %s: ring.json marble.kinds)"
                         % (marble, ", ".join(marble_names())))
    if marble_mm is not None:
        width = float(d["track"].get("width_mm", 24))
        if not 0 < marble_mm < width:
            raise ValueError("the marble's diameter must be between 0 and the groove's %g mm, "
                             "not %g" % (width, marble_mm))
    if sensors is not None and sensors != len(d["sensors"]) and not 4 <= sensors <= 16:
        raise ValueError("sensors must be 4..16 (one XSHUT pin and I2C address each), not %d"
                         % sensors)


# The GPIOs a Pico brings out (GP23-25 and GP29 are the board's own: SMPS mode, VBUS sense,
# the on-board LED, VSYS sense).
PICO_GPIO = tuple(range(23)) + (26, 27, 28)


def xshut_pins(d: dict, n: int) -> list[int]:
    """n GPIOs for the sensors' XSHUT lines, in order, none that ring.json gives the I2C bus,
    the safe-mode jumper or the LED strip (twelve: GP2..GP13, as built)."""
    pins = d.get("pins", {})
    taken = {pins.get("sda"), pins.get("scl"), pins.get("safe"), d.get("leds", {}).get("pin")}
    free = [p for p in PICO_GPIO if p not in taken]
    if n > len(free):
        raise ValueError("%d sensors need %d XSHUT pins; the Pico has %d free" % (n, n, len(free)))
    return free[:n]


# How much of the marble a sensor may see two sensors along (at twice the spacing and up to
# 8 deg past it), against what it sees at its own window's far end: the sensor two along
# ranges in the same slot (ringfw.sched: neighbours alternate) and lights a marble near its
# lens brightly, so what this sensor sees of that marble is foreign light in its reading
# (docs/simulator.md, "Stop 48": sixteen sensors with twelve's baffle).
TWO_ALONG_MAX = 0.2


def _marble_seen(arr, i: int, off_deg: float) -> float:
    mp = arr._marble_part(i, arr.marble_centre(arr.ring["sensors"][i]["angle_deg"] + off_deg))
    return mp[0] if mp else 0.0


def _two_along(d: dict) -> float:
    """what sensor 0 sees of the marble two sensors along, over what it sees at its far end"""
    from ringside.sim.sensors import SensorArray
    arr = SensorArray(d, rng=0)
    step = 360.0 / len(d["sensors"])
    far = _marble_seen(arr, 0, d["sensors"][0]["view_deg"][1])
    two = max(_marble_seen(arr, 0, 2 * step + o) for o in (0.0, 2.0, 4.0, 6.0, 8.0))
    return two / far if far > 0 else 0.0


def _cut_baffle(d: dict) -> None:
    """Narrow the snout's slot on its far side (+ yaw: the rays that reach furthest along
    the track), in 0.5 deg steps, until the sensor two along is out of sight (TWO_ALONG_MAX)
    as a designer adding sensors would; twelve, 60 deg apart, need no cut."""
    b = (d.get("mount") or {}).get("baffle")
    if not b:
        return
    lo, hi = b["yaw_deg"]
    while hi - 0.5 > lo + 2.0 and _two_along(d) > TWO_ALONG_MAX:
        hi -= 0.5
        b["yaw_deg"] = [lo, hi]


def design_ring(sensors: int | None = None, baffle: bool | None = None) -> bytes:
    """ring.json bytes of the default design, with another sensor count (evenly spaced,
    each window its spacing plus 8 deg of overlap each way... as the 12 have; the snouts'
    slots cut so that no sensor sees the marble two sensors along, _cut_baffle) or without
    the baffles. None keeps what ring.json says."""
    check_design(sensors=sensors)
    d = json.loads(default_ring_bytes())
    if sensors is not None and sensors != len(d["sensors"]):
        proto = d["sensors"][0]
        near = proto["view_deg"][0]
        step = 360.0 / sensors
        pins = xshut_pins(d, sensors)
        out = []
        for i in range(sensors):
            s = copy.deepcopy(proto)
            s["id"] = i
            s["angle_deg"] = round(proto["angle_deg"] + i * step, 3)
            s["view_deg"] = [near, round(near + step + 8.0, 3)]
            s["i2c_address"] = 0x30 + i
            s["xshut_pin"] = pins[i]
            s["calibration"] = {"offset_mm": 0, "scale": 1.0}
            out.append(s)
        d["sensors"] = out
        if baffle is not False:
            _cut_baffle(d)
    if baffle is False:
        d.setdefault("mount", {})["baffle"] = None
        for s in d["sensors"]:
            s.get("mount", {}).pop("baffle", None)
    return json.dumps(d, indent=1).encode()


def _pct(values, p):
    if not values:
        return None
    v = sorted(values)
    k = min(len(v) - 1, max(0, int(math.ceil(p / 100.0 * len(v))) - 1))
    return v[k]


def exact_fits(table: Any, board: Any, sensors: list[int], step_deg: float = 0.5) -> None:
    """Calibrate the given sensors as no builder can (the what-if --exact-calibration): each
    fitted, as ringside.calibration fits it, to what the firmware makes of its reading of a
    marble on the groove's centre line without noise (SensorArray.unblended_mm), every
    step_deg over the span a calibration uses (clear of the window's ends)."""
    ring = board.ring_dict
    model = board.model
    for i in sensors:
        lo, hi = model.window_deg(i)
        pts = []
        d = lo + 1.0
        while d <= hi - FAR_EDGE_DEG:
            got = model.unblended_mm(i, d)
            if got is not None:
                pts.append((lens_range_mm(ring, d), got))
            d += step_deg
        a, b, _res, _free = fit_line(pts)
        table.send("cal", id=i, off=int(round(b * 16)), scale=int(round(4096 / a)))
    table.send("calsave")


def run(flicks: int = 200, seed: int = 1, tilt: float = 0.0, side: str = "darts",
        noise: float = 1.0, faults: dict | None = None, calibrate_first: bool = True,
        sensor_params: SensorParams | None = None, sensor_model: str = "physical",
        marble: str | None = None, marble_mm: float | None = None, ambient: float | None = None,
        sensors: int | None = None, baffle: bool | None = None, crosstalk: bool = True,
        progress: Callable[[int], None] | None = None,
        fault_specs: list[tuple[str, int]] | None = None, random_faults: bool = False,
        idle_s: float | None = None, bus: str | None = None,
        save_traces: str | None = None, save_flicks: tuple = (), save_limit: int = 20,
        trace_tail_ms: int | None = None, exact_calibration: bool = False,
        centred: bool = False, signal_k: float | None = None,
        saved_calibration: bool = False, faults_before_boot: bool = False) -> dict:
    """fault_specs: [(kind, sensor)], each injected after calibration for the whole run;
    random_faults: a random single fault every ~200 flicks (RANDOM_EVERY), drawn from the
    seed; idle_s: first that long at armed rest (phantoms counted); bus: the simulated
    board's (default: "register" with any of these, else the board's default).

    What-ifs, to find what limits a landing (docs/simulator.md, "Stop 38"), not a design:
    exact_calibration: after the builder's calibration, each sensor it fitted is fitted
    again to the model's own noise-free readings over its whole window (exact_fits);
    centred: the marble always on the groove's centre line. noise scales the readings'
    noise (SensorParams.noise_scale). signal_k: the model's signal constant (MCPS of a
    full-cone rho = 1 target at 1 m; SensorParams.signal_k_mcps_m2, the datasheet's 0.83),
    e.g. the 0.5 the model had until stop 40 (docs/simulator.md, "Stop 39", "Stop 40").

    saved_calibration: after calibrating, the board is reset and boots from the calibration it
    saved, as at every session after the first: the fit and each sensor's empty ring (saved
    with it since stop 41); the rest it learnt while calibrating (the marble's brightness) it
    learns again in play (docs/simulator.md, "Stop 41").

    faults_before_boot (with saved_calibration): the fault_specs faults happen while the board
    is off, between the calibration and the reset (a ring knocked in the cupboard), not after
    the boot: the board's first readings already have them."""
    if faults_before_boot and not (saved_calibration and calibrate_first and fault_specs):
        raise ValueError("--faults-before-boot needs --saved-calibration and a --fault: it "
                         "moves the faults to before the board's reset")
    rng = random.Random(seed)
    if bus is None and (fault_specs or random_faults or idle_s):
        bus = "register"
    if sensor_params is None:
        kw = {"noise_scale": noise}
        if marble is not None:
            kw["marble_material"] = marble
        if marble_mm is not None:
            kw["marble_diameter_mm"] = marble_mm
        if ambient is not None:
            kw["ambient_mcps"] = ambient
        if not crosstalk:
            kw["crosstalk"] = False
        if signal_k is not None:
            kw["signal_k_mcps_m2"] = signal_k
        sensor_params = SensorParams(**kw)
    ring_bytes = design_ring(sensors, baffle) if (sensors or baffle is False) else None
    # The ring is calibrated level, as its builder does once (calibration belongs to the
    # sensors on the ring); then it is put on the table of the test, tilted or not.
    board = SimBoard(ring_bytes, seed=seed, tilt_deg=0.0, faults=faults,
                     sensor_params=sensor_params, sensor_model=sensor_model, bus=bus)
    for kind, i in fault_specs or ():
        parse_fault("%s:%d" % (kind, i), board.model.count)
    wall0 = time.perf_counter()
    table = SimTable(board)
    spaces = load_side(side, board.ring_dict)   # the host's ring model (ringside.ring)
    start_angle = spaces.centre(spaces.start)
    board.place(start_angle)
    board.advance(1000)
    if side != board.fw_ring.side_names[0]:
        table.send("side", name=side)
    cal_error = None
    cal_sensors = None
    exact_done = False
    if calibrate_first:
        # under the physical model a design can fail calibration (a glass marble the far
        # sensors cannot see): that is a result too, and the flicks run uncalibrated
        try:
            cal = calibrate(table, board.ring_dict, side=side, log=lambda *a: None)
            cal_sensors = len(cal.fits)
            if exact_calibration:
                exact_fits(table, board, [f.sensor for f in cal.fits])
                exact_done = True
        except CalibrationError as e:
            cal_error = str(e)
    early = []
    if saved_calibration and calibrate_first:
        if faults_before_boot:   # the fault strikes while the board is off
            early = [_Fault(board, kind, i, 0, board.now) for kind, i in fault_specs]
        board.reboot()       # (calibrate() ended with calsave: the board boots with it)
        board.advance(1000)
        if side != board.fw_ring.side_names[0]:
            table.send("side", name=side)
    board.centred = centred
    if tilt:
        board.marble.set_tilt(tilt, board.low_deg)
    board.place(start_angle)
    board.advance(1500)
    while board.marble.on_ring and not board.marble.at_rest:  # a tilted ring: it rolls down first
        board.advance(100)
    board.advance(1000)
    sim0 = board.now
    active = early or [_Fault(board, kind, i, 0, sim0) for kind, i in fault_specs or ()]
    done_faults: list[_Fault] = []
    frng = random.Random("faults %d" % seed)      # --faults random: its own stream
    next_switch = 0 if random_faults else None
    saver = None
    if save_traces:   # --save-traces DIR: the worst flicks as traces (ringside.sim.traces)
        from ringside.sim.traces import BenchSaver
        cmd = "ringside bench ring --flicks %d --seed %d%s%s%s" % (
            flicks, seed, " --ideal" if sensor_model == "ideal" else "",
            " --tilt %g" % tilt if tilt else "", " --side %s" % side if side != "darts" else "")
        if faults:
            cmd += "".join(" --fault %s:%d" % (v, i) for i, v in sorted(faults.items()))
        cmd += "".join(" --fault %s:%d" % (k, i) for k, i in fault_specs or ())
        if random_faults:
            cmd += " --faults random"
        if idle_s:
            cmd += " --idle %g" % idle_s
        # the what-ifs too, so that the command given makes the very same feed again
        cmd += "".join(" --%s" % w for w, on in (("exact-calibration", exact_calibration),
                                                  ("centred", centred),
                                                  ("saved-calibration", saved_calibration),
                                                  ("faults-before-boot", faults_before_boot)) if on)
        if signal_k is not None:
            cmd += " --signal-k %g" % signal_k
        saver = BenchSaver(board, save_traces, side=side, spaces=spaces, limit=save_limit,
                           tail_ms=trace_tail_ms or (5000 if tilt else 3000),
                           save_flicks=save_flicks, source={
                               "command": cmd, "seed": seed, "sensor_model": sensor_model,
                               "model": board.model.describe(), "tilt_deg": tilt,
                               "low_deg": round(board.low_deg, 2) if tilt else None,
                               "faults": dict([(str(i), v) for i, v in (faults or {}).items()]
                                               + [(str(i), k) for k, i in fault_specs or ()]),
                               "calibration_error": cal_error,
                               "booted_from_saved_calibration": bool(saved_calibration
                                                                     and calibrate_first),
                               "tag": "%s%s%s%s" % (sensor_model, "-tilt" if tilt else "",
                                                    ("-saved-off" if faults_before_boot else "-saved")
                                                    if saved_calibration else "", "".join(
                                   "-%s%d" % (k, i) for k, i in fault_specs or ()))})
        if idle_s:
            saver.idle_start()
    idle_res = idle(board, idle_s, sim0) if idle_s else None
    if saver and idle_s:
        saver.idle_end(idle_s)
    tmax = max_travel_deg(board.ring_dict) * 0.9
    stats = dict(flicks=0, correct=0, primary=0, misreported=0, ambiguous=0, no_verdict=0,
                 off_ring_flicks=0, off_ring_missed=0, false_off_ring=0,
                 turning_point_landings=0, early_landings=0)
    travel_err = []
    angle_err = []
    latency = []
    slow = []               # (latency, flick, true angle, sim ms of rest and of landing)
    misreports = []
    turning_points = []     # diagnostics: landings the marble moved on from
    no_verdicts = []
    false_offs = []
    wrong = []              # every flick that stayed on the ring and was not answered right
    stats["blind_landings"] = 0
    landed: list[tuple[float, float]] = []   # (reported, true) angle of each sighted landing
    for k in range(flicks):
        if next_switch is not None and k == next_switch:
            if active:
                active[0].end(k)
                done_faults.append(active.pop())
            active.append(_Fault(board, frng.choice(FAULT_KINDS),
                                 frng.randrange(board.model.count), k, sim0))
            next_switch = k + frng.randint(*RANDOM_EVERY)
        before = dict(stats)
        stats["flicks"] += 1
        direction = 1 if rng.random() < 0.5 else -1
        off = rng.random() < OFF_RING_SHARE
        if off:
            speed = direction * rng.uniform(1.05, 1.6) * board.marble.params.off_ring_speed_mm_s
        else:
            speed = speed_for_travel(board.ring_dict, direction * rng.uniform(20.0, tmax))
        if saver:
            saver.flick_start(k)
        frame, rest_t = board.run_flick(speed, timeout_ms=30000)
        emitted_at = board.now
        at_emit = board.marble.angle_deg if board.marble.on_ring else None
        was_resting = board.marble.at_rest
        # let the marble finish whatever it was doing: ground truth is where it ends
        t_end = board.now + 30000
        while board.marble.on_ring and not board.marble.at_rest and board.now < t_end:
            board.advance(50)
        if rest_t is None and board.marble.on_ring:
            rest_t = board.now
        truly_off = not board.marble.on_ring
        if truly_off:
            stats["off_ring_flicks"] += 1
        if frame is None:
            stats["no_verdict"] += 1
            no_verdicts.append(k)
            if truly_off:
                stats["off_ring_missed"] += 1
            else:
                wrong.append({"flick": k, "why": "no verdict",
                              "true_angle": round(board.marble.position_deg, 2)})
        elif frame[1] == "off_ring":
            if not truly_off:
                stats["false_off_ring"] += 1
                false_offs.append({"flick": k, "true_angle": round(board.marble.position_deg, 2),
                                   "reported_angle": frame[2].get("ang", 0) / 100})
                wrong.append(dict(false_offs[-1], why="off the ring"))
        else:
            f = frame[2]
            if f.get("blind", 0):
                stats["blind_landings"] += 1
            if truly_off:
                stats["off_ring_missed"] += 1
            else:
                true_sp = spaces.space_at(board.marble.position_deg)
                rep, alt = str(f["sp"]), (str(f["alt"]) if "alt" in f else None)
                if alt is not None:
                    stats["ambiguous"] += 1
                if rep == true_sp:
                    stats["primary"] += 1
                # a blind landing names the spaces it may be on: right when one is the true one
                cands = str(f.get("cands", "")).split(",") if f.get("blind") else []
                if rep == true_sp or alt == true_sp or true_sp in cands:
                    stats["correct"] += 1
                elif alt is None and f.get("blind", 0) == 0:
                    stats["misreported"] += 1
                    misreports.append({"flick": k, "reported": rep, "true": true_sp,
                                       "angle": f["ang"] / 100, "true_angle": round(board.marble.position_deg, 2),
                                       "conf": f["conf"]})
                if not (rep == true_sp or alt == true_sp or true_sp in cands):
                    why = ("blind, not among its candidates" if f.get("blind", 0) else
                           "neither of the two spaces" if alt is not None else "misreported")
                    wrong.append({"flick": k, "why": why, "reported": rep, "alt": alt,
                                  "candidates": cands or None, "true": true_sp,
                                  "angle": f["ang"] / 100,
                                  "true_angle": round(board.marble.position_deg, 2),
                                  "conf": f["conf"]})
                if not f.get("blind", 0):
                    landed.append((f["ang"] / 100.0, board.marble.position_deg))
                travel_err.append(abs(f["trv"] / 100.0 - board.marble.travel_deg))
                angle_err.append(abs((f["ang"] / 100.0 - board.marble.position_deg + 180.0) % 360.0 - 180.0))
                if not was_resting and at_emit is not None and abs(board.marble.angle_deg - at_emit) > 0.5:
                    stats["turning_point_landings"] += 1
                    turning_points.append({"flick": k, "angle": f["ang"] / 100,
                                           "moved_on_deg": round(board.marble.angle_deg - at_emit, 2),
                                           "true_angle": round(board.marble.position_deg, 2)})
                if emitted_at < rest_t:
                    stats["early_landings"] += 1
                latency.append(max(0, emitted_at - rest_t))
                slow.append((latency[-1], k, round(board.marble.position_deg, 2), rest_t, emitted_at))
        if saver:
            saver.flick_end(k, frame, rest_t, was_resting, at_emit, direction, 30000)
        # the next flick starts from where the marble is; off the ring it goes back to the start
        if not board.marble.on_ring:
            board.place(start_angle)
            board.advance(1500)
        else:
            board.advance(300)
        for fa in active:
            for key in _SEG_KEYS:
                fa.stats[key] += stats[key] - before[key]
        if progress and (k + 1) % 100 == 0:
            progress(k + 1)
    on_ring_flicks = stats["flicks"] - stats["off_ring_flicks"]
    landings = stats["flicks"] - stats["off_ring_flicks"]
    out = {
        "sensor_model": board.sensor_model,
        "read_schedule": board.read_schedule,
        "model": board.model.describe(),
        "sensors": board.model.count,
        "calibrated_sensors": cal_sensors,
        "calibration_error": cal_error,
        "booted_from_saved_calibration": bool(saved_calibration and calibrate_first),
        "faults_before_boot": bool(faults_before_boot),
        "flicks": stats["flicks"],
        "seed": seed,
        "tilt_deg": tilt,
        "low_deg": round(board.low_deg, 1) if tilt else None,
        "noise_scale": noise,
        "what_if": [w for w, on in (("exact_calibration", exact_done), ("centred", centred),
                                    ("signal_k", signal_k is not None)) if on],
        "accuracy": round(stats["correct"] / landings, 5) if landings else None,
        "primary_accuracy": round(stats["primary"] / landings, 5) if landings else None,
        "misreported": stats["misreported"],
        "ambiguous_rate": round(stats["ambiguous"] / landings, 5) if landings else None,
        "no_verdict": stats["no_verdict"],
        "off_ring_flicks": stats["off_ring_flicks"],
        "off_ring_missed": stats["off_ring_missed"],
        "false_off_ring": stats["false_off_ring"],
        "travel_error_deg_p95": round(_pct(travel_err, 95), 3) if travel_err else None,
        "angle_error_deg_p95": round(_pct(angle_err, 95), 3) if angle_err else None,
        "angle_error_deg_max": round(max(angle_err), 3) if angle_err else None,
        "latency_ms_p50": _pct(latency, 50),
        "latency_ms_p95": _pct(latency, 95),
        "turning_point_landings": stats["turning_point_landings"],
        "early_landings": stats["early_landings"],
        "not_level_reported": bool(board.frames_of("not_level")),
        "sim_seconds": round((board.now - sim0) / 1000.0, 1),
        "wall_seconds": round(time.perf_counter() - wall0, 2),
        "misreports": misreports[:20],
        "turning_points": turning_points[:20],
        "no_verdict_flicks": no_verdicts[:20],
        "false_off_ring_flicks": false_offs[:20],
        # what accuracy counts against: on-ring flicks with no verdict, a false off-ring, a
        # blind landing that does not name the true space, a wrong pair, a misreport
        "wrong_landings": wrong[:20],
        "latency_ms_max": max(latency) if latency else None,
        "slowest_landings": [{"flick": k, "latency_ms": ms, "true_angle": a, "rest_at_ms": r, "landed_at_ms": e}
                             for ms, k, a, r, e in sorted(slow, reverse=True)[:SLOWEST]],
    }
    out["speedup"] = round(out["sim_seconds"] / out["wall_seconds"], 1) if out["wall_seconds"] else None
    out["bus"] = board.bus
    out["blind_landings"] = stats["blind_landings"]
    out["fixed_band"] = fixed_band(landed, spaces)
    out["angle_error_by_offset"] = error_by_offset(landed, board.ring_dict)
    if fault_specs or random_faults:
        out["faults"] = [fa.report() for fa in done_faults + active]
    if random_faults:
        out["faults_random"] = {"every_flicks": list(RANDOM_EVERY), "seed": "faults %d" % seed}
    if idle_res is not None:
        out["idle"] = idle_res
    rs = getattr(board.sensors, "rs", None)
    if rs is not None:
        out["firmware_bus"] = dict(_fw_counts(rs), transfers=board.hw.bus.transfers,
                                   failed_transfers=board.hw.bus.failed,
                                   strikes=len(board.strikes),
                                   unrecovered=sum(1 for s in board.strikes
                                                   if s["back_ms"] is None))
    sp = board.sensors
    done = sum(board.model.completed)
    out["readings"] = {"completed": done, "overwritten": sum(board.model.overwritten),
                       "overwritten_rate": round(sum(board.model.overwritten) / done, 5)
                       if done else None, "replaced": sp.replaced,
                       "age_ms_p50": _pct(sp.ages, 50), "age_ms_p95": _pct(sp.ages, 95)}
    del on_ring_flicks
    if saver:
        out["saved_traces"] = saver.saved
        out["traces_not_saved"] = saver.skipped
    return out


FIXED_BANDS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0)


def fixed_band(landed: list, spaces: Any) -> list:
    """What these landings would give with a fixed ambiguity band instead of the board's own:
    for each band b (degrees), [b, ambiguous rate, misreports]. A landing within b of a
    boundary names the neighbour too (right if either is the true space); outside every band
    it is right or misreported. The trade the band makes, from the landings' own errors:
    no band has both fewer misreports and fewer ambiguous landings than a wider/narrower one
    (docs/simulator.md, "Stop 28")."""
    out = []
    n = len(landed)
    for b in FIXED_BANDS:
        amb = mis = 0
        for rep, true in landed:
            sp = spaces.space_at(rep)
            nb = None
            if b > 0:
                lo, hi = spaces.space_at(rep - b), spaces.space_at(rep + b)
                nb = lo if lo != sp else (hi if hi != sp else None)
            if nb is not None:
                amb += 1
            t = spaces.space_at(true)
            if t != sp and t != nb:
                mis += 1
        out.append([b, round(amb / n, 4) if n else None, mis])
    return out


OFFSET_BIN_DEG = 5


def error_by_offset(landed: list, ring_dict: dict) -> list:
    """The landings' angle errors by how far out the nearest sensor that can range the true
    place sees it (degrees from the sensor, past its minimum range; every sensor counted):
    [from_deg, landings, mean error, rms error] per 5-degree bin, and [None, ...] for places
    no sensor ranges. This is what ring.json's calibration_sigma_by_offset is measured from
    (docs/simulator.md, "Stop 34")."""
    from ringfw.ringfile import ring_from
    r = ring_from(ring_dict)
    near = r.offset_table[30] if 30 <= r.range_max else 0
    bins: dict = {}
    for rep, true in landed:
        a = int(round(true * 100)) % 36000
        best = None
        for i in range(r.sensor_count):
            off = ((a - r.sensor_angle[i]) * r.sensor_dir[i]) % 36000
            if off >= near and r.view_min[i] <= off <= r.view_max[i] and (best is None or off < best):
                best = off
        key = None if best is None else best // (OFFSET_BIN_DEG * 100) * OFFSET_BIN_DEG
        e = (rep - true + 180.0) % 360.0 - 180.0
        b = bins.setdefault(key, [0, 0.0, 0.0])
        b[0] += 1
        b[1] += e
        b[2] += e * e
    return [[k, n, round(s1 / n, 3), round(math.sqrt(s2 / n), 3)]
            for k, (n, s1, s2) in sorted(bins.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))]


def pool_error_by_offset(tables: list) -> list:
    """error_by_offset's rows of several runs, pooled (counts added, means and rms weighted)."""
    acc: dict = {}
    for rows in tables:
        for k, n, m, q in rows:
            b = acc.setdefault(k, [0, 0.0, 0.0])
            b[0] += n
            b[1] += m * n
            b[2] += q * q * n
    return [[k, n, round(s1 / n, 3), round(math.sqrt(s2 / n), 3)]
            for k, (n, s1, s2) in sorted(acc.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))]


SWEEP_KEYS = ("marble", "baffle", "sensors", "ambient")
SWEEP_DEFAULT = {"marble": ("glass", "opaque", "steel"), "baffle": (True, False),
                 "sensors": (12, 16), "ambient": ("low", "high")}


def parse_sweep(text: str | None) -> dict:
    """'marble=glass,opaque;sensors=12,16' -> the grid (unnamed keys keep every choice;
    'all' or None: the whole table)."""
    grid = dict(SWEEP_DEFAULT)
    if not text or text == "all":
        return grid
    for part in text.split(";"):
        if not part.strip():
            continue
        if "=" not in part:
            raise ValueError("sweep: %r is not key=value[,value...]" % part)
        k, v = (x.strip() for x in part.split("=", 1))
        if k not in SWEEP_KEYS:
            raise ValueError("sweep: unknown key %r (use %s)" % (k, ", ".join(SWEEP_KEYS)))
        vals = [x.strip() for x in v.split(",") if x.strip()]
        if k == "marble":
            for x in vals:
                if x not in marble_names():
                    raise ValueError("sweep: unknown marble %r (use %s)"
                                     % (x, ", ".join(marble_names())))
            grid[k] = tuple(vals)
        elif k == "baffle":
            m = {"yes": True, "on": True, "true": True, "no": False, "off": False,
                 "false": False, "none": False}
            try:
                grid[k] = tuple(m[x.lower()] for x in vals)
            except KeyError:
                raise ValueError("sweep: baffle takes yes/no") from None
        elif k == "sensors":
            try:
                grid[k] = tuple(int(x) for x in vals)
            except ValueError:
                raise ValueError("sweep: sensors takes counts like 12,16") from None
            for n in grid[k]:
                check_design(sensors=n)
        else:
            for x in vals:
                if x not in AMBIENT:
                    raise ValueError("sweep: ambient takes low/high")
            grid[k] = tuple(vals)
    return grid


ROW_KEYS = ("accuracy", "primary_accuracy", "ambiguous_rate", "misreported", "no_verdict",
            "false_off_ring", "off_ring_missed", "latency_ms_p50", "latency_ms_p95",
            "angle_error_deg_p95")


def sweep(grid: dict, flicks: int = 100, seed: int = 1, side: str = "darts",
          crosstalk: bool = True, progress: Callable[[str], None] | None = None) -> dict:
    """Every combination of the grid, one ring bench each (physical model)."""
    rows = []
    wall0 = time.perf_counter()
    combos = list(itertools.product(*(grid[k] for k in SWEEP_KEYS)))
    for n, (marble, baffle, sensors, amb) in enumerate(combos):
        res = run(flicks=flicks, seed=seed, side=side, marble=marble, baffle=baffle,
                  sensors=sensors, ambient=AMBIENT[amb], crosstalk=crosstalk)
        row = {"marble": marble, "baffle": baffle, "sensors": sensors, "ambient": amb}
        row.update({k: res[k] for k in ROW_KEYS})
        rows.append(row)
        if progress:
            progress("%d/%d %s" % (n + 1, len(combos), json.dumps(row)))
    return {"sweep": rows, "flicks": flicks, "seed": seed, "sensor_model": "physical",
            "crosstalk": crosstalk,
            "ambient_mcps": AMBIENT, "wall_seconds": round(time.perf_counter() - wall0, 1)}


def plot(result: dict, path: str) -> None:
    """A PNG of a sweep: accuracy, primary accuracy, ambiguous rate, misreports and p95
    latency for every design choice."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = result["sweep"]
    labels = ["%s %s %d %s" % (r["marble"], "baffle" if r["baffle"] else "open", r["sensors"],
                               r["ambient"]) for r in rows]
    for r in rows:   # flicks that gave no landing at all, or a false off-ring
        r.setdefault("lost_share", (r["no_verdict"] + r["false_off_ring"]) / result["flicks"])
    panels = (("accuracy", "accuracy (true or flagged)", 1.0),
              ("primary_accuracy", "primary accuracy", 1.0),
              ("ambiguous_rate", "ambiguous rate", None),
              ("misreported", "misreports", None),
              ("lost_share", "no verdict or false off-ring (share)", 1.0),
              ("latency_ms_p95", "landing latency p95 (ms)", None))
    fig, axes = plt.subplots(1, len(panels), figsize=(3.4 * len(panels), 0.32 * len(rows) + 2),
                             sharey=True)
    y = list(range(len(rows)))
    palette = {"opaque": "tab:green", "steel": "tab:blue", "glass": "tab:orange",
               "white": "tab:gray"}
    colours = [palette.get(r["marble"], "tab:purple") for r in rows]
    for ax, (key, title, top) in zip(axes, panels, strict=True):
        vals = [r[key] if r[key] is not None else 0 for r in rows]
        ax.barh(y, vals, color=colours)
        ax.set_title(title, fontsize=9)
        if top is not None:
            ax.set_xlim(0, top)
        elif not any(vals):
            ax.set_xlim(0, 1)
        ax.grid(axis="x", alpha=0.3)
        ax.tick_params(labelsize=7)
    axes[0].set_yticks(y)
    axes[0].set_yticklabels(labels, fontsize=7)
    axes[0].invert_yaxis()
    fig.suptitle("ringside bench ring --sweep: %d flicks per design, seed %d, physical model%s"
                 % (result["flicks"], result["seed"],
                    "" if result.get("crosstalk", True) else ", neighbours' light off"),
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def parse_seeds(text: str) -> list[int]:
    """'1-5' or '1,3,7' or '2' -> the seeds (whole numbers from 0), in order, each once."""
    out: list[int] = []
    try:
        for part in text.split(","):
            part = part.strip()
            if not part:
                continue
            lo, _, hi = part.partition("-")
            a = int(lo)
            b = int(hi) if hi else a
            if a < 0 or b < a:
                raise ValueError
            out.extend(range(a, b + 1))
    except ValueError:
        raise ValueError("--seeds takes seeds like 1-5 or 1,3,7, not %r" % text) from None
    if not out:
        raise ValueError("--seeds names no seed")
    return list(dict.fromkeys(out))


def _run_one(kw: dict) -> dict:
    return run(**kw)


AGG_KEYS = ("accuracy", "primary_accuracy", "ambiguous_rate", "misreported", "off_ring_missed",
            "false_off_ring", "no_verdict", "travel_error_deg_p95", "angle_error_deg_p95",
            "latency_ms_p50", "latency_ms_p95")


def run_seeds(seeds: list[int], jobs: int = 1, **kw: Any) -> dict:
    """One ring bench per seed, each in a process of its own (jobs at a time): each seed's
    result is the very one `run(seed=S, ...)` gives alone. Returns every seed's result and,
    per key, the worst seed (the targets hold only if they hold on every seed)."""
    import concurrent.futures
    import multiprocessing
    if jobs < 1:
        raise ValueError("--jobs must be at least 1")
    wall0 = time.perf_counter()
    args = [dict(kw, seed=s) for s in seeds]
    if jobs == 1 or len(seeds) == 1:
        results = [_run_one(a) for a in args]
    else:
        # spawn: a fresh interpreter per worker, so no state of this one leaks into a run
        ctx = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(max_workers=min(jobs, len(seeds)),
                                                    mp_context=ctx) as ex:
            results = list(ex.map(_run_one, args))
    per = {str(s): r for s, r in zip(seeds, results, strict=True)}
    worst = {}
    lower_is_worse = ("accuracy", "primary_accuracy")
    for k in AGG_KEYS:
        vals = [r[k] for r in results if r.get(k) is not None]
        if vals:
            worst[k] = min(vals) if k in lower_is_worse else max(vals)
    # the fixed-band trade over every seed's landings together (see fixed_band)
    bands = [r["fixed_band"] for r in results if r.get("fixed_band")]
    together = []
    for rows in zip(*bands, strict=True):
        amb = [row[1] for row in rows if row[1] is not None]
        together.append([rows[0][0], round(sum(amb) / len(amb), 4) if amb else None,
                         sum(row[2] for row in rows)])
    offs = [r["angle_error_by_offset"] for r in results if r.get("angle_error_by_offset")]
    return {"seeds": per, "worst": worst, "fixed_band_all_seeds": together,
            "angle_error_by_offset_all_seeds": pool_error_by_offset(offs),
            "sensor_model": results[0]["sensor_model"],
            "flicks": kw.get("flicks"), "tilt_deg": kw.get("tilt", 0.0), "jobs": jobs,
            "wall_seconds": round(time.perf_counter() - wall0, 1)}
