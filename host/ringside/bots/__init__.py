"""Computer players: one Bot base with one `choose(game, seat) -> action`, and each game's
levels (ARCHITECTURE.md, "Bots"; docs/table-contract.md).

A game declares its levels in `capabilities.bot_levels` (weakest first) and its default in
`capabilities.default_level`; its `games/<game>/bots.py` gives `LEVELS`, a dict from level to
a factory `make(seed) -> Bot`. Every game has "random" (any legal action), "easy" (a level a
beginner can beat) and "good"; `ringside bench bots` measures how often easy loses to good.

    bot = ringside.bots.make(game, "easy", seed=7)   # None: the game's default level
    action = bot.choose(game, seat)                 # a legal action for seat, now
    bot.aim(game, seat)                             # on the ring: the signed travel it aims at
                                                    # for the flick that is due (None: no aim)

A bot that aims lets a table with a simulated marble flick it for real (with `bot.skill`);
with no marble, choose() gives the flick's result from the skill model. Each bot draws from
its own RNG, seeded when it is made, so a seeded game's computer players are repeatable.
"""
from __future__ import annotations

import importlib
import random

from ringside.games import GameError, game_class
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game
    from typing import Any


class Bot:
    """A computer player at one level. Subclasses implement choose()."""

    skill: float | None = None        # flicking skill 0..1 when it flicks a marble

    def __init__(self, level: str, seed: int = 0):
        self.level = level
        self.rng = random.Random(seed)

    def __repr__(self) -> str:
        return "%s(%s)" % (type(self).__name__, self.level)

    def choose(self, game: Game, seat: int) -> dict:
        """A legal action for seat (seat must be one of game.to_act())."""
        raise NotImplementedError

    def aim(self, game: Game, seat: int) -> float | None:
        """The signed travel (degrees, + = anticlockwise) this bot aims its due flick at, or
        None when it does not aim (no flick is due, or it only picks a listed result)."""
        return None


class RandomBot(Bot):
    """Any legal action, uniformly (the fuzzer, and the weakest opponent)."""

    def choose(self, game: Game, seat: int) -> dict:
        return self.rng.choice(game.legal_actions(seat))


class FirstLegal(Bot):
    """A seat whose printed rules leave it one step at a time (Circleville's solo players):
    it plays the first legal action."""

    def choose(self, game: Game, seat: int) -> dict:
        return game.legal_actions(seat)[0]


class Wrapped(Bot):
    """A game's own computer player, `inner.choose(game, seat)` (its own RNG inside), or with
    pass_rng `inner.choose(game, seat, rng)` (this bot's RNG)."""

    def __init__(self, level: str, inner: Any, seed: int = 0, pass_rng: bool = False):
        super().__init__(level, seed)
        self.inner = inner
        self.pass_rng = pass_rng
        self.skill = getattr(inner, "skill", None)

    def choose(self, game: Game, seat: int) -> dict:
        if self.pass_rng:
            return self.inner.choose(game, seat, self.rng)
        return self.inner.choose(game, seat)


class Flicking(Wrapped):
    """A Circles computer player (circles_common.Bot): it aims its flicks, so a table with a
    simulated marble flicks that marble; choose() gives a result from the skill model."""

    def __init__(self, level: str, inner: Any, seed: int = 0):
        super().__init__(level, inner, seed, pass_rng=True)

    def aim(self, game: Game, seat: int) -> float | None:
        if not self.inner.aims or not self.inner.wants_flick(game, seat):
            return None
        return self.inner.aim(game, seat, self.rng)


class Sloppy(Bot):
    """A beginner's level made from a better one: it plays `good`'s move with probability
    `care`, else any legal action (a beginner who sees the good move only some of the time)."""

    def __init__(self, level: str, good: Bot, care: float, seed: int = 0):
        super().__init__(level, seed)
        self.good = good
        self.care = float(care)
        self.skill = good.skill

    def choose(self, game: Game, seat: int) -> dict:
        if self.rng.random() < self.care:
            return self.good.choose(game, seat)
        return self.rng.choice(game.legal_actions(seat))

    def aim(self, game: Game, seat: int) -> float | None:
        return self.good.aim(game, seat)


def _cls(game):
    return game if isinstance(game, type) else type(game)


def levels(game: Game) -> tuple:
    """A game's (or game class's) computer levels, weakest first."""
    return tuple(_cls(game).capabilities.bot_levels)


def default_level(game: Game) -> str:
    return _cls(game).capabilities.default_level


def describe_levels(game: Game) -> str:
    """"random, easy, good (default)" for help and errors."""
    d = default_level(game)
    return ", ".join(lv + (" (default)" if lv == d else "") for lv in levels(game))


# the names earlier versions used (saves keep a seat's level): the same players
ALIASES = {"weak": "easy", "greedy": "good", "heuristic": "good"}


def check_level(game: Game, level: str | None) -> str:
    """The level to use (None: the default); GameError in one line listing the levels."""
    cls = _cls(game)
    lv = level or default_level(cls)
    if lv not in levels(cls) and ALIASES.get(lv) in levels(cls):
        lv = ALIASES[lv]
    if lv not in levels(cls):
        raise GameError("no %s bot %r: the computer's levels are %s"
                        % (cls.title or cls.name, lv, describe_levels(cls)))
    return lv


def make(game: Game, level: str | None = None, seed: int = 0) -> Bot:
    """A computer player for game (an engine or its name) at level (None: the default)."""
    cls = game_class(game) if isinstance(game, str) else _cls(game)
    lv = check_level(cls, level)
    mod_name = "ringside.games.%s.bots" % cls.name
    try:
        mod = importlib.import_module(mod_name)
    except ModuleNotFoundError as e:
        if e.name != mod_name:
            raise
        mod = None
    table = getattr(mod, "LEVELS", None) or {"random": lambda seed=0: RandomBot("random", seed)}
    if lv not in table:
        raise GameError("%s declares the computer level %r but its bots.py does not give it"
                        % (cls.title or cls.name, lv))
    bot = table[lv](seed)
    bot.level = lv
    return bot


__all__ = ["Bot", "RandomBot", "FirstLegal", "Wrapped", "Flicking", "Sloppy", "levels", "default_level",
           "describe_levels", "check_level", "make"]
