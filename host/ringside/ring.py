"""The ring on the host: the one model every part of ringside uses (over ringfw.geometry).

Which ring.json: the user's own file wins when given (`use_file(path)`, what `--ring FILE`
calls, or the environment variable RINGSIDE_RING); otherwise the copy shipped inside the
package (ringside/ring.json). In a source checkout that copy is a symbolic link to
hardware/ring.json, the one source of truth; building the wheel copies the file itself, so
an installed ringside (`pip install .`, not editable) carries the ring with it.

    from ringside import ring
    ring.default_path()          # the ring.json in use
    ring.ring_dict()             # parsed (cached); ring_dict(path) or ring_dict(a dict)
    ring.ring_hash()             # the CRC-32 the board's hello carries, as 8 hex digits
    side = ring.load_side("darts")
    side.space_at(123.4)         # the space id at 123.4 degrees (ringfw.geometry decides)
    side.ids, side.centre("7"), side.step("7", ring.CW)
    ring.leds()                  # the LED ring: count, led0_deg, direction
    ring.firmware_dir()          # firmware/ringfw's sources, wherever ringfw is installed

Angles are degrees, counter-clockwise seen from above, as in ring.json. Which space holds
an angle is ringfw.geometry's answer (its integer tables in centidegrees), so the host,
the simulator and the board can never disagree about it.
"""
from __future__ import annotations

import json
import math
import os
import re
from array import array
from pathlib import Path

import ringfw
from ringfw import geometry
from ringfw.ringfile import digest_of

from ringside.games import GameError

ENV = "RINGSIDE_RING"
PACKAGED = Path(__file__).with_name("ring.json")

CW = "cw"
CCW = "ccw"
DIRECTIONS = (CW, CCW)

_override: Path | None = None


class RingFileError(GameError):
    """The ring description cannot be read or is not a ring. The message says which file."""


def use_file(path: str | Path | None) -> None:
    """Make `path` the ring.json of this process (what --ring FILE does); None: back to the
    default (RINGSIDE_RING, then the packaged file). A missing file is refused here."""
    global _override
    if path is None:
        _override = None
        return
    p = Path(path)
    if not p.is_file():
        raise RingFileError("no ring description at %s" % p)
    _override = p


def default_path() -> Path:
    """The ring.json in use: use_file()'s, else $RINGSIDE_RING, else the packaged one."""
    if _override is not None:
        return _override
    env = os.environ.get(ENV)
    if env:
        return Path(env)
    return PACKAGED


def firmware_dir() -> Path:
    """The folder of the firmware package's sources (firmware/ringfw in a checkout, the
    installed ringfw otherwise): found through the package itself, not the source tree."""
    return Path(ringfw.__file__).resolve().parent


def read_bytes(ring: str | Path | bytes | bytearray | None = None) -> bytes:
    """The bytes of a ring description: None = default_path(), a path, or bytes as they are."""
    if isinstance(ring, (bytes, bytearray)):
        return bytes(ring)
    path = Path(ring) if ring is not None else default_path()
    try:
        return path.read_bytes()
    except OSError as e:
        raise RingFileError("cannot read the ring description %s: %s" % (path, e.strerror or e)) from None


_dict_cache: dict = {}


def ring_dict(ring: str | Path | bytes | dict | None = None) -> dict:
    """The parsed ring description: None = default_path(), a path, bytes, or a dict as it is.
    The same file gives the same dict object (callers treat it as read-only)."""
    if isinstance(ring, dict):
        return ring
    data = read_bytes(ring)
    where = "" if isinstance(ring, (bytes, bytearray)) else " " + str(Path(ring) if ring is not None else default_path())
    key = (where, data)
    if key not in _dict_cache:
        try:
            d = json.loads(data)
        except ValueError as e:
            raise RingFileError("the ring description%s is not valid JSON: %s" % (where, e)) from None
        if not isinstance(d, dict):
            raise RingFileError("the ring description%s is not a JSON object" % where)
        if len(_dict_cache) > 8:
            _dict_cache.clear()
        _dict_cache[key] = d
    return _dict_cache[key]


def ring_hash(ring: str | Path | bytes | None = None) -> str:
    """The ring description's CRC-32 as the board's hello carries it (8 hex digits)."""
    return "%08x" % digest_of(read_bytes(ring))


def fw_ring(ring: str | Path | bytes | None = None) -> geometry.Ring:
    """The ring as the firmware builds it (ringfw.ringfile), from a path, bytes or None."""
    return geometry.loads(read_bytes(ring))


def side_names(ring: str | Path | bytes | dict | None = None) -> list[str]:
    sides = ring_dict(ring).get("sides")
    return sorted(sides) if isinstance(sides, dict) else []


def check_side(name: str, ring: str | Path | bytes | dict | None = None) -> str:
    """name if the ring has that board side, else RingFileError listing the sides it has."""
    have = side_names(ring)
    if name not in have:
        raise RingFileError("no side %r on the ring (there are: %s)" % (name, ", ".join(have) or "none"))
    return name


_LED_DEFAULTS = {"count": 60, "led0_deg": 0.0, "direction": "ccw"}


