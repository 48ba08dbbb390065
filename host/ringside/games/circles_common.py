"""What both Circles games (Darts, Wild West) share: the ring's spaces, reading a flick,
ring-result actions, a flick model for computer players, and small seat helpers.

Angles are degrees, counter-clockwise seen from above, as in hardware/ring.json. A travel
is signed degrees: + = counter-clockwise (the board's ``trv``, which is in centidegrees,
divided by 100). A ring result is an action (ARCHITECTURE.md, "Game engines"):

    {"type": "landed", "space": "12", "travel": 214.5, "alt": "7"}   # alt: ambiguous neighbour
    {"type": "off_ring", "travel": 380.0}                            # travel optional

An engine reads such an action against the space the flick started from with
read_flick(), which gives the direction and the number of spaces moved (full laps
included); its rules then say whether the turn was valid.
"""
from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path

from ringside.games import GameError, IllegalAction

RING_PATH = Path(__file__).resolve().parents[3] / "hardware" / "ring.json"

CW = "cw"
CCW = "ccw"
DIRECTIONS = (CW, CCW)

# a travel that misses the reported space by more than this (degrees) is not that flick
TRAVEL_TOLERANCE_DEG = 100.0

_ring_cache: dict = {}


# ----- the ring description ---------------------------------------------------------------

def ring_dict(ring=None) -> dict:
    """The parsed ring description: None = hardware/ring.json, a path, or a dict as it is.

    Raises GameError with the reason when the file is missing or not JSON."""
    if isinstance(ring, dict):
        return ring
    path = Path(ring) if ring is not None else RING_PATH
    try:
        text = path.read_text()
    except OSError as e:
        raise GameError("cannot read the ring description %s: %s" % (path, e.strerror or e)) from None
    key = (str(path), text)
    if key not in _ring_cache:
        try:
            d = json.loads(text)
        except ValueError as e:
            raise GameError("the ring description %s is not valid JSON: %s" % (path, e)) from None
        if not isinstance(d, dict):
            raise GameError("the ring description %s is not a JSON object" % path)
        _ring_cache.clear()
        _ring_cache[key] = d
    return _ring_cache[key]


def space_kind(space_id: str) -> str:
    """The kind of a space from its id: "money-bag-2" -> "money-bag", "12" -> "12"."""
    return re.sub(r"-\d+$", "", space_id)


