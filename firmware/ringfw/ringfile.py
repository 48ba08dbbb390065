"""Reading ring.json (and the board's calibration.json) into a geometry.Ring: boot-only code.

Every value is checked here, and a RingError says what is wrong. The calibration lives in
its own file beside ring.json on the board (ringfw.calfile: written by `ringside calibrate`'s
calsave, never by `make deploy`), so a firmware update that copies a new ring.json keeps
it; ring.json's own per-sensor calibration blocks are only the starting values. The board needs this
once, at start-up: main.py drops the module when the ring is built (on the RP2040 a
loaded module's bytecode lives in the heap, and the loop has better use for it).
Everything is integer, so the board (single-precision floats) and CPython (doubles)
build identical tables.
"""
import binascii

from ringfw import power
from ringfw.calfile import CAL_FORMAT, background, cal_path
from ringfw.compat import filled, isqrt
from ringfw.geometry import FULL_TURN, Ring, RingError, Side, wrap
from ringfw.wire import _tok_byte

try:
    import ujson as json
except ImportError:  # CPython
    import json

# sin(k degrees) * 16384 for k = 0..90. A table, not math.sin, so every port agrees.
_SIN_Q14 = (0, 286, 572, 857, 1143, 1428, 1713, 1997, 2280, 2563, 2845, 3126, 3406, 3686,
            3964, 4240, 4516, 4790, 5063, 5334, 5604, 5872, 6138, 6402, 6664, 6924, 7182,
            7438, 7692, 7943, 8192, 8438, 8682, 8923, 9162, 9397, 9630, 9860, 10087, 10311,
            10531, 10749, 10963, 11174, 11381, 11585, 11786, 11982, 12176, 12365, 12551,
            12733, 12911, 13085, 13255, 13421, 13583, 13741, 13894, 14044, 14189, 14330,
            14466, 14598, 14726, 14849, 14968, 15082, 15191, 15296, 15396, 15491, 15582,
            15668, 15749, 15826, 15897, 15964, 16026, 16083, 16135, 16182, 16225, 16262,
            16294, 16322, 16344, 16362, 16374, 16382, 16384)


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


def _sensors(r, sensors):
    """Every sensor's place, view and calibration, as arrays indexed by sensor."""
    n = len(sensors)
    r.sensor_count = n
    r.sensor_angle = filled("H", n)        # cd, where it sits
    r.sensor_dir = filled("b", n)          # +1 looks counter-clockwise, -1 clockwise
    r.view_min = filled("H", n)            # cd along sensor_dir: the part of the track
    r.view_max = filled("H", n)            # ... it sees
    r.off16 = filled("h", n)               # calibration: corrected_mm =
    r.scale_q12 = filled("H", n)           # (raw_mm - off16 / 16) * scale_q12 / 4096
    r.sensor_address = bytearray(n)
    r.xshut_pin = filled("b", n)           # -1: none
    # each sensor's empty ring as calibration learnt it (calsave saves it; the tracker starts
    # from it at boot): range mm * 16 (-1: none saved), signal, valid readings' signal, valid
    # share /255 - four ints a sensor
    r.bg_saved = filled("i", 4 * n, -1)
    for i in range(n):
        d = sensors[i]
        r.sensor_angle[i] = wrap(_cd(d["angle_deg"]))
        aim = d.get("aim", "ccw")
        if aim not in ("ccw", "cw"):
            raise RingError("sensor %d: aim must be 'ccw' or 'cw', not %r" % (i, aim))
        r.sensor_dir[i] = 1 if aim == "ccw" else -1
        view = d["view_deg"]
        lo = _cd(view[0])
        hi = _cd(view[1])
        if not 0 < lo < hi < 9000:
            raise RingError("sensor %d: view_deg must be 0 < near < far < 90" % i)
        r.view_min[i] = lo
        r.view_max[i] = hi
        addr = d.get("i2c_address", 0x29)
        if not 0 <= addr <= 0x7F:
            raise RingError("sensor %d: i2c_address must be a 7-bit address" % i)
        r.sensor_address[i] = addr
        pin = d.get("xshut_pin", -1)
        if not -1 <= pin <= 127:
            raise RingError("sensor %d: xshut_pin must be a GPIO number or -1" % i)
        r.xshut_pin[i] = pin
        _set_cal(r, i, d.get("calibration", {}), "")


