"""Computer players for Wild West: choose(game, seat, rng) -> action.

random  any legal action (the fuzzer; flicks are representative results)
weak    flicks clockwise at a random distance with a beginner's spread, decides at random
good    aims for the space worth most to it under its own spread (the ranch with 2 rubies,
        the mine with a wagon, gold, digging with a shovel, interest at the bank, ...),
        rides train tickets to a better space, banks to double its money, buys a wagon
        and a shovel, robs the richest, buys out of the saloon rather than risk a ruby.
Worth is counted in silver (1 gold = 3, 1 ruby = 9).
"""
from __future__ import annotations


from ringside.games import circles_common as cc
from ringside.games.wildwest import money as M
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game
    import random

GOOD_SKILL = 0.85
WEAK_SKILL = 0.3
TICKET_WORTH = 1.5
WIN = 10000.0


def _bag_worth(game):
    bag = game.state["bag"]
    total = sum(bag.values())
    if not total:
        return 0.0, 0.0
    worth = sum(bag[k] * M.VALUE[k] for k in M.KINDS) / total
    return worth, bag["stone"] / total


def space_worth(game: Game, me: int, sid: str) -> float:
    """What resolving space sid is worth to seat me now (silver)."""
    s = game.state
    kind = cc.space_kind(sid)
    purse = s["purse"][me]
    n = len(game.players)
    if kind == "ranch":
        return WIN if purse["ruby"] >= game.data["ranch_rubies"] else 0.0
    if kind == "gold":
        return 3.0
    if kind == "mine":
        if not s["wagons"][me]:
            return 0.0
        for m in s["mine"]:
            if M.count(m):
                return float(M.value(m))
        return 0.0
    if kind == "money-bag":
        return 1.0 - 1.0 * (n - 1) / n
    if kind == "bank":
        dep = M.value(s["bank"][me])
        return float(dep) if dep else 0.3 * M.value(purse)
    if kind == "dig":
        if not s["shovels"][me]:
            return 0.0
        worth, stone = _bag_worth(game)
        return worth - stone * 1.0
    if kind == "shop":
        return 1.0 if (not s["wagons"][me] or not s["shovels"][me]) and M.value(purse) >= 3 else 0.0
    if kind == "donation-bowl":
        return _donation_worth(game, me)
    if kind == "bandit":
        faces = game.data["bandit_die"]
        v = 0.0
        for f in faces:
            if f in M.KINDS:
                v += M.VALUE[f]
            elif f == "bank":
                v += sum(M.value(s["bank"][p]) for p in range(n) if p != me)
            elif f == "donation":
                v += _donation_worth(game, me)
            else:
                v += 1.0
        return v / len(faces)
    return 0.0


def _donation_worth(game, me):
    s = game.state
    free = [i for i, b in enumerate(s["bowl"]) if b is None]
    inside = sum(M.value(b) for b in s["bowl"] if b is not None)
    if free:
        need = game.data["donation_bowl"][free[0]]
        p, r, slot = dict(s["purse"][me]), dict(s["reserve"]), M.empty()
        if all(M.pay(p, r, k, slot, need[k]) for k in M.KINDS if need[k]):
            return -float(M.value(need))
    return float(inside)


def _with_tickets(game, me, sid, tickets):
    """Best worth of sid or a space up to `tickets` spaces on, less the tickets spent."""
    best = space_worth(game, me, sid)
    cur = sid
    for k in range(1, tickets + 1):
        cur = game.side.step(cur, cc.CW)
        best = max(best, space_worth(game, me, cur) - TICKET_WORTH * k)
    return best


def good_aim(bot: cc.Bot, game: Game, seat: int, rng: random.Random) -> float:
    req = game.flick_request()
    if req["purpose"] == "saloon":
        return -375.0
    origin = req["from"]
    s = game.state
    cache = {}

    def value(f):
        if not game.valid_flick(f):
            return -1.0
        if f.space not in cache:
            cache[f.space] = _with_tickets(game, seat, f.space, s["tickets"][seat])
        return cache[f.space]

    lim = game.max_travel * 0.97
    targets = []
    for sid in game.side.ids:
        for laps in (0, 1):
            t = game.side.travel_to(origin, sid, cc.CW, laps)
            if t != 0 and abs(t) <= lim and cc.steps_for(game.side, origin, sid, t)[1] >= game.data["min_steps"]:
                targets.append(t)
    return cc.best_aim(game, origin, bot.skill, value, targets)


def good_decide(bot: cc.Bot, game: Game, seat: int, rng: random.Random) -> dict:
    s = game.state
    ph = s["phase"]
    legal = game.legal_actions(seat)
    types = {a["type"] for a in legal}
    purse = s["purse"][seat]
    if ph == "tickets":
        here = space_worth(game, seat, s["marble"])
        best = _with_tickets(game, seat, s["marble"], s["tickets"][seat])
        return {"type": "ticket"} if best > here + 1e-9 else {"type": "resolve"}
    if ph == "bank":
        withdraw = [a for a in legal if a["type"] == "withdraw"]
        if withdraw:
            return max(withdraw, key=lambda a: M.VALUE[a["piece"]])
        if purse["ruby"] < game.data["ranch_rubies"]:
            dep = [a for a in legal if a["type"] == "deposit" and purse[a["piece"]] > 0]
            if dep:
                return max(dep, key=lambda a: M.VALUE[a["piece"]])
        return {"type": "done"}
    if ph == "saloon_decide":
        return {"type": "play"} if M.highest(purse) != "ruby" else {"type": "pass"}
    if ph == "saloon_bets":
        if M.highest(purse) == "ruby" and "buy_out" in types:
            return {"type": "buy_out"}
        return {"type": "bet"} if "bet" in types else legal[0]
    if ph == "rob":
        return max(legal, key=lambda a: game.worth(a["victim"]))
    if ph == "shop":
        buys = {a["item"] for a in legal if a["type"] == "buy"}
        mine_left = any(M.count(m) for m in s["mine"])
        if "wagon" in buys and not s["wagons"][seat] and mine_left:
            return {"type": "buy", "item": "wagon"}
        if "shovel" in buys and not s["shovels"][seat]:
            return {"type": "buy", "item": "shovel"}
        return {"type": "pass"}
    if ph == "dig":
        worth, stone = _bag_worth(game)
        return {"type": "dig"} if worth > stone * 1.0 else {"type": "pass"}
    if ph == "ranch":
        return {"type": "buy_ranch"}
    if ph in ("vote", "sheriff"):
        active = s["active"]
        key = lambda a: space_worth(game, active, a["space"])   # noqa: E731
        return max(legal, key=key) if active == seat else min(legal, key=key)
    return rng.choice(legal)


def weak_aim(bot: cc.Bot, game: Game, seat: int, rng: random.Random) -> float:
    req = game.flick_request()
    if req["purpose"] == "saloon":
        return -rng.uniform(280.0, 440.0)
    return -rng.uniform(30.0, game.max_travel * 0.95)


_FAMILY = cc.BotFamily("Wild West", GOOD_SKILL, good_aim, good_decide, WEAK_SKILL, weak_aim)
good = _FAMILY.good
weak = _FAMILY.weak
random_bot = _FAMILY.random_bot
BOTS = _FAMILY.BOTS
make = _FAMILY.make
choose = _FAMILY.choose


LEVELS = _FAMILY.levels()       # the table contract's levels (ringside.bots): weakest first
