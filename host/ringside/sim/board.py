"""A simulated board: the firmware's Controller running against the simulated ring.

The marble physics and the VL53L0X model (physics.py, sensors.py) stand in for the
hardware behind the hal interfaces; the Controller is the very code the Pico runs. Time
is virtual: advance(ms) runs as fast as the host can go. Every reading the controller
polls (and every byte it is sent) can be recorded as a feed, which the MicroPython VM
replays to prove the firmware emits the same bytes there.
"""
from __future__ import annotations

import json
import random
from array import array

from ringfw import geometry, ringfile
from ringfw.compat import TICKS_MASK
from ringfw.controller import Controller
from ringfw.hal import STATUS_NO_ANSWER
from ringfw.sched import HandOver, Schedule
from ringfw.wire import Encoder

from ringfw.hal import (RANGE_NO_TARGET, STATUS_NONE, STATUS_SIGMA_FAIL, STATUS_SIGNAL_FAIL,
                        STATUS_VALID)

from ringside import ring as ring_mod
from ringside.link.frames import LineReader, WireError, encode, parse
from ringside.sim import fw_replay
from ringside.sim import vl53l0x_regs as regs
from ringside.sim.physics import Marble, PhysicsParams
from ringside.sim.sensors import FAULTS as SENSOR_FAULTS
from ringside.sim.sensors import DEFAULT_MODEL, MOUNT_FAULTS, SensorArray, SensorParams
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Callable

# The simulated board's sensor model unless SimBoard(sensor_model=...) says otherwise: the
# physical one (every surface in each cone, docs/simulator.md) in every path - play --sim,
# play-ring, sim, calibrate, the benches, the tests. "ideal" only where a caller asks for it
# (each command's --ideal switch).
BOARD_DEFAULT_MODEL = DEFAULT_MODEL


def model_of(ideal: bool) -> str:
    """The sensor model a command's --ideal switch selects."""
    return "ideal" if ideal else BOARD_DEFAULT_MODEL

# How the firmware reaches the sensors (SimBoard(bus=...)):
#   "register": the board's own code (ringfw.board_rp2040.RangeSensors: Adafruit driver
#               bring-up, single-shot starts, result bursts, bus and sensor recovery) over
#               the simulated I2C bus (vl53l0x_regs.FakeI2C), one register-level VL53L0X
#               per sensor whose measurements are the sensor model's;
#   "direct":   the schedule's device calls the sensor model itself (no I2C): faster, and
#               the only way for the faults below that are not register level.
BUSES = ("register", "direct")
BOARD_DEFAULT_BUS = "direct"

# Faults SimBoard.set_fault injects. On the register-level bus: dead (NACKs its address),
# stuck (its result registers report one reading whatever happens), intermittent (drops
# off the bus now and then: NACKs for stretches), brownout (resets to 0x29 with default
# registers, its ranging stopped), bus-stuck (holds SDA low until the master clocks SCL
# and sends a STOP) are the chip's; noisy, misaimed and nobaffle are the sensor model's
# (what the chip measures). On the direct bus only the sensor model's own kinds exist.
REGISTER_FAULTS = ("dead", "stuck", "intermittent", "brownout", "bus-stuck")
FAULT_KINDS = ("dead", "stuck", "noisy", "misaimed", "nobaffle", "intermittent", "brownout",
               "bus-stuck")
# brownout / bus-stuck: an event now, then again every so often while the fault stands;
# intermittent: a NACK stretch now, then more (all drawn from the board's seeded fault RNG)
EVENT_EVERY_MS = (15000, 45000)
DROP_EVERY_MS = (3000, 12000)
DROP_FOR_MS = (150, 1500)


def default_ring_bytes() -> bytes:
    """The ring in use (ringside.ring: the user's file, else the packaged ring.json)."""
    return ring_mod.read_bytes()


class _Clock:
    def __init__(self, board):
        self.b = board

    def ticks_ms(self):
        return self.b.now & TICKS_MASK


def _rate_q7(mcps):
    """MCPS -> the 9.7 fixed-point value of registers 0x1A/0x1C (16 bits, saturating)."""
    v = int(mcps * 128 + 0.5)
    return 0 if v < 0 else (0xFFFF if v > 0xFFFF else v)


