"""A plain-text picture of a Doubles view, for a terminal play command.

Each square shows its piece as owner letter, points and the corner it faces (B2↘: Blue's
dotted 2 facing lower-right); [ ] marks a yellow square, ///// a row not in play.
"""
from __future__ import annotations

ARROWS = {"lower-right": "\u2198", "lower-left": "\u2199", "upper-left": "\u2196", "upper-right": "\u2197"}
ASCII_CORNERS = {"lower-right": "LR", "lower-left": "LL", "upper-left": "UL", "upper-right": "UR"}


def _cell(sq, ascii_only: bool) -> str:
    width = 4 if ascii_only else 3            # B2LR or B2↘
    if not sq["in_play"]:
        return "/" * (width + 2)
    pc = sq["piece"]
    if pc is None:
        body = "."
    else:
        corner = ASCII_CORNERS[pc["faces"]] if ascii_only else ARROWS[pc["faces"]]
        body = "%s%d%s" % (pc["letter"], pc["points"], corner)
    return ("[%s]" if sq["yellow"] else " %s ") % body.center(width)


def render(view: dict, ascii_only: bool = False, history: int = 8) -> str:
    """The board, scores, removes left, hands, die, timer and the last `history` lines of what
    happened (all of them if history is None), as lines of text."""
    players = view["players"]
    out = []
    turn = view["turn"]
    if view["over"]:
        res = view["result"] or {}
        out.append("Doubles - over: %s." % res.get("reason", ""))
    elif turn is None:
        out.append("Doubles - the coin toss decides who starts.")
    else:
        p = players[turn]
        die = view["die"]
        t = view["timer"]
        out.append("Doubles - %s (%s) to %s%s%s" % (
            p["name"], p["colour"], "move" if die else "roll the die",
            ", die %d" % die if die else "",
            ", %d s on the timer" % t["seconds"] if t["timed"] else (", not timed" if t["on"] else "")))
    w = len(_cell(view["grid"][0][0], ascii_only))
    label = max(len("%s %s" % (r["name"], r["colour"])) for r in view["rows"])
    out.append(" " * (label + 1) + "".join(c.center(w) for c in view["columns"]))
    for r, row in zip(view["rows"], view["grid"], strict=True):
        out.append(("%s %s" % (r["name"], r["colour"])).ljust(label) + " "
                   + "".join(_cell(sq, ascii_only) for sq in row)
                   + ("" if r["in_play"] else "  not in play"))
    out.append("")
    name_w = max(len(p["name"]) for p in players) + 4
    for p in players:
        i = p["seat"]
        h = view["hands"][i]
        hand = " ".join("%dx%s" % (h[k], k) for k in ("1", "2", "3", "4") if h[k]) or "empty"
        out.append("%s %s  %4d points  removes left %d  hand %s%s" % (
            ">" if i == turn and not view["over"] else " ",
            ("%s (%s)" % (p["name"], p["letter"])).ljust(name_w), view["scores"][i],
            view["removes_left"][i], hand, "  (computer)" if p["computer"] else ""))
    lines = view["what_happened"]
    if history is not None:
        lines = lines[-history:] if history > 0 else []
    if lines:
        out.append("")
        out.append("What happened:")
        out.extend("  " + s for s in lines)
    return "\n".join(out)
