"""The terminal's picture of any game: draws a `present.picture()` (ringside.games.present)
as text, with no knowledge of which game it is.

    ring    the spaces drawn round an ellipse as they sit on the ring (angles from ring.json),
            each with its marks; the marble's space highlighted
    grid    a board of cells under column labels
    track   steps in order, joined by arrows
    table   aligned columns
    text    lines

Colours are ANSI, on only for a terminal (and never with NO_COLOR set: https://no-color.org).
"""
from __future__ import annotations

import math
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TextIO

_ANSI = {"yellow": "33", "blue": "94", "orange": "38;5;208", "green": "32", "white": "97", "red": "31",
         "purple": "35", "grey": "90", "graphite": "90", "black": "30"}


def colour_wanted(stream: TextIO | None = None) -> bool:
    """Colours for a terminal that wants them: a tty, and NO_COLOR not set."""
    stream = stream or sys.stdout
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Screen:
    """Renders pictures; colour=False gives plain text (pipes, logs, tests)."""

    def __init__(self, colour: bool = False, width: int = 76):
        self.colour = colour
        self.width = width

    # --- colour helpers ---
    def paint(self, text: str, colour: str | None = None, bold: bool = False, invert: bool = False) -> str:
        if not self.colour or not text:
            return text
        codes = []
        if bold:
            codes.append("1")
        if invert:
            codes.append("7")
        if colour in _ANSI:
            codes.append(_ANSI[colour])
        if not codes:
            return text
        return "\x1b[%sm%s\x1b[0m" % (";".join(codes), text)

    @staticmethod
    def _sep(marks) -> str:
        """Marks side by side: single letters run together ("BB"), longer glyphs take a "+"."""
        return "" if all(len(m.get("text", "")) <= 1 for m in marks) else "+"

    def _marks(self, marks) -> str:
        return self._sep(marks).join(self.paint(m.get("text", ""), m.get("colour")) for m in marks)

    def _plain_marks(self, marks) -> str:
        return self._sep(marks).join(m.get("text", "") for m in marks)

    # --- the whole picture ---
    def render(self, pic: dict) -> str:
        out = [self.paint(pic["title"], bold=True)]
        for s in pic["sections"]:
            out.append("")
            out.extend(self.section(s))
        out.append("")
        out.extend(self.players(pic))
        if pic.get("legend"):
            out.append(self.legend(pic["legend"]))
        if pic.get("hidden"):
            out.append("Hidden from you: " + "; ".join(pic["hidden"]))
        if pic.get("result"):
            out.append(self.paint(pic["result"]["text"], bold=True))
        else:
            out.append(self.status(pic))
        return "\n".join(out)

    def status(self, pic: dict) -> str:
        line = "Now: " + pic["status"]
        t = pic.get("timer")
        if t:
            line += "  [%s]" % t["text"]
        return self.paint(line, bold=True)

    def players(self, pic: dict) -> list[str]:
        rows = []
        for p in pic["players"]:
            score = "" if p.get("score") is None else "%s" % p["score"]
            rows.append((">" if p["to_act"] else " ", self.paint("%s %s" % (p["glyph"], p["name"]), p["colour"],
                                                                 bold=p["to_act"]),
                         len("%s %s" % (p["glyph"], p["name"])), score, "; ".join(p["facts"])))
        if not rows:
            return []
        w = max(r[2] for r in rows)
        sw = max(len(r[3]) for r in rows)
        head = "Players (score first)" if any(r[3] for r in rows) else "Players"
        return [head] + ["%s %s%s  %s  %s" % (a, name, " " * (w - n), sc.rjust(sw), facts)
                         for a, name, n, sc, facts in rows]

    def legend(self, legend: list[dict]) -> str:
        parts = []
        for e in legend:
            parts.append("%s %s" % (self.paint(e["glyph"], e.get("colour")), e["means"]))
        return "Legend: " + ", ".join(parts)

    def section(self, s: dict) -> list[str]:
        fn = getattr(self, "_" + s["kind"])
        return [self.paint(s["title"], bold=True)] + fn(s)

    # --- sections ---
    def _ring(self, s: dict) -> list[str]:
        spaces = s["spaces"]
        n = len(spaces)
        if not n:
            return ["(no spaces)"]
        cells = []
        for sp in spaces:
            lo, hi = float(sp["start_deg"]), float(sp["end_deg"])
            mid = (lo + ((hi - lo) % 360.0) / 2.0) % 360.0
            label = sp["label"] if len(sp["label"]) <= 9 else sp["label"][:8] + "."
            gap = " " if sp["marks"] else ""
            plain = label + gap + self._plain_marks(sp["marks"])
            txt = (self.paint(label, bold=sp["highlight"], invert=sp["highlight"] and self.colour) + gap
                   + self._marks(sp["marks"]))
            if sp["highlight"] and not self.colour:
                plain = "(" + plain + ")"
                txt = "(" + txt + ")"
            cells.append((mid, plain, txt))
        longest = max(len(c[1]) for c in cells)
        a = max(14, min((self.width - longest) // 2 - 1, int(n * (longest + 2) / (2 * math.pi)) + 2))
        b = max(4, int(round(n / 3.2)))
        height = 2 * b + 1
        width = 2 * a + longest + 2
        grid = [[" "] * width for _ in range(height)]
        spans: list[list] = [[] for _ in range(height)]
        for mid, plain, txt in cells:
            r = mid * math.pi / 180.0
            x = int(round(a + a * math.cos(r))) + 1
            y = int(round(b - b * math.sin(r)))
            x0 = max(0, min(width - len(plain), x - len(plain) // 2))
            while any(not (x0 + len(plain) + 1 <= s0 or e0 + 1 <= x0) for s0, e0, _ in spans[y]):
                x0 += 1          # a neighbour sits there: step right
                if x0 + len(plain) > width:
                    grid[y] += [" "] * (x0 + len(plain) - width)
                    width = x0 + len(plain)
                    for row in grid:
                        row += [" "] * (width - len(row))
            spans[y].append((x0, x0 + len(plain), txt))
        lines = []
        for y in range(height):
            row = ""
            pos = 0
            for s0, e0, txt in sorted(spans[y]):
                row += " " * (s0 - pos) + txt
                pos = e0
            lines.append(row.rstrip())
        m = s.get("marble")
        direction = "anticlockwise reads up the right-hand side"
        where = ""
        if m:   # the space as it is printed on the ring ("Ranch", "7"), not its id ("ranch-1")
            where = next((sp["label"] for sp in s["spaces"] if sp["id"] == m["space"]), m["space"])
            where = "the marble is on %s; " % where
        lines.append("  (%s%s)" % (where, direction))
        return lines

    def _grid(self, s: dict) -> list[str]:
        rows = s["rows"]
        lw = max((len(r["label"]) for r in rows), default=0)
        cw = max([len(c.get("text", "")) for r in rows for c in r["cells"]] + [len(c) for c in s["columns"]] + [1])
        if lw + 1 + cw * len(s["columns"]) > self.width:
            return self._grid_by_column(s, lw)
        out = [" " * (lw + 1) + "".join(c.center(cw) for c in s["columns"])]
        for r in rows:
            line = r["label"].ljust(lw) + " "
            for c in r["cells"]:
                t = c.get("text", "")
                line += self.paint(t.center(cw), c.get("colour"))
            out.append(line.rstrip())
        return out

    def _grid_by_column(self, s: dict, lw: int) -> list[str]:
        """A grid too wide for the screen (Circleville's town: four quadrants of long cells),
        a column at a time: its label, then each row's label and cell, one a line."""
        out = []
        for k, col in enumerate(s["columns"]):
            out.append(col)
            for r in s["rows"]:
                if k < len(r["cells"]):
                    c = r["cells"][k]
                    out.append(("  " + r["label"].ljust(lw) + "  " + self.paint(c.get("text", ""), c.get("colour"))).rstrip())
        return out

    def _track(self, s: dict) -> list[str]:
        """One step a line, in order (a wheel or a rondel read down, not run together): the
        label in a column, then what is on the step, marks apart ("-" when nothing); the
        highlighted step is bold and pointed at."""
        w = max((len(st["label"]) for st in s["steps"]), default=0)
        out = []
        for st in s["steps"]:
            marks = st["marks"]
            what = ", ".join(self.paint(m.get("text", ""), m.get("colour")) for m in marks) or "-"
            head = ("> " if st["highlight"] else "  ") + st["label"].ljust(w)
            out.append((self.paint(head, bold=True) if st["highlight"] else head) + "  " + what)
        return out

    def _table(self, s: dict) -> list[str]:
        rows = [s["header"]] + s["rows"]
        widths = [max(len(str(r[i])) for r in rows if i < len(r)) for i in range(len(s["header"]))]
        out = []
        for k, r in enumerate(rows):
            out.append("  ".join(str(c).ljust(widths[i]) for i, c in enumerate(r)).rstrip())
            if k == 0:
                out.append("  ".join("-" * w for w in widths))
        return out

    def _text(self, s: dict) -> list[str]:
        return list(s["lines"])


__all__ = ["Screen", "colour_wanted"]
