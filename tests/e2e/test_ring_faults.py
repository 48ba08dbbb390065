"""Bad input and faults on the ring: each gives a clear event or a clean recovery,
never a crash or a hang - and while a sensor is broken, the results stay right: no
confident wrong landing, no off_ring for a marble that is on the ring (issue 18).

The flick tests run on the physical sensor model, calibrated (once per seed: the fit is
sent to each new board with `cal`, as calibration does). Once round the spaces, as every case
here was found (the default until stop 55): a calibration's placements are drawn from the
seed, so two passes make each seed another history, in which these cases need not arise."""
import random

import pytest

from ringfw import hal
from ringside import calibration
from ringside.calibration import calibrate
from ringside.ring import load_side
from ringside.sim.board import SimBoard, SimTable
from ringside.sim.physics import max_travel_deg, speed_for_travel

_CAL: dict = {}


@pytest.fixture(autouse=True)
def _calibrated_once_round(monkeypatch):
    monkeypatch.setattr(calibration, "PASSES", 1)


def calibrated_board(seed, model="physical", fresh=False, **kw):
    """A simulated board (physical sensor model unless told), calibrated, the marble at rest
    on the darts start space. The first board of a seed is calibrated as a builder does it (the
    marble lifted for the empty ring, then set on known spaces); later ones, and every one
    with fresh=False after that, boot with that calibration sent to them, as a board does from
    its saved calibration.json (its empty ring then learnt only in play). fresh=True always
    calibrates anew and keeps nothing."""
    key = (seed, model)
    if fresh:
        key = None
    b = SimBoard(seed=seed, sensor_model=model, **kw)
    side = load_side("darts", b.ring_dict)
    start = side.centre(side.start)
    b.place(start)
    b.advance(1000)
    if key is None or key not in _CAL:
        calibrate(SimTable(b), b.ring_dict, side="darts", log=lambda *a: None)
        r = b.fw_ring
        if key is not None:
            _CAL[key] = [(i, r.off16[i], r.scale_q12[i]) for i in range(r.sensor_count)]
    else:
        for i, off, scale in _CAL[key]:
            b.send("cal", id=i, off=off, scale=scale)
        b.advance(50)
    b.place(start)
    b.advance(1500)
    return b


def flick_many(b, n, seed):
    """n flicks (seeded directions and strengths, none too hard), each waited out to the
    end (the marble at rest); what the board said and where the marble truly is."""
    rng = random.Random(seed * 7919 + 1)
    side = load_side("darts", b.ring_dict)
    start = side.centre(side.start)
    tmax = max_travel_deg(b.ring_dict) * 0.9
    out = []
    for k in range(n):
        d = 1 if rng.random() < 0.5 else -1
        n0 = len(b.frames)
        frame, _ = b.run_flick(speed_for_travel(b.ring_dict, d * rng.uniform(20.0, tmax)),
                               timeout_ms=30000)
        t_end = b.now + 30000
        while b.marble.on_ring and not b.marble.at_rest and b.now < t_end:
            b.advance(50)
        b.advance(300)
        true = side.space_at(b.marble.position_deg) if b.marble.on_ring else None
        r = {"flick": k, "true": true, "frame": frame and (frame[1], frame[2]),
             "frames": [(kk, f) for _, kk, f in b.frames[n0:] if kk not in ("hb", "ack")]}
        f = frame[2] if frame else {}
        cands = str(f.get("cands", "")).split(",") if f.get("cands") else []
        named = {str(f.get("sp")), str(f.get("alt"))} | set(cands)
        r["right"] = frame is not None and frame[1] == "landed" and true in named
        r["confident_wrong"] = (frame is not None and frame[1] == "landed" and true not in named
                                and "alt" not in f and not f.get("blind"))
        r["off_false"] = frame is not None and frame[1] == "off_ring" and true is not None
        out.append(r)
        if not b.marble.on_ring:
            b.place(start)
            b.advance(1500)
    return out


def score(res):
    return {"flicks": len(res), "right": sum(r["right"] for r in res),
            "confident_wrong": sum(r["confident_wrong"] for r in res),
            "false_off_ring": sum(r["off_false"] for r in res),
            "no_result": sum(r["frame"] is None for r in res),
            "blind": sum(1 for r in res if r["frame"] and r["frame"][1].get("blind"))}


def fresh_board(seed=3, **kw):
    b = SimBoard(seed=seed, **kw)
    b.place(90.0)
    b.advance(1500)
    return b


