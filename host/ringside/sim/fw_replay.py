"""Replay a recorded feed through the firmware Controller.

This file runs under CPython AND inside the MicroPython VM (it is mounted there with the
firmware), so it keeps to the subset both share. The feed is a little-endian int32
stream, one record per controller step:

    now, n_readings, n_input_bytes, (sensor, range, status, signal, ambient) * n_readings,
    input bytes padded to 4

Everything the controller writes to its serial port is collected, byte for byte. With
lock_heap, every controller.step runs under micropython.heap_lock(): an allocation there
raises MemoryError and is counted in step_allocations.
"""
# this file runs inside MicroPython too: no typing, no __future__, so its hints name builtins only
from array import array


class _Clock:
    def __init__(self):
        self.now = 0

    def ticks_ms(self):
        return self.now


class _Sensors:
    def __init__(self, n):
        self.count = n
        self.ids = array("i", [0] * n)
        self.r = array("i", [0] * n)
        self.st = array("i", [0] * n)
        self.sig = array("i", [0] * n)
        self.amb = array("i", [0] * n)
        self.signal = array("i", [0] * n)
        self.ambient = array("i", [0] * n)
        self.k = 0
        self.focus = -1
        self.together = False

    def set_focus(self, i):
        self.focus = i   # the readings come from the feed: which sensor ranged is recorded

    def set_together(self, on):
        self.together = on

    def poll(self, now, ranges, statuses, fresh):
        # as the board's SensorPoller: only the new readings are flagged (the controller
        # clears the flags it consumes)
        for j in range(self.k):
            i = self.ids[j]
            ranges[i] = self.r[j]
            statuses[i] = self.st[j]
            self.signal[i] = self.sig[j]
            self.ambient[i] = self.amb[j]
            fresh[i] = 1
        return self.k


# the board identity (hal Serial.uid) the replayed controller reports in its hello; a
# SimBoard that records a feed takes the same one, so the replay says what it said
UID = b"5ec0dedfeed00001"


class _Serial:
    def __init__(self, cap):
        self.uid = UID
        self.out = bytearray(cap)
        self.n = 0
        self.inb = bytearray(256)
        self.in_n = 0
        self.overflow = 0

    def read_into(self, buf):
        n = self.in_n
        if n > len(buf):
            n = len(buf)
        for j in range(n):
            buf[j] = self.inb[j]
        self.in_n = 0
        return n

    def write(self, buf, n):
        o = self.out
        p = self.n
        if p + n > len(o):
            self.overflow += 1
            return
        for j in range(n):
            o[p + j] = buf[j]
        self.n = p + n


class _Pixels:
    """Keeps a running checksum of every LED frame shown, so the pixels can be compared too."""

    def __init__(self, checksum=True):
        self.count = 0
        self.frames = 0
        self.sum = 0
        self.checksum = checksum

    def show(self, buf):
        self.frames += 1
        if not self.checksum:  # (the cost benchmark: on a board, show() is C code)
            return
        s = self.sum
        for j in range(len(buf)):
            s = ((s * 31) + buf[j] + j) & 0xFFFFFF   # stays a small int
        self.sum = s


class _Watchdog:
    def feed(self):
        pass


# Checksum every LED frame (the cost benchmark turns it off: on a board, show() is C code).
# A module setting, not a seventh argument: the WASI MicroPython build crashes in its GC after
# calls with seven arguments.
PIXEL_SUM = True

# When each output byte was written: with MARKS = N > 0, the first N steps that wrote
# anything are noted as (step time, output length after it) in stats["marks"], a flat list
# (the trace corpus, ringside.sim.traces, times the frames by it). A module setting, like
# PIXEL_SUM; the array is allocated before the first step, so no step allocates for it.
MARKS = 0


def replay(ring: object, feed_path: str, out_cap: int = 65536, lock_heap: bool = False, steps_limit: int = -1, dry: bool = False) -> tuple:
    """Run the controller over a feed file. Returns (output bytearray, length, stats dict).

    dry: read the feed but do not step the controller (the cost of the harness alone)."""
    from ringfw.controller import Controller
    micropython = None
    if lock_heap:
        import micropython
    n = ring.sensor_count
    clock = _Clock()
    sens = _Sensors(n)
    ser = _Serial(out_cap)
    hdr = array("i", [0, 0, 0])
    rec = array("i", [0] * (5 * n))
    inwords = array("i", [0] * 64)
    f = open(feed_path, "rb")
    # the first record's time is the boot time
    if f.readinto(hdr) != 12:
        raise ValueError("empty feed")
    clock.now = hdr[0]
    pix = _Pixels(PIXEL_SUM)
    ctl = Controller(ring, clock, sens, pix, ser, _Watchdog())
    steps = 0
    allocs = 0
    nmarks = MARKS
    marks = array("i", [0] * (2 * nmarks)) if nmarks > 0 else None
    km = 0
    last_n = 0
    while True:
        k = hdr[1]
        if k > n:
            raise ValueError("corrupt feed")
        if k:
            mv = memoryview(rec)
            f.readinto(mv[0:5 * k])
            for j in range(k):
                sens.ids[j] = rec[5 * j]
                sens.r[j] = rec[5 * j + 1]
                sens.st[j] = rec[5 * j + 2]
                sens.sig[j] = rec[5 * j + 3]
                sens.amb[j] = rec[5 * j + 4]
        sens.k = k
        nb = hdr[2]
        if nb:
            words = (nb + 3) // 4
            if words > 64:
                raise ValueError("corrupt feed")
            mv = memoryview(inwords)
            f.readinto(mv[0:words])
            raw = bytes(inwords)
            for j in range(nb):
                ser.inb[j] = raw[j]
            ser.in_n = nb
        clock.now = hdr[0]
        if dry:
            pass
        elif micropython is not None:
            micropython.heap_lock()
            try:
                ctl.step(hdr[0])
            except MemoryError:
                allocs += 1
            micropython.heap_unlock()
            if ctl.errors:
                allocs += ctl.errors  # a MemoryError caught inside step is an allocation too
                ctl.errors = 0
        else:
            ctl.step(hdr[0])
        if marks is not None and ser.n != last_n and km < nmarks:
            marks[2 * km] = hdr[0]
            marks[2 * km + 1] = ser.n
            km += 1
            last_n = ser.n
        steps += 1
        if steps == steps_limit:
            break
        if f.readinto(hdr) != 12:
            break
    f.close()
    stats = {"steps": steps, "step_allocations": allocs, "out_overflow": ser.overflow,
             "errors": ctl.errors, "pixel_frames": pix.frames, "pixel_sum": pix.sum}
    if marks is not None:
        stats["marks"] = [marks[j] for j in range(2 * km)]
        stats["marks_full"] = km == nmarks
    return ser.out, ser.n, stats
