"""The ring, read from ring.json into integer tables.

Units inside the firmware: millimetres and centidegrees (1/100 degree), angles
counter-clockwise seen from above, a full turn = 36000. Everything is integer so the
board (single-precision floats) and CPython (doubles) compute identical tables.
"""
import binascii
from array import array

from ringfw.compat import const, json

FULL_TURN = const(36000)
HALF_TURN = const(18000)

# sin(k degrees) * 16384 for k = 0..90. A table, not math.sin, so every port agrees.
_SIN_Q14 = (0, 286, 572, 857, 1143, 1428, 1713, 1997, 2280, 2563, 2845, 3126, 3406, 3686,
            3964, 4240, 4516, 4790, 5063, 5334, 5604, 5872, 6138, 6402, 6664, 6924, 7182,
            7438, 7692, 7943, 8192, 8438, 8682, 8923, 9162, 9397, 9630, 9860, 10087, 10311,
            10531, 10749, 10963, 11174, 11381, 11585, 11786, 11982, 12176, 12365, 12551,
            12733, 12911, 13085, 13255, 13421, 13583, 13741, 13894, 14044, 14189, 14330,
            14466, 14598, 14726, 14849, 14968, 15082, 15191, 15296, 15396, 15491, 15582,
            15668, 15749, 15826, 15897, 15964, 16026, 16083, 16135, 16182, 16225, 16262,
            16294, 16322, 16344, 16362, 16374, 16382, 16384)


class RingError(ValueError):
    """ring.json is missing something or contradicts itself."""


def wrap(a):
    """Any centidegree value -> 0..35999."""
    return a % FULL_TURN


def sdiff(a, b):
    """Signed shortest difference a - b in centidegrees, in -18000..17999."""
    return (a - b + HALF_TURN) % FULL_TURN - HALF_TURN


def sin_q14(cd):
    """sin of an angle in 0..9000 centidegrees, times 16384."""
    k = cd // 100
    if k >= 90:
        return 16384
    lo = _SIN_Q14[k]
    return lo + (_SIN_Q14[k + 1] - lo) * (cd - k * 100) // 100


def asin_cd(x_q14):
    """Inverse of sin_q14: x*16384 in 0..16384 -> centidegrees 0..9000."""
    if x_q14 <= 0:
        return 0
    if x_q14 >= 16384:
        return 9000
    lo, hi = 0, 90
    while hi - lo > 1:  # binary search the degree bracket
        mid = (lo + hi) >> 1
        if _SIN_Q14[mid] <= x_q14:
            lo = mid
        else:
            hi = mid
    s0 = _SIN_Q14[lo]
    return lo * 100 + (x_q14 - s0) * 100 // (_SIN_Q14[lo + 1] - s0)


def _cd(deg):
    """Degrees from JSON (int or float) -> int centidegrees, rounded half away from zero."""
    v = deg * 100
    return int(v + 0.5) if v >= 0 else -int(-v + 0.5)


class Sensor:
    """One VL53L0X: where it sits, which way it looks, its calibration."""

    def __init__(self, index, d):
        self.index = index
        self.angle = wrap(_cd(d["angle_deg"]))
        aim = d.get("aim", "ccw")
        if aim not in ("ccw", "cw"):
            raise RingError("sensor %d: aim must be 'ccw' or 'cw', not %r" % (index, aim))
        self.dir = 1 if aim == "ccw" else -1
        view = d["view_deg"]
        self.view_min = _cd(view[0])
        self.view_max = _cd(view[1])
        if not 0 < self.view_min < self.view_max < 9000:
            raise RingError("sensor %d: view_deg must be 0 < near < far < 90" % index)
        self.address = d.get("i2c_address", 0x29)
        self.xshut_pin = d.get("xshut_pin", -1)
        cal = d.get("calibration", {})
        # corrected_mm = (raw_mm - offset_mm) * scale, kept as 1/16 mm and Q12.
        self.off16 = _cd(cal.get("offset_mm", 0) * 0.16)
        self.scale_q12 = _cd(cal.get("scale", 1.0) * 40.96)
        if not 2048 <= self.scale_q12 <= 8192:
            raise RingError("sensor %d: calibration scale must be within 0.5..2.0" % index)

    def covers(self, angle):
        """True if an angle (cd) on the track lies in this sensor's view window."""
        d = sdiff(angle, self.angle) * self.dir
        return self.view_min <= d <= self.view_max


