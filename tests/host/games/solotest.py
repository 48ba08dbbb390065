"""Helpers the solo-player tests share: a dealt solo game, the turn handed to a solo seat at a
given step, its steps played through apply(), and what they said and scored."""
from ringside.games.circleville.solo.framework import new_game

SEAT = 1   # the solo seat in these tests (the person is seat 0)


def game(solo, seed=1, **kw):
    return new_game([solo] if isinstance(solo, str) else solo, seed=seed, **kw)


def turn(g, seat=SEAT, space=None):
    """Hand the turn to `seat` at step 1 (its assistant on `space` if given)."""
    S = g.state
    S["active"], S["phase"] = seat, "rondel"
    S["ts"] = g._new_turn(seat)
    if space is not None:
        S["players"][seat]["assistant"] = space


def to_step(g, space, n=2, seat=SEAT):
    """Hand the turn to `seat` with its assistant on `space`, at step n (2 or 4)."""
    turn(g, seat, space)
    g.state["phase"] = "actions"
    g.state["ts"]["solo_step"] = n


def step(g, seat=SEAT):
    """Play the solo seat's one legal step."""
    a = g.legal_actions(seat)
    assert len(a) == 1 and a[0]["type"] == "solo"
    return g.apply(seat, a[0])


def text(ev):
    return " | ".join(e["text"] for e in ev)


def vp(ev, seat=SEAT):
    return sum(e.get("vp", 0) for e in ev if e["type"] == "score" and e.get("seat") == seat)


def vps(ev, seat=SEAT):
    return [e["vp"] for e in ev if e["type"] == "score" and e.get("seat") == seat]


def mat(g, seat=SEAT):
    return g.state["solo"][seat]


def sec(g, n):
    return g.state["sections"][n - 1]
