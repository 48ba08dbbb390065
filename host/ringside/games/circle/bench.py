"""`ringside bench circle`: seeded 4-player games, 1 heuristic player against 3 random ones.

    run(n=200, seed=1) -> {"games": n, "errors": 0, "heuristic_win_rate": ..., "heuristic_win_rate_ci95": [lo, hi],
                           "circle_win_rate": ..., "avg_turns": ..., "games_per_second": ...}

Game k uses seed + k; the heuristic player sits in seat k % 4 so no seat is favoured. A shared
win counts as a win. circle_win_rate is how often the Circle itself wins (a balance figure).
An error is a game that raised or did not end within max_actions.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import time

from ringside import games
from ringside.games import CHANCE

from . import bots
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game

PLAYERS = 4


def wilson(k: float, n: int, z: float = 1.96) -> list[float]:
    """The 95 % Wilson score interval of k successes in n trials."""
    if n == 0:
        return [0.0, 1.0]
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return [round(max(0.0, c - h), 4), round(min(1.0, c + h), 4)]


def play(seed: int, hero: int, max_actions: int = 50000) -> Game:
    """One game: the heuristic in seat `hero`, random players elsewhere. Returns the game."""
    g = games.new("circle", ["P%d" % i for i in range(PLAYERS)], seed=seed)
    rng = random.Random(seed * 7919 + 1)
    good = bots.HeuristicBot(seed)
    rand = bots.RandomBot(seed)
    n = 0
    while not g.over:
        if n >= max_actions:
            raise RuntimeError("game %d did not end in %d actions" % (seed, max_actions))
        seat = g.to_act()[0]
        if seat == CHANCE:
            a = g.chance_action()
        elif seat == hero:
            a = good.choose(g, seat, rng)
        else:
            a = rand.choose(g, seat, rng)
        g.apply(seat, a)
        n += 1
    return g


def run(n: int = 200, seed: int = 1) -> dict:
    if n < 1:
        raise ValueError("play at least one game (n >= 1)")
    wins = circle = errors = turns = 0
    t0 = time.perf_counter()
    for k in range(n):
        hero = k % PLAYERS
        try:
            g = play(seed + k, hero)
        except Exception:       # counted, not hidden: the report says how many
            errors += 1
            continue
        wins += hero in g.result["seats"]
        circle += bool(g.result["circle_won"])
        turns += g.state["turn"]
    dt = time.perf_counter() - t0
    done = n - errors
    return {"game": "circle", "games": n, "errors": errors, "players": PLAYERS,
            "heuristic_win_rate": round(wins / done, 4) if done else 0.0,
            "heuristic_win_rate_ci95": wilson(wins, done),
            "circle_win_rate": round(circle / done, 4) if done else 0.0,
            "avg_turns": round(turns / done, 2) if done else 0.0,
            "games_per_second": round(n / dt, 2)}


def main(argv: list[str] | None = None) -> int:
    """python -m ringside.games.circle.bench [-n 200] [--seed 1] [--json]"""
    ap = argparse.ArgumentParser(prog="python -m ringside.games.circle.bench",
                                 description="The Circle: 1 heuristic player against 3 random ones")
    ap.add_argument("-n", type=int, default=200, help="games (default 200)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    try:
        r = run(args.n, args.seed)
    except ValueError as e:
        print("error: %s" % e)
        return 2
    if args.json:
        print(json.dumps(r))
    else:
        for k, v in r.items():
            print("%-26s %s" % (k, v))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
