"""`ringside bench circleville --json`: seeded 4-heuristic-player self-play.

    run(n=200, seed=1) -> {"game": "circleville", "games": n, "errors": 0, "completed_town": ...,
                           "games_per_second": ..., "avg_score": ..., "avg_turns": ...}

An error is a game that raised or did not end within max_actions (a self-playing game that
never ends is a bug, so it is counted, never capped silently). completed_town counts games
that ended because the last section was completed (the other ending is the 3 VP tile).
"""
from __future__ import annotations

import random
import time

from ringside.games import GameError

from . import bots as B


def run(n: int = 200, seed: int = 1, players: int = 4, max_actions: int = 30000) -> dict:
    if n < 1:
        raise ValueError("the number of games must be at least 1, not %d" % n)
    rng = random.Random(seed)
    errors = completed = turns = 0
    scores = []
    t0 = time.perf_counter()
    for _ in range(n):
        gseed = rng.randrange(2 ** 31)
        try:
            g = B.play_game([B.HeuristicBot(gseed + i) for i in range(players)], seed=gseed, max_actions=max_actions)
        except GameError:
            errors += 1
            continue
        if not g.over:
            errors += 1
            continue
        completed += all(s["done"] for s in g.state["sections"])
        turns += g.state["turns"]
        scores.extend(g.result["scores"].values())
    dt = time.perf_counter() - t0
    ok = n - errors
    return {"game": "circleville", "games": n, "seed": seed, "players": players, "errors": errors,
            "completed_town": completed, "games_per_second": round(n / dt, 2),
            "avg_score": round(sum(scores) / len(scores), 1) if scores else None,
            "avg_turns": round(turns / ok, 1) if ok else None}


if __name__ == "__main__":   # python -m ringside.games.circleville.bench [n] [seed]
    import json
    import sys
    print(json.dumps(run(int(sys.argv[1]) if len(sys.argv) > 1 else 200, int(sys.argv[2]) if len(sys.argv) > 2 else 1)))
