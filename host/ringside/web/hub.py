"""One game at one table, for any number of screens (a Room).

A room owns a Table (ringside.table) and a worker thread. Everything that touches the game
runs on that thread, one command at a time: a move from a page, a flick, an undo, a
correction, the computer players' turns, chance, the turn timer. After every change the
sequence number goes up by one and every screen gets the table again, built for its viewer:
a seat's screen from picture(game, seat) (the presenter builds it from game.view(seat)), the
table's screen from picture(game, None). A page sends the sequence number it was drawn at
with every move; a move from an older page is refused and the page gets the table as it is.

No game is named here: what a game shows and offers comes from its presenter, its
capabilities and its legal actions (docs/table-contract.md).
"""
from __future__ import annotations

import json
import queue
import random
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ringside import bots as B
from ringside.games import CHANCE, GameError
from ringside.games import circles_common as cc
from ringside.table import SimPort, Table, typed_action
from ringside.web import leds as L
from ringside.web.rules import rulebook
from ringside.web.tokens import TABLE, RoomTokens

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ringside.games import Game

LOG_KEEP = 120            # lines of "what happened" a page is sent
MARBLE_EVERY_S = 0.1      # live marble positions at most this often
MODES = ("sim", "typed", "screen", "board")
MODE_WORDS = {"sim": "the simulated ring", "typed": "a real table, results entered on the page",
              "screen": "on the screen (the computer deals and draws)", "board": "a board on a serial port"}


class RoomError(GameError):
    """A request the room cannot take (a stale move, a move not yours); says why."""


class PacedSimPort(SimPort):
    """The simulated board, run at `speed` times real time while `pace` is on (during a
    flick), reporting the marble's position as it rolls (the live marble on the page)."""

    def __init__(self, board: Any, speed: float = 1.0, on_move: Callable[[float | None], None] | None = None):
        super().__init__(board)
        self.speed = float(speed)
        self.on_move = on_move
        self.pace = False
        self._last_move = 0.0
        self.result_at = None      # time.time() when the board's last landed / off_ring frame was read

    def events(self) -> list:
        fr = super().events()
        if any(kind in ("landed", "off_ring") for _, kind, _ in fr):
            self.result_at = time.time()
        return fr

    def wait(self, ms: int) -> None:
        if not self.pace:
            super().wait(ms)
            return
        left = int(ms)
        while left > 0:
            k = min(left, 20)
            t0 = time.monotonic()
            self.board.advance(k)
            left -= k
            now = time.monotonic()
            m = self.board.marble
            if self.on_move is not None and now - self._last_move >= MARBLE_EVERY_S and not m.at_rest:
                self._last_move = now
                self.on_move(m.position_deg if m.on_ring else None)
            pause = k / 1000.0 / self.speed - (time.monotonic() - t0)
            if pause > 0:
                time.sleep(pause)


class Screen:
    """One page watching a room: its viewer ("table", None) or ("seat", k), and push(text),
    which must be safe to call from the room's thread."""

    def __init__(self, role: str, seat: int | None, push: Callable[[str], None]):
        self.role = role
        self.seat = seat
        self.push = push
        self.sent = 0            # state messages sent (the bench's order check reads seq)

    @property
    def key(self) -> tuple:
        return (self.role, self.seat)


