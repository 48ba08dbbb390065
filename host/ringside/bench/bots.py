"""`ringside bench bots`: how often each game's beginner level ("easy") loses to "good".

Every game plays n seeded games: one easy computer player against good ones (as many as the
game's fewest players need), the easy seat moving round the table from game to game; chance
comes from the game's seeded RNG and each flick from the skill model, as a table without a
marble would. Reported per game: easy's wins, losses and shared wins, its loss rate, and the
rate a player with no edge would lose at (1 - 1/players), for comparison.
"""
from __future__ import annotations

import time

from ringside import bots as B
from ringside import games
from ringside.games import CHANCE
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game

MAX_ACTIONS = 20000


def play(name: str, levels: list[str], seed: int) -> Game:
    """One game with a bot per seat at the given levels; returns it (unfinished if it ran long)."""
    players = ["P%d" % (i + 1) for i in range(len(levels))]
    cls = games.game_class(name)
    opts = {"computer": list(range(len(levels)))} if "computer" in cls.default_options else {}
    g = games.new(name, players, seed=seed, options=opts)
    seat_bots = [B.make(g, lv, seed=seed * 10 + i) for i, lv in enumerate(levels)]
    n = 0
    while not g.over and n < MAX_ACTIONS:
        s = g.to_act()[0]
        g.apply(s, g.chance_action() if s == CHANCE else seat_bots[s].choose(g, s))
        n += 1
    return g


def _winner_seats(g) -> list:
    names = g.players
    return [w if isinstance(w, int) else names.index(w) for w in (g.result or {}).get("winners", [])]


def run_game(name: str, n: int = 20, seed: int = 1, weak: str = "easy", strong: str = "good") -> dict:
    cls = games.game_class(name)
    k = max(2, cls.min_players)
    won = lost = shared = unfinished = 0
    t0 = time.perf_counter()
    for i in range(n):
        me = i % k
        levels = [strong] * k
        levels[me] = weak
        g = play(name, levels, seed + i)
        if not g.over:
            unfinished += 1
            continue
        w = _winner_seats(g)
        if me in w:
            if len(w) == 1:
                won += 1
            else:
                shared += 1
        else:
            lost += 1
    done = n - unfinished
    return {"players": k, "games": n, "finished": done, "easy_won": won, "easy_lost": lost, "shared": shared,
            "easy_loss_rate": round(lost / done, 3) if done else None,
            "no_edge_loss_rate": round(1 - 1.0 / k, 3), "seconds": round(time.perf_counter() - t0, 1)}


def run(n: int = 20, seed: int = 1, names: list[str] | None = None) -> dict:
    return {name: run_game(name, n, seed) for name in (names or games.names())}
