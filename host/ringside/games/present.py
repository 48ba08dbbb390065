"""The table contract's presentation half: what every game's `games/<game>/present.py` gives.

The table, the terminal player, the LED painter, the bots and the web page read a game only
through this contract; none of them branches on a game's name. Each game has one module
`ringside.games.<game>.present` with three functions:

    picture(game, seat) -> dict     # the table as data, built from game.view(seat) only
    label(game, seat, action) -> str  # a short label for a legal action, in the rulebook's words
    led_frame(game) -> dict         # what the LED ring shows now (see LED FRAME below)

and may add

    event_text(event) -> str          # default: the event's own "text"
    group(game, seat, action) -> str  # a short heading ("b2") under which a long menu folds
                                      # its actions: the screen first offers the headings

A game without a present.py gets `Fallback` (below): a picture of its view's top level and
the engine's describe(), so every game stays playable. `game.presenter` finds the module.

PICTURE (every key present; `check_picture` holds a picture to this):

    {"game": "darts", "title": "Circles: Darts",
     "status": "Ann to flick clockwise, at least 90 degrees",   # one line of plain words
     "to_act": [0],                   # seats that may act now ("chance" included)
     "players": [{"seat": 0, "name": "Ann", "colour": "yellow", "glyph": "A",
                  "score": 12, "facts": ["3 cubes left"], "to_act": True}],
     "sections": [ ... ],             # the table itself: typed sections below, in reading order
     "legend": [{"glyph": "A", "colour": "yellow", "means": "Ann's cube"}],
     "hidden": ["Bob's hand (3 cards)"],   # what this viewer may not see, in words
     "result": None | {"winners": ["Ann"], "scores": {"Ann": 30}, "text": "Ann wins with ..."}}

and may add (optional keys; screens show them when present):

     "timer": {"seconds": 20, "seat": 0, "text": "Ann has 20 seconds, die roll included"}
     "notes": ["the marble must reach the opposing space"]     # rules reminders for the viewer

SECTIONS (each a dict with "kind" and "title"; made with the helpers below):

    ring   spaces round the ring: [{"id", "label", "start_deg", "end_deg", "marks", "highlight"}],
           "marble": {"space": id, "deg": float} or None
    grid   a board of cells: "columns": [labels], "rows": [{"label", "cells": [cell]}]
    track  an ordered loop or line of steps (a time wheel, a rondel, a score track):
           "steps": [{"label", "marks", "highlight"}]; optional "loop": True (the steps go
           round, the first at the top, then clockwise); a step may add "short" (its name
           where room is small), "colour" (its own colour) and "beside": True (a loop's step
           drawn beside the loop, not on it: The Circle's Time Warp)
    table  "header": [str], "rows": [[str]]
    text   "lines": [str]

A mark or a cell is {"text": str, "seat": int | None, "colour": colour name | None}; a cell
may add "glyph". Colours are names from COLOUR_RGB, so every screen and the LEDs agree.
A grid cell may also add (for a page that draws the board, the terminal prints "text"):
"id" (what a click on it names: a square), "marks" (pieces standing in it), "fill" (the square's own colour: Doubles'
yellow squares), "off": True (not in play), and "piece": {"pattern", "points", "facing"}
(the pattern a piece is printed with: "crosshatched" | "dotted" | "plain" | "black"; the
corner it faces: "lower-right" ...). A grid row may add "colour" and "in_play": False.
A player may add "badges": [{"glyph", "means"}] (a token the player holds: the sheriff's star).

LED FRAME:

    {"player": colour name or None,   # the active player's colour round the ring
     "spaces": {space_id: colour},    # ring spaces to paint (games on the ring)
     "pulse": space_id or None,       # the space just hit or resolved
     "pixels": None or [colour per LED, a trailing "*" pulses]}   # a whole-ring picture
                                      # (The Circle's wheel, Circleville's rondel)

Pixels are palette names or "rrggbb" hex ("off" = unlit). A presenter may also give
`step_line(game, events) -> str`: one line after a step, what changed and what comes next
(The Circle, Squaring Circleville), for a screen that does not redraw the table every step.
"""
from __future__ import annotations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game
    from types import ModuleType

# One palette for every screen and the LED ring: seat i takes SEAT_COLOURS[i].
SEAT_COLOURS = ("yellow", "blue", "orange", "green", "white")
COLOUR_RGB = {
    "yellow": "ffd000", "blue": "0050ff", "orange": "ff5000", "green": "00c040",
    "white": "ffffff", "red": "ff0000", "purple": "a000ff", "grey": "606070",
    "graphite": "606070", "black": "000000", "off": "000000",
    "teal": "00e0c0",     # Squaring Circleville's third seat (its action colours are red, blue, orange, green)
}
SECTION_KINDS = ("ring", "grid", "track", "table", "text")
PICTURE_KEYS = ("game", "title", "status", "to_act", "players", "sections", "legend", "hidden", "result")