class RingSide:
    """One board side of the ring: its spaces in counter-clockwise order.

    ids        space ids, counter-clockwise, starting with the first listed in ring.json
    labels     id -> label printed on the board
    start      id of the space the marble starts on (side "start"), or None
    """

    def __init__(self, ring: dict, side: str):
        sides = ring.get("sides") if isinstance(ring, dict) else None
        if not isinstance(sides, dict) or side not in sides:
            have = ", ".join(sorted(sides)) if isinstance(sides, dict) else "none"
            raise GameError("the ring description has no %r side (it has: %s)" % (side, have))
        d = sides[side]
        raw = d.get("spaces") if isinstance(d, dict) else None
        if not isinstance(raw, list) or len(raw) < 3:
            raise GameError("the %s side of the ring needs a list of at least 3 spaces" % side)
        self.name = side
        spaces = []
        for i, sp in enumerate(raw):
            try:
                sid = str(sp["id"])
                lo = float(sp["from_deg"]) % 360.0
                hi = float(sp["to_deg"]) % 360.0
            except (KeyError, TypeError, ValueError):
                raise GameError("space %d of the %s side needs id, from_deg and to_deg" % (i, side)) from None
            width = (hi - lo) % 360.0
            if width <= 0:
                raise GameError("space %s of the %s side has no width" % (sid, side))
            spaces.append((sid, str(sp.get("label", sid)), lo, width))
        ids = [s[0] for s in spaces]
        if len(set(ids)) != len(ids):
            raise GameError("the %s side lists a space id twice" % side)
        first = spaces[0][2]
        spaces.sort(key=lambda s: (s[2] - first) % 360.0)
        total = 0.0
        for k, (sid, _, lo, w) in enumerate(spaces):
            nxt = spaces[(k + 1) % len(spaces)]
            gap = (nxt[2] - (lo + w)) % 360.0
            if min(gap, 360.0 - gap) > 1e-6:
                raise GameError("the %s side has a gap or overlap after space %s" % (side, sid))
            total += w
        if abs(total - 360.0) > 1e-6:
            raise GameError("the %s side's spaces cover %.2f degrees, not 360" % (side, total))
        self.ids = [s[0] for s in spaces]
        self.n = len(self.ids)
        self.labels = {s[0]: s[1] for s in spaces}
        self._lo = {s[0]: s[2] for s in spaces}
        self._width = {s[0]: s[3] for s in spaces}
        self._idx = {sid: k for k, sid in enumerate(self.ids)}
        start = d.get("start")
        self.start = str(start) if start is not None else None
        if self.start is not None and self.start not in self._idx:
            raise GameError("the %s side starts on space %r, which it does not have" % (side, self.start))
        self._choices = {}   # cached ring_choices, see cached_choices()
        det = ring.get("detection", {}) if isinstance(ring.get("detection"), dict) else {}
        self.ambiguity_deg = float(det.get("ambiguity_margin_deg", 0.08)) + \
            float(det.get("ambiguity_sigmas", 2.5)) * float(det.get("reading_sigma_deg", 0.45)) / 2.0

    # --- lookups ---
    def __contains__(self, sid) -> bool:
        return sid in self._idx

    def require(self, spaces=(), kinds=(), what="this game"):
        """Raise GameError naming the first space (id) or kind of space the side lacks."""
        for sid in spaces:
            if sid not in self._idx:
                raise GameError("%s needs space %r on the %s side of the ring, which is missing"
                                % (what, sid, self.name))
        have = {space_kind(s) for s in self.ids}
        for k in kinds:
            if k not in have:
                raise GameError("%s needs a %r space on the %s side of the ring, which is missing"
                                % (what, k, self.name))

    def index(self, sid: str) -> int:
        return self._idx[sid]

    def of_kind(self, kind: str) -> list[str]:
        return [s for s in self.ids if space_kind(s) == kind]

    def centre(self, sid: str) -> float:
        """The centre of a space (degrees, 0..360)."""
        return (self._lo[sid] + self._width[sid] / 2.0) % 360.0

    def width(self, sid: str) -> float:
        return self._width[sid]

    def space_at(self, angle: float) -> str:
        a = angle % 360.0
        for sid in self.ids:
            if (a - self._lo[sid]) % 360.0 < self._width[sid]:
                return sid
        return self.ids[-1]  # a rounding hair below 360

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


def load_side(side: str, ring=None) -> RingSide:
    """The one loader of board data: a side of hardware/ring.json (or the given ring, a
    path or a dict). The parsed side is shared by every game on the same ring (read-only)."""
    d = ring_dict(ring)
    key = (id(d), side)
    hit = _sides.get(key)
    if hit is None or hit[0] is not d:
        if len(_sides) > 32:
            _sides.clear()
        hit = (d, RingSide(d, side))
        _sides[key] = hit
    return hit[1]


# ----- reading a ring result -----------------------------------------------------------

class Flick:
    """A ring result read against the space the flick started from.

    landed     True for a "landed" action, False for "off_ring"
    space      where it stopped (None when off the ring); alt: the ambiguous neighbour or None
    travel     signed degrees (+ ccw), or None when not given (off_ring only)
    direction  "cw", "ccw", or None (no travel)
    steps      spaces moved in that direction, full laps included (0 when off the ring)
    """

    __slots__ = ("landed", "space", "alt", "travel", "direction", "steps")

    def __init__(self, landed, space, alt, travel, direction, steps):
        self.landed = landed
        self.space = space
        self.alt = alt
        self.travel = travel
        self.direction = direction
        self.steps = steps

    def __repr__(self):
        return "Flick(%s)" % ", ".join("%s=%r" % (k, getattr(self, k)) for k in self.__slots__)


RING_TYPES = ("landed", "off_ring")


def is_ring_action(action) -> bool:
    return isinstance(action, dict) and action.get("type") in RING_TYPES


