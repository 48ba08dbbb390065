"""The Raspberry Pi Pico (RP2040) behind the hal interfaces (see ringfw.hal).

    ring = geometry.load("ring.json")
    clock = Clock()
    ranging = RangeSensors(ring)            # XSHUT sequencing, addresses, driver init
    sensors = SensorPoller(ranging)         # poll them on core 1 (I2C waits off core 0)
    pixels = Pixels(ring)                   # MicroPython's neopixel on leds.pin
    serial = Serial()                       # USB CDC, never blocks
    watchdog = Watchdog()                   # machine.WDT, started here
    ranging.drop_init_code()                # driver and set-up code needed no more: RAM back
    ctl = Controller(ring, clock, sensors, pixels, serial, watchdog, Storage())
    sensors.start()
    while not released():
        now = clock.ticks_ms()
        boot_grace(now)
        ctl.step(now)

Everything a ring needs comes from ring.json: "pins" (i2c_id, sda, scl), every sensor's
xshut_pin and i2c_address, sensor_timing (budget_ms, i2c_hz) and leds (pin, count).
The VL53L0X are initialised by the genuine Adafruit driver through ringfw.busio_shim; the
per-sample path reads their result registers directly, allocating nothing.
See docs/board.md for the reasons.
"""
import sys
import time

import machine
import micropython

from ringfw.compat import const, tdiff, TICKS_MASK
from ringfw import hal

try:
    _ticks = time.ticks_ms
    _sleep_ms = time.sleep_ms
except AttributeError:  # CPython (tests with ringside.sim.vl53l0x_regs.fake_modules)
    def _ticks():
        return int(time.monotonic() * 1000) & TICKS_MASK

    def _sleep_ms(ms):
        time.sleep(ms / 1000)
_wait_ms = _sleep_ms            # real time always (tests replace _sleep_ms with virtual time)

_REG_SYSTEM_INTERRUPT_CLEAR = const(0x0B)
_REG_RESULT_INTERRUPT_STATUS = const(0x13)

GRACE_MS = const(3000)          # Ctrl-C works this long after boot, then it is data
_WDT_TIMEOUT_MS = const(5000)   # RP2040 maximum is 8388 ms
# RP2040 WATCHDOG CTRL register, atomic-clear alias (base 0x40058000 + 0x3000), and its
# ENABLE bit 30. Plain ints: both exceed MicroPython's small-int range, which const() needs.
_WDT_CTRL_CLR = 0x4005B000
_WDT_ENABLE = 1 << 30

_FAIL_MS = const(250)           # a sensor failing this long (and twice) is brought back
_CLEAR_PULSES = const(9)        # SCL clocks that free any device holding SDA (UM10204 3.1.16)
_TH = const(0x20000000)
_TM = const(0x3FFFFFFF)

try:
    _delay_us = time.sleep_us
except AttributeError:  # CPython: the fake bus has no timing
    def _delay_us(us):
        pass


class Clock:
    """hal Clock: ticks_ms() -> ms, wrapping at 2**30 like compat.tdiff expects."""

    def ticks_ms(self):
        return _ticks() & TICKS_MASK


# What RangeSensors loads to bring the sensors up, and drop_init_code unloads.
_INIT_ONLY = ("adafruit_vl53l0x", "adafruit_bus_device.i2c_device", "adafruit_bus_device",
              "ringfw.busio_shim", "busio", "ringfw.board_setup", "ringfw.sched_setup")


def _setup():
    """The constructors' code (boot-only: drop_init_code unloads it)."""
    from ringfw import board_setup
    return board_setup


