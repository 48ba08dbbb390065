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
from pathlib import Path

from ringfw import geometry, ringfile
from ringfw.compat import TICKS_MASK
from ringfw.controller import Controller
from ringfw.wire import Encoder

from ringside.link.frames import LineReader, WireError, encode, parse
from ringside.sim.physics import Marble, PhysicsParams
from ringside.sim.sensors import SensorArray, SensorParams

ROOT = Path(__file__).resolve().parents[3]
# The simulated board's sensor model unless SimBoard(sensor_model=...) says otherwise.
# "ideal" until the firmware expects a real scene (issue 14); then DEFAULT_MODEL.
BOARD_DEFAULT_MODEL = "ideal"
DEFAULT_RING = ROOT / "hardware" / "ring.json"


def default_ring_bytes() -> bytes:
    return DEFAULT_RING.read_bytes()


class _Clock:
    def __init__(self, board):
        self.b = board

    def ticks_ms(self):
        return self.b.now & TICKS_MASK


def _rate_q7(mcps):
    """MCPS -> the 9.7 fixed-point value of registers 0x1A/0x1C (16 bits, saturating)."""
    v = int(mcps * 128 + 0.5)
    return 0 if v < 0 else (0xFFFF if v > 0xFFFF else v)


class _Sensors:
    """hal.RangeSensors over the sensor model; measures at mid-integration.

    schedule "immediate": each reading is handed over the moment it completes (the ideal
    world, and what the simulated board did before issue 14).

    schedule "firmware": the board's real read path, as firmware/ringfw/board_rp2040.py runs
    it: core 1 loops SensorPoller.round() - RangeSensors.poll over the sensors whose read is
    due, then sleep_ms(1) - and core 0's poll() takes what core 1 handed over. A sensor's read
    falls due at the round's tick + budget_ms after a reading, or + 2 ms after a read that
    found no new result; the 0x13 burst and the interrupt clear cost I2C time (READ_MS), so
    a round reads its sensors one after another. A result the sensor overwrote before it was
    read is lost (the model counts it: SensorArray.overwritten), a reading core 0 had not
    taken before the next is replaced (replaced). If the firmware's schedule changes
    (single-shot starts, another read order), this class is where the simulator follows it.

    poll(now, ranges, statuses, fresh, signal=None, ambient=None): as hal.RangeSensors; if
    the optional arrays are given, the 0x1A (signal rate) and 0x1C (ambient rate) registers
    of each fresh reading too, 9.7 fixed point MCPS as the 0x13 burst reads them.
    """

    READ_MS = 0.49        # 0x13 burst (16 bytes on the wire) + 0x0B clear (3 bytes) at 400 kHz
    POLL_MS = 0.39        # a burst that finds no new result (no clear)
    ROUND_MS = 0.10       # the round's own Python (12 due checks, the hand-over)
    SLEEP_MS = 1.0        # core 1's sleep_ms(1) between rounds
    RETRY_MS = 2          # board_rp2040._RETRY_MS

    def __init__(self, board, schedule="immediate"):
        self.b = board
        self.count = board.model.count
        self.schedule = schedule
        n = self.count
        self._t1 = float(board.now)          # core 1: when its next round starts
        self._read_due = [board.now] * n     # RangeSensors._due
        self._out = []                       # (available at, i, range, status, sig, amb)
        self.replaced = 0
        self.reads = 0
        self.ages = []                       # ms from a result's completion to core 0

    def poll(self, now, ranges, statuses, fresh, signal=None, ambient=None):
        if self.schedule == "immediate":
            return self._poll_immediate(now, ranges, statuses, fresh, signal, ambient)
        return self._poll_firmware(now, ranges, statuses, fresh, signal, ambient)

    def _poll_immediate(self, now, ranges, statuses, fresh, signal, ambient):
        b = self.b
        model = b.model
        t = b.now
        half = b.budget_ms / 2
        n = 0
        rec = b.recording
        for i in range(self.count):
            fresh[i] = 0
            while model.next_due_ms(i) <= t:
                due = model.next_due_ms(i)
                res = model.measure(i, b.angle_at(due - half), due)
                if res is not None:
                    ranges[i], statuses[i] = res
                    if signal is not None:
                        rd = model.last[i]
                        signal[i] = _rate_q7(rd.signal_mcps)
                        ambient[i] = _rate_q7(rd.ambient_mcps)
                    if not fresh[i]:
                        n += 1
                    fresh[i] = 1
            if fresh[i] and rec is not None:
                b._rec_reading(i, ranges[i], statuses[i])
        return n

    def _core1(self, until):
        """Run core 1's rounds that start before `until` (ms of virtual time)."""
        b = self.b
        model = b.model
        half = b.budget_ms / 2
        budget = int(b.budget_ms)
        due = self._read_due
        n = self.count
        out = self._out
        while self._t1 < until:
            t = self._t1
            tick = int(t)
            first = min(due)
            if first > tick:
                # nothing due: idle rounds (checks and sleep) until the first tick it is
                idle = self.ROUND_MS + self.SLEEP_MS
                k = int((first - t) / idle)
                if k < 1:
                    k = 1
                self._t1 = t + k * idle
                continue
            tr = t + self.ROUND_MS
            for i in range(n):
                if due[i] > tick:
                    continue
                if model.faults[i] == "dead":      # no ACK: OSError, NO_ANSWER, next budget
                    tr += 0.05
                    out.append((tr, i, 8191, 255, 0, 0, 0.0))
                    due[i] = tick + budget
                    continue
                ready = model.next_due_ms(i)
                if ready <= tr:
                    # the result register holds the newest completed measurement
                    done = ready
                    per = model.period_ms
                    while done + per <= tr and model._mode[i] == "continuous":
                        done += per
                    res = model.measure(i, b.angle_at(done - half), tr)
                    tr += self.READ_MS
                    self.reads += 1
                    if res is not None:
                        rd = model.last[i]
                        out.append((tr, i, res[0], res[1], _rate_q7(rd.signal_mcps),
                                    _rate_q7(rd.ambient_mcps), done))
                    due[i] = tick + budget
                else:
                    tr += self.POLL_MS
                    due[i] = tick + self.RETRY_MS
            self._t1 = tr + self.SLEEP_MS

    def _poll_firmware(self, now, ranges, statuses, fresh, signal, ambient):
        b = self.b
        self._core1(b.now)
        for i in range(self.count):
            fresh[i] = 0
        out = self._out
        n = 0
        keep = []
        t = b.now
        rec = b.recording
        for item in out:
            at, i, r, st, sq, aq, done = item
            if at > t:
                keep.append(item)
                continue
            if fresh[i]:
                self.replaced += 1
            else:
                n += 1
            fresh[i] = 1
            ranges[i] = r
            statuses[i] = st
            if signal is not None:
                signal[i] = sq
                ambient[i] = aq
            if done:
                self.ages.append(t - done)
        self._out = keep
        if rec is not None:
            for i in range(self.count):
                if fresh[i]:
                    b._rec_reading(i, ranges[i], statuses[i])
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
                 read_schedule: str | None = None):
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
        self.model = SensorArray(self.ring_dict, params=sensor_params,
                                 rng=random.Random(master.getrandbits(32)), faults=faults,
                                 model=self.sensor_model)
        # how readings reach the controller: the board's real read path with the physical
        # model, at completion with the ideal one (see _Sensors)
        if read_schedule is None:
            read_schedule = "firmware" if self.sensor_model == "physical" else "immediate"
        if read_schedule not in ("firmware", "immediate"):
            raise ValueError("read_schedule must be 'firmware' or 'immediate'")
        self.read_schedule = read_schedule
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
        self.sensors = _Sensors(self, self.read_schedule)
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

    def flick(self, speed_mm_s: float) -> None:
        self._draw_lateral()
        self.marble.flick(speed_mm_s)

    def _draw_lateral(self):
        m = self.model.lateral_max_mm()
        self.model.set_lateral(self._groove_rng.uniform(-m, m))

    def angle_at(self, t_ms: float):
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
    def send(self, kind: str, **fields) -> None:
        """Queue a command frame for the board, as a host would send it."""
        self.inbox += encode(self._host_enc, kind, fields)

    def send_bytes(self, data: bytes) -> None:
        self.inbox += data

    # ----- time -----
    def advance(self, ms: int, until=None) -> None:
        """Run ms of virtual time: physics every ms, the controller every loop_ms.

        until(frame) -> bool stops early after a matching frame."""
        end = self.now + ms
        ctl = self.controller
        m = self.marble
        while self.now < end:
            for _ in range(self.loop_ms):
                if not self._lifted and (not m.at_rest or m.speed_mm_s):
                    m.step(1.0)
                self.now += 1
                self._record_hist()
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

    def run_flick(self, speed_mm_s: float, timeout_ms: int = 20000, arm: bool = True):
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

    def frames_of(self, kind: str, since: int = 0):
        return [f for f in self.frames[since:] if f[1] == kind]

    # ----- recording (feeds for the MicroPython VM) -----
    def _rec_begin(self):
        self._rec_step = [self.now & TICKS_MASK, [], b""]
        self.recording.append(self._rec_step)

    def _rec_reading(self, i, r, st):
        self._rec_step[1].append((i, r, st))

    def _rec_input(self, data):
        self._rec_step[2] += data

    def feed_bytes(self) -> bytes:
        """The recording as a flat little-endian int32 stream (see ringfw/replay.py)."""
        out = array("i")
        for now, readings, data in self.recording:
            out.append(now)
            out.append(len(readings))
            out.append(len(data))
            for i, r, st in readings:
                out.extend((i, r, st))
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
    def frames(self):
        return self.board.frames

    def send(self, kind, **fields):
        self.board.send(kind, **fields)
        self.board.advance(self.board.loop_ms * 2)

    def advance(self, ms):
        self.board.advance(ms)

    def place(self, angle_deg, space_id=None):
        self.board.place(angle_deg)
