"""Darts at the table: the picture, the action labels, the event words and the LED frame
(the contract in ringside.games.present).

The ring section lists the 20 numbered spaces in their order round the ring (ring.json),
so neighbours such as 17 and 3 sit side by side; each player's cubes are marks with that
player's glyph. During a Lucky 7 move the cube that was picked up is shown lifted: off its
space, in the player's hand, until it is put down.
"""
from __future__ import annotations

import re

from ringside.games import CHANCE, possessive
from ringside.games import circles_common as cc
from ringside.games import present as P
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game



def _names(game):
    return list(game.players)


def _board(game) -> dict:
    """Cubes on each space as the table shows them: a lifted Lucky 7 cube is off its space."""
    s = game.state
    board = {sid: list(c) for sid, c in s["board"].items()}
    lucky = s["lucky"]
    if s["phase"] == "lucky_to" and lucky and lucky.get("pick"):
        frm, owner = lucky["pick"]
        board[frm][owner] -= 1
    return board


def _way(req) -> str:
    return "either way" if len(req["directions"]) == 2 else {cc.CW: "clockwise", cc.CCW: "anticlockwise"}[
        req["directions"][0]]


def status(game: Game) -> str:
    s = game.state
    if game.over:
        return result(game)["text"]
    seat = game.to_act()[0]
    name = game.seat_name(seat)
    ph = s["phase"]
    if ph == "flickoff":
        return ("Flick-off: %s flicks from the %s, %s, trying to go exactly once round; the nearest "
                "to the %s starts" % (name, game.start, "either way", game.start))
    if ph == "flick":
        req = game.flick_request()
        opp = game.side.step(req["from"], cc.CW, game.min_steps)
        return ("Round %d, turn %d of %d: %s flicks from %s, %s, at least %d spaces (to the opposing "
                "space, %s, or beyond)" % (s["round"], min(s["turn"] // len(game.players) + 1,
                                                           game.data["turns_per_round"]),
                                           game.data["turns_per_round"], name, req["from"], _way(req),
                                           game.min_steps, opp))
    if ph == "lucky_pick":
        return "Lucky %s! %s may pick up another cube of any colour and move it, or move none" % (
            game.data["lucky_space"], name)
    if ph == "lucky_to":
        frm, owner = s["lucky"]["pick"]
        return "%s holds %s cube, lifted from %s: put it on another space" % (
            name, _cube_of(game, owner), frm)
    if ph == "choose_starter":
        return "%s has the fewest points and chooses who starts round %d" % (name, s["round"] + 1)
    return "%s to play" % name


def _cube_of(game, owner) -> str:
    """"Bob's" or "your" (the default person, You)."""
    n = game.seat_name(owner)
    return "your" if n == "You" else possessive(n)


def players(game: Game) -> list:
    s = game.state
    names = _names(game)
    marks = P.glyphs(names)
    act = game.to_act()
    pts = game.round_points() if s["round"] else [{"points": 0}] * len(names)
    out = []
    for i, n in enumerate(names):
        facts = []
        if s["round"]:
            facts.append("%d cube%s in hand" % (s["hand"][i], "" if s["hand"][i] == 1 else "s"))
            if s["aside"][i]:
                facts.append("%d set aside" % s["aside"][i])
            facts.append("%+d this round" % pts[i]["points"])
            for st in pts[i].get("streets", []):
                facts.append("street %s" % "-".join(st))
        out.append({"seat": i, "name": n, "colour": P.seat_colour(i), "glyph": marks[i],
                    "score": s["scores"][i], "facts": facts, "to_act": i in act})
    return out


def ring_section(game: Game) -> dict:
    s = game.state
    side = game.side
    marks = P.glyphs(_names(game))
    board = _board(game)
    spaces = []
    for sid in side.ids:                       # anticlockwise, as ring.json lists them
        ms = []
        for owner, c in enumerate(board[sid]):
            for _ in range(c):
                ms.append(P.mark(marks[owner], owner, P.seat_colour(owner)))
        lo = side.centre(sid) - side.width(sid) / 2.0
        spaces.append(P.ring_space(sid, side.labels[sid], round(lo % 360.0, 2),
                                   round((lo + side.width(sid)) % 360.0, 2), ms,
                                   highlight=sid == s["marble"]))
    marble = {"space": s["marble"], "deg": round(side.centre(s["marble"]), 2)} if s["marble"] in side else None
    return P.ring("The ring (numbers as they sit round it)", spaces, marble)