class RangeSensors:
    """hal RangeSensors for every VL53L0X in ring.json, on one machine.I2C bus.

    RangeSensors(ring, i2c=None, io_timeout_s=0.5, log=print)
        ring: geometry.Ring. i2c: a machine.I2C (default: built from ring.json "pins" and
        sensor_timing.i2c_hz). log(msg) reports each sensor's init result.

    After construction: count, ok (bytearray, 1 = initialised), errors (list of str, ""
    when ok), budget_ms, sched (the ringfw.sched.Schedule that polls them: neighbours
    whose cones overlap never range together), signal and ambient (the last reading's
    rates per sensor). A sensor that failed init is held in shutdown and polls as
    STATUS_NO_ANSWER once per round; the others keep working.

    Recovery (service(), after every poll): a failed transfer is counted (io_errors: on
    MicroPython each allocates its OSError; nothing else on the error path does). If SDA
    is then found held low, the bus is cleared (clear_bus: up to 9 SCL clocks and a STOP
    by hand, then machine.I2C made again; bus_clears, cleared_at). A sensor whose
    transfers have failed for _FAIL_MS is brought back through its own XSHUT line
    (board_setup.recover: it may have browned out and be waiting at 0x29); recoveries,
    recovery_fails and recovered_at[i] count what happened. Nothing here blocks for
    longer than the driver's io_timeout_s, and the board never reboots for it.
    """

    def __init__(self, ring, i2c=None, io_timeout_s=0.5, log=print):
        _setup().range_sensors(self, ring, i2c, io_timeout_s, log, _sleep_ms)

    def drop_init_code(self):
        """Forget the driver objects and unload the driver, the shim and board_setup: after
        init the poll reads the result registers itself, and their bytecode is ~12 KB of RAM.
        Call it once every part of the board is built (their constructors use board_setup;
        after this they import it again, which costs the RAM back)."""
        self.drivers = None
        drop_modules(_INIT_ONLY)

    # ----- the per-sample path: allocates nothing -----
    def poll(self, now, ranges, statuses, fresh):
        """hal RangeSensors.poll: the schedule (ringfw.sched) reads the sensors whose
        results are ready and starts the next group; signal[i] and ambient[i] are set too."""
        n = self.sched.poll(now, ranges, statuses, fresh)
        if self._any or self._down:
            self.service(now)
        return n

    # ----- errors and recovery -----
    def _fail(self, i):
        """Transfers with sensor i keep failing (each OSError is an allocation)."""
        if not self._nfail[i]:
            self._fail0[i] = self.sched.wake
        if self._nfail[i] < 255:
            self._nfail[i] += 1
        self._failed[i] = 1
        self._any = 1

    def _unstick(self):
        """A transfer failed: count it; if SDA is held low, clear the bus (True: try the
        transfer again, the sensor is not to blame)."""
        self.io_errors += 1
        sda = self._sda
        if sda is None or not self._own_bus or sda.value():
            return False
        self.clear_bus(self.sched.wake)
        return True

    def service(self, now):
        """After a poll (core 1): clear a stuck bus, bring back sensors that keep failing,
        retry those waiting in reset. Returns at once when nothing failed."""
        if not self._any:
            if not self._down or ((now - self._next + _TH) & _TM) - _TH < 0:
                return
        self._any = 0
        sda = self._sda
        if sda is not None and self._own_bus and not sda.value():
            self.clear_bus(now)
            for i in range(self.count):
                self._failed[i] = 0
                self._nfail[i] = 0
            return
        cands = None
        for i in range(self.count):
            due = False
            if self._failed[i]:
                self._failed[i] = 0
                due = self._nfail[i] >= 2 and \
                    ((now - self._fail0[i] + _TH) & _TM) - _TH >= _FAIL_MS
            elif not self.ok[i] and self._retry[i]:
                due = ((now - self._retry_at[i] + _TH) & _TM) - _TH >= 0
            if due and self._xshut[i] is not None and self._addr_ok[i]:
                if cands is None:
                    cands = []
                cands.append(i)
        if cands is not None and _setup().recover(self, cands, now) and self.drivers is None:
            drop_modules(_INIT_ONLY)     # the driver was loaded again for it: RAM back

    def clear_bus(self, now=0):
        """A device holds SDA low (a transfer cut off mid-byte): clock SCL by hand until
        it lets go (at most 9 pulses), send a STOP, give the pins back to the I2C block."""
        m = self._machine
        bus, sda_n, scl_n = self._i2c_pins
        pin = m.Pin
        scl = pin(scl_n, pin.OPEN_DRAIN, value=1)
        sda = pin(sda_n, pin.IN, pin.PULL_UP)
        for _ in range(_CLEAR_PULSES):
            if sda.value():
                break
            scl.value(0)
            _delay_us(5)
            scl.value(1)
            _delay_us(5)
        sda.init(pin.OPEN_DRAIN, value=0)       # STOP: SDA rises while SCL is high
        _delay_us(5)
        sda.value(1)
        _delay_us(5)
        self._i2c = m.I2C(bus, scl=pin(scl_n), sda=pin(sda_n), freq=self._i2c_hz)
        self._sda = pin(sda_n)
        self.bus_clears += 1
        self.cleared_at = now

    def set_focus(self, i):
        """hal RangeSensors.set_focus: the sensor that alone sees a slow marble (ringfw.sched)."""
        self.sched.focus = i

    def set_together(self, on):
        """hal RangeSensors.set_together: bring-up's crosstalk check (ringfw.sched)."""
        self.sched.together = on

    # the schedule's device (ringfw.sched): single-shot ranging over I2C
    def start(self, i):
        """Start a single-shot measurement (ST's sequence, as the driver's
        do_range_measurement writes it, from preallocated one-byte buffers)."""
        try:
            self._start(i)
        except OSError:
            if not self._unstick():
                self._fail(i)
                return False
            try:                   # the bus was stuck and is clear now: once more
                self._start(i)
            except OSError:
                self._fail(i)
                return False
        self._nfail[i] = 0
        return True

    def _start(self, i):
        addr = self.addresses[i]
        one = self._one
        seq = self._start_seq
        for k in range(0, 16, 2):
            one[0] = seq[k + 1] if k != 6 else self._stop[i]
            self._i2c.writeto_mem(addr, seq[k], one)

    def ready(self, i):
        try:
            self._i2c.readfrom_mem_into(self.addresses[i], _REG_RESULT_INTERRUPT_STATUS,
                                        self._one)
        except OSError:
            if not self._unstick():
                self._fail(i)
                return -1
            return 0               # cleared: ask again at the next poll
        return 1 if self._one[0] & 0x07 else 0

    def read(self, i, sched):
        """One 13-byte burst from 0x13 (interrupt status, range status, ..., signal rate
        0x1A, ambient rate 0x1C, range 0x1E), then release the interrupt."""
        try:
            self._read(i)
        except OSError:
            if not self._unstick():
                self._fail(i)
                return -1
            try:
                self._read(i)
            except OSError:
                self._fail(i)
                return -1
        buf = self._buf
        sched.st[i] = hal.decode_range_status(buf[1])
        sched.signal[i] = (buf[7] << 8) | buf[8]
        sched.ambient[i] = (buf[9] << 8) | buf[10]
        sched.r[i] = (buf[11] << 8) | buf[12]
        return 1

    def _read(self, i):
        addr = self.addresses[i]
        self._i2c.readfrom_mem_into(addr, _REG_RESULT_INTERRUPT_STATUS, self._buf)
        self._i2c.writeto_mem(addr, _REG_SYSTEM_INTERRUPT_CLEAR, self._clear)


