"""Doubles at the table: the picture, the action labels, the event words and the LED frame
(the contract in ringside.games.present).

The board is a grid section: each square shows its piece as owner letter, points and the
corner it faces (B2↘: Blue's dotted 2 facing lower-right); [ ] marks a yellow square (it
doubles a circle), ///// a row not in play. A move reads as words: "add a crosshatched 1 on
b2, facing lower-left". A long menu folds by square (group()): pick the square, then the move.
"""
from __future__ import annotations

import re

from ringside.games import CHANCE, possessive
from ringside.games import present as P

from . import rules
from .board import CORNER_NAMES, PATTERN_NAMES
from .render import ARROWS
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game

_GLYPH = {"lower-right": "LR", "lower-left": "LL", "upper-left": "UL", "upper-right": "UR"}


def _colour(seat: int, game) -> str:
    """A seat's colour as the palette names it (Doubles' own: Blue, Yellow, Graphite, White)."""
    from .engine import SEAT_COLOURS
    return SEAT_COLOURS[seat].lower()


def _who(game, seat) -> str:
    from .engine import SEAT_COLOURS
    return "%s (%s)" % (game.players[seat], SEAT_COLOURS[seat])


def status(game: Game) -> str:
    st = game.state
    if game.over:
        return result(game)["text"]
    if st["phase"] == "toss":
        return "The coin toss decides who starts"
    seat = st["turn"]
    if st["phase"] == "roll":
        return "%s to roll the die" % _who(game, seat)
    return "%s rolled a %d: add a piece, turn one, or remove one" % (_who(game, seat), st["die"])


def players(game: Game) -> list:
    st = game.state
    from .engine import SEAT_LETTERS
    out = []
    act = game.to_act()
    for i, n in enumerate(game.players):
        h = st["hands"][i]
        hand = ", ".join("%d %s %d" % (h[p - 1], PATTERN_NAMES[p], p) for p in (1, 2, 3, 4) if h[p - 1]) or "empty"
        facts = ["hand: %s" % hand, "%d remove%s left" % (st["removes"][i], "" if st["removes"][i] == 1 else "s")]
        if i in game.options["computer"]:
            facts.append("computer")
        out.append({"seat": i, "name": n, "colour": _colour(i, game), "glyph": SEAT_LETTERS[i],
                    "score": st["scores"][i], "facts": facts, "to_act": i in act})
    return out


def grid_section(game: Game, ascii_only: bool = False) -> dict:
    v = game.view(None)
    rows = []
    for r, row in zip(v["rows"], v["grid"], strict=True):
        cells = []
        for sq in row:
            pc = sq["piece"]
            if not sq["in_play"]:
                cells.append({"text": "////", "seat": None, "colour": None, "glyph": "/", "off": True})
                continue
            if pc is None:
                body = "."
                cell = {"seat": None, "colour": None}
            else:
                corner = _GLYPH[pc["faces"]] if ascii_only else ARROWS[pc["faces"]]
                body = "%s%d%s" % (pc["letter"], pc["points"], corner)
                cell = {"seat": pc["owner"], "colour": pc["colour"].lower(), "glyph": pc["letter"],
                        "piece": {"pattern": pc["pattern"], "points": pc["points"], "facing": pc["faces"]}}
            cell["text"] = ("[%s]" if sq["yellow"] else " %s ") % body
            cell["square"] = sq["square"]
            cell["id"] = sq["square"]
            if sq["yellow"]:
                cell["fill"] = "yellow"
            cells.append(cell)
        rows.append({"label": "%s %s" % (r["name"], r["colour"]) + ("" if r["in_play"] else " (not in play)"),
                     "cells": cells, "colour": r["colour"], "in_play": bool(r["in_play"])})
    return P.grid("The board", v["columns"], rows)