def picture(game: Game, seat: int | None = None) -> dict:
    s = game.state
    names = _names(game)
    marks = P.glyphs(names)
    sections = [ring_section(game)]
    lines = []
    if s["phase"] == "lucky_to":
        frm, owner = s["lucky"]["pick"]
        lines.append("Lifted: %s cube from %s (in %s hand)" % (_cube_of(game, owner), frm,
                                                              _cube_of(game, game.to_act()[0])))
    if s["round"]:
        lines.append("Round %d of play; a round is %d turns each. %d points at the end of a round win; "
                     "%d cubes on one space win at once." % (s["round"], game.data["turns_per_round"],
                                                             game.data["win_points"], game.data["triple"]))
    if s["history"]:
        last = s["history"][-1]
        lines.append("Round %d scored: %s" % (last["round"], ", ".join(
            "%s %+d" % (names[i], p) for i, p in enumerate(last["points"]))))
    if lines:
        sections.append(P.text("Notes", lines))
    legend = [{"glyph": marks[i], "colour": P.seat_colour(i), "means": "%s cube" % possessive(n)}
              for i, n in enumerate(names)]
    legend.append({"glyph": "( )", "colour": None, "means": "the marble's space"})
    return {"game": game.name, "title": "Circles: Darts", "status": status(game), "to_act": game.to_act(),
            "players": players(game), "sections": sections, "legend": legend, "hidden": [],
            "result": result(game) if game.over else None,
            "notes": ["a flick must reach the opposing space (%d spaces on) to count" % game.min_steps]}


def result(game: Game) -> dict | None:
    if not game.over:
        return None
    r = game.result
    winners = list(r["winners"])
    verb = "wins" if len(winners) == 1 else "share the win"
    return {"winners": winners, "scores": dict(r["scores"]),
            "text": "%s %s: %s. Final scores: %s" % (
                " and ".join(winners), verb, r["reason"],
                ", ".join("%s %d" % (k, v) for k, v in r["scores"].items()))}


def label(game: Game, seat: int | str, a: dict) -> str:
    t = a.get("type")
    if t == "landed":
        tr = a.get("travel")
        way = "" if tr is None else ", %.0f degrees %s" % (abs(tr), "clockwise" if tr < 0 else "anticlockwise")
        return "the marble stops on %s%s" % (a.get("space"), way)
    if t == "off_ring":
        return "the marble leaves the ring"
    if t == "lucky_skip":
        return "move no cube"
    if t == "lucky_pick":
        return "pick up %s cube from %s" % (_cube_of(game, a.get("colour")), a.get("space"))
    if t == "lucky_to":
        frm, owner = game.state["lucky"]["pick"]
        return "put %s cube on %s" % (_cube_of(game, owner), a.get("space"))
    if t == "starter":
        return "%s start%s round %d" % (game.seat_name(a.get("seat")), "" if game.seat_name(a.get("seat")) == "You"
                                        else "s", game.state["round"] + 1)
    return P.Fallback.label(game, seat, a)


def group(game: Game, seat: int | str, a: dict) -> str:
    """Long menus (the Lucky 7's destinations) fold by action kind."""
    return {"lucky_pick": "pick up a cube", "lucky_to": "put it down", "starter": "who starts"}.get(a.get("type"), "")


_A_CUBE = re.compile(r"\ba (\w+) cube\b")
_YOU = {"scores": "score", "has": "have", "picks": "pick", "chooses": "choose", "moves": "move",
        "wins": "win", "starts": "start", "decides": "decide"}
_REMOVING = re.compile(r"(?:(?<=removing )|(?<=and ))(\d+) (\w+)\b(?! cube)")


def _removed(n: int, who: str) -> str:
    owner = "your" if who == "You" else possessive(who)
    return "%s cube" % owner if n == 1 else "%d of %s cubes" % (n, owner)


_YOU_VERB = re.compile(r"\bYou (%s)\b" % "|".join(_YOU))


def event_text(e: dict) -> str:
    """The engine's words with the grammar of "You" and of owners fixed: "You score 28",
    "Bob's cube" (not "a Bob cube")."""
    t = e.get("text", "")
    t = _YOU_VERB.sub(lambda m: "You " + _YOU[m.group(1)], t)
    t = _REMOVING.sub(lambda m: _removed(int(m.group(1)), m.group(2)), t)
    return _A_CUBE.sub(lambda m: "your cube" if m.group(1) == "You" else "%s cube" % possessive(m.group(1)), t)


def led_frame(game: Game) -> dict:
    """The active player's colour round the ring, each space in the colour of the cubes on it
    (one colour per space, by the rules), the space just hit pulsing."""
    if game.over:
        return P.led_frame()
    act = game.to_act()
    seat = act[0] if act and act[0] != CHANCE else None
    spaces = {}
    for sid, cubes in _board(game).items():
        owners = [p for p, c in enumerate(cubes) if c]
        if owners:
            spaces[sid] = P.seat_colour(owners[0])
    pulse = None
    if game.log and cc.is_ring_action(game.log[-1][1]) and game.log[-1][1].get("type") == "landed":
        pulse = game.state["marble"]
    return P.led_frame(player=P.seat_colour(seat) if seat is not None else None, spaces=spaces, pulse=pulse)
