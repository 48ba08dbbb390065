"""Darts, the first game of the Circles rulebook (seeds/001_ef80526ab0ed9dc2.txt).

2-5 players flick the marble round the ring, place cubes where it stops and score the
numbers of their spaces each round of 4 turns; streets score 60 or 80 instead, three
cubes on one space win at once, and 100 points at the end of a round win. Every reading
of the rules this engine makes is written down in docs/rules/darts.md.

Seats are 0..n-1 in clockwise (playing) order. Phases (state["phase"]):

    flickoff        each player flicks from the 7 for one full lap; the nearest starts
    flick           the active player flicks: a ring result ("landed" / "off_ring")
    lucky_pick      after hitting the 7: pick a cube to move, or skip
    lucky_to        where that cube goes
    choose_starter  the player with the fewest points picks who starts the next round
"""
from __future__ import annotations

from pathlib import Path

from ringside.games import Capabilities, Game, GameError, IllegalAction, event, possessive, register
from ringside.games import circles_common as cc

DATA_PATH = Path(__file__).with_name("data.json")


def load_data(override: dict | str | Path | None = None) -> dict:
    """The Darts data (data.json or the user's own), validated."""
    d = cc.load_data(DATA_PATH, override, "Darts data")
    w = "Darts data"
    cc.need_int(d, "cubes_per_colour", 2, 50, w)
    turns = cc.need_int(d, "turns_per_round", 1, 49, w)
    if turns > d["cubes_per_colour"] - 1:
        raise GameError("%s: turns_per_round (%d) needs that many cubes besides the scoring cube" % (w, turns))
    cc.need_int(d, "triple", 2, 49, w)
    cc.need_int(d, "win_points", 1, 100000, w)
    for key in ("small_street", "large_street"):
        st = d.get(key)
        if not isinstance(st, dict):
            raise GameError("%s: %r must be an object with 'spaces' and 'points'" % (w, key))
        cc.need_int(st, "spaces", 2, 20, "%s %s" % (w, key))
        cc.need_int(st, "points", 0, 100000, "%s %s" % (w, key))
    if d["large_street"]["spaces"] <= d["small_street"]["spaces"]:
        raise GameError("%s: a large street must be longer than a small one" % w)
    if not isinstance(d.get("lucky_space"), str):
        raise GameError("%s: 'lucky_space' must be a space id" % w)
    pts = d.get("points", {})
    if not isinstance(pts, dict) or any(isinstance(v, bool) or not isinstance(v, int) for v in pts.values()):
        raise GameError("%s: 'points' must map space ids to whole numbers" % w)
    return d


