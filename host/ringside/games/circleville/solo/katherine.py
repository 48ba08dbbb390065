"""Solo player Katherine (rulebook "Solo Player: Katherine"): bursts of activity and comparative
idleness. Her mat (a grid of printed colours, 4 rows of 2 and 2 columns of 4, with her
supervisor's track beside the rows and the columns) is data/katherine.json; the readings are in
docs/rules/circleville-solo.md ("Katherine").

State (game.state["solo"][seat]): {"space": her supervisor's space on her track (0-based),
"tiles": the action tile colour in the action space beside each track space, or None}. Her
supervisor pawn stays on her mat (players[seat]["supervisor"], as for every solo player, only
records the section of her last action).
"""
from __future__ import annotations

from ringside.games import event

from ..data import COLOURS
from .framework import (FINISHING, HIGHEST, SoloDataError, SoloPlayer, _int, do_action, mine, move_assistant,
                        register, say, score, tile_beside_supervisor)
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game

SIDES = {"row": ("left", "right"), "column": ("top", "bottom")}


@register
class Katherine(SoloPlayer):
    name = "katherine"
    title = "Katherine"
    her = "her"
    setup_draw = False

    @classmethod
    def validate_mat(cls, data: dict, source: str) -> dict:
        grid = data.get("grid")
        if (not isinstance(grid, list) or not grid or not all(isinstance(r, list) and r for r in grid)
                or len({len(r) for r in grid}) != 1):
            raise SoloDataError("%s: 'grid' must be a list of rows of colours, every row as long as the others, not %r"
                                % (source, grid))
        for i, row in enumerate(grid):
            for c in row:
                if c not in COLOURS:
                    raise SoloDataError("%s: grid row %d: %r is not a colour (%s)" % (source, i, c, ", ".join(COLOURS)))
        track = data.get("track")
        if not isinstance(track, list) or not track:
            raise SoloDataError("%s: 'track' must list her supervisor's spaces, not %r" % (source, track))
        out = []
        for k, s in enumerate(track):
            w = "%s: track[%d]" % (source, k)
            if not isinstance(s, dict) or s.get("beside") not in SIDES:
                raise SoloDataError("%s: 'beside' must be 'row' or 'column', not %r"
                                    % (w, s.get("beside") if isinstance(s, dict) else s))
            kind = s["beside"]
            size = len(grid) if kind == "row" else len(grid[0])
            idx = _int(s, "index", 0, size - 1, w)
            if s.get("side") not in SIDES[kind]:
                raise SoloDataError("%s: a space beside a %s lies %s of it, not %r"
                                    % (w, kind, " or ".join(SIDES[kind]), s.get("side")))
            sym = s.get("symbol", False)
            if not isinstance(sym, bool):
                raise SoloDataError("%s: 'symbol' is true or false, not %r" % (w, sym))
            out.append({"beside": kind, "index": idx, "side": s["side"], "quadrant": _int(s, "quadrant", 1, 4, w),
                        "symbol": sym})
        syms = [k for k, s in enumerate(out) if s["symbol"]]
        if len(syms) != 1:
            raise SoloDataError("%s: exactly one track space bears the supervisor symbol (\"symbol\": true), not %d"
                                % (source, len(syms)))
        return {"grid": [list(r) for r in grid], "track": out, "symbol": syms[0],
                "level": _int(data, "action_level", 1, 5, source),
                "steps": _int(data, "rondel_steps", 1, 7, source),
                "impossible_vp": _int(data, "impossible_vp", 0, 50, source),
                "missing_vp": _int(data, "missing_achievement_vp", 0, 50, source)}

    def initial_state(self, game: Game, seat: int) -> dict:
        return {"space": self.mat["symbol"], "tiles": [None] * len(self.mat["track"])}

    # --- the mat
    def colours(self, i: int) -> list:
        """The colours of the row or column beside track space i, nearest the space first (each once)."""
        s, grid = self.mat["track"][i], self.mat["grid"]
        if s["beside"] == "row":
            cells = list(grid[s["index"]])
            if s["side"] == "right":
                cells.reverse()
        else:
            cells = [row[s["index"]] for row in grid]
            if s["side"] == "bottom":
                cells.reverse()
        out = []
        for c in cells:
            if c not in out:
                out.append(c)
        return out

    def where(self, i: int) -> str:
        s = self.mat["track"][i]
        return "space %d (quadrant %d, beside %s %d: %s)" % (i + 1, s["quadrant"], s["beside"], s["index"] + 1,
                                                             ", ".join(self.colours(i)))

    # --- set-up
    def setup(self, game: Game, seat: int, colour: str) -> list:
        S = game.state
        return [say(game, seat, "Katherine's set-up: her supervisor starts on the quadrant icon with the supervisor "
                                "symbol on her mat, %s; her assistant starts with yours on rondel space %d."
                    % (self.where(mine(game, seat)["space"]), S["players"][seat]["assistant"]))]

    # --- step 1
    def move_assistant(self, game: Game, seat: int) -> list[dict]:
        here = game.state["players"][seat]["assistant"]
        k = self.mat["steps"]
        return move_assistant(game, seat, (here + k) % 8, "Katherine's assistant always advances %d spaces" % k)

    # --- step 2
    def take_actions(self, game: Game, seat: int) -> list:
        i = mine(game, seat)["space"]
        s = self.mat["track"][i]
        q = s["quadrant"]
        cols = self.colours(i)
        lvl = self.mat["level"]
        ev = [say(game, seat, "Katherine ignores the rondel colours. Her supervisor is on %s, so she takes %d level %d "
                              "action%s in quadrant %d, one for each colour of that %s, from the one nearest her "
                              "supervisor outward (%s), each in the highest-numbered section available, with her "
                              "structure priority (%s)."
                  % (self.where(i), len(cols), lvl, "" if len(cols) == 1 else "s", q, s["beside"], ", ".join(cols),
                     ", ".join(self.priority)))]
        for n, c in enumerate(cols, 1):
            r = do_action(game, seat, c, lvl, q, HIGHEST, self.mat["impossible_vp"],
                          "%s, the %s colour from her supervisor" % (c, _ordinal(n)))
            ev += r["events"]
        return ev

    # --- what she can still do (the end for a town that cannot be finished)
    def placeable_colours(self, game: Game, seat: int) -> set:
        """She ignores the rondel and the tiles: her supervisor goes round her whole track, so
        the colours beside its spaces are the actions she will take (the printed mat: all)."""
        return {c for i in range(len(self.mat["track"])) for c in self.colours(i)} & set(FINISHING)

    # --- step 4
    def step4(self, game: Game, seat: int) -> list[dict]:
        st = mine(game, seat)
        i = st["space"]
        ev = tile_beside_supervisor(game, seat, "beside her supervisor")
        st["space"] = (i + 1) % len(self.mat["track"])
        ev.append(say(game, seat, "Her supervisor advances one space, to %s." % self.where(st["space"])))
        if st["space"] == self.mat["symbol"]:
            ev += self.remove_achievements(game, seat)
        return ev

    def remove_achievements(self, game: Game, seat: int) -> list:
        """On the supervisor-symbol icon: per colour of its row or column, the lowest-numbered achievement tile of
        that colour on the achievements table goes to the box; 5 VP for a colour with none left."""
        S = game.state
        cols = self.colours(self.mat["symbol"])
        ev = [say(game, seat, "Her supervisor is on the quadrant icon with the supervisor symbol: Katherine removes the "
                              "lowest-numbered achievement tile of each colour of that %s (%s) from the achievements "
                              "table." % (self.mat["track"][self.mat["symbol"]]["beside"], ", ".join(cols)))]
        for c in cols:
            on_table = sorted(t for row in S["table"].values() for t in row
                              if game.tiles["achievements"][t]["colour"] == c)
            if not on_table:
                ev.append(say(game, seat, "No %s achievement tile is left on the achievements table." % c))
                ev += score(game, seat, self.mat["missing_vp"], "no %s achievement tile left to remove" % c)
                continue
            tid = on_table[0]
            for row in S["table"].values():
                if tid in row:
                    row.remove(tid)
            ev.append(event("solo", "Katherine returns achievement tile %d (%s), the lowest-numbered %s one on the "
                                    "table, to the box." % (tid, c, c), seat=seat, tile=tid))
        return ev

    def view(self, game: Game, seat: int) -> dict:
        st = mine(game, seat)
        return {"solo_player": self.title, "supervisor_space": st["space"] + 1,
                "quadrant": self.mat["track"][st["space"]]["quadrant"],
                "colours": self.colours(st["space"]),
                "action_spaces": [t or "-" for t in st["tiles"]]}


def _ordinal(n) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth"}.get(n, "%dth" % n)
