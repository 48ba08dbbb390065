"""The Doubles board layout: a data file, validated, and the geometry derived from it.

A layout file is JSON (see data/board.json, this version's reading):

    {"format": 1,
     "columns": ["a", "b", ...],                     # left to right
     "rows": [{"name": "1", "colour": "green"}, ...],  # top to bottom; colour red, green or blue
     "yellow": ["b2", ...],                           # squares that double a circle
     "hand": {"1": 2, "2": 2, "3": 2, "4": 2}}        # pieces of each pattern (points) per player, 8 in all

A square is named by its column then its row ("c3"). Rows in play: red for 2 players, red
and green for 3, red, green and blue for 4. A piece faces one corner of its square; the
corners are numbered clockwise from the lower-right one, the way a piece is printed:
0 lower-right, 1 lower-left, 2 upper-left, 3 upper-right.
"""
from __future__ import annotations

import json
from pathlib import Path

from ringside.games import GameError

DEFAULT_FILE = Path(__file__).resolve().parent / "data" / "board.json"
FORMAT = 1
COLOURS = ("red", "green", "blue")
PIECES_PER_PLAYER = 8
PATTERNS = (1, 2, 3, 4)          # a pattern is named by its points
PATTERN_NAMES = {1: "crosshatched", 2: "dotted", 3: "plain", 4: "black"}

LR, LL, UL, UR = 0, 1, 2, 3      # corners, clockwise from lower-right
CORNER_NAMES = ("lower-right", "lower-left", "upper-left", "upper-right")
ROW_COLOURS_IN_PLAY = {2: ("red",), 3: ("red", "green"), 4: ("red", "green", "blue")}


class BoardError(GameError):
    """A layout file is unusable; the message names the file and the field."""


_DEFAULT = None


def default_layout() -> dict:
    """This version's board (data/board.json), validated (read once, a fresh copy each call)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = json.dumps(read_layout(DEFAULT_FILE))
    return json.loads(_DEFAULT)


def read_layout(path: str | Path) -> dict:
    """Read and validate a user's layout file. Raises BoardError with the reason."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise BoardError("cannot read the board file %s: %s" % (p, e.strerror or e)) from None
    try:
        data = json.loads(text)
    except ValueError as e:
        raise BoardError("the board file %s is not valid JSON: %s" % (p, e)) from None
    return validate_layout(data, source=str(p))