def leds(ring: str | Path | bytes | dict | None = None) -> dict:
    """The LED ring's description (count, led0_deg, direction, ...), with the firmware's
    defaults for what the file leaves out."""
    try:
        d = ring_dict(ring).get("leds")
    except RingFileError:
        d = None
    out = dict(_LED_DEFAULTS)
    if isinstance(d, dict):
        out.update(d)
    return out


def space_kind(space_id: str) -> str:
    """The kind of a space from its id: "money-bag-2" -> "money-bag", "12" -> "12"."""
    return re.sub(r"-\d+$", "", space_id)


def lens_range_mm(ring: dict, offset_deg: float) -> float:
    """Distance (mm) from a sensor's lens to the near surface of a marble offset_deg ahead of
    it on the groove's centre line: the geometry the firmware's range table inverts
    (ringfw.ringfile._range_table). The lens sits mount.lens_radius_mm from the ring's centre
    and mount.height_mm above the floor; without a mount, on the centre line."""
    t = ring["track"]
    radius = float(t["radius_mm"])
    marble_r = float(t["marble_diameter_mm"]) / 2.0
    mount = ring.get("mount") or {}
    lens_r = float(mount.get("lens_radius_mm", radius))
    h = float(mount.get("height_mm", marble_r)) - marble_r
    s = math.sin(math.radians(offset_deg) / 2.0)
    return math.sqrt((lens_r - radius) ** 2 + h * h + 4.0 * lens_r * radius * s * s) - marble_r


def _cd(deg: float) -> int:
    """Degrees -> centidegrees as the firmware rounds them (ringfile._cd: half away from 0)."""
    v = deg * 100
    return int(v + 0.5) if v >= 0 else -int(-v + 0.5)