class SensorPoller:
    """RangeSensors polled on the RP2040's second core; the same poll() for the controller.

    The I2C transfers wait on the bus (about 0.4 ms a reading at 400 kHz); on core 1 that
    wait leaves core 0 free for tracking and LEDs. MicroPython's rp2 port runs threads on
    both cores without a GIL. Core 1 loops round(): the schedule (ringfw.sched) reads what
    is ready into its own arrays and, under a lock, each fresh reading goes into the
    hand-over slot of its sensor (ringfw.sched.HandOver). Core 0's poll() takes the
    flagged slots under the same lock. Neither side allocates.

    A reading not yet taken when the next one arrives is replaced (counted in
    `replaced`): the controller steps every 8 ms and a sensor reads once a schedule round
    (two budgets or more), so this only happens when core 0 stalls. If core 1 is not
    running (no _thread, or start() not called, or its loop died: `died` says why) poll()
    reads the sensors itself.
    """

    def __init__(self, sensors, ticks=None, sleep_ms=None):
        _setup().sensor_poller(self, sensors, ticks or _ticks, sleep_ms or _sleep_ms)

    def start(self):
        """Start core 1's loop; False (and poll() stays on core 0) without _thread."""
        try:
            import _thread
        except ImportError:
            return False
        global _poller
        _poller = self
        self._lock = _thread.allocate_lock()
        self.hand.lock = self._lock
        self.stop = False
        self.running = True
        _thread.start_new_thread(self._run, ())
        return True

    def _run(self):
        try:
            while not self.stop:
                self.round(self._ticks() & TICKS_MASK)
                self._sleep(1)
        except Exception as e:  # a bug, not a sensor fault (those poll() reports)
            self.died = "%s: %s" % (type(e).__name__, e)
        self.running = False

    def round(self, now):
        """Core 1: read what is ready, start what is due, hand it over; then recover what
        failed (RangeSensors.service: at once when nothing did)."""
        self.hand.put(now)
        s = self.sensors
        if s._any or s._down:
            s.service(now)
        self.rounds += 1

    @property
    def replaced(self):
        return self.hand.replaced

    def poll(self, now, ranges, statuses, fresh):
        """hal RangeSensors.poll, on core 0."""
        if not self.running:
            n = self.sensors.poll(now, ranges, statuses, fresh)
            if n:
                sig = self.signal
                amb = self.ambient
                ss = self.sensors.signal
                sa = self.sensors.ambient
                for i in range(self.count):
                    if fresh[i]:
                        sig[i] = ss[i]
                        amb[i] = sa[i]
            return n
        return self.hand.take(ranges, statuses, fresh)

    def set_focus(self, i):
        self.sensors.sched.focus = i   # one int store: core 1 reads it at its next slot

    def set_together(self, on):
        self.sensors.sched.together = on

    def halt(self, wait_ms=100):
        """Ask core 1 to stop and wait for it (at most about wait_ms of real time)."""
        self.stop = True
        for _ in range(wait_ms):
            if not self.running:
                break
            _wait_ms(1)
        return not self.running