class _Device:
    """The schedule's device (ringfw.sched) over the sensor model: the firmware's Schedule,
    the very code the board runs on core 1, starts each sensor (SensorArray.start_single,
    so the model knows who emits when: crosstalk), asks whether it is ready and reads it."""

    def __init__(self, board):
        self.b = board
        self.model = board.model
        self.half = board.half_period
        self.done_at = board.done_at     # when each last result completed
        self.reads = 0

    def start(self, i):
        m = self.model
        if m.faults[i] == "dead":
            return False         # no ACK: the start's first write fails
        m.start_single(i, self.b.now)
        return True

    def ready(self, i):
        return 1 if self.model.next_due_ms(i) <= self.b.now else 0

    def read(self, i, sched):
        m = self.model
        due = m.next_due_ms(i)
        self.done_at[i] = due
        self.reads += 1
        res = m.measure(i, self.b.angle_at(due - self.half), due)
        if res is None:
            return 0             # a dropout: no result this time
        if res[1] == STATUS_NO_ANSWER:
            return -1
        sched.r[i] = res[0]
        sched.st[i] = res[1]
        rd = m.last[i]
        sched.signal[i] = _rate_q7(rd.signal_mcps)
        sched.ambient[i] = _rate_q7(rd.ambient_mcps)
        return 1


class _SimChip(regs.VL53L0XModel):
    """A VL53L0X of the simulated ring at the register level. Its single-shot measurement
    (SYSRANGE_START = 0x01 with no calibration step) is the sensor model's: it starts when
    the firmware writes the start (SensorArray.start_single: crosstalk sees who emits
    when), is ready when the model's measurement is due, and latches the model's reading
    (range, status, signal and ambient rates) into the result registers. A model dropout
    (no result) latches the device's "no update" status; the API-only sigma check cannot
    be shown by register 0x14, so the model's sigma-fail outliers latch as signal fail."""

    def __init__(self, board, i):
        self.b = board
        self.i = i
        super().__init__(None, clock=board._clock_ms, name="sensor %d" % i)

    def _write_page0(self, reg, val):
        super()._write_page0(reg, val)
        if reg == regs.SYSRANGE_START and self.mode == "single":
            self.b.model.start_single(self.i, self.b.now)

    def _advance(self):
        if self.mode != "single":
            super()._advance()
            return
        if self.ranging_stuck:
            return
        b = self.b
        m = b.model
        due = m.next_due_ms(self.i)
        if due > b.now:
            return
        self.mode = "idle"
        b.done_at[self.i] = due
        b.chip_reads += 1
        res = m.measure(self.i, b.angle_at(due - b.half_period), due)
        if res is None or res[1] not in _REG_STATUSES:
            got = (RANGE_NO_TARGET, STATUS_NONE, 0.0, m.params.ambient_mcps)
        else:
            rd = m.last[self.i]
            st = STATUS_SIGNAL_FAIL if rd.status == STATUS_SIGMA_FAIL else rd.status
            got = (rd.range_mm, st, rd.signal_mcps, rd.ambient_mcps)
        self._latch(got)

    def _latch(self, got=None):
        if self.frozen is not None:
            got = self.frozen
        elif got is None:                # (continuous ranging: not what the firmware does)
            got = (RANGE_NO_TARGET, STATUS_NONE, 0.0, 0.0)
        self.source = lambda: got
        super()._latch()

    def power(self, on):
        if not on and hasattr(self, "b"):
            self.b.model.stop(self.i, self.b.now)
        super().power(on)

    def brownout(self):
        self.b.model.stop(self.i, self.b.now)
        super().brownout()


_REG_STATUSES = (STATUS_VALID, STATUS_SIGMA_FAIL, STATUS_SIGNAL_FAIL, 3, 4, 5, STATUS_NONE)


