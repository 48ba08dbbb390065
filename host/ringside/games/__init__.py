"""Game engines: one contract for every game (see ARCHITECTURE.md, "Game engines").

    game = ringside.games.new("darts", players=["Ann", "Bob"], seed=7, options={})
    game.to_act()                 # seats that may act now (ints), or ["chance"]
    game.legal_actions(seat)      # JSON-able dicts that apply() accepts as they are
    game.apply(seat, action)      # -> events [{"type": ..., "text": ...}]; IllegalAction changes nothing
    game.view(seat)               # what that seat may see; view(None) = a spectator
    game.over, game.result        # result: {"winners": [...], "scores": {...}, "reason": "..."}
    game.log                      # [(seat, action), ...] in order, chance included
    game.to_json() / ringside.games.load(text)   # versioned; loading replays the log
    game.undo(n)                  # the same game without its last n log entries

An engine subclasses Game and implements _setup(), _to_act(), _legal(seat), _apply(seat,
action) and _view(seat). All mutable state lives in self.state (plain data: dicts, lists,
ints, strings), so apply() can restore it exactly when an action turns out illegal.
Chance is a seat: when to_act() is ["chance"], the table enters what the physical die or
bag gave, or chance_action() draws it from the game's seeded RNG.
"""
from __future__ import annotations

import copy
import marshal
import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any
    from types import ModuleType

from ringside.errors import RingsideError

CHANCE = "chance"
SAVE_FORMAT = 1

_REGISTRY: dict[str, type] = {}


class GameError(RingsideError):
    """A game cannot be created or loaded (bad options, corrupt save). The message says why."""


class IllegalAction(GameError):
    """The action is not legal now. Nothing was changed. The message names the state."""


@dataclass(frozen=True)
class Capabilities:
    """What a game is, declared once by its engine (`capabilities = Capabilities(...)`), so the
    table, the screens and the bots never ask a game its name. Defaults fit a game played off
    the ring with no chance. docs/table-contract.md describes the whole contract.

    A game with a ring_side also has `game.side` (a circles_common.RingSide) and answers
    flick_request() with the flick that is due; the others answer None."""
    ring_side: str | None = None        # the ring.json side its flicks land on; None = off the ring
    turn_seconds: int | None = None     # a board-kept timer on timed turns (Doubles: 20); None = untimed
    chance: str | None = None           # what chance is at a real table: "die", "bag", "shuffle"; None = none
    chance_prompt: str = ""             # what the table is asked to do: "roll the d4 and enter it"
    led: str = "spaces"                 # "spaces": paint ring spaces; "picture": a whole-ring picture
    bot_levels: tuple = ("random",)     # the computer's levels, weakest first; one a beginner can beat
    default_level: str = "random"       # the level used when none is named


def register(cls: type[Game]) -> type[Game]:
    """Class decorator: make an engine available to new() and load() by its name."""
    _REGISTRY[cls.name] = cls
    return cls


def _ensure_loaded():
    # engines register themselves on import; import the known packages lazily
    import importlib
    import pkgutil
    import ringside.games as pkg
    for m in pkgutil.iter_modules(pkg.__path__):
        if m.ispkg and not m.name.startswith("_"):
            try:
                importlib.import_module("ringside.games." + m.name)
            except ImportError:
                pass


def names() -> list[str]:
    _ensure_loaded()
    return sorted(_REGISTRY)


def game_class(name: str) -> type:
    _ensure_loaded()
    if name not in _REGISTRY:
        raise GameError("no game called %r (there are: %s)" % (name, ", ".join(sorted(_REGISTRY))))
    return _REGISTRY[name]


def new(name: str, players: list[str], seed: int | None = None, options: dict | None = None) -> Game:
    return game_class(name)(players, seed=seed, options=options)


def load(text: str) -> Game:
    """Rebuild a game from to_json() text by replaying its log (ringside.store checks it
    first). Raises GameError (a store.SaveError) saying what is wrong if it is damaged."""
    from ringside import store
    return store.load_game(text)


# ----- what an action may hold (checked by Game.apply before an engine sees it) -----------

MAX_ACTION_DEPTH = 4          # {"type": ..., "field": [[...]]}
MAX_ACTION_TEXT = 200         # characters in one string of an action
MAX_ACTION_INT = 10 ** 9      # no count, index or seat in any game is larger
MAX_ACTION_NUMBER = 1e6       # degrees, seconds...: finite and far below this

