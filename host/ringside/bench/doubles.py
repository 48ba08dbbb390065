"""`ringside bench doubles` / `bench games`: Doubles engine throughput and bot strength.

run(n, seed) plays, with seeds derived from `seed`:
  - random self-play through the engine (legal_actions + apply, chance from the game's RNG)
    for a few seconds: games and actions per second;
  - three two-player matches of n games each: strong vs random, strong vs greedy, greedy vs
    random. Seats alternate game by game (the coin toss still picks who starts); a draw (a
    shared win, or a game that hits the action cap) counts as half a win.
Each rate comes with a 95% Wilson interval (`<name>_ci95`). Strong-move times are wall
times of StrongBot.choose at its default budget.
Matches run in worker processes (one game per task, so the results do not depend on how
many processes there are, unless the strong bot runs out of time on a loaded machine:
`strong_moves_out_of_time` counts that).
"""
from __future__ import annotations

import math
import os
import random
import time
from ringside.errors import UsageError
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

MAX_ACTIONS = 6000        # a match game longer than this is stopped and counted a draw
STALL_ACTIONS = 400       # ... and so is one where only turns were made for this many actions
SELF_PLAY_SECONDS = 3.0
MATCHES = (("strong", "random"), ("strong", "greedy"), ("greedy", "random"))


def wilson(score: float, n: int, z: float = 1.96) -> list:
    """95% Wilson score interval of a rate `score / n` (draws counted as half)."""
    if n <= 0:
        return [0.0, 1.0]
    p = score / n
    den = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def _pct(values, p):
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(math.ceil(p / 100.0 * len(v))) - 1))]


def _one_game(task):
    """Play game i of a match a-vs-b. Returns (a's score 0/0.5/1, actions, strong move ms list,
    out-of-time count, ended)."""
    from ringside.games.doubles import bots as B
    a, b, i, seed = task
    gseed = seed * 100003 + i
    bot_a = B.make(a, gseed * 2 + 1)
    bot_b = B.make(b, gseed * 2 + 2)
    a_seat = i % 2
    seats = [bot_a, bot_b] if a_seat == 0 else [bot_b, bot_a]
    times = []
    timed = [s for s in seats if isinstance(s, B.StrongBot)]
    out_of_time = [0]

    class _Timed:
        def __init__(self, bot):
            self.bot = bot

        def choose(self, game, seat):
            t = time.perf_counter()
            act = self.bot.choose(game, seat)
            times.append((time.perf_counter() - t) * 1000.0)
            if self.bot.last.get("out_of_time"):
                out_of_time[0] += 1
            return act

    seats = [_Timed(s) if s in timed else s for s in seats]
    g = B.play_game(seats, seed=gseed, max_actions=MAX_ACTIONS, stall_actions=STALL_ACTIONS)
    if not g.over:
        score = 0.5
        sc = g.state["scores"]
        other = 1 - a_seat
        scored = 1.0 if sc[a_seat] > sc[other] else (0.0 if sc[a_seat] < sc[other] else 0.5)
    else:
        w = g.result["winners"]
        score = scored = (1.0 / len(w)) if a_seat in w else 0.0
    return score, len(g.log), times, out_of_time[0], g.over, scored


def self_play(seconds: float, seed: int) -> dict:
    """Random self-play through the engine for about `seconds`: games and actions per second."""
    import ringside.games as games
    rng = random.Random(seed)
    t0 = time.perf_counter()
    n_games = n_actions = 0
    while time.perf_counter() - t0 < seconds or n_games == 0:
        g = games.new("doubles", ["A", "B"], seed=rng.randrange(2 ** 31))
        games.play_random(g, rng)
        n_games += 1
        n_actions += len(g.log)
    dt = time.perf_counter() - t0
    return {"self_play_games_per_s": round(n_games / dt, 2),
            "self_play_actions_per_s": round(n_actions / dt, 1),
            "self_play_games": n_games}


def run(n: int = 400, seed: int = 1, processes: int | None = None, progress: Callable[[str], None] | None = None) -> dict:
    """Self-play throughput and the three bot matches of n two-player games each (JSON-able)."""
    if n < 1:
        raise UsageError("the number of games must be at least 1, not %d" % n)
    out = {"game": "doubles", "games": n, "seed": seed}
    out.update(self_play(SELF_PLAY_SECONDS, seed))
    tasks = [(a, b, i, seed) for a, b in MATCHES for i in range(n)]
    procs = processes or min(len(tasks), os.cpu_count() or 1)
    t0 = time.perf_counter()
    if procs > 1:
        import multiprocessing as mp
        with mp.get_context("spawn" if os.name == "nt" else "fork").Pool(procs) as pool:
            results = []
            for k, r in enumerate(pool.imap(_one_game, tasks, chunksize=1)):
                results.append(r)
                if progress and (k + 1) % 50 == 0:
                    progress("%d/%d games" % (k + 1, len(tasks)))
    else:
        results = []
        for k, t in enumerate(tasks):
            results.append(_one_game(t))
            if progress and (k + 1) % 50 == 0:
                progress("%d/%d games" % (k + 1, len(tasks)))
    strong_ms = []
    oot = 0
    for m, (a, b) in enumerate(MATCHES):
        rs = results[m * n:(m + 1) * n]
        score = sum(r[0] for r in rs)
        key = "%s_vs_%s_win_rate" % (a, b)
        out[key] = round(score / n, 4)
        out[key + "_ci95"] = wilson(score, n)
        out["%s_vs_%s_draws" % (a, b)] = sum(1 for r in rs if r[0] == 0.5)
        out["%s_vs_%s_unfinished" % (a, b)] = sum(1 for r in rs if not r[4])
        # the same games with each unfinished one decided by the score when it stopped
        out[key + "_unfinished_by_score"] = round(sum(r[5] for r in rs) / n, 4)
        out["%s_vs_%s_mean_actions" % (a, b)] = round(sum(r[1] for r in rs) / n, 1)
        for r in rs:
            strong_ms.extend(r[2])
            oot += r[3]
    out["strong_moves"] = len(strong_ms)
    out["strong_move_ms_p50"] = round(_pct(strong_ms, 50), 2) if strong_ms else None
    out["strong_move_ms_p95"] = round(_pct(strong_ms, 95), 2) if strong_ms else None
    out["strong_move_ms_max"] = round(max(strong_ms), 2) if strong_ms else None
    out["strong_moves_out_of_time"] = oot
    out["match_seconds"] = round(time.perf_counter() - t0, 1)
    out["processes"] = procs
    return out


if __name__ == "__main__":  # python -m ringside.bench.doubles [n] [seed]
    import json
    import sys
    args = [int(x) for x in sys.argv[1:3]]
    print(json.dumps(run(*args), indent=1))