class _Hardware:
    """The register-level board: the chips on their I2C bus and XSHUT lines, the fake
    `machine`/`micropython` modules the firmware's board code runs against, and that code
    (ringfw.board_rp2040), imported once under them."""

    _board_mod = None

    def __init__(self, board):
        self.chips = [_SimChip(board, i) for i in range(board.model.count)]
        self.bus = regs.FakeI2C(self.chips, log_size=0)
        self.lines = regs.XShutLines()
        for i, pin in enumerate(board.fw_ring.xshut_pin):
            if pin >= 0:
                self.lines.wire(pin, self.chips[i])
            else:
                self.chips[i].power(True)
        self.mods = regs.fake_modules(self.bus, self.lines)
        self.machine = self.mods["machine"]

    def __deepcopy__(self, memo):
        """A copy of the board (a trace's tail, a warm-up) gets fake modules of its own. The
        fake `machine`'s I2C and Pin are closures over one bus and one set of XSHUT lines, and
        deepcopy shares modules, functions and classes: a copy that made its bus again
        (clear_bus, a reboot's bring-up) or drove a pin through them would drive the
        original board's chips instead of its own, and the original's readings (and its
        sensors' random streams) would change under it (the bench gave other results with
        --save-traces). The old modules and their classes map to the new ones in `memo`, so
        whatever is copied after this (RangeSensors._machine, its Pin objects) follows."""
        import copy
        new = _Hardware.__new__(_Hardware)
        memo[id(self)] = new
        new.chips = copy.deepcopy(self.chips, memo)
        new.bus = copy.deepcopy(self.bus, memo)
        new.lines = copy.deepcopy(self.lines, memo)
        new.mods = regs.fake_modules(new.bus, new.lines)
        for name, mod in self.mods.items():          # the classes and functions first
            twin = new.mods[name]
            memo[id(mod)] = twin
            for key, val in vars(mod).items():
                if not key.startswith("__") and callable(val) and hasattr(twin, key):
                    memo[id(val)] = getattr(twin, key)
        for name, mod in self.mods.items():          # then what they recorded
            twin = new.mods[name]
            for key, val in vars(mod).items():
                if key.startswith("__") or callable(val) or key == "lines":
                    continue
                got = copy.deepcopy(val, memo)
                if isinstance(val, list):              # (in place: kbd_intr appends to it)
                    getattr(twin, key)[:] = got
                else:
                    setattr(twin, key, got)
        new.machine = new.mods["machine"]
        for key, val in vars(self).items():
            if key not in vars(new):
                setattr(new, key, copy.deepcopy(val, memo))
        return new

    def range_sensors(self, ring):
        """board_rp2040.RangeSensors(ring), brought up as at boot (its waits in no time)."""
        import sys
        saved = {k: sys.modules.get(k) for k in self.mods}
        sys.modules.update(self.mods)
        try:
            mod = _Hardware._board_mod
            if mod is None:
                import importlib
                mod = importlib.import_module("ringfw.board_rp2040")
                for k in ("adafruit_vl53l0x", "ringfw.board_setup", "ringfw.busio_shim"):
                    importlib.import_module(k)
                _Hardware._board_mod = mod
            real_sleep = mod._sleep_ms
            mod._sleep_ms = _no_wait
            try:
                return mod.RangeSensors(ring, log=lambda msg: None)
            finally:
                mod._sleep_ms = real_sleep
        finally:
            for k, v in saved.items():
                if v is None:
                    sys.modules.pop(k, None)
                else:
                    sys.modules[k] = v


def _no_wait(ms):
    pass