class Side:
    """One board side: its spaces in ring order, each an angular span.

    Ids and labels are kept once, as bytes (what the wire carries); ids gives them as str."""

    def __init__(self, name, d):
        self.name = name
        spaces = d["spaces"]
        n = len(spaces)
        if n < 2:
            raise RingError("side %s: needs at least 2 spaces" % name)
        self.count = n
        ids = []
        labels = []
        self.start = array("i", [0] * n)
        self.end = array("i", [0] * n)
        total = 0
        for k in range(n):
            sp = spaces[k]
            sid = str(sp.get("id", sp["label"])).encode()
            if sid in ids:
                raise RingError("side %s: space id %r appears twice" % (name, sid.decode()))
            ids.append(sid)
            labels.append(str(sp["label"]).encode())
            a = wrap(_cd(sp["from_deg"]))
            b = wrap(_cd(sp["to_deg"]))
            self.start[k] = a
            self.end[k] = b
            total += wrap(b - a)
        for k in range(n):
            if self.end[k] != self.start[(k + 1) % n]:
                raise RingError("side %s: space %s must end where %s begins"
                                % (name, ids[k].decode(), ids[(k + 1) % n].decode()))
        if total != FULL_TURN:
            raise RingError("side %s: spaces must cover the ring exactly once" % name)
        self.id_bytes = tuple(ids)
        self.label_bytes = tuple(labels)
        start = str(d.get("start", ids[0].decode())).encode()
        if start not in ids:
            raise RingError("side %s: start space %r is not one of its spaces"
                            % (name, start.decode()))
        self.start_k = ids.index(start)

    @property
    def ids(self):
        """The space ids as str (host side and tests; allocates)."""
        return [b.decode() for b in self.id_bytes]

    def index_of(self, sid):
        if isinstance(sid, str):
            sid = sid.encode()
        return self.id_bytes.index(sid)

    def space_at(self, angle):
        """Index of the space containing angle (cd)."""
        angle = wrap(angle)
        for k in range(self.count):
            if wrap(angle - self.start[k]) < wrap(self.end[k] - self.start[k]):
                return k
        return 0

    def boundary(self, k, angle):
        """(distance in cd to the nearer edge of space k, index of the space beyond it)."""
        into = wrap(angle - self.start[k])
        left = wrap(self.end[k] - angle)
        if into <= left:
            return into, (k - 1) % self.count
        return left, (k + 1) % self.count

    def centre(self, k):
        return wrap(self.start[k] + wrap(self.end[k] - self.start[k]) // 2)


class Ring:
    """Everything the firmware knows about the ring, from ring.json."""

    def __init__(self, d, digest=0):
        self.digest = digest  # crc32 of the ring.json bytes; the hello carries it
        self.digest_hex = ("%08x" % digest).encode()
        try:
            t = d["track"]
            self.radius = int(t["radius_mm"])
            self.marble_r = int(t["marble_diameter_mm"]) // 2
            self.sensors = [Sensor(i, s) for i, s in enumerate(d["sensors"])]
            leds = d["leds"]
            self.led_block = leds   # small; power.brightness_cap reads it
            self.led_count = int(leds["count"])
            self.led0 = wrap(_cd(leds.get("led0_deg", 0)))
            self.led_dir = 1 if leds.get("direction", "ccw") == "ccw" else -1
            self.led_pin = int(leds.get("pin", 22))
            det = d.get("detection", {})
            # a landing is ambiguous within sigmas * its standard error + margin of a boundary
            self.margin = _cd(det.get("ambiguity_margin_deg", 0.1))
            self.sigmas_x10 = int(det.get("ambiguity_sigmas", 2.5) * 10 + 0.5)
            self.reading_sigma = _cd(det.get("reading_sigma_deg", 0.45))
            self.still_ms = int(det.get("still_ms", 300))
            self.still_ms_tilted = int(det.get("still_ms_tilted", 2000))
            timing = d.get("sensor_timing", {})
            self.budget_ms = int(timing.get("budget_ms", 33))
            self.i2c_hz = int(timing.get("i2c_hz", 400000))
            pins = d.get("pins", {})
            self.i2c_pins = (int(pins.get("i2c_id", 0)), int(pins.get("sda", 0)), int(pins.get("scl", 1)))
            # sorted: MicroPython's json does not keep key order, and both ends must agree
            self.side_names = sorted(d["sides"].keys())
            self.sides = [Side(n, d["sides"][n]) for n in self.side_names]
        except KeyError as e:
            raise RingError("ring.json is missing %s" % e)
        except (TypeError, IndexError, ValueError):
            raise RingError("ring.json has a value of the wrong type")
        if not self.sensors:
            raise RingError("ring.json lists no sensors")
        if self.radius <= 0 or self.led_count <= 0:
            raise RingError("ring.json: radius and LED count must be positive")
        # The parsed dict is not kept (it is most of the ring's heap); calibration is written
        # back by reading the file again (apply_calibration).
        self._build_range_table()

    def _build_range_table(self):
        # _OFFSET[mm] = angular offset (cd) along the track of a marble whose near surface
        # is mm from the sensor: chord to its centre = 2 R sin(offset / 2).
        far = 0
        for s in self.sensors:
            if s.view_max > far:
                far = s.view_max
        rmax = (2 * self.radius * sin_q14(far // 2 + 300)) // 16384 - self.marble_r + 2
        self.range_max = rmax
        tab = array("i", [0] * (rmax + 2))
        two_r = 2 * self.radius
        for mm in range(rmax + 2):
            tab[mm] = 2 * asin_cd(((mm + self.marble_r) * 16384) // two_r)
        self.offset_table = tab

    def side(self, name):
        if name not in self.side_names:
            raise RingError("no side %r in ring.json (have: %s)" % (name, ", ".join(self.side_names)))
        return self.sides[self.side_names.index(name)]

    def reading_angle(self, i, range_mm):
        """Corrected range of sensor i -> absolute track angle (cd), or -1 if outside its view."""
        s = self.sensors[i]
        c16 = ((range_mm * 16 - s.off16) * s.scale_q12) >> 12
        if c16 < 0:
            return -1
        mm = c16 >> 4
        if mm > self.range_max:
            return -1
        tab = self.offset_table
        lo = tab[mm]
        off = lo + (((tab[mm + 1] - lo) * (c16 & 15)) >> 4)
        if off < s.view_min - 300 or off > s.view_max + 300:
            return -1
        return (s.angle + s.dir * off) % FULL_TURN

    def led_at(self, angle):
        """Index of the LED nearest an angle (cd)."""
        d = wrap((angle - self.led0) * self.led_dir)
        return ((d * self.led_count + HALF_TURN // 1) // FULL_TURN) % self.led_count


def digest_of(data):
    return binascii.crc32(data) & 0xFFFFFFFF


def apply_calibration(d, sensors, which):
    """Write the calibration of sensors[i] for every i with which[i] set into a parsed
    ring.json dict d (what calsave stores). Allocates: only on a host command."""
    for i in range(len(sensors)):
        if which[i]:
            s = sensors[i]
            cal = d["sensors"][i].setdefault("calibration", {})
            cal["offset_mm"] = s.off16 / 16
            cal["scale"] = s.scale_q12 / 4096


def loads(data):
    """ring.json bytes -> Ring (raises RingError with a reason)."""
    try:
        d = json.loads(data)
    except ValueError:
        raise RingError("ring.json is not valid JSON")
    return Ring(d, digest_of(data))


def load(path="ring.json"):
    """Read ring.json from a file without holding its text in memory: the CRC is taken
    in 256-byte chunks, then the JSON is parsed from the stream."""
    buf = bytearray(256)
    mv = memoryview(buf)
    crc = 0
    with open(path, "rb") as f:
        while True:
            n = f.readinto(buf)
            if not n:
                break
            crc = binascii.crc32(mv[:n], crc)
        f.seek(0)
        try:
            d = json.load(f)
        except ValueError:
            raise RingError("ring.json is not valid JSON")
    buf = mv = None
    return Ring(d, crc & 0xFFFFFFFF)
