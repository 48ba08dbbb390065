"""Doubles: the engine (seed 003 and its "How this version reads the rules").

Seats 0-3 are Blue, Yellow, Graphite, White, in play order. Chance is a seat: the coin toss
({"type": "toss", "first": seat}) and each turn's d4 ({"type": "roll", "value": 1-4}).
A player's actions after the roll:
    {"type": "add", "square": "c3", "pattern": 2}   a piece from hand onto an empty square
    {"type": "turn", "square": "c3"}                 any piece, clockwise by the die
    {"type": "remove", "square": "c3"}               cover it with the same pattern from hand
    {"type": "timeout"}                              the 20 s ran out (entered by the table)
    {"type": "propose_end"}                          end by agreement (option agree_end, below)
and, while an end is proposed, each other player in turn:
    {"type": "accept_end"} / {"type": "refuse_end"}
While the die is still to be rolled, a timeout is entered by the chance seat (the table);
timeout_entry() gives the right (seat, action) at any moment.

Options: "timer" (default True: a person's turn has 20 s, die roll included), "computer"
(seats played by the computer, never timed), "board" (None for this version's board, a
layout dict, or the path of a layout file, which is read and stored in the options so a
save needs no file), "agree_end" (default AGREE_END_ROUNDS: after that many full rounds
of nothing but turns (no piece added or removed, no score) the player to move may propose
to end the game, which ends it, the highest score winning, if every other player accepts;
None: never. This version's addition, not the seed's: docs/rules/doubles.md reading 10).
"""
from __future__ import annotations

from ringside.games import CHANCE, Capabilities, Game, GameError, IllegalAction, event, possessive, register

from . import rules
from .board import (CORNER_NAMES, PATTERN_NAMES, BoardError, Geometry, ROW_COLOURS_IN_PLAY,
                    default_layout, read_layout, validate_layout)

SEAT_COLOURS = ("Blue", "Yellow", "Graphite", "White")
SEAT_LETTERS = ("B", "Y", "G", "W")
TURN_SECONDS = 20
HISTORY_LINES = 200   # "what happened" keeps the latest lines; the log keeps everything
AGREE_END_ROUNDS = 20  # default of option agree_end: full rounds of nothing but turns before a proposal
_MOVE_KEYS = {"add": {"type", "square", "pattern"}, "turn": {"type", "square"},
              "remove": {"type", "square"}}


def _piece_words(piece, players, mover) -> str:
    owner, p, _ = piece
    whose = "their own" if owner == mover else possessive(players[owner])
    return "%s %s %d" % (whose, PATTERN_NAMES[p], p)


