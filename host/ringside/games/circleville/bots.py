"""Computer players for Squaring Circleville. A bot is `choose(game, seat) -> action` for a
player seat (the chance seat is the game's: game.chance_action()).

    RandomBot(seed)      a uniformly random legal action (fuzzing, the weakest opponent)
    HeuristicBot(seed)   works towards finishing sections: it picks a target (the unfinished
                         section with least work left, counting the moves to reach it), takes
                         rondel spaces whose colours do that work, places every cube it can,
                         razes, and builds when the structures queue fills up; it beautifies and
                         improves in completed sections when it has nothing better to do.

    make(level, seed=0)  "random", "heuristic" (alias "good")
"""
from __future__ import annotations

import random

from ringside.games import CHANCE, IllegalAction, possessive

from .engine import COLOURS
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game


def _check_turn(game, seat):
    if game.over or seat == CHANCE or seat not in game.to_act():
        raise IllegalAction("it is not %s move" % possessive(game.seat_name(seat)))


class _Bot:
    """What the terminal player asks of a bot: Circleville has no flicks."""
    aims = False
    skill = 0.0

    def wants_flick(self, game, seat) -> bool:
        return False


class RandomBot(_Bot):
    """A uniformly random legal action."""
    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, game: Game, seat: int, rng: random.Random | None = None) -> dict:
        _check_turn(game, seat)
        return self.rng.choice(game.legal_actions(seat))