# field kinds an engine's `actions` table uses (see Game.actions)
_KINDS = {
    "str": "text",
    "int": "a whole number",
    "num": "a number",
    "bool": "true or false",
    "id": "a space's id (text or a number)",
    "seat": "a seat number",
    "list": "a list",
}


# a ring result (ARCHITECTURE.md): the fields every game on the ring takes
RING_ACTIONS = {"landed": {"space": "id", "travel": "num", "alt?": "id", "conf?": "num"},
                "off_ring": {"travel?": "num", "conf?": "num"}}   # conf: the board's confidence, 0-100


def check_json_value(v: object, depth: int = 0, where: str = "the action") -> None:
    """Refuse (IllegalAction) anything a save cannot hold as JSON, and numbers or text no game
    could mean: NaN, infinities, 10**400, a million characters, deep nesting, non-text keys."""
    if depth > MAX_ACTION_DEPTH:
        raise IllegalAction("%s is nested too deep" % where)
    if v is None or isinstance(v, bool):
        return
    if isinstance(v, int):
        if not -MAX_ACTION_INT <= v <= MAX_ACTION_INT:
            raise IllegalAction("%s holds a number out of range" % where)
        return
    if isinstance(v, float):
        if not math.isfinite(v) or abs(v) > MAX_ACTION_NUMBER:
            raise IllegalAction("%s holds a number out of range (%r)" % (where, v))
        return
    if isinstance(v, str):
        if len(v) > MAX_ACTION_TEXT:
            raise IllegalAction("%s holds text longer than %d characters" % (where, MAX_ACTION_TEXT))
        return
    if isinstance(v, (list, tuple)):
        if len(v) > 64:
            raise IllegalAction("%s holds a list of more than 64 entries" % where)
        for x in v:
            check_json_value(x, depth + 1, where)
        return
    if isinstance(v, dict):
        if len(v) > 32:
            raise IllegalAction("%s has more than 32 fields" % where)
        for k, x in v.items():
            if not isinstance(k, str) or len(k) > 40:
                raise IllegalAction("%s has a field name that is not short text: %r" % (where, k if not isinstance(k, str) else k[:40]))
            check_json_value(x, depth + 1, where)
        return
    raise IllegalAction("%s holds %s, which a save cannot hold" % (where, type(v).__name__))


def _kind_ok(kind: str, v, n_players: int) -> bool:
    if kind == "str":
        return isinstance(v, str)
    if kind in ("int", "seat"):
        ok = isinstance(v, int) and not isinstance(v, bool)
        return ok and (kind == "int" or 0 <= v < n_players)
    if kind == "num":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if kind == "bool":
        return isinstance(v, bool)
    if kind == "id":
        return isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool))
    if kind == "list":
        return isinstance(v, list)
    raise AssertionError("unknown field kind %r" % kind)


