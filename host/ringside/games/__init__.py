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
import json
import marshal
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any
    from types import ModuleType

CHANCE = "chance"
SAVE_FORMAT = 1

_REGISTRY: dict[str, type] = {}


class GameError(Exception):
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
    """Rebuild a game from to_json() text by replaying its log. Raises GameError if corrupt."""
    try:
        d = json.loads(text)
    except (TypeError, ValueError) as e:
        raise GameError("the save is not valid JSON: %s" % e) from None
    if not isinstance(d, dict) or d.get("format") != SAVE_FORMAT:
        raise GameError("the save is not a Ringside game (format %r)" % (d.get("format") if isinstance(d, dict) else None))
    try:
        g = new(d["game"], d["players"], seed=d["seed"], options=d.get("options") or {})
        for seat, action in d["log"]:
            g.apply(seat, action)
    except IllegalAction as e:
        raise GameError("the save's log does not replay: %s" % e) from None
    except (KeyError, TypeError, ValueError) as e:
        raise GameError("the save is damaged: %s" % e) from None
    return g


class Game:
    """Base of every engine: seats, seeded chance, the log, saves, undo."""

    name = ""
    title = ""
    min_players = 1
    max_players = 1
    default_options: dict = {}
    capabilities = Capabilities()

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
        self.seed = int(seed)
        opts = dict(self.default_options)
        for k, v in (options or {}).items():
            if k not in self.default_options:
                raise GameError("%s has no option %r (it has: %s)"
                                % (self.name, k, ", ".join(sorted(self.default_options)) or "none"))
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
        if self.over or seat not in self.to_act():
            return []
        return self._legal(seat)

    def apply(self, seat: int | str, action: dict) -> list[dict]:
        if self.over:
            raise IllegalAction("the game is over")
        if seat not in self.to_act():
            raise IllegalAction("it is not %s turn (to act: %s)" % (possessive(self.seat_name(seat)), ", ".join(self.seat_name(s) for s in self.to_act())))
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise IllegalAction("an action is a dict with a 'type'")
        saved = (_copy(self.state), self.over, copy.deepcopy(self.result), self.rng.getstate())
        try:
            events = self._apply(seat, action)
        except IllegalAction:
            self.state, self.over, self.result, rs = saved
            self.rng.setstate(rs)
            raise
        except (KeyError, TypeError, ValueError, IndexError) as e:
            self.state, self.over, self.result, rs = saved
            self.rng.setstate(rs)
            raise IllegalAction("bad %s action: %s" % (action.get("type"), e)) from None
        self.log.append((seat, copy.deepcopy(action)))
        return events

    def chance_action(self) -> dict:
        """Draw the chance seat's action with the game's seeded RNG (digital play)."""
        if self.to_act() != [CHANCE]:
            raise IllegalAction("nothing is left to chance now")
        return self._chance(self.rng)

    def view(self, seat: int | str | None = None) -> dict:
        return self._view(seat)

    def seat_name(self, seat: int | str) -> str:
        if seat == CHANCE:
            return "chance"
        if isinstance(seat, int) and 0 <= seat < len(self.players):
            return self.players[seat]
        return str(seat)

    def to_json(self) -> str:
        return json.dumps({"format": SAVE_FORMAT, "game": self.name, "players": self.players,
                           "seed": self.seed, "options": self.options,
                           "log": [[s, a] for s, a in self.log]})

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