def _travel(action, required):
    t = action.get("travel")
    if t is None:
        if required:
            raise IllegalAction("a landing needs its travel in degrees (+ = counter-clockwise)")
        return None
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
        raise IllegalAction("travel must be a number of degrees, not %r" % (t,))
    if abs(t) > 3600:
        raise IllegalAction("a travel of %g degrees is not a flick" % t)
    return float(t)


def steps_for(side: RingSide, origin: str, space: str, travel: float) -> tuple[str | None, int]:
    """(direction, spaces moved) of a flick from origin that travelled `travel` to `space`.

    The laps come from the travel; the space fixes the rest. Raises IllegalAction when the
    travel cannot end on that space."""
    if travel == 0:
        if space != origin:
            raise IllegalAction("a flick that did not move cannot end on %s" % space)
        return None, 0
    direction = CCW if travel > 0 else CW
    c = side.arc(origin, space, direction)
    laps = max(0, int(round((abs(travel) - c) / 360.0)))
    miss = abs(travel) - (c + 360.0 * laps)
    if abs(miss) > TRAVEL_TOLERANCE_DEG:
        raise IllegalAction("a flick of %.1f degrees from %s cannot end on %s" % (travel, origin, space))
    return direction, side.offset(origin, space, direction) + side.n * laps


def read_flick(side: RingSide, origin: str, action: dict) -> Flick:
    """Check a ring-result action and read it against the flick's origin space."""
    kind = action.get("type")
    if kind == "off_ring":
        t = _travel(action, required=False)
        d = None if not t else (CCW if t > 0 else CW)
        return Flick(False, None, None, t, d, 0)
    if kind != "landed":
        raise IllegalAction("a flick's result is 'landed' or 'off_ring', not %r" % (kind,))
    space = action.get("space")
    if not isinstance(space, (str, int)) or isinstance(space, bool) or str(space) not in side:
        raise IllegalAction("there is no space %r on the %s side" % (space, side.name))
    space = str(space)
    alt = action.get("alt")
    if alt is not None:
        if not isinstance(alt, (str, int)) or isinstance(alt, bool) or str(alt) not in side:
            raise IllegalAction("there is no space %r on the %s side" % (alt, side.name))
        alt = str(alt)
        if not side.adjacent(space, alt):
            raise IllegalAction("an ambiguous landing is between neighbours; %s and %s are not" % (space, alt))
    t = _travel(action, required=True)
    direction, steps = steps_for(side, origin, space, t)
    return Flick(True, space, alt, t, direction, steps)


def reread(side: RingSide, origin: str, flick: Flick, space: str) -> Flick:
    """The same flick read as having stopped on `space` (an ambiguous landing decided)."""
    if space == flick.space:
        return Flick(True, space, None, flick.travel, flick.direction, flick.steps)
    t = flick.travel
    d = flick.direction or (CCW if side.offset(flick.space, space, CCW) == 1 else CW)
    # the neighbour is one space further or nearer along the flick's own direction
    further = side.step(flick.space, d) == space
    steps = flick.steps + (1 if further else -1)
    if steps < 0:   # it crept back past the origin: one space the other way
        d = CW if d == CCW else CCW
        steps = 1
    return Flick(True, space, None, t, d, steps)


# ----- representative ring results for legal_actions -------------------------------------

def ring_choices(side: RingSide, origin: str, outcome, max_travel: float,
                 directions=DIRECTIONS, off_ring=True) -> list[dict]:
    """One ring-result action per distinct outcome.

    outcome(flick) -> a hashable key (flicks with the same key have the same effect in the
    game); every landing on every space, in both directions, for every lap within
    max_travel degrees, is tried, shortest first, and the first action of each key kept.
    A short nudge that stays on the origin (5 degrees) is tried in each direction too."""
    out = []
    seen = set()

    def add(action):
        f = read_flick(side, origin, action)
        key = outcome(f)
        if key not in seen:
            seen.add(key)
            out.append(action)

    for d in directions:
        s = 1 if d == CCW else -1
        add({"type": "landed", "space": origin, "travel": 5.0 * s})
        cands = []
        laps = 0
        while True:
            any_in = False
            for sid in side.ids:
                t = side.travel_to(origin, sid, d, laps)
                if t == 0:
                    continue
                if abs(t) <= max_travel:
                    cands.append((abs(t), sid, t))
                    any_in = True
            if not any_in and laps > 0:
                break
            laps += 1
            if laps > 10:
                break
        for _, sid, t in sorted(cands):
            add({"type": "landed", "space": sid, "travel": t})
    if off_ring:
        add({"type": "off_ring"})
    return out


