"""The ring as the firmware uses it: integer tables built from ring.json.

Units inside the firmware: millimetres and centidegrees (1/100 degree), angles
counter-clockwise seen from above, a full turn = 36000. Everything is integer so the
board (single-precision floats) and CPython (doubles) compute identical tables.

This module is what the loop needs. Reading and checking ring.json is boot-only code
and lives in ringfw.ringfile (load() and loads() here call it), so the board can drop it.
"""
from ringfw.compat import const

FULL_TURN = const(36000)
HALF_TURN = const(18000)


class RingError(ValueError):
    """ring.json is missing something or contradicts itself."""


def wrap(a):
    """Any centidegree value -> 0..35999."""
    return a % FULL_TURN


def sdiff(a, b):
    """Signed shortest difference a - b in centidegrees, in -18000..17999."""
    return (a - b + HALF_TURN) % FULL_TURN - HALF_TURN


class Side:
    """One board side (built by ringfile): name; count spaces in ring order, space k
    spanning start[k]..end[k] (cd, arrays); ids, the space ids as a word list (bytes,
    separated by spaces: see wire), labels likewise but separated by newlines (a label
    may hold spaces); start_k, the space the marble starts on. (A space's index by its id,
    for the host and the tests: ringfile.space_index.)"""

    def space_at(self, angle):
        """Index of the space containing angle (cd)."""
        angle = wrap(angle)
        for k in range(self.count):
            if wrap(angle - self.start[k]) < wrap(self.end[k] - self.start[k]):
                return k
        return 0

    def centre(self, k):
        return wrap(self.start[k] + wrap(self.end[k] - self.start[k]) // 2)


class Ring:
    """Everything the firmware knows about the ring (built by ringfile from ring.json):
    the sensors (sensor_count; arrays indexed by sensor: sensor_angle, sensor_dir,
    view_min, view_max, off16, scale_q12, sensor_address, xshut_pin), sides and side_names, the track (radius, marble_r), the LEDs (led_count,
    led0, led_dir, led_pin, led_cap: the USB power cap), detection settings (margin,
    sigmas_x10, reading_sigma, cal_sigma, still_ms, still_ms_tilted), sensor timing (budget_ms,
    i2c_hz, i2c_pins), digest (crc32 of the file) and the range table. (A side by its name,
    for the host and the tests: ringfile.side.)"""

    def reading_angle(self, i, range_mm):
        """Corrected range of sensor i -> absolute track angle (cd), or -1 if outside its view."""
        c16 = ((range_mm * 16 - self.off16[i]) * self.scale_q12[i]) >> 12
        if c16 < 0:
            return -1
        mm = c16 >> 4
        if mm > self.range_max:
            return -1
        tab = self.offset_table
        lo = tab[mm]
        off = lo + (((tab[mm + 1] - lo) * (c16 & 15)) >> 4)
        if off < self.view_min[i] - 300 or off > self.view_max[i] + 300:
            return -1
        return (self.sensor_angle[i] + self.sensor_dir[i] * off) % FULL_TURN

    def led_at(self, angle):
        """Index of the LED nearest an angle (cd)."""
        d = wrap((angle - self.led0) * self.led_dir)
        return ((d * self.led_count + HALF_TURN // 1) // FULL_TURN) % self.led_count


def loads(data):
    """ring.json bytes -> Ring (raises RingError with a reason)."""
    from ringfw import ringfile
    return ringfile.loads(data)


def load(path="ring.json"):
    """Read ring.json from a file -> Ring (raises RingError, or OSError if it is missing)."""
    from ringfw import ringfile
    return ringfile.load(path)