def picture(game: Game, seat: int | None = None) -> dict:
    st = game.state
    sections = [grid_section(game)]
    lines = st["history"].splitlines()[-6:]
    if lines:
        sections.append(P.text("What happened", lines))
    sections.append(P.text("How it scores", [
        "Three pieces of one pattern round a corner make a circle: their points; on a yellow square doubled.",
        "First to %d points wins." % rules.WIN_POINTS]))
    legend = [{"glyph": p["glyph"], "colour": p["colour"], "means": "%s piece" % possessive(p["name"])}
              for p in players(game)]
    legend += [{"glyph": ARROWS[c], "colour": None, "means": "faces the %s corner" % c} for c in CORNER_NAMES]
    legend += [{"glyph": "[ ]", "colour": "yellow", "means": "a yellow square: doubles a circle"},
               {"glyph": "////", "colour": None, "means": "a row not in play"}]
    pic = {"game": game.name, "title": "Doubles", "status": status(game), "to_act": game.to_act(),
           "players": players(game), "sections": sections, "legend": legend, "hidden": [],
           "result": result(game) if game.over else None}
    t = game.turn_timer()
    if t["timed"]:
        pic["timer"] = {"seconds": t["seconds"], "seat": t["seat"],
                        "text": "%s has %d seconds, die roll included" % (game.players[t["seat"]], t["seconds"])}
    return pic


def result(game: Game) -> dict | None:
    if not game.over:
        return None
    r = game.result
    winners = [game.players[w] if isinstance(w, int) else str(w) for w in r["winners"]]
    return {"winners": winners, "scores": dict(r["scores"]),
            "text": "%s %s: %s. Final scores: %s" % (
                " and ".join(winners), "wins" if len(winners) == 1 else "share the win", r["reason"],
                ", ".join("%s %d" % (k, v) for k, v in r["scores"].items()))}


def _piece(game, seat, piece) -> str:
    owner, p, f = piece
    whose = "your" if owner == seat else possessive(game.players[owner])
    return "%s %s %d (facing %s)" % (whose, PATTERN_NAMES[p], p, CORNER_NAMES[f])


# option agree_end (docs/rules/doubles.md, this version's addition)
_AGREEMENT = {"propose_end": "propose to end the game here (the highest score wins)",
              "accept_end": "agree to end the game here (the highest score wins)",
              "refuse_end": "play on (refuse to end the game)"}


def label(game: Game, seat: int | str, a: dict) -> str:
    t = a.get("type")
    st = game.state
    if t == "toss":
        return "%s starts" % _who(game, a.get("first"))
    if t == "roll":
        return "the die shows %d" % a.get("value")
    if t == "timeout":
        return "the time ran out: the turn passes"
    if t in _AGREEMENT:
        return _AGREEMENT[t]
    sq = a.get("square")
    i = game.geo.index.get(sq)
    die = st["die"] or 0
    if t == "add":
        p = a.get("pattern")
        return "add a %s %d on %s, facing %s" % (PATTERN_NAMES.get(p, p), p, sq,
                                                 CORNER_NAMES[rules.add_facing(die)])
    piece = st["board"][i] if i is not None else None
    if t == "turn" and piece is not None:
        return "turn %s on %s to face %s" % (_piece(game, seat, piece), sq,
                                             CORNER_NAMES[rules.turn_facing(piece[2], die)])
    if t == "remove" and piece is not None:
        return "remove %s from %s (cover it with your own %s)" % (_piece(game, seat, piece), sq,
                                                                  PATTERN_NAMES[piece[1]])
    return P.Fallback.label(game, seat, a)


def group(game: Game, seat: int | str, a: dict) -> str:
    """A long menu folds by square: pick a square, then a move on it."""
    return a.get("square") or ""


_TURN = re.compile(r"^(.+) \((\w+)\)'s turn\.$")


def event_text(e: dict) -> str:
    """The event's text, a player's name kept whole: "Ann's turn (Blue).", not "Ann (Blue)'s"."""
    text = e.get("text", "")
    if e.get("type") == "turn_start":
        text = _TURN.sub(lambda m: "%s turn (%s)." % (possessive(m.group(1)), m.group(2)), text)
    return text


def led_frame(game: Game) -> dict:
    """The player whose turn it is, in their colour round the ring (the board's turn timer
    runs down over it)."""
    if game.over or game.state["turn"] is None:
        return P.led_frame()
    act = game.to_act()
    seat = game.state["turn"] if act == [CHANCE] or act == [game.state["turn"]] else None
    return P.led_frame(player=_colour(seat, game) if seat is not None else None)