def test_a_stuck_sensor_is_reported_and_ignored():
    b = fresh_board(faults={2: "stuck"})
    b.advance(3000)
    for travel in (150.0, -120.0, 200.0):
        frame, _ = b.run_flick(speed_for_travel(b.ring_dict, travel), timeout_ms=20000)
        assert frame is not None and frame[1] == "landed"
        b.advance(2500)
    faults = [f for f in b.frames_of("sensor_fault") if f[2]["id"] == 2]
    assert faults and faults[0][2]["why"] == "stuck"
    assert b.controller.errors == 0


def test_a_sensor_that_dies_mid_game_is_reported_with_the_blind_arc():
    b = fresh_board()
    assert not b.frames_of("sensor_fault")
    b.model.set_fault(6, "dead")
    b.advance(1500)
    f = b.frames_of("sensor_fault")
    assert [x[2]["id"] for x in f] == [6] and f[0][2]["why"] == "silent"
    assert 1000 <= f[0][2]["blind"] <= 3000   # the part only sensor 6 saw: about 21 degrees
    b.model.set_fault(6, None)
    b.advance(1500)
    ok = b.frames_of("sensor_ok")
    assert ok and ok[-1][2]["id"] == 6 and ok[-1][2]["blind"] == 0


def test_garbage_from_every_sensor_never_crashes_the_controller():
    b = fresh_board()
    rnd = random.Random(5)

    class Garbage:
        count = b.model.count
        signal = [0] * count
        ambient = [0] * count

        def set_focus(self, i):
            pass

        def poll(self, now, ranges, statuses, fresh):
            n = 0
            for i in range(self.count):
                fresh[i] = rnd.random() < 0.3
                if fresh[i]:
                    ranges[i] = rnd.choice([0, 1, 7, 65535, 8190, 8191, rnd.randrange(-500, 9000)])
                    statuses[i] = rnd.choice([0, 1, 2, 3, 4, 5, 254, 255, 99])
                    n += 1
            return n

    b.controller.sensors = Garbage()
    b.advance(10000)
    assert b.controller.errors == 0
    assert len(b.frames_of("hb")) >= 10        # the loop kept running
    assert not b.frames_of("landed")           # garbage is not a flick


def test_an_exception_in_a_step_is_caught_counted_and_reported():
    b = fresh_board()

    class Broken:
        count = b.model.count
        calls = 0

        def poll(self, now, ranges, statuses, fresh):
            Broken.calls += 1
            raise OSError(5, "I2C bus error")

        def set_focus(self, i):     # (the rest of the HAL works: only the poll fails)
            pass

    fed = b.watchdog.fed
    b.controller.sensors = Broken()
    b.advance(2000)
    assert b.controller.errors == Broken.calls > 100
    errs = b.frames_of("error")
    assert errs and errs[0][2]["what"] == "OSError"
    assert b.frames_of("hb")[-1][2]["err"] > 0
    assert b.watchdog.fed - fed >= Broken.calls   # fed every step: only a real hang reboots


def test_a_flick_that_never_starts_changes_nothing():
    b = fresh_board()
    n0 = len(b.frames)
    b.controller.tracker.arm()
    b.advance(5000)
    kinds = {f[1] for f in b.frames[n0:]}
    assert kinds <= {"hb", "ack"}
    frame, _ = b.run_flick(speed_for_travel(b.ring_dict, 100.0))
    assert frame[1] == "landed"


def test_two_flicks_before_a_landing_give_one_landing_with_the_whole_travel():
    b = fresh_board()
    n0 = len(b.frames)
    b.controller.tracker.arm()
    b.flick(speed_for_travel(b.ring_dict, 120.0))
    b.advance(700)
    assert not b.marble.at_rest
    b.flick(-speed_for_travel(b.ring_dict, 200.0))   # hit again, the other way, while it rolls
    while not b.marble.at_rest:
        b.advance(50)
    b.advance(3000)   # it turned back, so the board waits the long (tilted-ring) window
    landed = b.frames_of("landed", n0)
    assert len(landed) == 1
    true_travel = (b.marble.angle_deg - 90.0)   # net: +120ish, then -250ish
    # uncalibrated sensors: each end carries a sensor's offset (up to 10 mm: 3.4 deg at ~2.9 mm
    # a degree); a lost track would be off by a whole flick (120-250 deg)
    ends = 2 * max(abs(x) for x in b.model.bias_mm) / 2.9 + 1.0
    assert abs(landed[0][2]["trv"] / 100.0 - true_travel) < ends