def cached_choices(side: RingSide, origin: str, key, outcome, max_travel: float) -> list[dict]:
    """ring_choices() remembered on the side under `key`, which must name everything the
    outcome function depends on besides the origin (e.g. ("darts-turn", min_steps))."""
    k = (key, origin, max_travel)
    if k not in side._choices:
        side._choices[k] = ring_choices(side, origin, outcome, max_travel)
    return [dict(a) for a in side._choices[k]]


# ----- ranking a flick that should go once round the ring --------------------------------

def lap_key(flick: Flick, direction: str | None = None, resolution_deg: float = 1.0) -> tuple:
    """How well a flick that should complete one full lap did; smaller is better.

    (0, d): it completed a lap (in `direction`, when given) and stopped d degrees past its
            start, rounded to resolution_deg (readings finer than the sensors are noise);
    (1, s): it did not complete one: s = degrees still missing;
    (2, 0): it left the ring, or went the wrong way.
    Equal keys are a tie."""
    if not flick.landed or flick.travel is None or flick.travel == 0:
        return (2, 0)
    if direction is not None and flick.direction != direction:
        return (2, 0)
    t = abs(flick.travel)
    if t >= 360.0:
        return (0, int(round((t - 360.0) / resolution_deg)))
    return (1, int(round((360.0 - t) / resolution_deg)))


def flick_off_key(flick: Flick, resolution_deg: float = 1.0) -> tuple:
    """Darts' opening flick-off: how far from exactly one lap (either side) it stopped.

    (0, d) for a landing d degrees from one full lap (short or past), (1, 0) off the ring."""
    if not flick.landed or flick.travel is None:
        return (1, 0)
    return (0, int(round(abs(abs(flick.travel) - 360.0) / resolution_deg)))


def rank_groups(keys: dict) -> list[list]:
    """{seat: key} -> [[seats with the best key], [next], ...] (seats keep their order)."""
    groups: dict = {}
    for seat, k in keys.items():
        groups.setdefault(tuple(k), []).append(seat)
    return [groups[k] for k in sorted(groups)]


# ----- data files ------------------------------------------------------------------------

def load_data(default_path: Path, override=None, what="game data") -> dict:
    """A game's printed data: the packaged file, or the user's own (a dict or a path)."""
    if isinstance(override, dict):
        return override
    path = Path(override) if override is not None else default_path
    try:
        d = json.loads(path.read_text())
    except OSError as e:
        raise GameError("cannot read %s %s: %s" % (what, path, e.strerror or e)) from None
    except ValueError as e:
        raise GameError("%s %s is not valid JSON: %s" % (what, path, e)) from None
    if not isinstance(d, dict):
        raise GameError("%s %s must be a JSON object" % (what, path))
    return d


def need_int(d: dict, key: str, lo: int, hi: int, where: str) -> int:
    """d[key] as an int in [lo, hi], or GameError naming the field."""
    v = d.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise GameError("%s: %r must be a whole number from %d to %d, not %r" % (where, key, lo, hi, v))
    return v


# ----- seats ------------------------------------------------------------------------------

def youngest(seats, ages) -> int:
    """The youngest of seats by ages (a list per seat, None for unknown); ties and unknown
    ages go to the seat listed first (players are asked to list the youngest first)."""
    seats = list(seats)
    if not ages:
        return min(seats)
    known = [(ages[s], s) for s in seats if s < len(ages) and ages[s] is not None]
    if not known:
        return min(seats)
    return min(known)[1]


def check_ages(ages, n: int):
    """Validate the "ages" option: None or a list of n numbers (or None for unknown)."""
    if ages is None:
        return None
    if not isinstance(ages, list) or len(ages) != n:
        raise GameError("ages must be a list with one age per player (%d)" % n)
    for a in ages:
        if a is not None and (isinstance(a, bool) or not isinstance(a, (int, float)) or a < 0):
            raise GameError("an age must be a number of years, not %r" % (a,))
    return ages