def seat_colour(seat: int) -> str:
    """The colour name of a seat (players keep it for the whole game)."""
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def glyphs(names: list[str]) -> list[str]:
    """One distinct short glyph per player: the first letter where it is unique, else the
    first letter and the seat number ("A1", "A2"), so Ann and Amy never share a mark."""
    firsts = [(n[:1] or "?").upper() for n in names]
    return [f if firsts.count(f) == 1 else "%s%d" % (f, i + 1) for i, f in enumerate(firsts)]


def mark(text: str, seat: int | None = None, colour: str | None = None) -> dict:
    return {"text": text, "seat": seat, "colour": colour}


def ring(title: str, spaces: list[dict], marble: dict | None = None) -> dict:
    return {"kind": "ring", "title": title, "spaces": spaces, "marble": marble}


def ring_space(sid: str, label: str, start_deg: float, end_deg: float, marks: list | tuple = (), highlight: bool = False) -> dict:
    return {"id": sid, "label": label, "start_deg": start_deg, "end_deg": end_deg,
            "marks": list(marks), "highlight": bool(highlight)}


def grid(title: str, columns: list[str], rows: list[dict]) -> dict:
    return {"kind": "grid", "title": title, "columns": list(columns), "rows": rows}


def track(title: str, steps: list[dict], loop: bool = False) -> dict:
    """loop=True: the steps go round (a time wheel, a rondel), the first at the top, then
    clockwise; else a line."""
    t = {"kind": "track", "title": title, "steps": steps}
    if loop:
        t["loop"] = True
    return t


def step(label: str, marks: list | tuple = (), highlight: bool = False, short: str | None = None,
         colour: str | None = None, beside: bool = False) -> dict:
    """short: the step's name where room is small (a wheel's segment); colour: the step's own
    colour (a rondel space's); beside: a step of a loop drawn beside it, not on it."""
    st = {"label": label, "marks": list(marks), "highlight": bool(highlight)}
    if short is not None:
        st["short"] = short
    if colour is not None:
        st["colour"] = colour
    if beside:
        st["beside"] = True
    return st


def table(title: str, header: list[str], rows: list[list[str]]) -> dict:
    return {"kind": "table", "title": title, "header": list(header), "rows": [list(r) for r in rows]}


def text(title: str, lines: list[str]) -> dict:
    return {"kind": "text", "title": title, "lines": list(lines)}


def led_frame(player: str | None = None, spaces: dict | None = None, pulse: str | None = None,
              pixels: list | None = None) -> dict:
    return {"player": player, "spaces": dict(spaces or {}), "pulse": pulse, "pixels": pixels}


class PictureError(ValueError):
    """A presentation module broke the contract; the message names the place."""


def check_picture(p: dict) -> dict:
    """Raise PictureError unless `p` follows the PICTURE and SECTIONS shapes above. Tests run it
    on every game's picture at every step of random play."""
    def need(cond, where):
        if not cond:
            raise PictureError(where)
    need(isinstance(p, dict), "a picture is a dict")
    for k in PICTURE_KEYS:
        need(k in p, "the picture has no %r" % k)
    need(isinstance(p["status"], str) and p["status"], "status is a non-empty line")
    for pl in p["players"]:
        for k in ("seat", "name", "colour", "glyph", "score", "facts", "to_act"):
            need(k in pl, "player %r has no %r" % (pl.get("name"), k))
        need(pl["colour"] in COLOUR_RGB, "player colour %r is not a palette name" % pl["colour"])
    for s in p["sections"]:
        need(isinstance(s, dict) and s.get("kind") in SECTION_KINDS,
             "section kind %r" % (s.get("kind") if isinstance(s, dict) else s))
        need("title" in s, "a %s section has no title" % s["kind"])
        body = {"ring": "spaces", "grid": "rows", "track": "steps", "table": "rows", "text": "lines"}[s["kind"]]
        need(isinstance(s.get(body), list), "a %s section has no %s list" % (s["kind"], body))
    for e in p["legend"]:
        need("glyph" in e and "means" in e, "a legend entry needs glyph and means")
    need(all(isinstance(h, str) for h in p["hidden"]), "hidden is a list of words")
    return p


# ----- the generic fallback (a game with no present.py of its own) ----------------------------

def _short(v, width: int = 70) -> str:
    import json
    t = v if isinstance(v, str) else json.dumps(v)
    return t if len(t) <= width else t[:width - 3] + "..."