class Pixels:
    """hal Pixels on MicroPython's neopixel (micropython-lib, frozen into the rp2 port).

    Pixels(ring) uses ring.json leds.pin and leds.count; Pixels(pin=22, count=60) without
    a ring (main.py's fault blink). show(buf): buf is bytearray(3 * count) in G R B order,
    the very layout neopixel keeps in np.buf, so the buffer becomes np.buf (no copy, no
    allocation) and np.write() clocks it out (~30 us per LED, interrupts off).
    """

    def __init__(self, ring=None, pin=22, count=60):
        _setup().pixels(self, ring, pin, count)

    def show(self, buf):
        np = self._np
        if np.buf is not buf:
            if len(buf) != 3 * self.count:
                raise ValueError("pixel buffer must be 3 * count bytes")
            np.buf = buf
        np.write()


class Serial:
    """hal Serial over USB CDC: sys.stdin.buffer / sys.stdout.buffer.

    Serial(stream_in=None, stream_out=None, poll_target=None): the defaults are the USB
    console; tests pass pipes. read_into(buf) polls with select (ipoll: allocation-free)
    before every byte, so it never waits for a byte that has not arrived.
    write(buf, n) sends the first n bytes with MicroPython's stream write(buf, max_len),
    which writes a prefix without slicing or allocating (the documented equivalent of
    pre-sliced memoryviews); on a stream without it (CPython) a memoryview slice is used.
    USB CDC writes give up after 500 ms if the host does not read (rp2 port), so a
    stalled host cannot hang the loop past the watchdog.
    """

    def __init__(self, stream_in=None, stream_out=None, poll_target=None):
        _setup().serial(self, stream_in, stream_out, poll_target)
        self.uid = _setup().unique_id_hex()   # the board's identity in its hello (hal.Serial)

    def _ready(self):
        if self._ipoll is not None:
            for _obj, ev in self._ipoll(0):
                return ev & self._pollin
            return 0
        for _fd, ev in self._poll.poll(0):
            return ev & self._pollin
        return 0

    def read_into(self, buf):
        n = 0
        lim = len(buf)
        one = self._one
        while n < lim and self._ready():
            if self._in.readinto(one) != 1:
                break
            buf[n] = one[0]
            n += 1
        return n

    def write(self, buf, n):
        if n <= 0:
            return
        if self._prefix_write:
            self._out.write(buf, n)
        else:
            self._out.write(memoryview(buf)[:n])

    def release_repl(self):
        """Hand the USB console back to the REPL (see release_repl())."""
        release_repl()