def clockwise_from(first: int, n: int) -> list[int]:
    """Seats in playing (clockwise) order starting with `first`."""
    return [(first + k) % n for k in range(n)]


# ----- a flick by a computer player (no ring attached) -----------------------------------

class FlickModel:
    """The simulated ring's level-ring physics and skill model, without the sensors.

    result() turns an aimed travel into the ring result a board would report: the speed
    is spread by the skill (ringside.sim.physics.Flicker), too fast leaves the ring, and a
    stop within the ambiguity margin of a boundary reports the neighbour as alt."""

    def __init__(self, ring: dict):
        from ringside.sim.physics import Flicker, PhysicsParams, max_travel_deg
        self.ring = ring
        self.params = PhysicsParams()
        self.flicker = Flicker(ring, self.params)
        self.max_travel = max_travel_deg(ring, self.params)

    def speed(self, target_travel: float, skill: float, rng: random.Random) -> float:
        return self.flicker.flick_speed(rng, target_travel, skill)

    def result(self, side: RingSide, origin: str, target_travel: float, skill: float,
               rng: random.Random) -> dict:
        from ringside.sim.physics import travel_for_speed
        v = self.speed(target_travel, skill, rng)
        if abs(v) > self.params.off_ring_speed_mm_s:
            lo, hi = self.params.off_ring_arc_deg   # it rides up the wall and jumps out
            return {"type": "off_ring", "travel": round(math.copysign(rng.uniform(lo, hi), v), 2)}
        t = travel_for_speed(self.ring, v, self.params)
        if abs(t) < 3.0:   # the board reports a nudge as no flick; a player flicks again
            t = math.copysign(3.0, target_travel or 1.0)
        angle = side.centre(origin) + t
        sid = side.space_at(angle)
        a = {"type": "landed", "space": sid, "travel": round(t, 2)}
        edge, other = side.edge_distance(angle % 360.0)
        if edge < side.ambiguity_deg:
            a["alt"] = other
        return a


_models: dict = {}


def flick_model(ring: dict) -> FlickModel:
    key = id(ring)
    m = _models.get(key)
    if m is None or m.ring is not ring:
        m = FlickModel(ring)
        _models.clear()
        _models[key] = m
    return m


# ----- computer players -------------------------------------------------------------------

NORMAL_QUANTILES = (-1.83, -1.28, -0.97, -0.73, -0.52, -0.34, -0.17, 0.0,
                    0.17, 0.34, 0.52, 0.73, 0.97, 1.28, 1.83)   # 15 equal-mass slices of N(0, 1)


class Bot:
    """A computer player: choose(game, seat, rng) -> a legal action.

    A flick (the game's flick_request() is this seat's) is aimed by aim(game, seat, rng) ->
    a signed target travel (degrees); with no ring attached, the skill model turns that
    into the ring result (FlickModel); at a table, the table flicks the simulated marble
    at that target instead. Every other decision is decide(game, seat, rng)."""

    def __init__(self, level: str, skill: float, aim, decide, seed: int = 0):
        self.level = level
        self.skill = float(skill)
        self._aim = aim
        self._decide = decide
        self.rng = random.Random(seed)     # used when choose() is given no rng

    def __repr__(self):
        return "Bot(%s, skill=%.2f)" % (self.level, self.skill)

    @property
    def aims(self) -> bool:
        """True when this bot aims its flicks (the random bot only picks a listed result)."""
        return self._aim is not None

    def wants_flick(self, game, seat) -> bool:
        req = game.flick_request()
        return bool(req) and req["seat"] == seat

    def aim(self, game, seat, rng: random.Random | None = None) -> float:
        return float(self._aim(self, game, seat, rng or self.rng))

    def choose(self, game, seat, rng: random.Random | None = None) -> dict:
        """A legal action for seat (ARCHITECTURE's choose(game, seat); rng: the caller's
        seeded RNG, else the bot's own)."""
        rng = rng or self.rng
        if self._aim is not None and self.wants_flick(game, seat):
            req = game.flick_request()
            return flick_model(game.ring).result(game.side, req["from"], self.aim(game, seat, rng),
                                                 self.skill, rng)
        return self._decide(self, game, seat, rng)


