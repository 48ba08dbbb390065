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

from ringside import ring as ring_mod
from ringside.link.frames import LineReader, WireError, encode, parse
from ringside.sim import fw_replay
from ringside.sim.physics import Marble, PhysicsParams
from ringside.sim.sensors import DEFAULT_MODEL, SensorArray, SensorParams
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
        self.half = board.model.period_ms / 2
        self.done_at = [0.0] * board.model.count   # when each last result completed
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
            done = self.dev.done_at
            for i in range(self.count):
                if fresh[i] and statuses[i] != STATUS_NO_ANSWER:
                    self.ages.append(t - done[i])
        if n and self.b.recording is not None:
            for i in range(self.count):
                if fresh[i]:
                    self.b._rec_reading(i, ranges[i], statuses[i], self.signal[i],
                                        self.ambient[i])
        return n


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
                 uid: str | None = None, read_schedule: str | None = None):
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
        self.model = SensorArray(self.ring_dict, params=sensor_params,
                                 rng=random.Random(master.getrandbits(32)), faults=faults,
                                 model=self.sensor_model)
        # the marble's place across the groove, drawn per flick and per placing
        self._groove_rng = random.Random(master.getrandbits(32))
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
        self.controller = self._boot()

    def reboot(self) -> None:
        """Reset the board: the firmware starts again from nothing (the ring stays as it is)."""
        self.inbox.clear()
        self.controller = self._boot()

    def _boot(self):
        self.sensors = _Sensors(self)
        return Controller(self.fw_ring, _Clock(self), self.sensors, self.pixels, _Serial(self),
                          self.watchdog, _Storage(self))

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
        self.model.set_lateral(self._groove_rng.uniform(-m, m))

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

        def done(fr):
            return fr[1] in ("landed", "off_ring")

        t_end = self.now + timeout_ms
        while self.now < t_end:
            self.advance(self.loop_ms, until=done)
            if rest_t is None and self.marble.at_rest and self.marble.on_ring:
                rest_t = self.now
            elif not self.marble.at_rest:
                rest_t = None
            for fr in self.frames[start:]:
                if fr[1] in ("landed", "off_ring"):
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
