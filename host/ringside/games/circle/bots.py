"""Computer players for The Circle: choose(game, seat, rng) -> a legal action.

random     any legal action, uniformly (the fuzzer)
good       the heuristic player (also called "heuristic"):
           phase 1  keeps the lead in the divisions it is strongest in (spies at 8 go to the
                    leader), activates colour spies of a division it leads, never overflows a
                    division it leads (an arrest would drop it to 1);
           phase 2  infiltrates every turn with its most valuable ready spy (first using a
                    SUP spy for a second infiltration), uses every other ready spy against the
                    player with the most VP or for itself, never activates its marker; when
                    the Circle nears 20 it captures no more and unmasks if that keeps it ahead;
           phase 3  bids up to a few secrets, uses its auction-secrets spy, warps time when
                    one of its own spies waits at 1;
           cancels homeland spies acting against it, always repels with a bodyguard.
"""
from __future__ import annotations

import random

from ringside.games import CHANCE, IllegalAction

from .cards import COLOURS
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game

CIRCLE_DANGER = 15     # from this Circle VP on, the heuristic stops feeding the Circle
MAX_BID = 4            # secrets the heuristic bids at most for a spy


class _CardBot:
    """What the terminal player asks of any bot: The Circle has no flicks to aim."""
    aims = False
    skill = 0.0

    def wants_flick(self, game, seat) -> bool:
        return False


class RandomBot(_CardBot):
    """A uniformly random legal action."""
    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, game: Game, seat: int, rng: random.Random | None = None) -> dict:
        acts = game.legal_actions(seat)
        if not acts:
            raise IllegalAction("%s has nothing to do now" % game.seat_name(seat))
        return (rng or self.rng).choice(acts)