def _set_cal(r, i, cal, where):
    """One sensor's calibration block {"offset_mm", "scale"} into the ring's arrays."""
    try:
        off16 = _cd(cal.get("offset_mm", 0) * 0.16)
        q12 = _cd(cal.get("scale", 1.0) * 40.96)
    except (AttributeError, TypeError):
        raise RingError("%ssensor %d: calibration must hold numbers offset_mm and scale"
                        % (where, i))
    if not -16000 <= off16 <= 16000:
        raise RingError("%ssensor %d: calibration offset_mm must be within -1000..1000"
                        % (where, i))
    if not 2048 <= q12 <= 8192:
        raise RingError("%ssensor %d: calibration scale must be within 0.5..2.0" % (where, i))
    r.off16[i] = off16
    r.scale_q12[i] = q12
    bg = cal.get("background")
    if bg is None:
        return
    try:
        v = (int(bg["range_mm16"]), int(bg["signal"]), int(bg["valid_signal"]),
             int(bg["valid_share"]))
    except (KeyError, TypeError, ValueError):
        raise RingError("%ssensor %d: calibration background must hold the numbers range_mm16, "
                        "signal, valid_signal and valid_share (run `ringside calibrate` again)"
                        % (where, i))
    if not (0 <= v[0] < 8190 * 16 and 0 <= v[1] < 65536 and 0 <= v[2] < 65536
            and 0 <= v[3] <= 255):
        raise RingError("%ssensor %d: calibration background out of range (run `ringside "
                        "calibrate` again)" % (where, i))
    for k in range(4):
        r.bg_saved[4 * i + k] = v[k]


def _is_token(t):
    for ch in t.encode():
        if not _tok_byte(ch):
            return False
    return True


def _side(name, d):
    side = Side()
    side.name = name
    spaces = d["spaces"]
    n = len(spaces)
    if n < 2:
        raise RingError("side %s: needs at least 2 spaces" % name)
    side.count = n
    ids = []
    labels = []
    start = filled("H", n)          # cd, 0..35999
    end = filled("H", n)
    total = 0
    for k in range(n):
        sp = spaces[k]
        sid = str(sp.get("id", sp["label"]))
        if not _is_token(sid):
            raise RingError("side %s: space id %r must be printable, without spaces, '=', '#' "
                            "or '@' (it is sent as a token)" % (name, sid))
        if sid in ids:
            raise RingError("side %s: space id %r appears twice" % (name, sid))
        ids.append(sid)
        lab = str(sp["label"])
        if not lab or not _is_token(lab.replace(" ", "_")):
            raise RingError("side %s: label %r must be printable, without '=', '#' or '@'"
                            % (name, lab))
        labels.append(lab)
        a = wrap(_cd(sp["from_deg"]))
        b = wrap(_cd(sp["to_deg"]))
        start[k] = a
        end[k] = b
        total += wrap(b - a)
    for k in range(n):
        if end[k] != start[(k + 1) % n]:
            raise RingError("side %s: space %s must end where %s begins"
                            % (name, ids[k], ids[(k + 1) % n]))
    if total != FULL_TURN:
        raise RingError("side %s: spaces must cover the ring exactly once" % name)
    side.start = start
    side.end = end
    side.ids = " ".join(ids).encode()           # word lists (see wire)
    side.labels = "\n".join(labels).encode()
    first = str(d.get("start", ids[0]))
    if first not in ids:
        raise RingError("side %s: start space %r is not one of its spaces" % (name, first))
    side.start_k = ids.index(first)
    return side