class _Sensors:
    """hal.RangeSensors as the board's SensorPoller runs them: core 1's loop (the firmware's
    ringfw.sched.Schedule and HandOver) every ms of virtual time - SimBoard.advance calls
    core1() - and core 0's poll() takes what core 1 handed over, with each reading's signal
    and ambient rates (signal[i], ambient[i]: 9.7 fixed point MCPS, as registers 0x1A/0x1C).
    The I2C time of a read (well under a ms) is not simulated: a result is read in the ms it
    is ready. `replaced` counts readings core 0 had not taken before the next came.
    """

    def __init__(self, board):
        self.b = board
        self.count = board.model.count
        self.dev = _Device(board)
        self.sched = Schedule(board.fw_ring, self.dev, int(round(board.budget_ms)))
        self.ages = []                    # ms from a result's completion to core 0 taking it
        self.hand = HandOver(self.sched)
        self.signal = self.hand.signal
        self.ambient = self.hand.ambient
        for i in range(self.count):       # the board's boot leaves every sensor idle
            board.model.stop(i, board.now)

    @property
    def replaced(self):
        return self.hand.replaced

    def set_focus(self, i):
        self.sched.focus = i

    def set_together(self, on):
        self.sched.together = on

    def core1(self, now):
        if now >= self.sched.wake:       # (sim time starts at 0 and never wraps here)
            self.hand.put(now)

    @property
    def reads(self):
        return self.dev.reads

    def poll(self, now, ranges, statuses, fresh):
        n = self.hand.take(ranges, statuses, fresh)
        if n:
            t = self.b.now
            done = self.b.done_at
            for i in range(self.count):
                if fresh[i] and statuses[i] != STATUS_NO_ANSWER:
                    self.ages.append(t - done[i])
        w = self.b._waiting
        if n and w:
            for i in list(w):
                if fresh[i] and statuses[i] != STATUS_NO_ANSWER and \
                        self.b.done_at[i] > w[i]["at_ms"]:
                    self.b._answered(i)
        if n and self.b.recording is not None:
            for i in range(self.count):
                if fresh[i]:
                    self.b._rec_reading(i, ranges[i], statuses[i], self.signal[i],
                                        self.ambient[i])
        return n


class _RegSensors(_Sensors):
    """hal.RangeSensors as the Pico runs them, on the register-level bus: the firmware's
    board_rp2040.RangeSensors (its schedule is ringfw.sched's) polled by core 1's loop
    (HandOver.put, then RangeSensors.service: recovery) every ms of virtual time."""

    def __init__(self, board):
        self.b = board
        self.count = board.model.count
        for i in range(self.count):       # the board's boot leaves every sensor idle
            board.model.stop(i, board.now)
        self.rs = board.hw.range_sensors(board.fw_ring)
        self.sched = self.rs.sched
        self.hand = HandOver(self.sched)
        self.signal = self.hand.signal
        self.ambient = self.hand.ambient
        self.ages = []

    def core1(self, now):
        if now >= self.sched.wake:
            self.hand.put(now)
        rs = self.rs
        if rs._any or rs._down:
            rs.service(now)

    @property
    def reads(self):
        return self.b.chip_reads


class _Pixels:
    def __init__(self, board, count):
        self.count = count
        self.frame = bytes(3 * count)

    def show(self, buf):
        self.frame = bytes(buf)


class _Serial:
    def __init__(self, board):
        self.b = board
        self.uid = board.uid.encode()   # hal Serial.uid: the board's identity in its hello

    def read_into(self, buf):
        inbox = self.b.inbox
        n = min(len(buf), len(inbox))
        if n:
            buf[:n] = inbox[:n]
            del inbox[:n]
            if self.b.recording is not None:
                self.b._rec_input(bytes(buf[:n]))
        return n

    def write(self, buf, n):
        self.b.out += buf[:n]


class _Watchdog:
    def __init__(self):
        self.fed = 0

    def feed(self):
        self.fed += 1


class _Storage:
    def __init__(self, board):
        self.b = board

    def save_calibration(self, ring, which):
        d = json.loads(json.dumps(self.b.saved_ring or self.b.ring_dict))
        ringfile.apply_calibration(d, ring, which)
        self.b.saved_ring = d