class Room:
    """A game at a table, for many screens. `port` is the board (a PacedSimPort, a LinkPort or
    None); `seats` maps seat -> "human" | "solo" | a computer level."""

    def __init__(self, rid: str, game: Game, seats: dict, mode: str, *, port: Any = None,
                 save_path: Path | None = None, tokens: RoomTokens | None = None,
                 speed: float = 1.0, bot_delay: float = 0.8, skill: float = 0.6, seed: int | None = None,
                 closer: Callable[[], None] | None = None, meta: dict | None = None):
        if mode not in MODES:
            raise RoomError("the ring is one of %s, not %r" % (", ".join(MODES), mode))
        self.rid = rid
        self.mode = mode
        self.speed = float(speed) if mode == "sim" else 1.0
        self.bot_delay = float(bot_delay)
        self.skill = float(skill)
        self.closer = closer
        self.tokens = tokens or RoomTokens(len(game.players))
        self.lines: list[dict] = []
        self.line_no = 0
        meta = dict(meta or {})
        meta["board"] = mode
        meta["web_room"] = rid                                  # a save's meta holds plain values
        meta["web_tokens"] = json.dumps(self.tokens.to_json())
        self.seats = {int(s): lv for s, lv in seats.items()}
        self.table = Table(game, port, save_path=save_path, seats=self.seats, meta=meta, log=self._say)
        self.rng = random.Random(seed if seed is not None else game.seed)
        self.people = {s for s, lv in self.seats.items() if lv == "human"}
        self.bots = {}
        for s, lv in sorted(self.seats.items()):
            if lv == "solo":
                self.bots[s] = B.FirstLegal("solo")
            elif lv != "human":
                self.bots[s] = B.make(game, lv, seed=self.rng.randrange(2 ** 31))
        if isinstance(port, PacedSimPort):
            port.on_move = self._marble
        self.table.on_result = self._result
        self.results = 0                  # board results told to the screens (each `landed` message's n)
        self.seq = 0
        self.screens: list[Screen] = []
        self._cache: dict = {}            # viewer key -> the state text at self.seq
        self._lock = threading.Lock()     # guards screens and _cache (the asyncio side reads them)
        self._cmds: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self._next_auto = 0.0             # when the computer (a bot, chance) may play next
        self._timer = None                # (turn_no, deadline on time.time() in s) of a timed turn
        self._armed = None                # the flick request a real board was armed for
        self._link_up = True              # a real board's link, as the screens were last told
        self._ambiguous = None            # (log index of the landing, [space, other])
        self._pulse = False               # something just happened (the LED mirror pulses)
        self.busy = None                  # "Cy is thinking" while the computer plays
        self.paused = False               # the computer and chance wait (a bench's viewers are still coming)
        self.landings: list = []          # (wall ms the board's result was read, the seq of the table that
                                          # scores it, the n of the `landed` message that showed it first)
        self.errors = 0
        if save_path is not None:
            self.table.save()
        self._thread = threading.Thread(target=self._run, name="room-%s" % rid, daemon=True)

    # ----- life -----
    def start(self) -> Room:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._cmds.put(None)
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(5.0)
        if self.table.save_path is not None:
            try:
                self.table.save()
            except GameError:
                pass
        if self.closer is not None:
            self.closer()
            self.closer = None

    @property
    def game(self) -> Game:
        return self.table.game

    # ----- screens (called from the server's event loop) -----
    def attach(self, screen: Screen) -> None:
        # every push to a screen happens under the lock, so a screen gets its tables in order
        with self._lock:
            self.screens.append(screen)
            cached = self._cache.get(screen.key)
            if cached is not None:
                self._push_state(screen, cached)
        if cached is None:
            self._cmds.put(("hello", screen, {}))

    def _push_state(self, screen: Screen, text: str) -> None:
        """(under the lock) one table to one screen."""
        screen.push(self._stamp(text))
        screen.sent += 1

    def detach(self, screen: Screen) -> None:
        with self._lock:
            if screen in self.screens:
                self.screens.remove(screen)

    def call(self, fn: Callable[[Room], None]) -> None:
        """fn(room) on the room's thread (the board's own results, tests, scripts)."""
        self._cmds.put(("call", None, fn))

    def submit(self, screen: Screen, msg: dict) -> None:
        """A message from a page; answered on the room's thread."""
        self._cmds.put(("msg", screen, msg))

    # ----- the worker -----
    def _run(self):
        item = False
        first = True
        while not self._stop.is_set():
            if not first:
                try:
                    item = self._cmds.get(timeout=0.03)
                except queue.Empty:
                    item = False
                if item is None:
                    break
            try:
                if first:
                    first = False
                    self._publish()
                elif item:
                    self._handle(*item)
                self._tick()
            except Exception as e:          # a bug must not stop the table: say it, keep going
                from ringside.errors import bug_line, user_message
                self.errors += 1
                self._say("(the table hit a problem: %s)" % (user_message(e) or bug_line(e)))
                self._publish()

    def _handle(self, kind, screen, msg):
        if kind == "call":
            msg(self)
            return
        if kind == "hello":
            if screen.sent:          # it has had a table since it came
                return
            text = self._state_text(screen.key)
            with self._lock:
                if screen in self.screens and not screen.sent:
                    self._push_state(screen, text)
            return
        op = msg.get("op")
        try:
            fn = getattr(self, "_op_" + op, None) if isinstance(op, str) and op.isidentifier() else None
            if fn is None:
                raise RoomError("unknown message %r: the page sends act, flick, chance, undo, correct, choose, sim or ping"
                                % (op,))
            fn(screen, msg)
        except (GameError, ValueError) as e:
            stale = isinstance(e, StaleMove)
            screen.push(json.dumps({"type": "refused" if stale else "error", "text": str(e), "seq": self.seq}))
            if stale:        # the page catches up: the table as it is now
                text = self._state_text(screen.key)
                with self._lock:
                    self._push_state(screen, text)

    def _check_seq(self, msg):
        seq = msg.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise RoomError("a move needs the seq of the table it was chosen on")
        if seq != self.seq:
            raise StaleMove("the table has changed since your page showed it (someone else moved): "
                            "here it is as it is now, choose again")

    # ----- who may do what -----
    def actors(self, key: tuple) -> set:
        """The seats a screen may play for: a seat's screen its own seat (a person's); the
        table's screen every person's seat whose view shows nothing the table's does not."""
        role, seat = key
        if role == "seat":
            return {seat} & self.people
        g = self.game
        table_view = g.view(None)
        return {s for s in self.people if g.view(s) == table_view}

    def _may_play(self, key) -> bool:
        return bool(self.actors(key)) or key[0] == TABLE

    # ----- messages from a page -----
    def _op_ping(self, screen, msg):
        screen.push(json.dumps({"type": "pong", "seq": self.seq}))

    def _op_act(self, screen, msg):
        self._check_seq(msg)
        moves = self._moves(screen.key)[0]
        i = msg.get("i")
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(moves):
            raise RoomError("there is no move %r on this table now" % (i,))
        m = moves[i]
        if msg.get("label") is not None and msg.get("label") != m["label"]:
            raise StaleMove("that move is not on the table any more: here it is as it is now")
        self._apply(m["seat"], m["action"])

    def _op_flick(self, screen, msg):
        self._check_seq(msg)
        g = self.game
        req = g.flick_request()
        port = self.table.port
        if req is None or req["seat"] not in self.actors(screen.key):
            raise RoomError("no flick of yours is due now")
        if port is None or not port.simulated:
            raise RoomError("only the simulated ring flicks from the page: flick the marble, or click where it stopped")
        d = msg.get("dir")
        if d not in req["directions"]:
            raise RoomError("this flick goes %s" % " or ".join(req["directions"]))
        deg = msg.get("deg")
        hi = self.table.aim_limit()
        if isinstance(deg, bool) or not isinstance(deg, (int, float)) or not 1 <= deg <= hi:
            raise RoomError("aim between 1 and %d degrees" % hi)
        self._flick(req["seat"], float(deg) if d == cc.CCW else -float(deg), self.skill)

    def _op_chance(self, screen, msg):
        """At a real table's chance step: let the computer roll or draw (the game's seeded RNG)."""
        self._check_seq(msg)
        g = self.game
        if g.to_act() != [CHANCE] or not self._may_play(screen.key):
            raise RoomError("nothing is left to chance now")
        self._apply(CHANCE, g.chance_action())

    def _op_undo(self, screen, msg):
        self._check_seq(msg)
        mine = self.actors(screen.key)
        if not mine and screen.role != TABLE:
            raise RoomError("this screen plays for no one: it cannot undo")
        if self.bots or screen.role == "seat":
            self.table.undo_mine(mine or self.people)
        else:
            self.table.undo(1)
        self._armed = None            # a real board is armed again for the flick now due
        self._after_change()

    def _op_correct(self, screen, msg):
        self._check_seq(msg)
        if not self._may_play(screen.key):
            raise RoomError("this screen plays for no one: it cannot correct the ring")
        space = msg.get("space")
        if not isinstance(space, (str, int)) or isinstance(space, bool):
            raise RoomError("correct needs the space the marble is really on")
        self.table.correct(str(space))
        self._armed = None
        self._after_change()

    def _op_choose(self, screen, msg):
        """An ambiguous landing: the players say which of the two spaces it is."""
        self._check_seq(msg)
        amb = self._ambiguity()
        if amb is None:
            raise RoomError("there is no landing to choose for")
        space = str(msg.get("space"))
        if space not in amb[1]:
            raise RoomError("choose %s" % " or ".join(amb[1]))
        self._ambiguous = None
        if space == amb[2]:
            self._say("the players agree: the marble is on %s" % space)
            self._after_change()
        else:
            self.table.correct(space)
            self._after_change()

    def _op_sim(self, screen, msg):
        """The simulated ring from the page: place the marble, tilt the ring, break a sensor."""
        port = self.table.port
        if not isinstance(port, SimPort):
            raise RoomError("the ring here is not simulated")
        if not self._may_play(screen.key):
            raise RoomError("this screen plays for no one")
        b = port.board
        what = msg.get("what")
        if what == "place":
            g = self.game
            if not g.capabilities.ring_side:
                raise RoomError("this game is not played on the ring")
            sid = str(msg.get("space"))
            if sid not in g.side:
                raise RoomError("there is no space %r on the %s side" % (sid, g.side.name))
            b.place(g.side.centre(sid))
            b.advance(1500)
            self.table._board_at = None      # the table sets it back before the next flick
            self._say("(the marble was set down on %s)" % sid)
        elif what == "tilt":
            deg, low = msg.get("deg", 0), msg.get("low", 0)
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (deg, low)) \
                    or not 0 <= deg <= 5:
                raise RoomError("tilt takes deg 0 to 5 and low (the low point, degrees)")
            b.marble.set_tilt(float(deg), float(low) % 360.0)
            self._say("(the ring now tilts %.1f degrees, low point at %.0f)" % (deg, float(low) % 360.0))
        elif what == "fault":
            from ringside.sim.sensors import FAULTS
            i, kind = msg.get("sensor"), msg.get("kind")
            if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < b.model.count \
                    or kind not in tuple(FAULTS) + ("ok",):
                raise RoomError("fault takes sensor 0 to %d and kind %s or ok" % (b.model.count - 1,
                                                                               ", ".join(FAULTS)))
            b.model.set_fault(i, None if kind == "ok" else kind)
            b.advance(1500)
            self._say("(sensor %d: %s)" % (i, "repaired" if kind == "ok" else kind))
        else:
            raise RoomError("sim takes what=place, tilt or fault")
        self.table._note(port.events())
        self._publish()

    # ----- playing -----
    def _apply(self, seat, action):
        ev = self.table.apply(seat, action)
        amb = [e for e in ev if e.get("type") == "ambiguous"]
        if amb and len(amb[0].get("spaces") or []) == 2:
            idx = self._last_ring_index()
            if idx is not None:      # (the landing, the two spaces, the one the game counted)
                self._ambiguous = (idx, [str(s) for s in amb[0]["spaces"]], str(amb[0].get("space")))
        self._after_change(ev)
        return ev

    def _after_change(self, ev=None):
        self._pulse = bool(ev)
        self._next_auto = time.monotonic() + self.bot_delay
        self._publish()

    def _flick(self, seat, target, skill):
        port = self.table.port
        self.busy = "the marble is rolling"
        self._publish()
        paced = isinstance(port, PacedSimPort)
        if paced:
            port.pace = True
            port.result_at = None
        try:
            a = self.table.flick_sim(target, skill, self.rng)
        finally:
            if paced:
                port.pace = False
            self.busy = None
        if a is None:
            self._say("the board gave no result: click the space where the marble stopped")
            self._publish()
            return
        at = getattr(port, "result_at", None)
        n = self.results
        self._apply(seat, a)
        if at is not None:
            self.landings.append((at * 1000.0, self.seq, n))
            del self.landings[:-1000]

    def _tick(self):
        g = self.game
        self._watch_board()
        if g.over:
            return
        now = time.monotonic()
        self._keep_time()
        act = g.to_act()
        if not act or self.paused:
            return
        seat = act[0]
        if seat == CHANCE:
            if self.mode in ("sim", "screen") and now >= self._next_auto:
                self._apply(CHANCE, g.chance_action())
            return
        if seat in self.bots and now >= self._next_auto:
            self._bot_turn(seat)
            return
        port = self.table.port
        req = g.flick_request()
        if req is not None and req["seat"] == seat and port is not None and not port.simulated:
            # a person's flick at a real board: arm it once, then watch for the result
            said = self.line_no
            if self._armed != (len(g.log), seat):
                self.table.arm()
                self._armed = (len(g.log), seat)
            a = self.table.wait_result(20, step_ms=20)
            if a is not None:
                self._apply(seat, a)
            elif self.line_no != said:
                self._publish()        # the table said something ("put the marble on 7", the board is back)

    def _watch_board(self):
        """A real board: every screen is told at once when its link goes down or comes back
        (state.board), and a landing the board has corrected since (the marble moved on) is
        taken (Table.take_corrections: replaced if nothing but chance was played since)."""
        port = self.table.port
        if port is None or isinstance(port, SimPort):
            return
        up = bool(port.connected)
        if up != self._link_up:
            self._link_up = up
            self._publish()
        if self.table.corrections_waiting:
            ev = self.table.take_corrections()
            if ev:
                self._after_change(ev)
            else:
                self._publish()        # the table says why nothing was changed

    def _keep_time(self):
        """Timed turns: the board keeps the time (its expiry passes the turn); with no board
        this computer does. The page is told the deadline."""
        g = self.game
        t = g.turn_timer()
        if not t.get("timed"):
            self._timer = None
            return
        if self._timer is None or self._timer[0] != t["turn_no"]:
            self._timer = (t["turn_no"], time.time() + t["seconds"] / self.speed, t["seconds"], t.get("colour"))
            self._publish()
        port = self.table.port
        if port is None:
            if time.time() >= self._timer[1]:
                entry = g.timeout_entry()
                if entry is not None:
                    self._say("time is up: the turn passes")
                    self._apply(*entry)
            return
        if isinstance(port, SimPort):
            last = getattr(self, "_sim_clock", None)
            now = time.monotonic()
            self._sim_clock = now
            if last is not None:
                port.board.advance(int(max(0.0, min(0.5, now - last)) * 1000 * self.speed))
        if self.table.check_timer() is not None:
            self._say("time is up: the turn passes")
            self._after_change([{"type": "timeout"}])

    def _bot_turn(self, seat):
        g = self.game
        bot = self.bots[seat]
        port = self.table.port
        target = bot.aim(g, seat)
        if target is not None and port is not None and port.simulated:
            self._say("%s flicks, aiming %.0f degrees %s" % (g.seat_name(seat), abs(target),
                                                             "clockwise" if target < 0 else "anticlockwise"))
            self._flick(seat, target, bot.skill if bot.skill is not None else 0.6)
            return
        self.busy = "%s is thinking" % g.seat_name(seat)
        try:
            a = bot.choose(g, seat)
        finally:
            self.busy = None
        self._apply(seat, a)

    # ----- what a screen is shown -----
    def _say(self, text: str) -> None:
        self.line_no += 1
        self.lines.append({"n": self.line_no, "text": text})
        del self.lines[:-LOG_KEEP]

    def _result(self, kind: str, fields: dict, action: dict) -> None:
        """The board's result, told to every screen the moment it is read: the marble at rest
        where the board says, before the table has played it (a simulated flick first waits
        to see that the marble stays; a game's scoring follows in the next state). Public:
        where the marble lies is seen by everyone at the table."""
        self.results += 1
        g = self.game
        req = g.flick_request()
        deg = None
        if kind == "landed":
            sid = str(action["space"])
            label = g.side.labels.get(sid, sid) if g.side is not None else sid
            ang = fields.get("ang")
            if isinstance(ang, int) and not isinstance(ang, bool):
                deg = (ang / 100.0) % 360.0
            elif g.side is not None and sid in g.side:
                deg = g.side.centre(sid)
            text = "the marble stopped on %s" % label
            alt = action.get("alt")
            if alt is not None:
                text += " (or %s: the board is not sure)" % g.side.labels.get(str(alt), alt)
        else:
            sid, label = None, None
            text = "the marble left the ring"
        msg = json.dumps({"type": "landed", "seq": self.seq, "n": self.results, "space": sid, "label": label,
                          "deg": deg, "text": text, "seat": req["seat"] if req else None})
        with self._lock:
            screens = list(self.screens)
        for s in screens:
            s.push(msg)

    def _marble(self, deg):
        msg = json.dumps({"type": "marble", "seq": self.seq, "deg": deg})
        with self._lock:
            screens = list(self.screens)
        for s in screens:
            s.push(msg)

    def _last_ring_index(self):
        log = self.game.log
        for i in range(len(log) - 1, -1, -1):
            if cc.is_ring_action(log[i][1]):
                return i
        return None

    def _ambiguity(self):
        amb = self._ambiguous
        if amb is None or amb[0] != self._last_ring_index() or amb[0] >= len(self.game.log):
            return None
        return amb

    def _moves(self, key) -> tuple:
        """([{seat, action, label, group, place}], flick) for a screen now."""
        g = self.game
        if g.over or self.busy:
            return [], None
        act = g.to_act()
        mine = self.actors(key)
        pres = g.presenter
        group = getattr(pres, "group", None)
        out = []
        flick = None
        places = self._place_ids()
        seats = [s for s in act if s in mine]
        if act == [CHANCE] and self.mode not in ("sim", "screen") and self._may_play(key):
            seats = [CHANCE]
        for seat in seats:
            req = g.flick_request()
            if req is not None and req["seat"] == seat:
                port = self.table.port
                if port is not None and port.simulated:
                    flick = {"seat": seat, "directions": list(req["directions"]), "from": req["from"],
                             "max_deg": int(self.table.aim_limit()),
                             "target_travel": req.get("target_travel"), "min_steps": req["min_steps"],
                             "space_deg": round(360.0 / g.side.n, 1)}
                    continue
                # at a real table the players say where it stopped: a click on the space
                for sid in g.side.ids:
                    try:
                        a = typed_action(g, sid)
                    except (GameError, ValueError):
                        continue
                    out.append({"seat": seat, "action": a, "group": "where the marble stopped",
                                "label": "it stopped on %s" % g.side.labels.get(sid, sid), "place": sid})
                out.append({"seat": seat, "action": {"type": "off_ring"}, "group": "where the marble stopped",
                            "label": "it left the ring", "place": None})
                continue
            for a in g.legal_actions(seat):
                grp = group(g, seat, a) if group is not None else None
                out.append({"seat": seat, "action": a, "label": pres.label(g, seat, a),
                            "group": grp, "place": _place_of(a, grp, places)})
        return out, flick

    def _place_ids(self) -> set:
        """Every clickable id the picture has: ring spaces, grid cells, track steps."""
        pic = self.game.presenter.picture(self.game, None)
        return set(_picture_places(pic))

    def _state(self, key) -> dict:
        g = self.game
        role, seat = key
        pic = g.presenter.picture(g, seat)
        moves, flick = self._moves(key)
        mine = self.actors(key)
        ring_game = bool(g.capabilities.ring_side)
        landing = None
        idx = self._last_ring_index() if ring_game else None
        if idx is not None and not g.over and self._may_play(key) and not self.busy:
            a = g.log[idx][1]
            amb = self._ambiguity()
            landing = {"space": (amb[2] if amb else a.get("space")) if a.get("type") == "landed" else None,
                       "seat": g.log[idx][0], "choices": amb[1] if amb else None,
                       "spaces": list(g.side.ids)}
        timer = None
        if self._timer is not None and pic.get("timer"):
            timer = {"seconds_total": self._timer[2] / self.speed, "deadline_ms": int(self._timer[1] * 1000),
                     "seat": pic["timer"].get("seat"), "text": pic["timer"].get("text", ""),
                     "colour": (self._timer[3] or "").lower() or None}
        port = self.table.port
        sim = None
        if isinstance(port, SimPort):
            from ringside.sim.sensors import FAULTS
            sim = {"sensors": port.board.model.count, "faults": list(FAULTS),
                   "spaces": list(g.side.ids) if ring_game else []}
        names = list(g.players)
        you = {"role": role, "seat": seat, "name": names[seat] if seat is not None else None,
               "plays_for": sorted(mine)}
        return {
            "type": "state", "seq": self.seq, "room": self.rid, "you": you, "mode": self.mode,
            "mode_words": MODE_WORDS[self.mode], "picture": pic,
            "moves": [{"i": i, "label": m["label"], "group": m["group"], "place": m["place"],
                       "seat": m["seat"]} for i, m in enumerate(moves)],
            "flick": flick, "landing": landing, "timer": timer, "busy": self.busy,
            "chance": (g.capabilities.chance_prompt or "chance decides") if any(
                m["seat"] == CHANCE for m in moves) else None,
            "can_undo": bool(g.log) and (bool(mine) or role == TABLE) and not self.busy,
            "leds": {"pixels": L.pixels(g, pulse=self._pulse), "ring": L.ring_info()},
            "log": self.lines[-LOG_KEEP:], "sim": sim, "over": g.over,
            "board": self.health() if self.mode == "board" else None,
            "seats": [{"seat": i, "name": n, "plays": self.seats.get(i, "human")} for i, n in enumerate(names)],
        }

    def _state_text(self, key) -> str:
        with self._lock:
            text = self._cache.get(key)
        if text is None:
            text = json.dumps(self._state(key), allow_nan=False)
            with self._lock:
                self._cache[key] = text
        return text

    @staticmethod
    def _stamp(text: str) -> str:
        """The state with the server's clock now (the page corrects the timer's deadline)."""
        return '{"now_ms": %d, %s' % (int(time.time() * 1000), text[1:])

    def _publish(self):
        """A new table for every screen: seq + 1, each screen its own viewer's state."""
        self.seq += 1
        with self._lock:
            keys = {s.key for s in self.screens}
            self._cache = {}
        texts = {k: json.dumps(self._state(k), allow_nan=False) for k in keys}
        late = []
        with self._lock:
            self._cache = dict(texts)
            for s in self.screens:
                if s.key in texts:
                    self._push_state(s, texts[s.key])
                else:
                    late.append(s)       # came while the tables were built: it gets its own
        for s in late:
            self._cmds.put(("hello", s, {}))

    # ----- for the lobby -----
    def links(self, base: str) -> dict:
        g = self.game
        return {"table": "%s/table/%s?t=%s" % (base, self.rid, self.tokens.table),
                "seats": [{"seat": i, "name": n, "plays": self.seats.get(i, "human"),
                           "url": "%s/table/%s?t=%s" % (base, self.rid, self.tokens.seat[i])}
                          for i, n in enumerate(g.players)]}

    def health(self) -> dict:
        return board_health(self.table.port, self.mode)

    def summary(self) -> dict:
        g = self.game
        return {"room": self.rid, "game": g.name, "title": g.title or g.name, "players": list(g.players),
                "mode": self.mode, "over": g.over, "moves": len(g.log), "seq": self.seq,
                "health": self.health()}

    def rules(self) -> dict:
        if getattr(self, "_rules", None) is None:
            self._rules = rulebook(self.game)
        return self._rules