def validate_layout(data: dict, source: str = "the board") -> dict:
    """Check a layout dict field by field; return a clean copy. Raises BoardError."""
    def bad(msg):
        raise BoardError("%s: %s" % (source, msg))

    if not isinstance(data, dict):
        bad("a board layout is a JSON object with columns, rows, yellow and hand")
    if data.get("format", FORMAT) != FORMAT:
        bad("format %r is not supported (this version reads format %d)" % (data.get("format"), FORMAT))
    known = {"format", "about", "columns", "rows", "yellow", "hand"}
    extra = sorted(set(data) - known)
    if extra:
        bad("unknown field %s (a layout has: %s)" % (", ".join(map(repr, extra)), ", ".join(sorted(known))))
    for key in ("columns", "rows", "yellow", "hand"):
        if key not in data:
            bad("the field %r is missing" % key)

    cols = data["columns"]
    if not isinstance(cols, list) or len(cols) < 2:
        bad("columns must be a list of at least 2 names, left to right")
    for i, c in enumerate(cols):
        if not isinstance(c, str) or not c or not c.isalpha():
            bad("columns[%d] must be a name of letters, not %r" % (i, c))
    if len(set(cols)) != len(cols):
        bad("two columns have the same name")

    rows = data["rows"]
    if not isinstance(rows, list) or len(rows) < 2:
        bad("rows must be a list of at least 2 rows, top to bottom")
    names = []
    for i, r in enumerate(rows):
        if not isinstance(r, dict) or set(r) != {"name", "colour"}:
            bad("rows[%d] must be an object with exactly a name and a colour" % i)
        if not isinstance(r["name"], str) or not r["name"].isdigit():
            bad("rows[%d].name must be a number written as a string, not %r" % (i, r["name"]))
        if r["colour"] not in COLOURS:
            bad("rows[%d].colour must be red, green or blue, not %r" % (i, r["colour"]))
        names.append(r["name"])
    if len(set(names)) != len(names):
        bad("two rows have the same name")
    squares = {c + r for r in names for c in cols}

    yellow = data["yellow"]
    if not isinstance(yellow, list) or not all(isinstance(s, str) for s in yellow):
        bad("yellow must be a list of square names such as \"b2\"")
    for s in yellow:
        if s not in squares:
            bad("yellow square %r is not on the board (columns %s, rows %s)"
                % (s, "".join(cols), ",".join(names)))
    if len(set(yellow)) != len(yellow):
        bad("a yellow square is listed twice")

    hand = data["hand"]
    if not isinstance(hand, dict) or set(hand) != {"1", "2", "3", "4"}:
        bad("hand must give the number of pieces of each pattern: {\"1\": .., \"2\": .., \"3\": .., \"4\": ..}")
    for k, v in hand.items():
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            bad("hand[%r] must be a whole number of pieces, not %r" % (k, v))
    if sum(hand.values()) != PIECES_PER_PLAYER:
        bad("a player has %d pieces, not %d (hand adds up to %d)"
            % (PIECES_PER_PLAYER, sum(hand.values()), sum(hand.values())))

    for n in (2, 3, 4):
        colours = ROW_COLOURS_IN_PLAY[n]
        if any(r["colour"] in colours for r in rows) and not Geometry(
                {"columns": cols, "rows": rows, "yellow": yellow}, n).corners:
            bad("with %d players (rows %s) no corner is shared by four squares in play"
                % (n, "+".join(colours)))
    out = {"format": FORMAT, "columns": list(cols),
           "rows": [{"name": r["name"], "colour": r["colour"]} for r in rows],
           "yellow": list(yellow), "hand": {k: hand[k] for k in ("1", "2", "3", "4")}}
    if isinstance(data.get("about"), str):
        out["about"] = data["about"]
    return out


class Geometry:
    """The squares and corners in play for a player count, as index tables.

    squares      names of the squares in play, in reading order (index = square id)
    yellow       [bool] per square id
    corners      for each corner shared by four squares in play: [(square id, corner that
                 square must face), ...] for its four squares
    corner_of    corner_of[square][facing] -> corner id, or -1 if that corner is not one
                 shared by four squares in play
    corner_label names of the four squares round each corner, e.g. "b2, c2, b3, c3"
    """

    def __init__(self, layout: dict, players: int):
        colours = ROW_COLOURS_IN_PLAY[players]
        cols = layout["columns"]
        rows = layout["rows"]
        self.columns = list(cols)
        self.rows = [dict(r, in_play=r["colour"] in colours) for r in rows]
        ids = {}
        self.squares = []
        self.pos = []  # (row index, column index)
        for ri, r in enumerate(rows):
            if r["colour"] not in colours:
                continue
            for ci, c in enumerate(cols):
                ids[(ri, ci)] = len(self.squares)
                self.squares.append(c + r["name"])
                self.pos.append((ri, ci))
        self.index = {name: i for i, name in enumerate(self.squares)}
        yellow = set(layout["yellow"])
        self.yellow = [name in yellow for name in self.squares]
        self.corners = []
        self.corner_label = []
        point_id = {}
        for R in range(1, len(rows)):
            for C in range(1, len(cols)):
                four = [((R - 1, C - 1), LR), ((R - 1, C), LL), ((R, C - 1), UR), ((R, C), UL)]
                if all(p in ids for p, _ in four):
                    point_id[(R, C)] = len(self.corners)
                    self.corners.append(tuple((ids[p], f) for p, f in four))
                    self.corner_label.append(", ".join(self.squares[ids[p]] for p, _ in four))
        self.corner_of = []
        for (ri, ci) in self.pos:
            pts = {LR: (ri + 1, ci + 1), LL: (ri + 1, ci), UL: (ri, ci), UR: (ri, ci + 1)}
            self.corner_of.append(tuple(point_id.get(pts[f], -1) for f in range(4)))
        # the corners each square touches (for quick threat scans)
        self.square_corners = [tuple(k for k in co if k >= 0) for co in self.corner_of]