def test_status_codes_are_never_taken_for_a_distance():
    b = fresh_board()
    tr = b.controller.tracker
    before = tr.rest_angle()
    for st in (hal.STATUS_SIGNAL_FAIL, hal.STATUS_PHASE_FAIL, hal.STATUS_MIN_RANGE_FAIL,
               hal.STATUS_SIGMA_FAIL, hal.STATUS_NONE):
        for _ in range(10):
            tr.feed(b.now, 0, 40, st)       # a plausible range, but not a valid one
    for rng in (hal.RANGE_OUT_OF_RANGE, hal.RANGE_NO_TARGET):
        for _ in range(10):
            tr.feed(b.now, 0, rng, hal.STATUS_VALID)
    assert tr.rest_angle() == before
    assert not [f for f in b.frames if f[1] == "moving"]


# ----- results stay right while a sensor is broken (issue 18 item 2) -----------------------

def _broken(seed, sensor, kind, flicks):
    b = calibrated_board(seed)
    b.model.set_fault(sensor, kind)
    b.advance(2000)
    n0 = len(b.frames)
    res = flick_many(b, flicks, seed)
    return b, res, n0


def _assert_right(res, at_least):
    s = score(res)
    bad = [r for r in res if r["confident_wrong"] or r["off_false"]]
    assert not bad, (s, bad)          # no confident wrong space, no off_ring while on the ring
    assert s["right"] >= at_least, (s, [r for r in res if not r["right"]])
    return s


def test_a_dead_sensor_a_marble_in_its_arc_lands_blind_with_its_candidates_never_off_ring():
    # sensor 3 dead: 122-142 deg seen by nobody. Before: flicks 7 and 10 came to rest in
    # or next to that arc and were reported off_ring (and flick 11 gave no result).
    b, res, n0 = _broken(2, 3, "dead", 24)
    s = _assert_right(res, 23)
    blind = [r for r in res if r["frame"] and r["frame"][1].get("blind")]
    assert blind, s                               # the arc was landed in, and said so
    for r in blind:
        assert r["true"] in str(r["frame"][1]["cands"]).split(","), r
    faults = [f for _, k, f in b.frames if k == "sensor_fault"]
    assert [f["id"] for f in faults] == [3] and faults[0]["why"] == "silent"


def test_a_stuck_sensor_is_not_trusted_again_until_it_follows_the_marble():
    # Before: flagged and trusted again over and over (5 times in these flicks: sensor_ok
    # whenever the marble passed its value, or the ring was empty), with two confident
    # wrong landings (flicks 13 and 21) and two false off_ring (6 and 12).
    b, res, n0 = _broken(3, 7, "stuck", 24)
    _assert_right(res, 23)   # (one flick may give no result: the still window, not the fault)
    kinds = [(k, f["id"]) for _, k, f in b.frames if k in ("sensor_fault", "sensor_ok")]
    assert kinds == [("sensor_fault", 7)], kinds
    assert [f["why"] for _, k, f in b.frames_of("sensor_fault")] == ["stuck"]


def _noisy_at_rest_starts(b):
    """The marble at rest where only sensor 0 sees it, the board armed, nobody touching it,
    sensor 0 turned noisy: whether it is flagged noisy, and what the board says over the
    next 60 s, armed, once it is."""
    b.place(45.0)                      # 45 deg: sensor 0's window only (23-53)
    b.advance(2000)
    b.model.set_fault(0, "noisy")
    n0 = len(b.frames)
    t_flag = None
    for _ in range(30):
        b.controller.tracker.arm()
        b.send("arm", dir="any")
        b.advance(2000)
        flags = [t for t, k, f in b.frames[n0:] if k == "sensor_fault" and f["id"] == 0]
        if flags:
            t_flag = flags[0]
            break
    assert t_flag is not None, "a noisy sensor at rest was never flagged"
    assert [f["why"] for _, k, f in b.frames[n0:] if k == "sensor_fault" and f["id"] == 0] == ["noisy"]
    b.advance(6000)                    # (a blind landing of a phantom still under way)
    n1 = len(b.frames)
    for _ in range(3):                 # 3 x 20 s armed, the noisy sensor flagged
        b.send("arm", dir="any")
        b.advance(20000)
    return {k for _, k, _ in b.frames[n1:]}