class StaleMove(RoomError):
    """A move from a page drawn before the table last changed."""


def _picture_places(pic: dict) -> list:
    out = []
    for s in pic.get("sections", []):
        kind = s.get("kind")
        if kind == "ring":
            out += [str(sp["id"]) for sp in s.get("spaces", [])]
        elif kind == "grid":
            for row in s.get("rows", []):
                for cell in row.get("cells", []):
                    cid = cell.get("id", cell.get("square"))
                    if cid is not None:
                        out.append(str(cid))
        elif kind == "track":
            out += [str(st["label"]) for st in s.get("steps", [])]
    return out


def _place_of(action: dict, group: str | None, places: set) -> str | None:
    """The place an action names: its group heading when that is a place on the picture, else
    the first field of the action whose value is one (a space, a square, a step)."""
    if group is not None and str(group) in places:
        return str(group)
    for k, v in action.items():
        if k == "type" or isinstance(v, (bool, dict, list)) or v is None:
            continue
        if str(v) in places:
            return str(v)
    return None


def board_health(port: Any, mode: str) -> dict:
    """The board's health in words: link, sensors, calibration, level."""
    if port is None:
        return {"link": "no board (%s)" % MODE_WORDS.get(mode, mode), "sensors": None,
                "calibration": None, "level": None}
    out = {"link": "connected" if port.connected else "lost: the game waits for the board"}
    if isinstance(port, SimPort):
        b = port.board
        hello = b.frames_of("hello")
        h = hello[-1][2] if hello else {}
        faulty: set = set()          # as the board reported them
        for _, kind, f in b.frames:
            if kind == "sensor_fault":
                faulty.add(f.get("id"))
            elif kind == "sensor_ok":
                faulty.discard(f.get("id"))
        n = h.get("sensors", b.model.count)
        healthy = n - len(faulty)
        out["link"] = "simulated board, in this program (firmware %s)" % h.get("fw", "?")
        out["sensors"] = "%d of %d working" % (healthy, n)
        at = getattr(port, "calibrated_at", None)
        out["calibration"] = ("calibrated %s" % _age(at)) if at else (
            "calibrated (saved on the board)" if b.saved_ring else "not calibrated")
        nl = b.frames_of("not_level")
        out["level"] = ("not level: low point near %.0f degrees" % (nl[-1][2]["low"] / 100.0)) if nl else "level"
        return out
    link = getattr(port, "link", None)
    hello = getattr(link, "hello", None) or {}
    if isinstance(hello, dict) and hello:
        out["sensors"] = "%s of %s working" % (hello.get("healthy", "?"), hello.get("sensors", "?"))
    else:
        out["sensors"] = "unknown (no hello from the board yet)"
    from ringside import calibration_record
    from ringside.link.messages import board_calibration
    cal = calibration_record.last(getattr(link, "board_uid", None))
    kept = board_calibration(hello) if isinstance(hello, dict) else None
    if kept is not None:
        kept = (kept[0], kept[1].replace("PORT", getattr(link, "port_name", None) or "PORT"))
    if kept is not None and not kept[0]:
        out["calibration"] = kept[1]            # what the board says outranks this computer's
    elif cal is not None:
        out["calibration"] = "calibrated %s (from this computer%s)" % (
            _age(cal["at"]), ", %d placements rolled away" % cal["rolled"] if cal.get("rolled") else "")
    elif kept is not None:
        out["calibration"] = kept[1] + " (saved on the board, not from this computer)"
    else:
        out["calibration"] = "not calibrated from this computer: `ringside calibrate --port ...` (the board keeps its own)"
    nl = getattr(link, "not_level", None)
    if isinstance(nl, dict) and isinstance(nl.get("low"), int):
        out["level"] = "not level: low point near %.0f degrees" % (nl["low"] / 100.0)
    else:
        out["level"] = "level (no swing reported since the board started)"
    return out


def _age(t: float) -> str:
    s = max(0, int(time.time() - t))
    if s < 90:
        return "%d seconds ago" % s
    if s < 5400:
        return "%d minutes ago" % (s // 60)
    if s < 2 * 86400:
        return "%d hours ago" % (s // 3600)
    return "%d days ago" % (s // 86400)