class RingSide:
    """One board side of the ring: its spaces in counter-clockwise order.

    ids        space ids, counter-clockwise, starting with the first listed in ring.json
    labels     id -> label printed on the board
    start      id of the space the marble starts on (side "start"), or None
    fw         the side as ringfw.geometry models it (integer centidegree tables)
    """

    def __init__(self, ring: dict, side: str):
        sides = ring.get("sides") if isinstance(ring, dict) else None
        if not isinstance(sides, dict) or side not in sides:
            have = ", ".join(sorted(sides)) if isinstance(sides, dict) else "none"
            raise RingFileError("the ring description has no %r side (it has: %s)" % (side, have))
        d = sides[side]
        raw = d.get("spaces") if isinstance(d, dict) else None
        if not isinstance(raw, list) or len(raw) < 3:
            raise RingFileError("the %s side of the ring needs a list of at least 3 spaces" % side)
        self.name = side
        spaces = []
        for i, sp in enumerate(raw):
            try:
                sid = str(sp.get("id", sp["label"]))
                lo = float(sp["from_deg"]) % 360.0
                hi = float(sp["to_deg"]) % 360.0
            except (AttributeError, KeyError, TypeError, ValueError):
                raise RingFileError("space %d of the %s side needs id, from_deg and to_deg" % (i, side)) from None
            width = (hi - lo) % 360.0
            if width <= 0:
                raise RingFileError("space %s of the %s side has no width" % (sid, side))
            spaces.append((sid, str(sp.get("label", sid)), lo, width))
        ids = [s[0] for s in spaces]
        if len(set(ids)) != len(ids):
            raise RingFileError("the %s side lists a space id twice" % side)
        first = spaces[0][2]
        spaces.sort(key=lambda s: (s[2] - first) % 360.0)
        total = 0.0
        for k, (sid, _, lo, w) in enumerate(spaces):
            nxt = spaces[(k + 1) % len(spaces)]
            gap = (nxt[2] - (lo + w)) % 360.0
            if min(gap, 360.0 - gap) > 1e-6:
                raise RingFileError("the %s side has a gap or overlap after space %s" % (side, sid))
            total += w
        if abs(total - 360.0) > 1e-6:
            raise RingFileError("the %s side's spaces cover %.2f degrees, not 360" % (side, total))
        self.ids = [s[0] for s in spaces]
        self.n = len(self.ids)
        self.labels = {s[0]: s[1] for s in spaces}
        self._lo = {s[0]: s[2] for s in spaces}
        self._width = {s[0]: s[3] for s in spaces}
        self._idx = {sid: k for k, sid in enumerate(self.ids)}
        start = d.get("start")
        self.start = str(start) if start is not None else None
        if self.start is not None and self.start not in self._idx:
            raise RingFileError("the %s side starts on space %r, which it does not have" % (side, self.start))
        # the firmware's own model of this side: the same spaces in the same order, in cd
        fw = geometry.Side()
        fw.name = side
        fw.count = self.n
        fw.start = array("i", [geometry.wrap(_cd(s[2])) for s in spaces])
        fw.end = array("i", [geometry.wrap(_cd(s[2] + s[3])) for s in spaces])
        fw.ids = " ".join(self.ids).encode()
        fw.labels = "\n".join(s[1] for s in spaces).encode()
        fw.start_k = self._idx[self.start] if self.start is not None else 0
        self.fw = fw
        self._choices = {}   # cached ring_choices (games.circles_common.cached_choices)
        det = ring.get("detection", {}) if isinstance(ring.get("detection"), dict) else {}
        self.ambiguity_deg = float(det.get("ambiguity_margin_deg", 0.08)) + \
            float(det.get("ambiguity_sigmas", 2.5)) * float(det.get("reading_sigma_deg", 0.45)) / 2.0

    # --- lookups ---
    def __contains__(self, sid) -> bool:
        return sid in self._idx

    def require(self, spaces: list[str] | tuple = (), kinds: tuple = (), what: str = "this game") -> None:
        """Raise RingFileError naming the first space (id) or kind of space the side lacks."""
        for sid in spaces:
            if sid not in self._idx:
                raise RingFileError("%s needs space %r on the %s side of the ring, which is missing"
                                    % (what, sid, self.name))
        have = {space_kind(s) for s in self.ids}
        for k in kinds:
            if k not in have:
                raise RingFileError("%s needs a %r space on the %s side of the ring, which is missing"
                                    % (what, k, self.name))

    def index(self, sid: str) -> int:
        return self._idx[sid]

    def of_kind(self, kind: str) -> list[str]:
        return [s for s in self.ids if space_kind(s) == kind]

    def centre(self, sid: str) -> float:
        """The centre of a space (degrees, 0..360)."""
        return (self._lo[sid] + self._width[sid] / 2.0) % 360.0

    def centres(self) -> list[tuple[str, float]]:
        """(id, centre in degrees) of every space, counter-clockwise."""
        return [(sid, self.centre(sid)) for sid in self.ids]

    def width(self, sid: str) -> float:
        return self._width[sid]

    def span(self, sid: str) -> tuple[float, float]:
        """(from, to) degrees of a space, counter-clockwise."""
        lo = self._lo[sid]
        return lo, (lo + self._width[sid]) % 360.0

    def space_at(self, angle: float) -> str:
        """The id of the space holding angle (degrees), as the firmware decides it."""
        # floor, not round: a space holds [from, to); the epsilon absorbs float noise in *100
        return self.ids[self.fw.space_at(math.floor(float(angle) * 100.0 + 1e-6))]

    def edge_distance(self, angle: float) -> tuple[float, str]:
        """(degrees to the nearest boundary of the space at angle, the space across it)."""
        sid = self.space_at(angle)
        into = (angle - self._lo[sid]) % 360.0
        left = self._width[sid] - into
        if into <= left:
            return into, self.step(sid, CW)
        return left, self.step(sid, CCW)

    def nudge_into(self, angle: float, sid: str, inset: float = 0.5) -> float:
        """The smallest signed change (degrees) that moves angle into space sid, inset
        degrees past its boundary (0 when it is already inside)."""
        if self.space_at(angle) == sid:
            return 0.0
        lo, w = self._lo[sid], self._width[sid]
        inset = min(inset, w / 2.0)
        best = None
        for target in (lo + inset, lo + w - inset):
            d = (target - angle + 180.0) % 360.0 - 180.0
            if best is None or abs(d) < abs(best):
                best = d
        return best

    # --- moving round the ring ---
    def step(self, sid: str, direction: str, k: int = 1) -> str:
        """The space k spaces from sid in direction."""
        s = 1 if direction == CCW else -1
        return self.ids[(self._idx[sid] + s * k) % self.n]

    def offset(self, a: str, b: str, direction: str) -> int:
        """Spaces from a to b going in direction, 0..n-1."""
        d = self._idx[b] - self._idx[a]
        return (d if direction == CCW else -d) % self.n

    def arc(self, a: str, b: str, direction: str) -> float:
        """Degrees from the centre of a to the centre of b going in direction, [0, 360)."""
        d = (self.centre(b) - self.centre(a)) % 360.0
        if direction == CW:
            d = (360.0 - d) % 360.0
        if self.offset(a, b, direction) == 0:
            return 0.0
        return d

    def adjacent(self, a: str, b: str) -> bool:
        return a != b and (self.offset(a, b, CW) == 1 or self.offset(a, b, CCW) == 1)

    def travel_to(self, origin: str, space: str, direction: str, laps: int = 0) -> float:
        """The signed travel (deg) of a flick from the centre of origin to the centre of space."""
        t = self.arc(origin, space, direction) + 360.0 * laps
        return round(t if direction == CCW else -t, 2)


_sides: dict = {}


def load_side(side: str, ring: dict | None = None) -> RingSide:
    """A side of the ring in use (or of the given ring: a path, bytes or a dict). The parsed
    side is shared by every user of the same ring (read-only)."""
    d = ring_dict(ring)
    key = (id(d), side)
    hit = _sides.get(key)
    if hit is None or hit[0] is not d:
        if len(_sides) > 32:
            _sides.clear()
        hit = (d, RingSide(d, side))
        _sides[key] = hit
    return hit[1]


def direction_word(travel: float) -> str:
    """The one sign convention, in words: + (counter-clockwise) or - (clockwise)."""
    return "anticlockwise" if travel > 0 else "clockwise"