def test_a_noisy_sensor_is_found_out_at_rest_and_then_starts_nothing():
    # Before: never flagged, and a phantom `moving` (and `landed`, `verdict`, `off_ring`,
    # `lost`) every few seconds. Now it is flagged noisy from its scatter at rest, and from
    # then on it starts nothing. (Before it is flagged, a phantom can still come: issue 18
    # item 2 is not finished there - see docs/firmware.md, "Faults".) A board calibrated
    # just now, which learnt the empty ring as the marble was lifted:
    kinds = _noisy_at_rest_starts(calibrated_board(3, fresh=True))
    assert not kinds & {"moving", "landed", "verdict", "off_ring", "lost", "sensor_ok"}, kinds


def test_a_board_booted_from_its_saved_calibration_starts_nothing_from_a_noisy_sensor():
    # Before (stop 40, a strict xfail): a phantom `moving` and a blind landing. Sensor 11's
    # empty cone at 0.19 MCPS, lifted to the 0.25 MCPS limit by the marble at its edge,
    # ranged its wall now and then at 158 mm: past the range table's end, so left blended,
    # and calibration took it back to 34 deg, the far end of its window. Two of those and a
    # stray of sensor 2 made a chain out of noisy sensor 0's arc. Un-blended, the marble's
    # part of such a reading is under half the wall's: not the marble.
    calibrated_board(3)                # (the seed's calibration saved, as calibration.json)
    kinds = _noisy_at_rest_starts(calibrated_board(3))
    assert not kinds & {"moving", "landed", "verdict", "off_ring", "lost", "sensor_ok"}, kinds


def test_with_a_noisy_sensor_the_landings_stay_right():
    # before: four flicks without a result (the noisy readings kept the still window from
    # ever holding) and one off_ring (flick 9) of a marble on the ring
    b, res, n0 = _broken(3, 0, "noisy", 24)
    _assert_right(res, 23)   # (one flick may give no result: the still window, not the fault)
    assert [f["why"] for _, k, f in b.frames if k == "sensor_fault" and f["id"] == 0] == ["noisy"]


def test_two_faults_make_the_ring_degraded_naming_the_sensors():
    from ringside.link.messages import describe
    b = calibrated_board(1)
    b.model.set_fault(3, "dead")
    b.advance(1500)
    assert not b.frames_of("degraded")           # one sensor out is not yet degraded
    b.model.set_fault(8, "dead")
    b.advance(1500)
    d = b.frames_of("degraded")
    assert len(d) == 1 and d[0][2]["n"] == 2 and str(d[0][2]["ids"]) == "3,8"
    assert describe("degraded", d[0][2]) == \
        "the ring is degraded: sensors 3 and 8 are out, 42.0 deg of the ring unseen"
    b.model.set_fault(8, None)
    b.advance(1500)
    d = b.frames_of("degraded")
    assert len(d) == 2 and d[1][2]["n"] == 1
    assert describe("degraded", d[1][2]) == "the ring is no longer degraded (sensor 3 still out)"


def _moved_on(b):
    """A flick that lands; then (before the next flick is armed) the ring tilts, 1.5 deg with
    the low point 40 deg on, and the marble rolls on by itself from rest: what the board
    said. (Issue 18: "landed on mine-2", then the marble moved on, "marble set down".)"""
    side = load_side("darts", b.ring_dict)
    frame, _ = b.run_flick(speed_for_travel(b.ring_dict, 120.0), timeout_ms=30000)
    assert frame and frame[1] == "landed"
    first = frame[2]
    n0 = len(b.frames)
    b.advance(300)
    b.marble.set_tilt(1.5, (b.marble.position_deg + 40.0) % 360.0)
    b.advance(500)
    while not b.marble.at_rest:
        b.advance(50)
    b.advance(6000)
    return first, [(k, f) for _, k, f in b.frames[n0:] if k not in ("hb", "ack")], \
        side.space_at(b.marble.position_deg)


def test_a_landing_the_marble_moves_on_from_is_withdrawn_and_corrected():
    b = calibrated_board(2)
    first, after, true = _moved_on(b)
    assert str(first["sp"]) != true               # it did move on to another space
    kinds = [k for k, _ in after]
    assert kinds[0] == "withdrawn" and str(after[0][1]["sp"]) == str(first["sp"])
    corr = [f for k, f in after if k == "landed"]
    assert len(corr) == 1 and corr[0]["corrects"] == 1
    assert true in (str(corr[0]["sp"]), str(corr[0].get("alt")))
    # the travel is the whole way from the flick's start
    assert abs(corr[0]["trv"] - first["trv"] - (corr[0]["ang"] - first["ang"])) < 50
    assert "verdict" not in kinds                 # a correction is no new flick