def random_choice(bot, game, seat, rng):
    """The random legal bot's decision (and the fuzzer's): any legal action, uniformly."""
    return rng.choice(game.legal_actions(seat))


def random_bot(seed: int = 0) -> Bot:
    return Bot("random", 0.5, None, random_choice, seed)


_odds: dict = {}


def _travel_odds(ring: dict, target: float, skill: float) -> list:
    """[(probability, travel or None when it leaves the ring)] of a flick aimed at target."""
    key = (id(ring), round(target, 2), round(skill, 3))
    hit = _odds.get(key)
    if hit is not None and hit[0] is ring:
        return hit[1]
    from ringside.sim.physics import Flicker, speed_for_travel, travel_for_speed
    m = flick_model(ring)
    v0 = speed_for_travel(ring, target, m.params)
    sd = Flicker.spread(skill)
    w = 1.0 / len(NORMAL_QUANTILES)
    out = []
    for z in NORMAL_QUANTILES:
        v = v0 * max(0.0, 1.0 + sd * z)
        if abs(v) > m.params.off_ring_speed_mm_s:
            out.append((w, None))
            continue
        t = travel_for_speed(ring, v, m.params)
        out.append((w, t if abs(t) >= 3.0 else math.copysign(3.0, target)))
    if len(_odds) > 20000:
        _odds.clear()
    _odds[key] = (ring, out)
    return out


_flick_odds: dict = {}


def landing_odds(game, origin: str, target: float, skill: float) -> list[tuple[float, Flick]]:
    """[(probability, Flick)] for a flick aimed at `target` from the centre of `origin`, over
    the skill model's speed spread (15 equal-probability slices; ambiguity ignored)."""
    side = game.side
    key = (id(side), origin, round(target, 2), round(skill, 3))
    hit = _flick_odds.get(key)
    if hit is not None and hit[0] is side:
        return hit[1]
    out = []
    c = side.centre(origin)
    for w, t in _travel_odds(game.ring, target, skill):
        if t is None:
            out.append((w, Flick(False, None, None, None, None, 0)))
        else:
            t = round(t, 2)
            sid = side.space_at(c + t)
            d, steps = steps_for(side, origin, sid, t)
            out.append((w, Flick(True, sid, None, t, d, steps)))
    if len(_flick_odds) > 20000:
        _flick_odds.clear()
    _flick_odds[key] = (side, out)
    return out


def best_aim(game, origin: str, skill: float, value, targets) -> float:
    """The target travel among `targets` with the highest expected value(Flick)."""
    best = None
    for t in targets:
        ev = 0.0
        for p, res in landing_odds(game, origin, t, skill):
            ev += p * value(res)
        if best is None or ev > best[0] + 1e-9:
            best = (ev, t)
    return best[1]


class BotFamily:
    """A game's bots by level, built once from its aims and decisions (the same shape for
    every Circles game): good, weak and random, make(level, seed) and the contract's choose()."""

    def __init__(self, title, good_skill, good_aim, good_decide, weak_skill, weak_aim):
        self.title = title
        self.BOTS = {
            "good": lambda seed=0: Bot("good", good_skill, good_aim, good_decide, seed),
            "weak": lambda seed=0: Bot("weak", weak_skill, weak_aim, random_choice, seed),
            "random": lambda seed=0: random_bot(seed),
        }
        self.good = self.BOTS["good"]
        self.weak = self.BOTS["weak"]
        self.random_bot = self.BOTS["random"]

    def make(self, level="good", seed=0):
        """A bot by level (good, weak, random); seed: its own RNG when choose() gets none."""
        if level not in self.BOTS:
            raise ValueError("no %s bot %r (there are: %s)" % (self.title, level, ", ".join(sorted(self.BOTS))))
        return self.BOTS[level](seed)

    def choose(self, game, seat, rng=None):
        """The good bot's choice (the module-level bot of the contract)."""
        return self.good().choose(game, seat, rng)
