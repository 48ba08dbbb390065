"""`ringside bench solo --json`: how strong the Circleville solo players are.

    run(games=200, seed=1, difficulty=0) -> {"bertha": {...}, "carsten": {...}, "denzel": {...},
                                            "katherine": {...}, "trios": {...}}

Each solo player alone plays `games` seeded games against the person's seat played by the
multiplayer heuristic bot (circleville/bots.py); "trios" plays `games` games spread evenly over
the four combinations of three solo players. Each entry:

    games           games played
    errors          games that raised or did not end within max_actions (must be 0)
    completed_town  games that ended with every section complete
    avg_score       the solo player's average final score (trios: over the three solo seats)
    human_win_rate  how often the heuristic person wins outright (ahead of every solo player)
    avg_human_score, solo_win_rate, avg_turns, seconds    for reading the figures

A solo player missing from the registry is an error entry ({"error": ..., "errors": games}),
never a crash.
"""
from __future__ import annotations

import itertools
import random
import time

from ringside.games import CHANCE
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game

NAMES = ("bertha", "carsten", "denzel", "katherine")


def play_game(solo: str | list[str], seed: int, difficulty: int = 0, max_actions: int = 30000) -> Game:
    """One seeded game: the person (seat 0) played by the heuristic bot, the solo seats by their rules."""
    import ringside.games as G
    from ringside.games.circleville import bots as B
    from .framework import PLAYERS
    g = G.new("circleville", ["You"] + [PLAYERS[n].title if n in PLAYERS else n for n in solo], seed=seed,
              options={"solo": list(solo), "difficulty": difficulty})
    bot = B.HeuristicBot(seed)
    n = 0
    while not g.over and n < max_actions:
        seat = g.to_act()[0]
        if seat == CHANCE:
            a = g.chance_action()
        elif seat == 0:
            a = bot.choose(g, 0)
        else:
            a = g.legal_actions(seat)[0]
        g.apply(seat, a)
        n += 1
    return g


def _measure(lineups, seed: int, difficulty: int, max_actions: int) -> dict:
    """Play one game per lineup (seeds from `seed`) and sum up."""
    from .framework import known
    have = set(known())
    rng = random.Random(seed)
    t0 = time.perf_counter()
    games = errors = completed = human_wins = solo_wins = turns = 0
    solo_scores, human_scores = [], []
    first_error = None
    for solo in lineups:
        gseed = rng.randrange(2 ** 31)
        games += 1
        missing = [n for n in solo if n not in have]
        if missing:
            errors += 1
            first_error = first_error or "no solo player called %s is registered" % ", ".join(missing)
            continue
        try:
            g = play_game(solo, gseed, difficulty, max_actions)
        except Exception as e:   # counted and reported: the bench must finish and say what failed
            errors += 1
            first_error = first_error or "%s: %s" % (type(e).__name__, e)
            continue
        if not g.over:
            errors += 1
            first_error = first_error or "a game did not end within %d actions" % max_actions
            continue
        completed += all(s["done"] for s in g.state["sections"])
        turns += g.state["turns"]
        sc = g.result["scores"]
        win = g.result["winners"]
        human_scores.append(sc["You"])
        solo_scores.extend(sc[g.players[s]] for s in g.solo_players)
        human_wins += win == ["You"]
        solo_wins += "You" not in win
    ok = games - errors
    out = {"games": games, "errors": errors, "completed_town": completed,
           "avg_score": round(sum(solo_scores) / len(solo_scores), 1) if solo_scores else None,
           "human_win_rate": round(human_wins / ok, 3) if ok else None,
           "avg_human_score": round(sum(human_scores) / len(human_scores), 1) if human_scores else None,
           "solo_win_rate": round(solo_wins / ok, 3) if ok else None,
           "avg_turns": round(turns / ok, 1) if ok else None,
           "seconds": round(time.perf_counter() - t0, 1)}
    if first_error:
        out["error"] = first_error
    return out


def run(games: int = 200, seed: int = 1, difficulty: int = 0, max_actions: int = 30000) -> dict:
    """The solo bench: each solo player alone, then the four trios (see the module docstring)."""
    if games < 1:
        raise ValueError("the number of games must be at least 1, not %d" % games)
    if isinstance(difficulty, bool) or not isinstance(difficulty, int) or difficulty < 0:
        raise ValueError("difficulty is a whole number from 0, not %r" % (difficulty,))
    out = {}
    for k, name in enumerate(NAMES):
        out[name] = _measure([(name,)] * games, seed + k, difficulty, max_actions)
    trios = list(itertools.combinations(NAMES, 3))
    out["trios"] = _measure([trios[i % len(trios)] for i in range(games)], seed + len(NAMES), difficulty, max_actions)
    out["trios"]["lineups"] = [", ".join(t) for t in trios]
    for v in out.values():
        v["difficulty"] = difficulty
    return out


if __name__ == "__main__":   # python -m ringside.games.circleville.solo.bench [games] [seed] [difficulty]
    import json
    import sys
    a = [int(x) for x in sys.argv[1:4]]
    print(json.dumps(run(*a)))
