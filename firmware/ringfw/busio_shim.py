"""A CircuitPython-style `busio.I2C` over MicroPython's `machine.I2C`, and a small `time`.

The Adafruit VL53L0X driver and `adafruit_bus_device.i2c_device.I2CDevice` were written
for CircuitPython's `busio.I2C`: bus locking (`try_lock`/`unlock`) and `start`/`end`
keyword slicing on every transfer. MicroPython's `machine.I2C` has neither, so

    bus = I2C(machine.I2C(0, scl=machine.Pin(1), sda=machine.Pin(0), freq=400000))
    patch_driver_time(adafruit_vl53l0x)
    sensor = adafruit_vl53l0x.VL53L0X(bus, io_timeout_s=0.5)

runs the genuine driver unchanged. Only initialisation goes through here (the per-sample
path in `board_rp2040` reads registers with `machine.I2C` directly), so the slicing may
allocate a memoryview when a transfer uses part of a buffer.

The driver calls `time.monotonic()` in its busy-wait loops; MicroPython's `time` has no
`monotonic` and its built-in module takes no new attributes, so `patch_driver_time`
replaces the driver module's `time` global with a `DriverTime` object.
"""
import time

try:
    _ticks_ms = time.ticks_ms
    _ticks_diff = time.ticks_diff
except AttributeError:  # CPython (tests): a millisecond counter that never wraps
    def _ticks_ms():
        return int(time.monotonic() * 1000)

    def _ticks_diff(a, b):
        return a - b


def _part(buf, start, end):
    """buf[start:end] without a copy; the whole buffer itself when that is what is asked."""
    if end is None:
        end = len(buf)
    if start == 0 and end == len(buf):
        return buf
    return memoryview(buf)[start:end]


class I2C:
    """busio.I2C-compatible wrapper around a `machine.I2C` (or anything with its methods).

    I2C(i2c): i2c is the MicroPython bus object. The lock is a plain flag: the firmware is
    single-threaded, so `try_lock` only fails if a caller forgot to `unlock`.
    """

    def __init__(self, i2c):
        self.i2c = i2c
        self._locked = False

    def try_lock(self):
        if self._locked:
            return False
        self._locked = True
        return True

    def unlock(self):
        self._locked = False

    def deinit(self):
        self._locked = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.deinit()
        return False

    def scan(self):
        """7-bit addresses that acknowledge, as a list."""
        return self.i2c.scan()

    def readfrom_into(self, address, buffer, *, start=0, end=None):
        """Read len(buffer[start:end]) bytes from the device at address into that slice."""
        self.i2c.readfrom_into(address, _part(buffer, start, end))

    def writeto(self, address, buffer, *, start=0, end=None, stop=True):
        """Write buffer[start:end] to the device at address (an empty write probes it)."""
        self.i2c.writeto(address, _part(buffer, start, end), stop)

    def writeto_then_readfrom(self, address, buffer_out, buffer_in, *, out_start=0,
                              out_end=None, in_start=0, in_end=None):
        """Write, then read with a repeated start (no stop condition in between)."""
        self.i2c.writeto(address, _part(buffer_out, out_start, out_end), False)
        self.i2c.readfrom_into(address, _part(buffer_in, in_start, in_end))


class DriverTime:
    """The two `time` functions the Adafruit driver uses, for MicroPython.

    monotonic() -> float seconds since this object was made. It accumulates tick
    differences, so the 2**30 ms wrap of ticks_ms never makes a driver timeout loop see
    time running backwards. sleep(s) sleeps s seconds (0 yields nothing, returns at once).
    """

    def __init__(self):
        self._last = _ticks_ms()
        self._ms = 0

    def monotonic(self):
        now = _ticks_ms()
        self._ms += _ticks_diff(now, self._last)
        self._last = now
        return self._ms / 1000

    def sleep(self, seconds):
        if seconds > 0:
            time.sleep(seconds)


def patch_driver_time(module):
    """Give a driver module (adafruit_vl53l0x) a `time` with monotonic(); returns it."""
    t = DriverTime()
    module.time = t
    return t