def ring_from(d, digest=0):
    """A parsed ring.json dict -> Ring (raises RingError with a reason). The dict is not
    kept: calibration is written back by reading the file again (apply_calibration)."""
    r = Ring()
    r.digest = digest  # crc32 of the ring.json bytes; the hello carries it
    r.digest_hex = ("%08x" % digest).encode()
    r.calibrated = False    # a calibration file read (load), or a calsave since
    r.cal_error = None      # why the calibration file could not be used (load), or None
    try:
        t = d["track"]
        r.radius = int(t["radius_mm"])
        r.marble_r = int(t["marble_diameter_mm"]) // 2
        # where the lenses sit: in the outer wall (lens_radius_mm from the centre), at
        # height_mm above the floor; without a mount, on the centre line at the marble's height
        m = d.get("mount") or {}
        r.lens_r = int(m.get("lens_radius_mm", r.radius))
        r.lens_h = int(m.get("height_mm", r.marble_r)) - r.marble_r
        # what an empty ring shows a sensor, too faint to range alone: 0 = not known
        r.bg_mm = int(m.get("background_mm", 0))
        if not 0 <= r.bg_mm <= 2000:
            raise RingError("ring.json mount.background_mm must be 0 .. 2000 mm")
        if not r.radius <= r.lens_r <= r.radius + 100 or not -50 <= r.lens_h <= 50:
            raise RingError("ring.json mount: lens_radius_mm must be radius_mm .. radius_mm + 100 "
                            "and height_mm within 50 mm of the marble's centre")
        _sensors(r, d["sensors"])
        leds = d["leds"]
        r.led_cap = power.brightness_cap(d)
        r.led_count = int(leds["count"])
        r.led0 = wrap(_cd(leds.get("led0_deg", 0)))
        r.led_dir = 1 if leds.get("direction", "ccw") == "ccw" else -1
        r.led_pin = int(leds.get("pin", 22))
        det = d.get("detection", {})
        # a landing is ambiguous within sigmas * its standard error + margin of a boundary
        r.margin = _cd(det.get("ambiguity_margin_deg", 0.1))
        r.sigmas_x10 = int(det.get("ambiguity_sigmas", 2.5) * 10 + 0.5)
        r.reading_sigma = _cd(det.get("reading_sigma_deg", 0.45))
        # what calibration and the marble's place across the groove leave in one landing's
        # angle (a sigma, measured: docs/simulator.md): it does not average out over readings
        r.cal_sigma = _cd(det.get("calibration_sigma_deg", 0))
        # ... larger where the nearest sensor that sees the landing sees it further out (the
        # blend at a window's far end, the groove's width there): [from_deg, sigma_deg] pairs
        tab = det.get("calibration_sigma_by_offset", [])
        r.cal_off = filled("H", len(tab))
        r.cal_sig = filled("H", len(tab))
        for j in range(len(tab)):
            r.cal_off[j] = _cd(tab[j][0])
            r.cal_sig[j] = _cd(tab[j][1])
            if not 0 <= r.cal_off[j] < 9000 or not 0 <= r.cal_sig[j] < 1000 or (
                    j and r.cal_off[j] <= r.cal_off[j - 1]):
                raise RingError("ring.json detection: calibration_sigma_by_offset must be "
                                "[from_deg, sigma_deg] pairs, from_deg rising within 0..90, "
                                "sigma_deg under 10")
        r.still_ms = int(det.get("still_ms", 300))
        r.still_ms_tilted = int(det.get("still_ms_tilted", 2000))
        if not 0 < r.still_ms <= r.still_ms_tilted <= 30000:
            raise RingError("ring.json detection: still_ms and still_ms_tilted must be "
                            "1..30000 ms, still_ms the shorter")
        timing = d.get("sensor_timing", {})
        r.budget_ms = int(timing.get("budget_ms", 33))
        r.i2c_hz = int(timing.get("i2c_hz", 400000))
        pins = d.get("pins", {})
        r.i2c_pins = (int(pins.get("i2c_id", 0)), int(pins.get("sda", 0)), int(pins.get("scl", 1)))
        # the safe-mode jumper (ringfw.start.rescue): this pin pulled to GND at boot; -1 none
        r.safe_pin = int(pins.get("safe", -1))
        if not -1 <= r.safe_pin <= 29:
            raise RingError("ring.json pins.safe must be a GPIO number 0..29 or -1 (none)")
        _one_job_a_pin(r)
        # sorted: MicroPython's json does not keep key order, and both ends must agree
        r.side_names = sorted(d["sides"].keys())
        for nm in r.side_names:
            if not _is_token(nm):
                raise RingError("side name %r must be printable, without spaces, '=', '#' "
                                "or '@' (it is sent as a token)" % nm)
        r.sides = [_side(n, d["sides"][n]) for n in r.side_names]
    except KeyError as e:
        raise RingError("ring.json is missing %s" % e)
    except (TypeError, IndexError, ValueError) as e:
        if isinstance(e, RingError):
            raise
        raise RingError("ring.json has a value of the wrong type")
    if not r.sensor_count:
        raise RingError("ring.json lists no sensors")
    if r.radius <= 0 or r.led_count <= 0:
        raise RingError("ring.json: radius and LED count must be positive")
    _range_table(r)
    return r