class Game:
    """Base of every engine: seats, seeded chance, the log, saves, undo."""

    name = ""
    title = ""
    min_players = 1
    max_players = 1
    default_options: dict = {}
    # option -> the JSON types it may hold (None: null); a game leaves out what its set-up checks
    option_types: dict = {}
    # action type -> {field: kind}; a field written "name?" may be left out. Kinds: str, int,
    # num, bool, id (text or number), seat (an int seat in range), list. Game.apply refuses an
    # action of another type, or with a field missing, unknown or of the wrong kind, before the
    # engine sees it; engines check the values (_validate, or the top of _apply).
    actions: dict = {}
    RING_ACTIONS = RING_ACTIONS       # for engines on the ring: dict(Game.RING_ACTIONS, ...)
    capabilities = Capabilities()
    # the rulebook a screen shows beside the table: (file in seeds/, the heading its text starts
    # at or None for the top, the heading after its end or None for the end); None: no rulebook
    rulebook: tuple | None = None

    def __init__(self, players: list[str], seed: int | None = None, options: dict | None = None):
        players = list(players)
        if not self.min_players <= len(players) <= self.max_players:
            raise GameError("%s is for %d to %d players, not %d"
                            % (self.title or self.name, self.min_players, self.max_players, len(players)))
        if len(set(players)) != len(players):
            raise GameError("two players have the same name")
        self.players = [str(p) for p in players]
        if seed is None:
            seed = random.SystemRandom().randrange(2 ** 31)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise GameError("a seed is a whole number, not %s" % _short_repr(seed))
        self.seed = int(seed)
        opts = dict(self.default_options)
        if not isinstance(options or {}, dict):
            raise GameError("options are given by name, not as %s" % type(options).__name__)
        for k, v in (options or {}).items():
            if k not in self.default_options:
                raise GameError("%s has no option %r (it has: %s)"
                                % (self.name, k, ", ".join(sorted(self.default_options)) or "none"))
            _check_option(self, k, v)
            opts[k] = v
        self.options = opts
        self.rng = random.Random(self.seed)
        self.log: list = []
        self.state: dict = {}
        self.over = False
        self.result: dict | None = None
        self._setup()

    # ----- the contract -----
    def to_act(self) -> list:
        if self.over:
            return []
        return self._to_act()

    def legal_actions(self, seat: int | str) -> list[dict]:
        if self.over or not self.is_seat(seat) or seat not in self.to_act():
            return []
        return self._legal(seat)

    def apply(self, seat: int | str, action: dict) -> list[dict]:
        """Apply one action; IllegalAction (nothing changed) if it is not legal now.

        The seat and the action's shape are checked here, the values by the engine, and an
        engine that refuses half-way is rolled back. Any other exception is a bug in the
        engine and is not dressed up as the player's mistake."""
        if self.over:
            raise IllegalAction("the game is over")
        self.check_seat(seat)
        if seat not in self.to_act():
            raise IllegalAction("it is not %s turn (to act: %s)" % (possessive(self.seat_name(seat)), ", ".join(self.seat_name(s) for s in self.to_act())))
        self.check_action(seat, action)
        self._validate(seat, action)
        saved = (_copy(self.state), self.over, copy.deepcopy(self.result), self.rng.getstate())
        try:
            events = self._apply(seat, action)
        except IllegalAction:
            self.state, self.over, self.result, rs = saved
            self.rng.setstate(rs)
            raise
        self.log.append((seat, copy.deepcopy(action)))
        return events

    def is_seat(self, seat: object) -> bool:
        """A seat is an int from 0 to players-1 (never True, False or 1.0) or "chance"."""
        if isinstance(seat, str):
            return seat == CHANCE
        return isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(self.players)

    def check_seat(self, seat: object) -> None:
        if self.is_seat(seat):
            return
        raise IllegalAction("%s is not a seat: a seat is a number from 0 to %d, or \"chance\""
                            % (_short_repr(seat), len(self.players) - 1))

    def check_action(self, seat: int | str, action: object) -> None:
        """The action's shape: a dict with a known 'type', only JSON a save can hold, and (when
        the engine lists its actions) exactly its fields, each of its kind."""
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise IllegalAction("an action is a dict with a 'type'")
        check_json_value(action)
        if not self.actions:
            return
        kind = action["type"]
        spec = self.actions.get(kind)
        if spec is None:
            raise IllegalAction("%s is not an action of %s (it has: %s)"
                                % (_short_repr(kind), self.title or self.name, ", ".join(sorted(self.actions))))
        fields = {f.rstrip("?"): (k, f.endswith("?")) for f, k in spec.items()}
        for f in action:
            if f != "type" and f not in fields:
                raise IllegalAction("a %s action has no field %r (it has: %s)"
                                    % (kind, f[:40], ", ".join(sorted(fields)) or "none"))
        for f, (k, optional) in fields.items():
            if f not in action:
                if optional:
                    continue
                raise IllegalAction("a %s action needs its %r" % (kind, f))
            v = action[f]
            if not _kind_ok(k, v, len(self.players)):
                raise IllegalAction("the %s of a %s action is %s, not %s"
                                    % (f, kind, _KINDS[k], _short_repr(v)))

    def chance_action(self) -> dict:
        """Draw the chance seat's action with the game's seeded RNG (digital play)."""
        if self.to_act() != [CHANCE]:
            raise IllegalAction("nothing is left to chance now")
        return self._chance(self.rng)

    def view(self, seat: int | str | None = None) -> dict:
        """What seat may see; None: a spectator. True is not seat 1: a non-seat sees nothing hidden."""
        if seat is not None and not self.is_seat(seat):
            raise IllegalAction("%s is not a seat: a seat is a number from 0 to %d, or None for a spectator"
                                % (_short_repr(seat), len(self.players) - 1))
        return self._view(seat)

    def seat_name(self, seat: int | str) -> str:
        if seat == CHANCE:
            return "chance"
        if isinstance(seat, int) and 0 <= seat < len(self.players):
            return self.players[seat]
        return str(seat)

    def to_json(self) -> str:
        """The game's save (docs/saves.md); ringside.store.load_game() reads it back."""
        from ringside import store
        return store.game_json(self)

    def replay(self, entries: int | None = None) -> Game:
        """A new game with the same set-up and the first `entries` log entries applied."""
        g = type(self)(self.players, seed=self.seed, options=self.options)
        for seat, action in self.log[:entries]:
            g.apply(seat, action)
        return g

    def undo(self, n: int = 1) -> Game:
        if n < 0 or n > len(self.log):
            raise IllegalAction("cannot undo %d of %d actions" % (n, len(self.log)))
        return self.replay(len(self.log) - n)

    # ----- the table contract (defaults; engines override what applies to them) -----
    def flick_request(self) -> dict | None:
        """The flick the table must arm now: {"seat", "from", "directions", "min_steps",
        "purpose", ["target_travel"]}; None when the next decision is not a flick (always, for
        a game played off the ring)."""
        return None

    def turn_timer(self) -> dict:
        """The turn timer as the table needs it. Untimed games: {"timed": False}. Timed ones
        add "seconds", "seat", "colour" (a palette name) and "turn_no" (changes every turn)."""
        return {"timed": False}

    def timeout_entry(self) -> None:
        """(seat, action) to apply when the turn timer runs out now; None when not timed."""
        return None

    @property
    def presenter(self) -> ModuleType | type:
        """The game's presentation module, ringside.games.<name>.present (picture, label,
        led_frame, event_text); a game without one gets the generic fallback in
        ringside.games.present, which keeps it playable."""
        import importlib
        mod = "ringside.games.%s.present" % self.name
        try:
            return importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name != mod:
                raise
            from ringside.games import present
            return present.Fallback

    # ----- for engines -----
    def _setup(self):
        raise NotImplementedError

    def _validate(self, seat, action) -> None:
        """An engine's check of an action's values, before anything changes (IllegalAction)."""

    def _to_act(self) -> list:
        raise NotImplementedError

    def _legal(self, seat) -> list[dict]:
        raise NotImplementedError

    def _apply(self, seat, action) -> list[dict]:
        raise NotImplementedError

    def _view(self, seat) -> dict:
        raise NotImplementedError

    def _chance(self, rng: random.Random) -> dict:
        """Default: a uniform choice among the chance seat's legal actions."""
        return rng.choice(self._legal(CHANCE))

    def _finish(self, winners: list, scores: dict, reason: str):
        self.over = True
        self.result = {"winners": winners, "scores": scores, "reason": reason}