class HeuristicBot(_CardBot):
    """The heuristic player (see the module docstring)."""
    name = "good"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, game: Game, seat: int, rng: random.Random | None = None) -> dict:
        if seat == CHANCE:
            return game.chance_action()
        acts = game.legal_actions(seat)
        if not acts:
            raise IllegalAction("%s has nothing to do now" % game.seat_name(seat))
        kind = game.state["need"]["kind"]
        fn = getattr(self, "_" + kind, None)
        a = fn(game, seat, acts) if fn else None
        if a is None or a not in acts:
            a = (rng or self.rng).choice(acts)
        return a

    # ----- helpers -----
    @staticmethod
    def _margin(game, me, d):
        sec = [pl["secrets"][d] for pl in game.state["players"]]
        return sec[me] - max(v for p, v in enumerate(sec) if p != me)

    @staticmethod
    def _leader(game, me):
        """The opponent with the most VP."""
        pls = game.state["players"]
        return max((p for p in range(len(pls)) if p != me), key=lambda p: (pls[p]["vp"], -p))

    # ----- set-up -----
    def _agency(self, game, me, acts):
        return acts[0]

    # ----- phase 1 -----
    def _p1(self, game, me, acts):
        s = game.state
        free = [a for a in acts if a["type"] == "free_neutral"]
        if free:
            return max(free, key=lambda a: game.card[a["card"]]["vp"])
        mine = s["players"][me]["secrets"]
        margins = [self._margin(game, me, d) for d in range(4)]
        if s["p1"]["left"] >= 2:
            lead = [d for d in range(4) if margins[d] >= 1]
            tops = [a for a in acts if a["type"] == "activate" and game.card[a["card"]]["colour"] in
                    [COLOURS[d] for d in lead]]
            if tops:
                return max(tops, key=lambda a: (game.card[a["card"]]["vp"], a["card"]))
        # place the secrets one by one in the head, then send the first run to one division
        left = s["p1"]["left"]
        mine = list(mine)
        plan = []
        for _ in range(left):
            ok = [d for d in range(4) if mine[d] < 12] or list(range(4))
            close = [d for d in ok if -3 <= margins[d] <= 1]
            if close:
                d = max(close, key=lambda d: (margins[d], -d))
            else:
                ahead = [d for d in ok if margins[d] >= 2]
                d = min(ahead, key=lambda d: (margins[d], d)) if ahead else max(ok, key=lambda d: margins[d])
            plan.append(d)
            mine[d] += 1
            margins[d] += 1
        n = 1
        while n < len(plan) and plan[n] == plan[0]:
            n += 1
        return {"type": "secret", "division": COLOURS[plan[0]], "n": n}

    # ----- phase 2 -----
    def _p2(self, game, me, acts):
        s = game.state
        pl = s["players"][me]
        circle = s["circle"]
        if circle >= 17:
            others = max(p["vp"] for i, p in enumerate(s["players"]) if i != me)
            for a in sorted((a for a in acts if a["type"] == "unmask"), key=lambda a: -game.card[a["card"]]["vp"]):
                v = game.card[a["card"]]["vp"]
                if pl["vp"] - v >= others and circle - v < circle:
                    return a
        infil = [a for a in acts if a["type"] == "infiltrate"]
        uses = {a["card"]: a for a in acts if a["type"] == "use"}
        sup = [c for c in uses if game.card[c]["type"] == "sup_infiltrate"]
        if infil and sup and len(pl["ready"]) >= 3:
            return uses[sup[0]]
        if infil:
            def value(a):
                inf = pl["infiltrated"] + [a["card"]]
                pl["infiltrated"], keep = inf, pl["infiltrated"]
                m = game.moths(me)
                pl["infiltrated"] = keep
                return game.card[a["card"]]["vp"] + (m - pl["moths"]), a["card"]
            return max(infil, key=value)
        for c, a in sorted(uses.items()):
            t = game.card[c]["type"]
            if t == "ops_capture" and circle >= CIRCLE_DANGER:
                continue
            if t == "sup_infiltrate":
                continue
            return a
        return {"type": "end"}

    def _param(self, game, me, acts):
        s = game.state
        pd = s["pending"]
        t = pd["type"]
        lead = self._leader(game, me)

        def owner(cid):
            h = game.holder(cid)
            if h is not None:
                return h
            gh = game.guard_holder(cid)
            if gh is not None:
                return gh
            w = game.find_wheel(cid)
            return s["wheel"][w[0]][w[1]]["owner"] if w else None

        def score(a):
            if "division" in a:
                d = COLOURS.index(a["division"])
                sec = s["players"][a["seat"]]["secrets"][d]
                if t == "int_gain":
                    if a["seat"] != me:
                        return -10
                    return 5 - abs(self._margin(game, me, d) - 1) - (20 if sec >= 12 else 0)
                return (5 if a["seat"] == lead else 0) + (0 if a["seat"] != me else -20) + sec
            if "front" in a:
                return 1
            if "seat" in a:
                return s["players"][a["seat"]]["vp"]
            c = a["card"]
            o = owner(c)
            vp = game.card[c]["vp"]
            if t == "sup_gain":
                return 10 + vp if o == me else (-5 if o is not None else 0)
            if t == "sup_lose":
                return 5 + vp if o not in (None, me) else -5
            if t in ("ops_remove", "ops_foil", "rec_quit"):
                return -50 if o == me else vp + (3 if o == lead else 0)
            if t == "ops_double":
                if not pd["picks"]:
                    return -50 if o == me else vp
                return 20 - vp if o == me else -vp
            if t == "rec_guard":
                return vp if o == me else -10
            return vp
        return max(acts, key=lambda a: (score(a), str(sorted(a.items()))))

    def _cancel(self, game, me, acts):
        pd = game.state["pending"]
        hits_me = any(pk.get("seat") == me for pk in pd["picks"]) or \
            any("card" in pk and (game.holder(pk["card"]) == me or game.guard_holder(pk["card"]) == me)
                for pk in pd["picks"])
        gain = pd["type"] in ("ops_capture", "sup_infiltrate", "int_gain", "int_auction", "sup_warp")
        actor_vp = game.state["players"][pd["seat"]]["vp"]
        if hits_me or (gain and actor_vp >= game.state["players"][me]["vp"]):
            return {"type": "cancel"}
        return {"type": "allow"}

    def _guard(self, game, me, acts):
        return acts[0]          # repel

    def _division(self, game, me, acts):
        d = max(range(4), key=lambda d: (self._margin(game, me, d), -d))
        return {"type": "division", "division": COLOURS[d]}

    def _auction(self, game, me, acts):
        au = game.state["auction"]
        cap = game.base_strength(me, au["colour"]) + game.spy_bonus(me)
        limit = min(cap, MAX_BID + game.card[au["card"]]["vp"] // 3)
        return {"type": "raise"} if au["bid"] + 1 <= limit else {"type": "drop"}

    def _aspy(self, game, me, acts):
        return acts[0]

    def _pay(self, game, me, acts):
        sec = game.state["players"][me]["secrets"]
        return max(acts, key=lambda a: (sec[COLOURS.index(a["division"])], a["division"]))

    def _warp(self, game, me, acts):
        mine = [e for e in game.state["wheel"][0] if e["owner"] == me]
        if mine and len(acts) > 1:
            return acts[0]
        return {"type": "pass"}


BOTS = {"good": HeuristicBot, "heuristic": HeuristicBot, "random": RandomBot}


def make(level: str = "good", seed: int = 0) -> _CardBot:
    """A bot by level (good = heuristic, random); seed: its own RNG when choose() gets none."""
    if level not in BOTS:
        raise ValueError("no Circle bot %r (there are: %s)" % (level, ", ".join(sorted(BOTS))))
    return BOTS[level](seed)


def choose(game: Game, seat: int, rng: random.Random | None = None) -> dict:
    """The heuristic player's choice (the module-level bot of the contract)."""
    return HeuristicBot().choose(game, seat, rng)


# ----- the levels of the table contract (ringside.bots): weakest first --------------------
EASY_CARE = 0.5    # easy plays the heuristic's move half the time, any legal move otherwise


def _levels():
    from ringside import bots as B
    return {
        "random": lambda seed=0: B.Wrapped("random", RandomBot(seed), seed, pass_rng=True),
        "easy": lambda seed=0: B.Sloppy("easy", B.Wrapped("good", HeuristicBot(seed), seed, pass_rng=True),
                                        EASY_CARE, seed),
        "good": lambda seed=0: B.Wrapped("good", HeuristicBot(seed), seed, pass_rng=True),
    }


LEVELS = _levels()