def _range_table(r):
    # offset_table[mm] = angular offset (cd) along the track of a marble whose near surface
    # is mm from the lens. The lens sits lens_r from the ring's centre and lens_h above the
    # marble's centre, so its distance D to a marble centre `offset` ahead is
    #   D^2 = (lens_r - R)^2 + lens_h^2 + 4 lens_r R sin^2(offset / 2),   D = mm + marble_r
    # (with the lens on the centre line, the chord 2 R sin(offset / 2)). The chord alone
    # was 3.5-5 mm short of this over the window, unevenly: more than a calibration
    # placement's offset and scale could take up (docs/firmware.md).
    c0 = (r.lens_r - r.radius) ** 2 + r.lens_h * r.lens_h
    lr = r.lens_r * r.radius
    s = sin_q14(max(r.view_max) // 2 + 300)
    rmax = isqrt(c0 + ((4 * lr * s * s) >> 28)) - r.marble_r + 2
    r.range_max = rmax
    tab = filled("H", rmax + 2)             # offsets stay below 18000 cd
    for mm in range(rmax + 2):
        dd = mm + r.marble_r
        # 16384 sin(offset / 2) = sqrt((D^2 - c0) 2^28 / (4 lens_r R))
        tab[mm] = 2 * asin_cd(isqrt(((dd * dd - c0) << 26) // lr))
    r.offset_table = tab


def side(ring, name):
    """The Side of ring called name (the host and the tests: not on the board's loop)."""
    if name not in ring.side_names:
        raise RingError("no side %r in ring.json (have: %s)" % (name, ", ".join(ring.side_names)))
    return ring.sides[ring.side_names.index(name)]


def space_index(side, sid):
    """Index of a space id (str or bytes) on side (the host and the tests: allocates)."""
    if isinstance(sid, str):
        sid = sid.encode()
    return side.ids.split().index(sid)   # (ids: tokens, one space apart)


def digest_of(data):
    return binascii.crc32(data) & 0xFFFFFFFF


def apply_calibration(d, ring, which):
    """Write the calibration of sensor i of ring for every i with which[i] set into a
    parsed ring.json dict d (the simulated board keeps its calibration so)."""
    for i in range(ring.sensor_count):
        if which[i]:
            cal = d["sensors"][i].setdefault("calibration", {})
            cal["offset_mm"] = ring.off16[i] / 16
            cal["scale"] = ring.scale_q12[i] / 4096
            bg = background(ring, i)
            if bg is not None:
                cal["background"] = bg


def read_calibration(path, ring):
    """Apply the calibration file at path to ring; False if there is none. A file that is
    there but unusable is a RingError naming it (load then undoes what it read: the board
    runs on ring.json's starting values and says why)."""
    try:
        f = open(path)
    except OSError:
        return False
    where = path + ": "
    try:
        try:
            d = json.load(f)
        except ValueError:
            raise RingError(where + "not valid JSON (run `ringside calibrate` again, or "
                            "delete it: `mpremote rm :%s`)" % path)
    finally:
        f.close()
    if not isinstance(d, dict) or d.get("format") != CAL_FORMAT \
            or not isinstance(d.get("sensors"), dict):
        raise RingError(where + "not a calibration file of format %d" % CAL_FORMAT)
    for key, cal in d["sensors"].items():
        try:
            i = int(key)
        except ValueError:
            i = -1
        if not 0 <= i < ring.sensor_count:
            raise RingError(where + "sensor %s is not in ring.json (it has %d sensors): "
                            "run `ringside calibrate` again" % (key, ring.sensor_count))
        if not isinstance(cal, dict):
            raise RingError(where + "sensor %d: calibration must hold numbers offset_mm "
                            "and scale" % i)
        _set_cal(ring, i, cal, where)
    return True


_PIN_JOBS = ("pins.sda", "pins.scl", "pins.safe", "leds.pin")


def _one_job_a_pin(r):
    """Refuse a GPIO with two jobs: a sensor whose XSHUT is the safe jumper's pin is held in
    reset, or puts the board in safe mode, at every boot (boot-only code, like the rest)."""
    fixed = (r.i2c_pins[1], r.i2c_pins[2], r.safe_pin, r.led_pin)
    owner = {}
    for k in range(4 + r.sensor_count):
        p = fixed[k] if k < 4 else r.xshut_pin[k - 4]
        if p < 0:
            continue
        if p in owner:
            j = owner[p]
            raise RingError("ring.json gives GP%d two jobs: %s and %s"
                            % (p, _pin_job(j), _pin_job(k)))
        owner[p] = k


def _pin_job(k):
    return _PIN_JOBS[k] if k < 4 else "sensor %d's xshut_pin" % (k - 4)


def loads(data):
    """ring.json bytes -> Ring (raises RingError with a reason)."""
    try:
        d = json.loads(data)
    except ValueError:
        raise RingError("ring.json is not valid JSON")
    return ring_from(d, digest_of(data))


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
    r = ring_from(d, crc & 0xFFFFFFFF)
    d = None
    # an unusable calibration file does not stop the board: it runs on ring.json's starting
    # values and says why (at boot, and cal=-1 in its hello), and the next `ringside
    # calibrate` writes a new file over it. A file read halfway is undone: no sensor keeps
    # values from a file that was refused.
    kept = (list(r.off16), list(r.scale_q12), list(r.bg_saved))
    try:
        r.calibrated = read_calibration(cal_path(path), r)
    except RingError as e:
        for arr, old in zip((r.off16, r.scale_q12, r.bg_saved), kept):
            for k in range(len(old)):
                arr[k] = old[k]
        r.cal_error = str(e)
    return r