class Watchdog:
    """hal Watchdog: machine.WDT started on construction; Watchdog(timeout_ms=5000)."""

    def __init__(self, timeout_ms=_WDT_TIMEOUT_MS):
        global _wdt
        if timeout_ms > 8388:
            timeout_ms = 8388
        self._wdt = machine.WDT(timeout=timeout_ms)
        _wdt = self

    def feed(self):
        self._wdt.feed()


class Storage:
    """Writes the calibration to calibration.json beside ring.json (ringfw.calfile): a
    temporary file, then a rename; ring.json itself is never rewritten."""

    def __init__(self, path="ring.json"):
        self.path = path

    def save_calibration(self, ring, which):
        """Store the calibration of sensor i of ring for each i with which[i] set."""
        from ringfw import calfile     # the writer alone: ring.json's reader stays unloaded
        try:
            calfile.save_calibration(self.path, ring, which)
        finally:
            drop_modules(BOOT_ONLY)    # its RAM back


# Modules needed only while the board starts (calfile also while it saves a calibration).
BOOT_ONLY = ("ringfw.ringfile", "ringfw.power", "ringfw.calfile")


def drop_modules(names, collect=True):
    """Unload modules that are needed no more: on the board a loaded module's bytecode is
    heap, and the loop has better use for it. collect=False leaves their RAM to the next
    collection."""
    import gc
    for name in names:
        if name in sys.modules:
            del sys.modules[name]
        # an imported submodule is also an attribute of its package, which keeps it alive
        dot = name.rfind(".")
        if dot > 0:
            parent = sys.modules.get(name[:dot])
            if parent is not None and hasattr(parent, name[dot + 1:]):
                delattr(parent, name[dot + 1:])
    if collect:
        gc.collect()


# ----- Ctrl-C grace and release -----
_boot = _ticks() & TICKS_MASK
_grace_over = False
_released = False
_poller = None                  # the running SensorPoller: release_repl stops core 1
_wdt = None
_feeder = None


def boot_grace(now, grace_ms=GRACE_MS):
    """Call every loop. Once grace_ms have passed since boot, Ctrl-C (0x03) stops being an
    interrupt and becomes data, so binary noise on the link cannot stop the app."""
    global _grace_over
    if not _grace_over and tdiff(now, _boot) >= grace_ms:
        _grace_over = True
        micropython.kbd_intr(-1)


def released():
    """True once release_repl() has been called: the app loop should return."""
    return _released


def release_repl():
    """Give the console back: Ctrl-C on, watchdog stopped, the app loop asked to exit.

    The controller calls this on a host command, so mpremote can reach the REPL. The
    RP2040's watchdog cannot be stopped through machine.WDT; its CTRL.ENABLE bit is
    cleared directly. On another chip a timer keeps feeding it instead."""
    global _released, _feeder
    _released = True
    micropython.kbd_intr(3)
    if _poller is not None:
        _poller.halt()
    if _wdt is None:
        return
    if "RP2040" in getattr(sys.implementation, "_machine", ""):
        machine.mem32[_WDT_CTRL_CLR] = _WDT_ENABLE
    else:
        w = _wdt
        _feeder = machine.Timer(period=1000, callback=lambda t: w.feed())
