"""Computer players for Darts: choose(game, seat, rng) -> action.

random  any legal action (the fuzzer; flicks are representative results)
weak    flicks at a random valid distance with a beginner's spread, decides at random
good    aims for the flick with the best expected value under its own spread: streets,
        triples, the 7, knocking off other colours' cubes; uses the Lucky 7 for the best
        move; picks the player after itself to start a round, so it moves last.
"""
from __future__ import annotations


from ringside.games import circles_common as cc
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game
    from ringside.games.circles_common import Bot
    import random

GOOD_SKILL = 0.85
WEAK_SKILL = 0.3
WIN = 10000.0


def _weights(game, me):
    n = len(game.players)
    return 1.0 if n == 2 else 0.6


def _after_place(game, board, owner, sid):
    b = dict(board)
    row = [0] * len(board[sid])
    row[owner] = board[sid][owner] + 1
    b[sid] = row
    return b


def _moved(board, frm, owner, to):
    """The board after moving owner's cube from frm to to (usual placing rules)."""
    b = dict(board)
    src = list(board[frm])
    src[owner] -= 1
    b[frm] = src
    row = [0] * len(board[to])
    row[owner] = (src[owner] if to == frm else board[to][owner]) + 1
    b[to] = row
    return b


def _value(game, me, before, after, changed=None):
    """How much better `after` is than `before` for seat me (points this round, threats).

    Only the players whose cubes differ on the changed spaces are re-scored."""
    n = len(game.players)
    triple = game.data["triple"]
    if changed is None:
        changed = [sid for sid in after if after[sid] != before[sid]]
    players = set()
    for sid in changed:
        for o in range(n):
            if after[sid][o] != before[sid][o]:
                players.add(o)
                if after[sid][o] >= triple:
                    return WIN if o == me else -WIN
    w = _weights(game, me)
    v = 0.0
    for o in players:
        d = game.points_of(after, o)["points"] - game.points_of(before, o)["points"]
        v += d if o == me else -w * d
    # a pair is one hit away from a triple
    for sid in changed:
        for o in players:
            d = (after[sid][o] >= triple - 1) - (before[sid][o] >= triple - 1)
            if d:
                v += 12.0 * d if o == me else -20.0 * w * d
    return v


def _best_lucky(game, me, board, placed):
    """(value, (from, colour, to)) of the best Lucky-7 move on board (None: skip is best)."""
    best = (0.0, None)
    for sid in game.side.ids:
        for owner, c in enumerate(board[sid]):
            if sid == placed and owner == me:
                c -= 1
            if c <= 0:
                continue
            for to in game.side.ids:
                if to == sid:
                    continue
                b = _moved(board, sid, owner, to)
                v = _value(game, me, board, b, (sid, to))
                if v > best[0] + 1e-9:
                    best = (v, (sid, owner, to))
    return best


def _landing_value(game, me):
    s = game.state
    board = s["board"]
    cache = {}
    lucky = game.data["lucky_space"]

    def value(f):
        if not f.landed or f.steps < game.min_steps:
            return -5.0
        if f.space not in cache:
            after = _after_place(game, board, me, f.space)
            v = _value(game, me, board, after, (f.space,))
            if f.space == lucky and v < WIN:
                v += _best_lucky(game, me, after, lucky)[0] * 0.8
            cache[f.space] = v
        return cache[f.space]
    return value


def _targets(game, origin):
    out = []
    lim = game.max_travel * 0.97
    for d in cc.DIRECTIONS:
        for sid in game.side.ids:
            for laps in (0, 1):
                t = game.side.travel_to(origin, sid, d, laps)
                if t == 0 or abs(t) > lim:
                    continue
                if cc.steps_for(game.side, origin, sid, t)[1] >= game.min_steps:
                    out.append(t)
    return out


def good_aim(bot: Bot, game: Game, seat: int, rng: random.Random) -> float:
    req = game.flick_request()
    if req["purpose"] == "flickoff":
        return 360.0
    origin = req["from"]
    return cc.best_aim(game, origin, bot.skill, _landing_value(game, seat), _targets(game, origin))


def good_decide(bot: Bot, game: Game, seat: int, rng: random.Random) -> dict:
    s = game.state
    ph = s["phase"]
    if ph == "lucky_pick":
        v, mv = _best_lucky(game, seat, s["board"], s["lucky"]["placed"])
        if mv is None:
            return {"type": "lucky_skip"}
        return {"type": "lucky_pick", "space": mv[0], "colour": mv[1]}
    if ph == "lucky_to":
        frm, owner = s["lucky"]["pick"]
        best = None
        for to in game.side.ids:
            if to == frm:
                continue
            b = _moved(s["board"], frm, owner, to)
            v = _value(game, seat, s["board"], b, (frm, to))
            if best is None or v > best[0]:
                best = (v, to)
        return {"type": "lucky_to", "space": best[1]}
    if ph == "choose_starter":
        return {"type": "starter", "seat": (seat + 1) % len(game.players)}   # so I move last
    return rng.choice(game.legal_actions(seat))


def weak_aim(bot: Bot, game: Game, seat: int, rng: random.Random) -> float:
    req = game.flick_request()
    if req["purpose"] == "flickoff":
        return rng.choice((-1, 1)) * rng.uniform(250.0, 450.0)
    lo = 180.0
    hi = game.max_travel * 0.95
    return rng.choice((-1, 1)) * rng.uniform(lo, hi)


_FAMILY = cc.BotFamily("Darts", GOOD_SKILL, good_aim, good_decide, WEAK_SKILL, weak_aim)
good = _FAMILY.good
weak = _FAMILY.weak
random_bot = _FAMILY.random_bot
BOTS = _FAMILY.BOTS
make = _FAMILY.make
choose = _FAMILY.choose


LEVELS = _FAMILY.levels()       # the table contract's levels (ringside.bots): weakest first