class Fallback:
    """The presentation of a game that has no present.py: its view's top level as a table,
    the engine's own describe() for labels, the active player's colour on the LEDs."""

    @staticmethod
    def players(game: Game, scores: list | None = None) -> list:
        act = game.to_act()
        names = list(game.players)
        marks = glyphs(names)
        return [{"seat": i, "name": n, "colour": seat_colour(i), "glyph": marks[i],
                 "score": (scores or {}).get(n), "facts": [], "to_act": i in act}
                for i, n in enumerate(names)]

    @staticmethod
    def status(game: Game) -> str:
        if game.over:
            r = game.result or {}
            return "Game over: %s" % (r.get("reason") or "")
        act = game.to_act()
        if act == ["chance"]:
            return "The table decides: %s" % (game.capabilities.chance_prompt or "chance")
        return "%s to play" % " and ".join(game.seat_name(s) for s in act)

    @staticmethod
    def result(game: Game) -> dict | None:
        if not game.over:
            return None
        r = game.result or {}
        winners = [w if isinstance(w, str) else game.seat_name(w) for w in r.get("winners", [])]
        return {"winners": winners, "scores": dict(r.get("scores") or {}),
                "text": "%s %s: %s" % (" and ".join(winners) or "Nobody",
                                       "wins" if len(winners) == 1 else "win", r.get("reason", ""))}

    @staticmethod
    def picture(game: Game, seat: int | None = None) -> dict:
        v = game.view(seat)
        rows = [[str(k), _short(val)] for k, val in v.items() if k not in ("result",)]
        return {"game": game.name, "title": game.title or game.name, "status": Fallback.status(game),
                "to_act": game.to_act(), "players": Fallback.players(game),
                "sections": [table("The table", ["what", "state"], rows)], "legend": [],
                "hidden": [], "result": Fallback.result(game)}

    @staticmethod
    def label(game: Game, seat: int | str, action: dict) -> str:
        describe = getattr(game, "describe", None)
        words = describe(action) if describe is not None else None
        if words and words != str(action):
            return words
        return " ".join("%s %s" % (k, v) if k != "type" else str(v) for k, v in action.items())

    @staticmethod
    def event_text(ev: dict) -> str:
        return ev.get("text", "")

    @staticmethod
    def led_frame(game: Game) -> dict:
        act = game.to_act()
        seat = act[0] if act and isinstance(act[0], int) else None
        return led_frame(player=seat_colour(seat) if seat is not None else None)


def summary_line(said: list[str], next_text: str, width: int = 160) -> str:
    """A presenter's one short line after a step: the events' sentences (as many as fit in
    width, then "(and N more)") and what comes next."""
    head = ""
    for i in range(len(said)):
        more = "; ".join(said[:i + 1])
        if len(more) > width and i:
            head = "; ".join(said[:i]) + " (and %d more)" % (len(said) - i)
            break
        head = more
    return ("%s. Next: %s" % (head, next_text)) if head else "Next: %s" % next_text


def event_text(presenter: ModuleType | type, ev: dict) -> str:
    """The words for an event through a presenter (its own event_text, else the event's text)."""
    fn = getattr(presenter, "event_text", None)
    return fn(ev) if fn is not None else ev.get("text", "")


LED_FRAME_KEYS = ("player", "spaces", "pulse", "pixels")


def check_led_frame(f: dict, leds: int | None = None) -> dict:
    """Raise PictureError unless `f` has the LED FRAME shape (colours from the palette, or
    6-digit hex; pixels one per LED when `leds` is given)."""
    def colour(c):
        c = str(c)
        c = c[:-1] if c.endswith("*") else c
        return c in COLOUR_RGB or (len(c) == 6 and all(ch in "0123456789abcdef" for ch in c.lower()))
    if not isinstance(f, dict) or any(k not in f for k in LED_FRAME_KEYS):
        raise PictureError("an LED frame is a dict with %s" % ", ".join(LED_FRAME_KEYS))
    if f["player"] is not None and not colour(f["player"]):
        raise PictureError("LED player colour %r" % (f["player"],))
    if not isinstance(f["spaces"], dict) or not all(colour(c) for c in f["spaces"].values()):
        raise PictureError("LED spaces map space ids to colours")
    if f["pixels"] is not None:
        if not isinstance(f["pixels"], list) or not all(colour(c) for c in f["pixels"]):
            raise PictureError("LED pixels are a list of colours")
        if leds is not None and len(f["pixels"]) != leds:
            raise PictureError("LED pixels: %d colours for %d LEDs" % (len(f["pixels"]), leds))
    return f