def distances(game: Game, start: int) -> dict:
    """Supervisor moves from `start` to every section (a completed large section counts as one place)."""
    node = game.supervisor_nodes()
    dist = {node[start]: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for s in frontier:
            for t in game.move_targets(s):
                if node[t] not in dist:
                    dist[node[t]] = dist[node[s]] + 1
                    nxt.append(t)
        frontier = nxt
    return {s: dist.get(node[s], 99) for s in range(1, 21)}


class HeuristicBot(_Bot):
    """Finishes sections: see the module docstring."""
    name = "heuristic"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    # --- what the bot wants
    def _needs_build(self, game) -> bool:
        S = game.state
        if not S["queue"]:
            return False
        return len(S["queue"]) >= game.board["queue_slots"] - 2 or all(
            game.remaining_work(n) == sum(1 for i in game.section(n)["icons"] if not i["cubes"])
            for n in range(1, 21) if not game.section(n)["done"])

    def target(self, game: Game, seat: int) -> int:
        p = game.state["players"][seat]
        dist = distances(game, p["supervisor"])
        if self._needs_build(game):
            plots = [n for n in range(1, 21) if game.section(n)["done"]
                     and any(pl["kind"] is None for pl in game.section(n)["plots"])]
            if plots:
                return min(plots, key=lambda n: (dist[n], n))
        open_ = [n for n in range(1, 21) if not game.section(n)["done"]]
        if not open_:
            return p["supervisor"]
        queue_full = len(game.state["queue"]) >= game.board["queue_slots"]

        def cost(n):
            s, b = game.section(n), game.board["sections"][n]
            roads = (b["red"] - len(s["red"])) + (b["blue"] - len(s["blue"]))
            structs = sum(1 for i in s["icons"] if not i["cubes"])
            return roads + structs * (4 if queue_full else 1) + 2 * dist[n]
        return min(open_, key=lambda n: (cost(n), n))

    def colour_value(self, game: Game, seat: int, c: str, sup: int) -> float:
        s, b = game.section(sup), game.board["sections"][sup]
        lv = game.level(seat, c)
        if c in ("red", "blue"):
            return 0 if s["done"] else min(game.board["levels"][c][lv - 1], b[c] - len(s[c]))
        if c == "orange":
            room = game.board["queue_slots"] - len(game.state["queue"])
            return 0 if s["done"] else 1.5 * min(lv, room, sum(1 for i in s["icons"] if not i["cubes"]))
        plots = sum(1 for x in game.open_plots(sup) for pl in game.section(x)["plots"] if pl["kind"] is None)
        return 2 * min(lv, len(game.state["queue"]), plots) if game.section(sup)["done"] else 0.3

    # --- choosing
    def choose(self, game: Game, seat: int, rng: random.Random | None = None) -> dict:
        _check_turn(game, seat)
        acts = game.legal_actions(seat)
        S = game.state
        ts = S["ts"]
        p = S["players"][seat]
        pd = ts["pending"]
        if pd:
            return self._pending(game, seat, pd, acts)
        if S["phase"] == "rondel":
            return self._rondel(game, seat, acts)
        by = {}
        for a in acts:
            by.setdefault(a["type"], []).append(a)
        # year bonus tiles that only help
        for a in by.get("use_bonus", []):
            if a["kind"] == "build" or (a["kind"] == "raze" and game.section(a["section"])["icons"]
                                        and game.remaining_work(a["section"]) <= 2):
                return a
        sup = p["supervisor"]
        tgt = self.target(game, seat)
        # a far target: jump there with Flexible Supervisor before acting
        if ts["k"] == 0 and sup not in game.area(tgt) and distances(game, sup)[tgt] >= 3:
            for a in by.get("use_bonus", []):
                if a["kind"] == "flexible_supervisor" and a["to"] == tgt:
                    return a
        # New Plot in a completed section of the quadrant where the bot leads least
        if p["supply"] > 10:
            plots = [a for a in by.get("use_bonus", []) if a["kind"] == "new_plot"]
            if plots:
                return min(plots, key=lambda a: (p["markers"][game.board["sections"][a["section"]]["quadrant"] - 1],
                                                 a["section"]))
        # basic actions placing the most work where the supervisor stands
        basics = [a for a in by.get("act", []) if a["action"] in COLOURS and not a.get("boost")]
        if basics:
            best = max(basics, key=lambda a: self.colour_value(game, seat, a["action"], sup))
            if self.colour_value(game, seat, best["action"], sup) > 0.5 or (game.section(sup)["done"] and best["action"] == "green"):
                return best
        # move towards the target
        if tgt != sup and by.get("move") and sup not in game.area(tgt):
            dist = distances(game, tgt)
            step = min(by["move"], key=lambda a: (dist[a["to"]], a["to"]))
            if dist[step["to"]] < dist[sup]:
                return step
        alts = [a for a in by.get("act", []) if a["action"] not in COLOURS and not a.get("boost")]
        if alts:
            for kind in ("achievement", "improve", "beautify"):
                cand = [a for a in alts if a["action"] == kind and "return" not in a]
                if cand:
                    return cand[0]
            if tgt != sup and sup not in game.area(tgt):
                cand = [a for a in alts if a["action"] == "move"]
                if cand:
                    return cand[0]
            if len(p["tiles"]) < game.board["tile_slots"] - 1:
                cand = [a for a in alts if a["action"] == "equipment"]
                if cand:
                    return self.rng.choice(cand)
            if basics:
                return max(basics, key=lambda a: self.colour_value(game, seat, a["action"], sup))
            cand = [a for a in alts if a["action"] == "move"]
            if cand:
                return cand[0]
        return {"type": "end_turn"}

    def _pending(self, game, seat, pd, acts):
        kind = pd["kind"]
        if kind == "place_flipped":
            mat = game.state["players"][seat]["mat"]
            return min(acts, key=lambda a: (len(mat[a["colour"]]), COLOURS.index(a["colour"])))
        if kind in ("beautify_again", "road_cube"):
            return acts[0]
        if kind == "move":
            sup = game.state["players"][seat]["supervisor"]
            tgt = self.target(game, seat)
            dist = distances(game, tgt)
            moves = [a for a in acts if a["type"] == "move"]
            if moves and sup not in game.area(tgt):
                step = min(moves, key=lambda a: (dist[a["to"]], a["to"]))
                if dist[step["to"]] < dist[sup]:
                    return step
            return {"type": "stop"}
        if kind == "orange":
            order = {"golden": 0, "silver": 1, "brown": 2, "natural": 3}
            razes = [a for a in acts if a["type"] == "raze"]
            if razes:
                return min(razes, key=lambda a: order[a["structure"]])
        return acts[0] if acts[0]["type"] != "pull" else {"type": "stop"}

    def _rondel(self, game, seat, acts):
        S = game.state
        sup = S["players"][seat]["supervisor"]
        tgt = self.target(game, seat)
        here = sup if sup in game.area(tgt) else tgt

        def value(a):
            if a.get("bonus"):
                return -1
            k = a["space"]
            cols = [game.board["rondel"][k]]
            st = S["stacks"][k]
            if st and st[-1] is not None:
                cols.append(st[-1])
            v = sum(self.colour_value(game, seat, c, here) for c in cols)
            v += 0.5 * (len(cols) == 2)
            if st and st[-1] is not None:
                v += 0.2 * (5 - game.mat_level(seat, st[-1]))   # a tile for a low column
            return v + self.rng.random() * 0.01
        return max([a for a in acts if a["type"] == "rondel"], key=value)


BOTS = {"random": RandomBot, "heuristic": HeuristicBot, "good": HeuristicBot}


def make(level: str = "heuristic", seed: int = 0) -> _Bot:
    if level not in BOTS:
        raise ValueError("no Circleville bot %r (there are: %s)" % (level, ", ".join(sorted(BOTS))))
    return BOTS[level](seed)


def play_game(bots: list, seed: int = 0, max_actions: int = 30000, options: dict | None = None) -> Game:
    """Play one seeded game with one bot per seat; returns the game (over unless max_actions ran out)."""
    import ringside.games as G
    g = G.new("circleville", ["P%d" % (i + 1) for i in range(len(bots))], seed=seed, options=options or {})
    n = 0
    while not g.over and n < max_actions:
        seat = g.to_act()[0]
        g.apply(seat, g.chance_action() if seat == CHANCE else bots[seat].choose(g, seat))
        n += 1
    return g


# ----- the levels of the table contract (ringside.bots): weakest first --------------------
EASY_CARE = 0.5    # easy plays the heuristic's move half the time, any legal move otherwise


def _levels():
    from ringside import bots as B
    return {
        "random": lambda seed=0: B.Wrapped("random", RandomBot(seed), seed),
        "easy": lambda seed=0: B.Sloppy("easy", B.Wrapped("good", HeuristicBot(seed), seed),
                                        EASY_CARE, seed),
        "good": lambda seed=0: B.Wrapped("good", HeuristicBot(seed), seed),
    }


LEVELS = _levels()