_JSON_TYPES = {"null": type(None), "bool": bool, "int": int, "num": (int, float), "str": str,
               "list": list, "dict": dict}
_OPTION_WORDS = {"null": "null", "bool": "true or false", "int": "a whole number", "num": "a number",
                 "str": "text (a file name)", "list": "a list", "dict": "an object (the data itself)"}


def _check_option(game, name, value) -> None:
    kinds = game.option_types.get(name)
    if kinds is None:       # the engine's set-up checks it
        return
    for k in kinds:
        t = _JSON_TYPES[k]
        if isinstance(value, t) and not (k in ("int", "num") and isinstance(value, bool)):
            return
    raise GameError("the %s option is %s, not %s"
                    % (name, " or ".join(_OPTION_WORDS[k] for k in kinds), _short_repr(value)))


def _short_repr(v) -> str:
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


def _copy(state):
    """A deep copy of plain data; marshal is several times faster than deepcopy."""
    try:
        return marshal.loads(marshal.dumps(state))
    except ValueError:  # something marshal cannot hold: the slow, general way
        return copy.deepcopy(state)


def possessive(name: str) -> str:
    """A player's name as an owner in event text: "Ann's"; the default person at the table,
    "You", gives "Your"."""
    return "Your" if name == "You" else name + "'s"


def event(kind: str, text: str, **data: Any) -> dict:
    e = {"type": kind, "text": text}
    e.update(data)
    return e


def play_random(game: Game, rng: random.Random, max_actions: int = 100000) -> Game:
    """Play a game to the end with uniformly random legal actions (chance from the game's RNG)."""
    n = 0
    while not game.over and n < max_actions:
        seats = game.to_act()
        if not seats:
            raise GameError("no one may act, yet the game is not over")
        seat = seats[0] if len(seats) == 1 else rng.choice(seats)
        if seat == CHANCE:
            game.apply(seat, game.chance_action())
        else:
            acts = game.legal_actions(seat)
            if not acts:
                raise GameError("%s must act but has no legal action" % game.seat_name(seat))
            game.apply(seat, rng.choice(acts))
        n += 1
    return game