@register
class Darts(Game):
    name = "darts"
    title = "Darts"
    rulebook = ("001_ef80526ab0ed9dc2.txt", "Darts", "Wild West")
    min_players = 2
    max_players = 5
    default_options = {"ages": None, "data": None, "ring": None}
    capabilities = Capabilities(ring_side="darts", bot_levels=("random", "easy", "good"), default_level="easy")
    option_types = {"ages": ("list", "null"), "data": ("str", "dict", "null"), "ring": ("str", "dict", "null")}

    # ----- set-up -----
    def _setup(self):
        n = len(self.players)
        self.data = load_data(self.options["data"])
        self.ring = cc.ring_dict(self.options["ring"])
        self.side = cc.load_side("darts", self.ring)
        lucky = self.data["lucky_space"]
        self.side.require(spaces=[lucky], what="Darts")
        if self.side.start is None:
            raise GameError("the darts side of the ring names no start space (the marble starts on the 7)")
        self.start = self.side.start
        self.points = {}
        for sid in self.side.ids:
            if sid in self.data["points"]:
                self.points[sid] = self.data["points"][sid]
            else:
                try:
                    self.points[sid] = int(sid)
                except ValueError:
                    raise GameError("Darts scores the number of each space; space %r of the darts side "
                                    "has no number (give it one in the Darts data's 'points')" % sid) from None
        self.ages = cc.check_ages(self.options["ages"], n)
        self.min_steps = self.side.n // 2     # "at least reach the opposing space"
        self.max_travel = cc.flick_model(self.ring).max_travel
        self.state = {
            "phase": "flickoff",
            "round": 0,
            "marble": self.start,
            "scores": [0] * n,
            "board": {sid: [0] * n for sid in self.side.ids},
            "hand": [0] * n,
            "aside": [0] * n,
            "starter": None,
            "active": 0,
            "turn": 0,
            "flickoff": {"queue": list(range(n)), "keys": {}, "rounds": 1},
            "lucky": None,
            "chooser": None,
            "history": [],
        }

    # ----- whose turn -----
    def _to_act(self):
        s = self.state
        if s["phase"] == "flickoff":
            return [s["flickoff"]["queue"][0]]
        if s["phase"] == "choose_starter":
            return [s["chooser"]]
        return [s["active"]]

    def flick_request(self) -> dict | None:
        """The flick the table must arm now, or None when the next decision is not a flick."""
        s = self.state
        if self.over:
            return None
        if s["phase"] == "flickoff":
            return {"seat": s["flickoff"]["queue"][0], "from": self.start, "directions": list(cc.DIRECTIONS),
                    "min_steps": 0, "purpose": "flickoff", "target_travel": 360.0}
        if s["phase"] == "flick":
            return {"seat": s["active"], "from": s["marble"], "directions": list(cc.DIRECTIONS),
                    "min_steps": self.min_steps, "purpose": "turn"}
        return None

    # ----- legal actions -----
    def _legal(self, seat):
        s = self.state
        ph = s["phase"]
        if ph == "flickoff":
            return cc.cached_choices(self.side, self.start, ("darts-flickoff",), cc.flick_off_key, self.max_travel)
        if ph == "flick":
            return cc.cached_choices(self.side, s["marble"], ("darts-turn", self.min_steps),
                                     self._outcome, self.max_travel)
        if ph == "lucky_pick":
            acts = [{"type": "lucky_skip"}]
            for sid, owner in self._movable():
                acts.append({"type": "lucky_pick", "space": sid, "colour": owner})
            return acts
        if ph == "lucky_to":
            frm = s["lucky"]["pick"][0]
            return [{"type": "lucky_to", "space": sid} for sid in self.side.ids if sid != frm]
        if ph == "choose_starter":
            return [{"type": "starter", "seat": k} for k in range(len(self.players))]
        return []

    def _outcome(self, f):
        if not f.landed:
            return ("off",)
        f = self._scored(f)
        if not self._reaches_opposing(f):
            return ("short",)
        return ("valid", f.space)

    def _reaches_opposing(self, f) -> bool:
        """"The ball must at least reach the opposing space": half the ring's spaces or more in
        its direction, full laps counted (docs/rules/darts.md reading 6). The one statement of
        the rule: the legal actions and the turn both ask it."""
        return f.steps >= self.min_steps

    def _movable(self):
        """(space, colour) of every cube the Lucky 7 may move: all but the one just placed."""
        s = self.state
        placed = s["lucky"]["placed"]
        out = []
        for sid in self.side.ids:
            for owner, c in enumerate(s["board"][sid]):
                if sid == placed and owner == s["active"]:
                    c -= 1
                if c > 0:
                    out.append((sid, owner))
        return out

    # ----- apply -----
    # the fields of each action (Game.check_action refuses any other, before _apply runs)
    actions = dict(Game.RING_ACTIONS, lucky_pick={"space": "id", "colour": "int"}, lucky_skip={},
                   lucky_to={"space": "id"}, starter={"seat": "int"})

    def _apply(self, seat, a):
        ph = self.state["phase"]
        t = a["type"]
        if ph in ("flickoff", "flick"):
            if t not in cc.RING_TYPES:
                raise IllegalAction("%s must flick now (a 'landed' or 'off_ring' result), not %r"
                                    % (self.seat_name(seat), t))
            return self._flickoff(seat, a) if ph == "flickoff" else self._turn(seat, a)
        if ph == "lucky_pick":
            return self._lucky_pick(seat, a)
        if ph == "lucky_to":
            return self._lucky_to(seat, a)
        if ph == "choose_starter":
            return self._choose_starter(seat, a)
        raise IllegalAction("no action is expected in phase %s" % ph)

    def _flickoff(self, seat, a):
        s = self.state
        fo = s["flickoff"]
        f = cc.read_flick(self.side, self.start, a)
        key = list(cc.flick_off_key(f))
        fo["keys"][str(seat)] = key
        fo["queue"].pop(0)
        name = self.seat_name(seat)
        if f.landed:
            ev = [event("flickoff", "%s flick-off stopped on %s, %d degrees from one full lap"
                        % (possessive(name), f.space, key[1]), seat=seat, space=f.space, distance=key[1])]
        else:
            ev = [event("flickoff", "%s flick-off left the ring" % possessive(name), seat=seat, off_ring=True)]
        s["marble"] = self.start   # "return the ball onto the ring at the 7-square"
        if fo["queue"]:
            return ev
        keys = {int(k): tuple(v) for k, v in fo["keys"].items()}
        best = cc.rank_groups(keys)[0]
        if len(best) > 1:
            fo["queue"] = list(best)
            fo["keys"] = {}
            fo["rounds"] += 1
            ev.append(event("flickoff_tie", "%s are tied: they flick again"
                            % " and ".join(self.seat_name(p) for p in best), seats=best))
            return ev
        ev.append(event("flickoff_won", "%s got closest to the 7 and starts" % self.seat_name(best[0]),
                        seat=best[0]))
        ev += self._new_round(best[0])
        return ev

    def _new_round(self, starter):
        s = self.state
        n = len(self.players)
        s["round"] += 1
        s["phase"] = "flick"
        s["board"] = {sid: [0] * n for sid in self.side.ids}
        s["hand"] = [self.data["turns_per_round"]] * n
        s["aside"] = [0] * n
        s["starter"] = starter
        s["active"] = starter
        s["turn"] = 0
        s["marble"] = self.start
        s["lucky"] = None
        s["chooser"] = None
        return [event("round", "Round %d: %s starts; the marble is on the %s"
                      % (s["round"], self.seat_name(starter), self.start), round=s["round"], seat=starter)]

    def _scored(self, f):
        """An ambiguous landing is scored on the lower number (the rulebook's fallback)."""
        if f.alt is None:
            return f
        low = min((f.space, f.alt), key=lambda sid: (self.points[sid], self.side.index(sid)))
        return cc.reread(self.side, self.state["marble"], f, low)

    def _turn(self, seat, a):
        s = self.state
        f = cc.read_flick(self.side, s["marble"], a)
        name = self.seat_name(seat)
        ev = []
        if f.landed and f.alt is not None:
            g = self._scored(f)
            ev.append(event("ambiguous", "The marble stopped between %s and %s: it counts as %s, the lower "
                            "number, unless the players agree otherwise" % (f.space, f.alt, g.space),
                            spaces=[f.space, f.alt], space=g.space))
            f = g
        if not f.landed:
            s["marble"] = self.start   # "place the ball back onto the ring, next to the 7"
            ev.append(self._set_aside(seat, "the marble left the ring (it goes back next to the %s)" % self.start))
        elif not self._reaches_opposing(f):
            s["marble"] = f.space
            ev.append(self._set_aside(seat, "the marble stopped on %s, %d space%s on: short of the opposing space"
                                      % (f.space, f.steps, "" if f.steps == 1 else "s")))
        else:
            s["marble"] = f.space
            ev += self._place(seat, f.space, "%s hit the %s" % (name, f.space))
            if self.over:
                return ev
            if f.space == self.data["lucky_space"]:
                s["lucky"] = {"placed": f.space, "pick": None}
                if self._movable():
                    s["phase"] = "lucky_pick"
                    ev.append(event("lucky7", "Lucky %s! %s may move another cube of any colour"
                                    % (f.space, name), seat=seat))
                    return ev
        return ev + self._end_turn()

    def _set_aside(self, seat, why):
        s = self.state
        s["hand"][seat] -= 1
        s["aside"][seat] += 1
        return event("invalid", "%s turn is invalid: %s. A cube is set aside for the round."
                     % (possessive(self.seat_name(seat)), why), seat=seat)

    def _place(self, owner, sid, what, from_hand=True):
        """Put owner's cube on sid: other colours there are set aside first. May end the game."""
        s = self.state
        cubes = s["board"][sid]
        removed = []
        for other, c in enumerate(cubes):
            if other != owner and c:
                s["aside"][other] += c
                cubes[other] = 0
                removed.append("%d %s" % (c, self.seat_name(other)))
        if from_hand:
            s["hand"][owner] -= 1
        cubes[owner] += 1
        text = what + ": a %s cube goes on %s" % (self.seat_name(owner), sid)
        if removed:
            text += ", removing %s" % " and ".join(removed)
        ev = [event("placed", text, seat=owner, space=sid, removed=removed)]
        if cubes[owner] >= self.data["triple"]:
            ev.append(event("triple", "%s has %d cubes on %s: a triple, and wins at once!"
                            % (self.seat_name(owner), cubes[owner], sid), seat=owner, space=sid))
            self._finish_scores([owner], "triple on %s" % sid)
        return ev

    def _lucky_pick(self, seat, a):
        s = self.state
        if a["type"] == "lucky_skip":
            s["lucky"] = None
            s["phase"] = "flick"
            return [event("lucky_skip", "%s moves no cube" % self.seat_name(seat), seat=seat)] + self._end_turn()
        if a["type"] != "lucky_pick":
            raise IllegalAction("after the Lucky 7 pick a cube ('lucky_pick') or skip ('lucky_skip')")
        sid = str(a["space"])
        owner = a["colour"]
        if isinstance(owner, bool) or not isinstance(owner, int):
            raise IllegalAction("colour is a seat number")
        if (sid, owner) not in self._movable():
            raise IllegalAction("there is no %s cube on %s to move (the cube just placed stays)"
                                % (self.seat_name(owner), sid))
        s["lucky"]["pick"] = [sid, owner]
        s["phase"] = "lucky_to"
        return [event("lucky_pick", "%s picks up a %s cube from %s"
                      % (self.seat_name(seat), self.seat_name(owner), sid), seat=seat)]

    def _lucky_to(self, seat, a):
        s = self.state
        if a["type"] != "lucky_to":
            raise IllegalAction("say where the cube goes ('lucky_to')")
        frm, owner = s["lucky"]["pick"]
        to = str(a["space"])
        if to not in self.side or to == frm:
            raise IllegalAction("the cube must go to another numbered space, not %r" % (a["space"],))
        s["board"][frm][owner] -= 1
        s["lucky"] = None
        s["phase"] = "flick"
        ev = self._place(owner, to, "%s moves it from %s to %s" % (self.seat_name(seat), frm, to), from_hand=False)
        if self.over:
            return ev
        return ev + self._end_turn()

    def _end_turn(self):
        s = self.state
        n = len(self.players)
        s["turn"] += 1
        if s["turn"] < self.data["turns_per_round"] * n:
            s["active"] = (s["starter"] + s["turn"]) % n
            return []
        return self._end_round()

    # ----- scoring -----
    def round_points(self, board: dict | None = None) -> list[dict]:
        """Each seat's points for the cubes on the board: {"points", "streets": [[spaces], ...]}."""
        board = self.state["board"] if board is None else board
        return [self._points_of(board, p) for p in range(len(self.players))]

    def _points_of(self, board, p):
        side = self.side
        have = [sid for sid in side.ids if board[sid][p] > 0]
        small = self.data["small_street"]
        large = self.data["large_street"]
        streets = []
        in_street = set()
        for run in self._runs(set(have)):
            while len(run) >= small["spaces"]:
                size = large["spaces"] if len(run) >= large["spaces"] else small["spaces"]
                streets.append(run[:size])
                in_street.update(run[:size])
                run = run[size:]
        pts = 0
        for st in streets:
            pts += large["points"] if len(st) == large["spaces"] else small["points"]
        for sid in side.ids:
            c = board[sid][p]
            if c:
                extra = c - 1 if sid in in_street else c   # a street holds one cube per space
                pts += extra * self.points[sid]
        return {"points": pts, "streets": streets}

    def _runs(self, spaces: set) -> list[list[str]]:
        """Maximal runs of adjacent spaces round the ring (runs wrap: the ring has no ends),
        each listed clockwise."""
        side = self.side
        if not spaces:
            return []
        if len(spaces) == side.n:
            start = side.ids[0]
            return [[side.step(start, cc.CW, k) for k in range(side.n)]]
        runs = []
        for sid in side.ids:
            if sid in spaces and side.step(sid, cc.CCW) not in spaces:   # a run begins here
                run = [sid]
                nxt = side.step(sid, cc.CW)
                while nxt in spaces:
                    run.append(nxt)
                    nxt = side.step(nxt, cc.CW)
                runs.append(run)
        return runs

    def _end_round(self):
        s = self.state
        n = len(self.players)
        pts = self.round_points()
        ev = []
        for p in range(n):
            s["scores"][p] += pts[p]["points"]
            streets = pts[p]["streets"]
            extra = ""
            if streets:
                extra = " (%s)" % ", ".join("%s street %s" % ("large" if len(st) == self.data["large_street"]["spaces"]
                                                               else "small", "-".join(st)) for st in streets)
            ev.append(event("scored", "%s scores %d%s: %d in all" % (self.seat_name(p), pts[p]["points"], extra,
                                                                     s["scores"][p]),
                            seat=p, points=pts[p]["points"], total=s["scores"][p], streets=streets))
        s["history"].append({"round": s["round"], "points": [pts[p]["points"] for p in range(n)],
                             "totals": list(s["scores"])})
        target = self.data["win_points"]
        over = [p for p in range(n) if s["scores"][p] >= target]
        if over:
            top = max(s["scores"][p] for p in over)
            winners = [p for p in over if s["scores"][p] == top]
            if len(winners) == 1:
                why = "%d points at the end of round %d" % (top, s["round"])
                ev.append(event("won", "%s wins with %s" % (self.seat_name(winners[0]), why), seats=winners))
            else:
                why = "a shared win: %d points each at the end of round %d" % (top, s["round"])
                ev.append(event("won", "%s share the win with %d points each"
                                % (" and ".join(self.seat_name(p) for p in winners), top), seats=winners))
            self._finish_scores(winners, why)
            return ev
        low = min(s["scores"])
        lowest = [p for p in range(n) if s["scores"][p] == low]
        chooser = cc.youngest(lowest, self.ages)
        s["phase"] = "choose_starter"
        s["chooser"] = chooser
        s["lucky"] = None
        ev.append(event("choose_starter", "%s has the fewest points and decides who starts round %d"
                        % (self.seat_name(chooser), s["round"] + 1), seat=chooser))
        return ev

    def _choose_starter(self, seat, a):
        if a["type"] != "starter":
            raise IllegalAction("say who starts the next round ('starter')")
        k = a["seat"]
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(self.players):
            raise IllegalAction("there is no seat %r" % (k,))
        return [event("starter", "%s chooses %s to start" % (self.seat_name(seat), self.seat_name(k)), seat=seat, starter=k)] + \
            self._new_round(k)

    def _finish_scores(self, winners, reason):
        s = self.state
        self._finish([self.players[p] for p in winners],
                     {self.players[p]: s["scores"][p] for p in range(len(self.players))}, reason)
        self.result["seats"] = list(winners)

    # ----- what a seat sees (everything is public) -----
    def _view(self, seat):
        s = self.state
        n = len(self.players)
        return {
            "game": self.name,
            "players": list(self.players),
            "phase": s["phase"],
            "round": s["round"],
            "turn": s["turn"] // n + 1 if s["phase"] != "flickoff" else 0,
            "turns_per_round": self.data["turns_per_round"],
            "active": self._to_act()[0] if not self.over else None,
            "marble": s["marble"],
            "spaces_cw": [self.side.step(self.side.ids[0], cc.CW, k) for k in range(self.side.n)],
            "points": dict(self.points),
            "board": {sid: list(c) for sid, c in s["board"].items() if any(c)},
            "hand": list(s["hand"]),
            "aside": list(s["aside"]),
            "scores": list(s["scores"]),
            "round_points": [p["points"] for p in self.round_points()] if s["round"] else [0] * n,
            "flickoff": {k: v for k, v in s["flickoff"].items()},
            "lucky": s["lucky"],
            "flick": self.flick_request(),
            "history": list(s["history"]),
            "over": self.over,
            "result": self.result,
        }

    def describe(self, a: dict) -> str:
        """Plain words for an action (menus and logs)."""
        t = a.get("type")
        if t == "landed":
            tr = a.get("travel")
            d = "" if tr is None else " (%.0f degrees %s)" % (abs(tr), "clockwise" if tr < 0 else "anticlockwise")
            return "the marble stops on %s%s" % (a.get("space"), d)
        if t == "off_ring":
            return "the marble leaves the ring"
        if t == "lucky_skip":
            return "move no cube"
        if t == "lucky_pick":
            return "pick up a %s cube from %s" % (self.seat_name(a.get("colour")), a.get("space"))
        if t == "lucky_to":
            return "put it on %s" % a.get("space")
        if t == "starter":
            return "%s starts the round" % self.seat_name(a.get("seat"))
        return str(a)

    def points_of(self, board: dict, seat: int) -> dict:
        """What seat scores on `board` (a board as in state["board"]): points and streets."""
        return self._points_of(board, seat)