class SimBoard:
    """The firmware controller on a simulated ring, in virtual time (ms)."""

    def __init__(self, ring_bytes: bytes | None = None, *, seed: int = 0, tilt_deg: float = 0.0,
                 low_deg: float | None = None, faults: dict | None = None,
                 sensor_params: SensorParams | None = None,
                 physics_params: PhysicsParams | None = None, loop_ms: int = 8,
                 record: bool = False, start_ms: int = 0, sensor_model: str | None = None,
                 uid: str | None = None, read_schedule: str | None = None,
                 bus: str | None = None):
        # the board's identity (a Pico's is its machine.unique_id()): one of its own, stable
        # for a seed, and marked as simulated; uid= gives another. A board that records a
        # feed has the replay harness's, so that the replay emits the very same bytes.
        if uid is None:
            uid = fw_replay.UID.decode() if record else "sim%013x" % (seed & 0xFFFFFFFFFFFFF)
        self.uid = uid
        self.ring_bytes = ring_bytes if ring_bytes is not None else default_ring_bytes()
        self.ring_dict = json.loads(self.ring_bytes)
        self.seed = seed
        master = random.Random(seed)
        if low_deg is None:
            low_deg = master.uniform(0, 360)
        self.tilt_deg = tilt_deg
        self.low_deg = low_deg
        self.marble = Marble(self.ring_dict, params=physics_params, tilt_deg=tilt_deg,
                             low_deg=low_deg, rng=random.Random(master.getrandbits(32)))
        self.sensor_model = BOARD_DEFAULT_MODEL if sensor_model is None else sensor_model
        # readings reach the controller through the firmware's own schedule (ringfw.sched),
        # whichever sensor model answers
        self.read_schedule = "firmware"
        self.bus = BOARD_DEFAULT_BUS if bus is None else bus
        if self.bus not in BUSES:
            raise ValueError("bus must be one of %s, not %r" % (", ".join(BUSES), bus))
        model_faults = faults if self.bus == "direct" else None
        self.model = SensorArray(self.ring_dict, params=sensor_params,
                                 rng=random.Random(master.getrandbits(32)), faults=model_faults,
                                 model=self.sensor_model)
        # the marble's place across the groove, drawn per flick and per placing; centred: a
        # what-if (bench ring --centred), the marble always on the groove's centre line
        self._groove_rng = random.Random(master.getrandbits(32))
        self.centred = False
        # when the faults that come and go strike (drawn last: the draws above stay put)
        self._fault_rng = random.Random(master.getrandbits(32))
        self.faults: dict[int, str] = dict(faults or {}) if self.bus == "direct" else {}
        self.fault_log: list[tuple[int, int, str]] = []    # (ms, sensor, event) as injected
        self._events: dict[int, list] = {}                 # sensor -> [next ms, kind]
        self._next_event = None
        self.strikes: list[dict] = []   # each brownout / bus-stuck / intermittent drop, and
        self._waiting: dict = {}        # when its sensor's readings came through again
        self.half_period = self.model.period_ms / 2
        self.done_at = [0.0] * self.model.count            # when each last result completed
        self.chip_reads = 0
        self.budget_ms = float(self.ring_dict.get("sensor_timing", {}).get("budget_ms", 33))
        self.loop_ms = loop_ms
        self.now = start_ms
        self._hist = [None] * 128          # marble angle for each of the last 128 ms
        self._lifted = False               # in someone's hand
        self.inbox = bytearray()
        self.out = bytearray()
        self._out_read = 0
        self._reader = LineReader()
        self.frames: list[tuple[int, str, dict]] = []   # (time ms, kind, fields) as sent
        self.bad_lines = 0
        self.recording = [] if record else None
        self._rec_step = None
        self.saved_ring = None
        self._host_enc = Encoder()
        self.fw_ring = geometry.loads(self.ring_bytes)
        self.pixels = _Pixels(self, self.fw_ring.led_count)
        self.watchdog = _Watchdog()
        self._record_hist()
        self.hw = _Hardware(self) if self.bus == "register" else None
        if self.hw is not None:
            for i, kind in (faults or {}).items():
                self.set_fault(i, kind)
        self.controller = self._boot()

    def reboot(self) -> None:
        """Reset the board: the firmware starts again from nothing (the ring stays as it is)."""
        self.inbox.clear()
        self.controller = self._boot()

    def _clock_ms(self):
        return self.now

    def _boot(self):
        self.sensors = _RegSensors(self) if self.hw is not None else _Sensors(self)
        return Controller(self.fw_ring, _Clock(self), self.sensors, self.pixels, _Serial(self),
                          self.watchdog, _Storage(self))

    # ----- faults -----
    def set_fault(self, i: int, kind: str | None) -> None:
        """Give sensor i a fault (FAULT_KINDS), or None (or "ok") to repair it. On the
        register-level bus the chip's faults are the chip's (see REGISTER_FAULTS); the
        others, and every fault on the direct bus, are the sensor model's."""
        self.model._check_index(i)
        if kind == "ok":
            kind = None
        if kind is not None and kind not in FAULT_KINDS:
            raise ValueError("unknown sensor fault %r (use one of %s, or ok)"
                             % (kind, ", ".join(FAULT_KINDS)))
        if self.hw is None:
            if kind is not None and kind not in SENSOR_FAULTS + MOUNT_FAULTS:
                raise ValueError("fault %r needs the register-level bus (SimBoard(bus="
                                 "'register'))" % kind)
            self.fault_log.append((self.now, i, kind or "ok"))
            self.model.set_fault(i, kind)
        else:
            self.fault_log.append((self.now, i, kind or "ok"))
            self._set_chip_fault(i, kind)
        if kind is None:
            self.faults.pop(i, None)
        else:
            self.faults[i] = kind

    def _set_chip_fault(self, i, kind):
        chip = self.hw.chips[i]
        m = self.model
        # repair what the chip had first (one fault per sensor at a time)
        chip.answers = True
        chip.frozen = None
        chip.drop_until(None)
        self._events.pop(i, None)
        if m.faults[i] is not None or m.mount_faults[i]:
            m.set_fault(i, None)
        if kind is None:
            pass
        elif kind == "dead":
            chip.answers = False
        elif kind == "stuck":
            chip.frozen = (m.stuck_mm[i], STATUS_VALID, 5.0, m.params.ambient_mcps)
        elif kind in SENSOR_FAULTS + MOUNT_FAULTS:
            m.set_fault(i, kind)
        else:                              # intermittent, brownout, bus-stuck: now, and again
            self._strike(i, kind)
        self._rearm()

    def _strike(self, i, kind):
        rng = self._fault_rng
        chip = self.hw.chips[i]
        gone_ms = 0
        if kind == "intermittent":
            gone_ms = rng.randint(*DROP_FOR_MS)
            chip.drop_until(self.now + gone_ms)
            nxt = rng.randint(*DROP_EVERY_MS)
        elif kind == "brownout":
            chip.brownout()
            nxt = rng.randint(*EVENT_EVERY_MS)
        else:
            chip.hold_sda(rng.randint(1, 8))
            nxt = rng.randint(*EVENT_EVERY_MS)
        self.fault_log.append((self.now, i, kind + "!"))
        self._events[i] = [self.now + nxt, kind]
        self.strikes.append({"sensor": i, "kind": kind, "at_ms": self.now, "back_ms": None,
                             "gone_ms": gone_ms})
        self._waiting[i] = self.strikes[-1]

    def _answered(self, i):
        """A reading of sensor i came through after a strike: how long it was gone."""
        st = self._waiting.pop(i)
        st["back_ms"] = self.now - st["at_ms"]

    def _rearm(self):
        self._next_event = min((e[0] for e in self._events.values()), default=None)

    def _fault_events(self):
        for i, (t, kind) in list(self._events.items()):
            if t <= self.now:
                self._strike(i, kind)
        self._rearm()

    # ----- the marble -----
    def place(self, angle_deg: float, lift_ms: int = 600) -> None:
        """Pick the marble up (it is off the track for lift_ms) and set it down at angle_deg."""
        if lift_ms > 0 and self.marble.on_ring:
            self._lifted = True
            self.advance(lift_ms)
        self._lifted = False
        self._draw_lateral()
        self.marble.place(angle_deg)
        self._record_hist()

    def lift(self) -> None:
        """Take the marble off the ring (in someone's hand) until the next place()."""
        self._lifted = True
        self._record_hist()

    def flick(self, speed_mm_s: float) -> None:
        self._draw_lateral()
        self.marble.flick(speed_mm_s)

    def _draw_lateral(self):
        m = self.model.lateral_max_mm()
        u = self._groove_rng.uniform(-m, m)     # (drawn either way: the same stream)
        self.model.set_lateral(0.0 if self.centred else u)

    def angle_at(self, t_ms: float) -> float | None:
        """The marble's position (deg) at a recent time, or None when it is off the ring."""
        k = int(t_ms)
        if k > self.now:
            k = self.now
        if k < self.now - 127:
            k = self.now - 127
        return self._hist[k % 128]

    def _record_hist(self):
        m = self.marble
        self._hist[self.now % 128] = m.position_deg if m.on_ring and not self._lifted else None

    # ----- host side of the serial line -----
    def send(self, kind: str, **fields: Any) -> None:
        """Queue a command frame for the board, as a host would send it."""
        self.inbox += encode(self._host_enc, kind, fields)

    def send_bytes(self, data: bytes) -> None:
        self.inbox += data

    # ----- time -----
    def advance(self, ms: int, until: Callable | None = None) -> None:
        """Run ms of virtual time: physics every ms, the controller every loop_ms.

        until(frame) -> bool stops early after a matching frame."""
        end = self.now + ms
        ctl = self.controller
        m = self.marble
        while self.now < end:
            core1 = self.sensors.core1
            for _ in range(self.loop_ms):
                if not self._lifted and (not m.at_rest or m.speed_mm_s):
                    m.step(1.0)
                self.now += 1
                self._record_hist()
                core1(self.now)
            if self._next_event is not None and self.now >= self._next_event:
                self._fault_events()
            if self.recording is not None:
                self._rec_begin()
            ctl.step(self.now & TICKS_MASK)
            if len(self.out) != self._out_read and self._collect(until):
                return

    def _collect(self, until):
        new = self.out[self._out_read:]
        self._out_read = len(self.out)
        self._reader.feed(new)
        hit = False
        while True:
            line = self._reader.next_line()
            if line is None:
                return hit
            try:
                _, kind, fields = parse(line)
            except WireError:
                self.bad_lines += 1
                continue
            fr = (self.now, kind, fields)
            self.frames.append(fr)
            if until is not None and until(fr):
                hit = True

    def run_flick(self, speed_mm_s: float, timeout_ms: int = 20000, arm: bool = True) -> tuple:
        """Flick and wait for the board's verdict; returns (frame or None, true rest time or None).

        arm: tell the board a flick is coming, as the table does on a player's turn."""
        if arm:
            self.controller.tracker.arm()
        self.flick(speed_mm_s)
        start = len(self.frames)
        rest_t = None

        def verdict():
            # A landing that corrects (`corrects`) the last flick's, moved on from and
            # corrected where this flick found it, is not this one's: it comes before this
            # flick's own landing (and after a `moving` of the marble moving on, so that
            # frame says nothing).
            for fr in self.frames[start:]:
                if fr[1] == "off_ring" or (fr[1] == "landed" and not fr[2].get("corrects")):
                    return fr
            return None

        def done(fr):
            return fr[1] in ("landed", "off_ring") and verdict() is not None

        t_end = self.now + timeout_ms
        while self.now < t_end:
            self.advance(self.loop_ms, until=done)
            if rest_t is None and self.marble.at_rest and self.marble.on_ring:
                rest_t = self.now
            elif not self.marble.at_rest:
                rest_t = None
            fr = verdict()
            if fr is not None:
                return fr, rest_t
        return None, rest_t

    def frames_of(self, kind: str, since: int = 0) -> list:
        return [f for f in self.frames[since:] if f[1] == kind]

    # ----- recording (feeds for the MicroPython VM) -----
    def _rec_begin(self):
        self._rec_step = [self.now & TICKS_MASK, [], b""]
        self.recording.append(self._rec_step)

    def _rec_reading(self, i, r, st, sig=0, amb=0):
        self._rec_step[1].append((i, r, st, sig, amb))

    def _rec_input(self, data):
        self._rec_step[2] += data

    def feed_bytes(self) -> bytes:
        """The recording as a flat little-endian int32 stream (see ringfw/replay.py)."""
        out = array("i")
        for now, readings, data in self.recording:
            out.append(now)
            out.append(len(readings))
            out.append(len(data))
            for rec in readings:
                out.extend(rec)
            padded = data + b"\0" * (-len(data) % 4)
            tail = array("i")
            tail.frombytes(padded)
            out.extend(tail)
        if out.itemsize != 4:
            raise RuntimeError("int32 arrays required")
        return out.tobytes()


class SimTable:
    """The simulated board as calibration and the apps use it: place() is done physically."""

    def __init__(self, board: SimBoard):
        self.board = board

    @property
    def frames(self) -> list:
        return self.board.frames

    def send(self, kind: str, **fields: Any) -> None:
        self.board.send(kind, **fields)
        self.board.advance(self.board.loop_ms * 2)

    def advance(self, ms: int) -> None:
        self.board.advance(ms)

    def place(self, angle_deg: float, space_id: str | None = None) -> None:
        self.board.place(angle_deg)

    def lift(self) -> None:
        self.board.lift()
