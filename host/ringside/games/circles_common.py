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
from pathlib import Path

from ringside import ring as _ring
from ringside.flicks import NORMAL_QUANTILES, FlickModel, flick_model, travel_odds  # noqa: F401
from ringside.games import GameError, IllegalAction
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterable
    from ringside.games import Game

# The ring is ringside.ring's (one model of the ring on the host); these names stay here
# because every Circles game reads them from this module.
RING_PATH = _ring.default_path().resolve()
CW, CCW, DIRECTIONS = _ring.CW, _ring.CCW, _ring.DIRECTIONS
RingSide = _ring.RingSide
ring_dict = _ring.ring_dict
load_side = _ring.load_side
space_kind = _ring.space_kind

# a travel that misses the reported space by more than this (degrees) is not that flick
TRAVEL_TOLERANCE_DEG = 100.0


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

    def __init__(self, landed: bool, space: str | None, alt: str | None, travel: float | None, direction: str | None, steps: int):
        self.landed = landed
        self.space = space
        self.alt = alt
        self.travel = travel
        self.direction = direction
        self.steps = steps

    def __repr__(self):
        return "Flick(%s)" % ", ".join("%s=%r" % (k, getattr(self, k)) for k in self.__slots__)


RING_TYPES = ("landed", "off_ring")


def is_ring_action(action: dict) -> bool:
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

def ring_choices(side: RingSide, origin: str, outcome: Callable, max_travel: float,
                 directions: tuple[str, str] = DIRECTIONS, off_ring: bool = True) -> list[dict]:
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


def cached_choices(side: RingSide, origin: str, key: tuple, outcome: Callable, max_travel: float) -> list[dict]:
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

def load_data(default_path: Path, override: dict | str | Path | None = None, what: str = "game data") -> dict:
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

def youngest(seats: Iterable[int], ages: None) -> int:
    """The youngest of seats by ages (a list per seat, None for unknown); ties and unknown
    ages go to the seat listed first (players are asked to list the youngest first)."""
    seats = list(seats)
    if not ages:
        return min(seats)
    known = [(ages[s], s) for s in seats if s < len(ages) and ages[s] is not None]
    if not known:
        return min(seats)
    return min(known)[1]


def check_ages(ages: None, n: int) -> None:
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


# ----- computer players -------------------------------------------------------------------

class Bot:
    """A computer player: choose(game, seat, rng) -> a legal action.

    A flick (the game's flick_request() is this seat's) is aimed by aim(game, seat, rng) ->
    a signed target travel (degrees); with no ring attached, the skill model turns that
    into the ring result (FlickModel); at a table, the table flicks the simulated marble
    at that target instead. Every other decision is decide(game, seat, rng)."""

    def __init__(self, level: str, skill: float, aim: Callable | None, decide: Callable, seed: int = 0):
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

    def wants_flick(self, game: Game, seat: int) -> bool:
        req = game.flick_request()
        return bool(req) and req["seat"] == seat

    def aim(self, game: Game, seat: int, rng: random.Random | None = None) -> float:
        return float(self._aim(self, game, seat, rng or self.rng))

    def choose(self, game: Game, seat: int, rng: random.Random | None = None) -> dict:
        """A legal action for seat (ARCHITECTURE's choose(game, seat); rng: the caller's
        seeded RNG, else the bot's own)."""
        rng = rng or self.rng
        if self._aim is not None and self.wants_flick(game, seat):
            req = game.flick_request()
            return flick_model(game.ring).result(game.side, req["from"], self.aim(game, seat, rng),
                                                 self.skill, rng)
        return self._decide(self, game, seat, rng)


def random_choice(bot: Bot, game: Game, seat: int, rng: random.Random) -> dict:
    """The random legal bot's decision (and the fuzzer's): any legal action, uniformly."""
    return rng.choice(game.legal_actions(seat))


def random_bot(seed: int = 0) -> Bot:
    return Bot("random", 0.5, None, random_choice, seed)


_flick_odds: dict = {}


def landing_odds(game: Game, origin: str, target: float, skill: float) -> list[tuple[float, Flick]]:
    """[(probability, Flick)] for a flick aimed at `target` from the centre of `origin`, over
    the skill model's speed spread (15 equal-probability slices; ambiguity ignored)."""
    side = game.side
    key = (id(side), origin, round(target, 2), round(skill, 3))
    hit = _flick_odds.get(key)
    if hit is not None and hit[0] is side:
        return hit[1]
    out = []
    c = side.centre(origin)
    for w, t in travel_odds(game.ring, target, skill):
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


def best_aim(game: Game, origin: str, skill: float, value: Callable, targets: list[float]) -> float:
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

    def __init__(self, title: str, good_skill: float, good_aim: Callable, good_decide: Callable, weak_skill: float, weak_aim: Callable):
        self.title = title
        self.BOTS = {
            "good": lambda seed=0: Bot("good", good_skill, good_aim, good_decide, seed),
            "weak": lambda seed=0: Bot("weak", weak_skill, weak_aim, random_choice, seed),
            "random": lambda seed=0: random_bot(seed),
        }
        self.good = self.BOTS["good"]
        self.weak = self.BOTS["weak"]
        self.random_bot = self.BOTS["random"]

    def make(self, level: str = "good", seed: int = 0) -> Bot:
        """A bot by level (good, weak, random); seed: its own RNG when choose() gets none."""
        if level not in self.BOTS:
            raise ValueError("no %s bot %r (there are: %s)" % (self.title, level, ", ".join(sorted(self.BOTS))))
        return self.BOTS[level](seed)

    def choose(self, game: Game, seat: int, rng: random.Random | None = None) -> dict:
        """The good bot's choice (the module-level bot of the contract)."""
        return self.good().choose(game, seat, rng)

    def levels(self) -> dict:
        """The levels of the table contract (ringside.bots), weakest first: random, easy (a
        beginner's flicks: the weak bot) and good, each a Flicking bot (it aims on the ring)."""
        from ringside import bots as B
        return {
            "random": lambda seed=0: B.Flicking("random", self.random_bot(seed), seed),
            "easy": lambda seed=0: B.Flicking("easy", self.weak(seed), seed),
            "good": lambda seed=0: B.Flicking("good", self.good(seed), seed),
        }
