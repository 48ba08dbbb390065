"""`ringside bench games` (engine throughput): seeded bot self-play, games per second.

    run("darts", 200, seed=1) -> {"game": "darts", "games": 200, "errors": 0,
                                  "games_per_second": ..., "avg_actions_per_game": ..., ...}
    run_all(n, seed) -> {name: run(name, n, seed) for every registered game}

Each seat is the game's real bot (its bots.make("good"), else its first non-random
bots.BOTS entry, else bots.choose, else random legal moves), with the
flicks spread by the skill model and no ring attached; chance comes from the game's
seeded RNG. An error is a game that raised or did not end within max_actions.
"ended_by" counts the finished games by the result's reason, with the players' names and
the numbers in it replaced ("a player reached N points"), e.g. how many Doubles games the
players ended by agreement.
Wall-clock numbers depend on the machine: compare ratios, not absolute values.
"""
from __future__ import annotations

import importlib
import inspect
import random
import re
import time

from ringside import games
from ringside.games import CHANCE, GameError
from ringside.errors import UsageError


def _with_rng(fn):
    """choose(game, seat, rng) from a choose that may take (game, seat) only (ARCHITECTURE)."""
    try:
        n = len([p for p in inspect.signature(fn).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
    except (TypeError, ValueError):
        n = 3
    if n >= 3:
        return fn
    return lambda game, seat, rng: fn(game, seat)


def _bots_of(name: str, level: str):
    try:
        mod = importlib.import_module("ringside.games.%s.bots" % name)
    except ImportError:
        mod = None
    if mod is not None and hasattr(mod, "make"):
        levels = [level] + [k for k in getattr(mod, "BOTS", {}) if k not in (level, "random", "weak")]
        for lv in levels:       # that level, else the game's first real (non-random) bot
            try:
                return _with_rng(mod.make(lv).choose)
            except (ValueError, KeyError, TypeError, GameError):
                continue
    if mod is not None and hasattr(mod, "choose"):
        return _with_rng(mod.choose)

    def random_legal(game, seat, rng):
        return rng.choice(game.legal_actions(seat))
    return random_legal


def run(game: str, n: int = 100, seed: int = 1, players: int | None = None, level: str = "good",
        max_actions: int = 20000) -> dict:
    """Play n seeded self-play games of `game`; return throughput and error counts."""
    cls = games.game_class(game)
    if n < 1:
        raise UsageError("the number of games must be at least 1")
    choose = _bots_of(game, level)
    errors = []
    actions = 0
    finished = 0
    ended_by: dict = {}
    t0 = time.perf_counter()
    for k in range(n):
        np_ = players or min(cls.max_players, max(cls.min_players, 2 + k % 3))
        rng = random.Random(seed * 1000003 + k)
        try:
            g = games.new(game, ["bot%d" % i for i in range(np_)], seed=seed * 7919 + k)
            steps = 0
            while not g.over and steps < max_actions:
                seat = g.to_act()[0]
                a = g.chance_action() if seat == CHANCE else choose(g, seat, rng)
                g.apply(seat, a)
                steps += 1
            actions += steps
            if g.over:
                finished += 1
                why = _reason_kind(str((g.result or {}).get("reason", "")), g.players)
                ended_by[why] = ended_by.get(why, 0) + 1
            else:
                errors.append("game %d did not end in %d actions" % (k, max_actions))
        except Exception as e:   # a bench counts failures instead of stopping at the first
            errors.append("game %d: %s: %s" % (k, type(e).__name__, e))
    dt = time.perf_counter() - t0
    return {"game": game, "games": n, "finished": finished, "errors": len(errors),
            "error_samples": errors[:5], "seconds": round(dt, 3),
            "games_per_second": round(n / dt, 2) if dt > 0 else None,
            "actions_per_second": round(actions / dt, 1) if dt > 0 else None,
            "avg_actions_per_game": round(actions / n, 1), "bot": level, "seed": seed,
            "ended_by": dict(sorted(ended_by.items(), key=lambda kv: -kv[1]))}


def _reason_kind(reason: str, players) -> str:
    """A result's reason without names and numbers, to count games by how they ended."""
    for name in sorted(players, key=len, reverse=True):
        reason = reason.replace(name, "a player")
    return re.sub(r"\d+", "N", reason)


GAMES = games.names()          # every registered game (`ringside bench games` with no names)


def run_all(n: int = 100, seed: int = 1, level: str = "good") -> dict:
    """One entry per registered game, keyed by its name."""
    return {name: run(name, n, seed, level=level) for name in games.names()}