@register
class Doubles(Game):
    name = "doubles"
    title = "Doubles"
    rulebook = ("003_d498aeff9d741fff.txt", "The rules", None)
    min_players = 2
    max_players = 4
    default_options = {"timer": True, "computer": [], "board": None, "agree_end": AGREE_END_ROUNDS}
    capabilities = Capabilities(turn_seconds=TURN_SECONDS, chance="die",
                                chance_prompt="toss the coin for who starts, or roll the d4, and enter what it shows",
                                bot_levels=("random", "easy", "good", "strong"), default_level="easy")

    # ----- set-up -----
    def _setup(self):
        opts = self.options
        if not isinstance(opts["timer"], bool):
            raise GameError("the timer option is true or false, not %r" % (opts["timer"],))
        comp = opts["computer"]
        if (not isinstance(comp, list)
                or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < len(self.players)
                           for s in comp)
                or len(set(comp)) != len(comp)):
            raise GameError("the computer option lists seat numbers 0 to %d, each once, not %r"
                            % (len(self.players) - 1, comp))
        opts["computer"] = list(comp)      # never the class default's list
        agree = opts["agree_end"]
        if agree is not None and (not isinstance(agree, int) or isinstance(agree, bool) or not 1 <= agree <= 1000):
            raise GameError("the agree_end option is a number of rounds from 1 to 1000, or none (never), "
                            "not %r" % (agree,))
        board = opts["board"]
        if board is None:
            layout = default_layout()
        elif isinstance(board, str):
            layout = read_layout(board)
        else:
            layout = validate_layout(board)
        opts["board"] = None if board is None else layout   # saves carry the layout itself
        n = len(self.players)
        for colour in ROW_COLOURS_IN_PLAY[n]:
            if not any(r["colour"] == colour for r in layout["rows"]):
                raise BoardError("this board has no %s row, which %d players need" % (colour, n))
        self.layout = layout
        self.geo = Geometry(layout, n)
        if not self.geo.corners:
            raise BoardError("this board has no corner shared by four squares in play with %d players "
                             "(rows %s)" % (n, "+".join(ROW_COLOURS_IN_PLAY[n])))
        pos = rules.new_pos(self.geo, n, layout["hand"])
        self.state = {
            "phase": "toss",        # toss, roll, move, over
            "turn": None,           # the seat whose turn it is
            "turn_no": 0,           # counts turns started (the table restarts its timer on a change)
            "die": None,
            "board": pos.board, "hands": pos.hands, "scores": pos.scores, "removes": pos.removes,
            "moves": 0,             # moves made (timeouts not counted)
            "history": "",          # "what happened": a line per event (the latest HISTORY_LINES)
            "quiet": 0,             # turns in a row where nothing was added, removed or scored (agree_end)
            "proposal": None,       # an end proposed: {"by": seat, "queue": seats still to answer}
        }

    def pos(self) -> rules.Pos:
        """The position as the rules see it (the same lists as self.state: do not change them)."""
        st = self.state
        return rules.Pos(st["board"], st["hands"], st["scores"], st["removes"])

    # ----- the contract -----
    def _to_act(self):
        ph = self.state["phase"]
        if ph in ("toss", "roll"):
            return [CHANCE]
        if ph == "move":
            return [self.state["turn"]]
        if ph == "agree":
            return [self.state["proposal"]["queue"][0]]
        return []

    def _legal(self, seat):
        st = self.state
        if seat == CHANCE:
            if st["phase"] == "toss":
                return [{"type": "toss", "first": s} for s in range(len(self.players))]
            return [{"type": "roll", "value": v} for v in rules.DIE_FACES]
        if st["phase"] == "agree":
            return [{"type": "accept_end"}, {"type": "refuse_end"}]
        out = []
        sq = self.geo.squares
        for kind, s, p in rules.legal_moves(self.geo, self.pos(), seat, st["die"]):
            a = {"type": kind, "square": sq[s]}
            if kind == "add":
                a["pattern"] = p
            out.append(a)
        if self.may_propose_end():
            out.append({"type": "propose_end"})
        return out

    def may_propose_end(self) -> bool:
        """The player to move may propose to end the game: option agree_end is on and that many
        full rounds went by with nothing but turns (no piece added or removed, no score)."""
        rounds = self.options["agree_end"]
        st = self.state
        return (rounds is not None and st["phase"] == "move"
                and st["quiet"] >= rounds * len(self.players))

    # the fields of each action (Game.check_action refuses any other, before _apply runs)
    actions = {"add": {"square": "str", "pattern": "int"}, "turn": {"square": "str"}, "remove": {"square": "str"},
               "toss": {"first": "int"}, "roll": {"value": "int"}, "timeout": {},
               "propose_end": {}, "accept_end": {}, "refuse_end": {}}

    def _apply(self, seat, action):
        st = self.state
        kind = action["type"]
        if kind == "timeout":
            return self._timeout(seat, action)
        if kind in ("propose_end", "accept_end", "refuse_end"):
            return self._agreement(seat, action)
        if st["phase"] == "agree":
            raise IllegalAction("%s proposed to end the game: %s accepts or refuses first"
                                % (self.players[st["proposal"]["by"]], self.players[st["proposal"]["queue"][0]]))
        if seat == CHANCE:
            if st["phase"] == "toss":
                return self._toss(action)
            return self._roll(action)
        if kind not in _MOVE_KEYS:
            raise IllegalAction("%s is not an action of Doubles (add, turn, remove)" % kind)
        keys = set(action)
        if keys != _MOVE_KEYS[kind]:
            raise IllegalAction("a %s action has the fields %s (got %s)"
                                % (kind, ", ".join(sorted(_MOVE_KEYS[kind])), ", ".join(sorted(keys))))
        s = self._square(action["square"])
        pattern = action.get("pattern", 0)
        if kind == "add" and (not isinstance(pattern, int) or isinstance(pattern, bool)):
            raise IllegalAction("a pattern is given by its points, 1 to 4, not %r" % (pattern,))
        pos = self.pos()
        why = rules.check_move(self.geo, pos, seat, kind, s, pattern)
        if why:
            raise IllegalAction("%s cannot %s: %s" % (self.players[seat], kind, why))
        return self._move(seat, kind, s, pattern)

    def _chance(self, rng):
        if self.state["phase"] == "toss":
            return {"type": "toss", "first": rng.randrange(len(self.players))}
        return {"type": "roll", "value": rng.randint(1, 4)}

    # ----- steps -----
    def _say(self, events, kind, text, **data):
        events.append(event(kind, text, **data))
        # one string, a line per event: copied whole (cheaply) when apply() saves the state
        hist = self.state["history"] + text + "\n"
        if hist.count("\n") > HISTORY_LINES:
            hist = hist[hist.index("\n") + 1:]
        self.state["history"] = hist

    def _who(self, seat) -> str:
        return "%s (%s)" % (self.players[seat], SEAT_COLOURS[seat])

    def _square(self, name):
        if not isinstance(name, str):
            raise IllegalAction("a square is named like \"c3\", not %r" % (name,))
        if name in self.geo.index:
            return self.geo.index[name]
        for r in self.geo.rows:
            for c in self.geo.columns:
                if c + r["name"] == name:
                    raise IllegalAction("%s is on the %s row %s, which is not in play with %d players"
                                        % (name, r["colour"], r["name"], len(self.players)))
        raise IllegalAction("there is no square %r (columns %s, rows %s)"
                            % (name, "".join(self.geo.columns), ",".join(r["name"] for r in self.geo.rows)))

    def _toss(self, action):
        first = action.get("first")
        if set(action) != {"type", "first"} or action["type"] != "toss":
            raise IllegalAction("the coin toss is {\"type\": \"toss\", \"first\": seat}")
        if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < len(self.players):
            raise IllegalAction("the toss picks a seat from 0 to %d, not %r" % (len(self.players) - 1, first))
        events = []
        self._say(events, "toss", "The coin toss picks %s to start." % self._who(first), first=first)
        self._start_turn(first, events)
        return events

    def _roll(self, action):
        v = action.get("value")
        if set(action) != {"type", "value"} or action["type"] != "roll":
            raise IllegalAction("the die is rolled first: {\"type\": \"roll\", \"value\": 1-4}")
        if not isinstance(v, int) or isinstance(v, bool) or v not in rules.DIE_FACES:
            raise IllegalAction("a d4 shows 1, 2, 3 or 4, not %r" % (v,))
        st = self.state
        st["die"] = v
        st["phase"] = "move"
        events = []
        self._say(events, "roll", "%s rolls a %d." % (self.players[st["turn"]], v), value=v, seat=st["turn"])
        return events

    def _start_turn(self, seat, events):
        st = self.state
        st["turn"] = seat
        st["turn_no"] += 1
        st["die"] = None
        st["phase"] = "roll"
        events.append(event("turn_start", "%s turn." % possessive(self._who(seat)), seat=seat, turn_no=st["turn_no"],
                            timed=self._timed(seat)))

    def _timed(self, seat) -> bool:
        return bool(self.options["timer"]) and seat not in self.options["computer"]

    def _timeout(self, seat, action):
        st = self.state
        if set(action) != {"type"}:
            raise IllegalAction("a timeout is {\"type\": \"timeout\"}")
        if st["phase"] not in ("roll", "move"):
            raise IllegalAction("no turn is being timed")
        if seat != (CHANCE if st["phase"] == "roll" else st["turn"]):
            raise IllegalAction("a timeout is entered by %s now"
                                % ("the table (chance seat)" if st["phase"] == "roll" else self.players[st["turn"]]))
        if not self.options["timer"]:
            raise IllegalAction("the timer is off in this game")
        if st["turn"] in self.options["computer"]:
            raise IllegalAction("computer players are not timed")
        events = []
        st["quiet"] += 1
        nxt = (st["turn"] + 1) % len(self.players)
        self._say(events, "timeout", "%s %d seconds ran out: the turn passes to %s with no action."
                  % (possessive(self.players[st["turn"]]), TURN_SECONDS, self.players[nxt]), seat=st["turn"])
        self._start_turn(nxt, events)
        return events

    def _move(self, seat, kind, s, pattern):
        st = self.state
        geo = self.geo
        pos = self.pos()
        die = st["die"]
        name = geo.squares[s]
        who = self.players[seat]
        before = st["board"][s]
        circle, covered, penalty = rules.play(geo, pos, seat, kind, s, pattern, die)
        st["moves"] += 1
        # option agree_end counts the turns in which nothing was added, removed or scored
        st["quiet"] = st["quiet"] + 1 if (kind == "turn" and circle is None) else 0
        events = []
        if kind == "add":
            f = rules.add_facing(die)
            self._say(events, "add", "%s adds a %s %d on %s; the %d turns it to face %s."
                      % (who, PATTERN_NAMES[pattern], pattern, name, die, CORNER_NAMES[f]),
                      seat=seat, square=name, pattern=pattern, faces=CORNER_NAMES[f])
        elif kind == "turn":
            f = rules.turn_facing(before[2], die)
            how = ("a full turn: it still faces %s" % CORNER_NAMES[f] if die == 4
                   else "%d corner%s clockwise: it now faces %s" % (die, "" if die == 1 else "s", CORNER_NAMES[f]))
            self._say(events, "turn", "%s turns %s on %s %s." % (who, _piece_words(before, self.players, seat), name, how),
                      seat=seat, square=name, faces=CORNER_NAMES[f])
        else:
            left = st["removes"][seat]
            self._say(events, "remove", "%s covers %s on %s with a %s %d from hand; both go back to their "
                      "owners and nobody scores (%s has %d remove%s left)."
                      % (who, _piece_words(covered, self.players, seat), name, PATTERN_NAMES[covered[1]],
                         covered[1], who, left, "" if left == 1 else "s"),
                      seat=seat, square=name, removes_left=left)
        if circle is not None:
            k, three, points, doubled = circle
            p = three[0][1][1]
            owners = {}
            for _, pc in three:
                owners[pc[0]] = owners.get(pc[0], 0) + 1
            back = ", ".join("%d to %s" % (c, self.players[o]) for o, c in sorted(owners.items()))
            self._say(events, "circle", "%s completes a 3/4 circle of %s %ds round the corner of %s: %s "
                      "(%s), now %d. The pieces go back to their owners' hands (%s)."
                      % (who, PATTERN_NAMES[p], p, geo.corner_label[k],
                         ("%d points, doubled on yellow to %d" % (points // 2, points)) if doubled
                         else "%d points" % points,
                         ", ".join(geo.squares[q] for q, _ in three),
                         st["scores"][seat] + (rules.EMPTY_BOARD_PENALTY if penalty else 0), back),
                      seat=seat, points=points, doubled=doubled,
                      squares=[geo.squares[q] for q, _ in three])
        if penalty:
            self._say(events, "penalty", "%s move leaves the board empty: %s loses %d points, now %d."
                      % (possessive(who), who, rules.EMPTY_BOARD_PENALTY, st["scores"][seat]),
                      seat=seat, points=-rules.EMPTY_BOARD_PENALTY)
        if st["scores"][seat] >= rules.WIN_POINTS:
            self._end([seat], "%s reached %d points" % (who, st["scores"][seat]), events,
                      "%s has %d points and wins." % (who, st["scores"][seat]))
            return events
        if rules.dead(geo, pos):
            top = max(st["scores"])
            winners = [i for i, v in enumerate(st["scores"]) if v == top]
            names = " and ".join(self.players[i] for i in winners)
            self._end(winners, "no circle can ever be made again", events,
                      "No circle can ever be made again, so the game ends: %s %s with %d."
                      % (names, "wins" if len(winners) == 1 else "share the win", top))
            return events
        self._start_turn((seat + 1) % len(self.players), events)
        return events

    def _agreement(self, seat, action):
        """Option agree_end: the proposal, the answers in seat order from the proposer's left, and
        the end (every other player accepted: the highest score wins, shared on a tie). A refusal
        ends the proposer's turn (the proposal was its action) and the count starts again."""
        st = self.state
        kind = action["type"]
        if set(action) != {"type"}:
            raise IllegalAction("a %s is {\"type\": \"%s\"}" % (kind, kind))
        n = len(self.players)
        events = []
        if kind == "propose_end":
            if seat != st["turn"] or not self.may_propose_end():
                raise IllegalAction("an end can be proposed by the player to move after %s full rounds of nothing "
                                    "but turns (%d turns so far)" % (self.options["agree_end"], st["quiet"])
                                    if self.options["agree_end"] is not None
                                    else "ending by agreement is off in this game (option agree_end)")
            st["proposal"] = {"by": seat, "queue": [(seat + k) % n for k in range(1, n)]}
            st["phase"] = "agree"
            self._say(events, "propose_end", "%s proposes to end the game: nothing but turns for %d rounds. "
                      "If everyone accepts, the highest score wins." % (self._who(seat), st["quiet"] // n), seat=seat)
            return events
        if st["phase"] != "agree" or seat != st["proposal"]["queue"][0]:
            raise IllegalAction("no end of the game is being proposed to %s" % self.players[seat])
        pr = st["proposal"]
        if kind == "refuse_end":
            st["proposal"] = None
            st["quiet"] = 0
            self._say(events, "refuse_end", "%s refuses: the game goes on." % self._who(seat), seat=seat)
            self._start_turn((pr["by"] + 1) % n, events)
            return events
        pr["queue"].pop(0)
        self._say(events, "accept_end", "%s accepts." % self._who(seat), seat=seat)
        if pr["queue"]:
            return events
        st["proposal"] = None
        top = max(st["scores"])
        winners = [i for i, v in enumerate(st["scores"]) if v == top]
        names = " and ".join(self.players[i] for i in winners)
        self._end(winners, "the players agreed to end the game", events,
                  "Everyone agreed to end the game: %s %s with %d." % (names, "wins" if len(winners) == 1
                                                                   else "share the win", top))
        return events

    def _end(self, winners, reason, events, text):
        st = self.state
        st["phase"] = "over"
        st["die"] = None
        self._say(events, "end", text, winners=winners)
        self._finish(winners, {self.players[i]: v for i, v in enumerate(st["scores"])}, reason)

    # ----- the timer -----
    def turn_timer(self) -> dict:
        """The turn timer as the table needs it: whether this turn is timed, for how long, from
        when, whose colour, and what happens on expiry (a timeout action, see timeout_entry())."""
        st = self.state
        seat = st["turn"]
        running = st["phase"] in ("roll", "move") and seat is not None
        return {"on": bool(self.options["timer"]), "seconds": TURN_SECONDS,
                "seat": seat if running else None,
                "colour": SEAT_COLOURS[seat] if running else None,
                "timed": running and self._timed(seat),
                "turn_no": st["turn_no"],
                "starts": "when the turn starts, before the die roll",
                "on_expiry": "the turn passes with no action"}

    def timeout_entry(self) -> tuple | None:
        """(seat, action) to apply when the timer runs out now, or None if this turn is not timed."""
        t = self.turn_timer()
        if not t["timed"]:
            return None
        seat = CHANCE if self.state["phase"] == "roll" else self.state["turn"]
        return seat, {"type": "timeout"}

    def expire(self, turn_no: int | None = None) -> list:
        """The board reported timer_expired: pass the turn with no action. `turn_no` (from
        turn_timer() when the timer was started) guards against a late report for a turn
        that already ended. Raises IllegalAction if this turn is not timed or the report is
        stale; nothing changes then."""
        if turn_no is not None and turn_no != self.state["turn_no"]:
            raise IllegalAction("the timer that ran out was for turn %d; this is turn %d"
                                % (turn_no, self.state["turn_no"]))
        entry = self.timeout_entry()
        if entry is None:
            raise IllegalAction("this turn is not timed")
        return self.apply(*entry)

    # ----- the view -----
    def _view(self, seat):
        st = self.state
        geo = self.geo
        n = len(self.players)
        yellow = set(self.layout["yellow"])
        grid = []
        for r in geo.rows:
            line = []
            for c in geo.columns:
                name = c + r["name"]
                sq = {"square": name, "colour": r["colour"], "yellow": name in yellow,
                      "in_play": r["in_play"], "piece": None}
                i = geo.index.get(name)
                if i is not None and st["board"][i] is not None:
                    o, p, f = st["board"][i]
                    sq["piece"] = {"owner": o, "letter": SEAT_LETTERS[o], "colour": SEAT_COLOURS[o],
                                   "points": p, "pattern": PATTERN_NAMES[p], "faces": CORNER_NAMES[f]}
                line.append(sq)
            grid.append(line)
        return {
            "game": self.name,
            "players": [{"seat": i, "name": self.players[i], "colour": SEAT_COLOURS[i],
                         "letter": SEAT_LETTERS[i], "computer": i in self.options["computer"]}
                        for i in range(n)],
            "columns": list(geo.columns),
            "rows": [{"name": r["name"], "colour": r["colour"], "in_play": r["in_play"]} for r in geo.rows],
            "grid": grid,
            "scores": list(st["scores"]),
            "removes_left": list(st["removes"]),
            "hands": [{str(p): h[p - 1] for p in (1, 2, 3, 4)} for h in st["hands"]],
            "die": st["die"],
            "phase": st["phase"],
            "turn": st["turn"],
            "to_act": self.to_act(),
            "timer": self.turn_timer(),
            "what_happened": st["history"].splitlines(),
            "agree_end": {"rounds": self.options["agree_end"], "quiet_turns": st["quiet"],
                          "may_propose": self.may_propose_end(),
                          "proposed_by": st["proposal"]["by"] if st["proposal"] else None,
                          "waiting_for": list(st["proposal"]["queue"]) if st["proposal"] else []},
            "over": self.over,
            "result": self.result,
        }
