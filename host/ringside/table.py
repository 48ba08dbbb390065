"""The table: binds a game engine to a board (ARCHITECTURE.md, "Table binding").

It arms each flick with the game's direction and distance rules, turns the board's
`landed` / `off_ring` frames into the game's ring-result actions, shows the game on the
LEDs, saves every action as it happens, and undoes or corrects a wrong detection.

A board is reached through a small port interface, so the same table runs on

    SimPort(SimBoard)  the firmware controller on the simulated ring, in-process, virtual time
    LinkPort(Link)     a real board, or a simulated one on a pty, over ringside.link
    None               no board: the players type the ring results ("landed 12 ccw", "off")

Port interface (duck-typed):

    port.send(kind, **fields) -> bool     True when the board acknowledged the command,
                                          False when it refused it or does not know it
    port.events() -> [(t_ms, kind, fields)]   frames (and link events) since the last call
    port.wait(ms)                         let ms pass (virtual time on the SimPort)
    port.simulated                        True when the port can place and flick the marble:
    port.place(angle_deg), port.flick(speed_mm_s)   (signed speed, + = counter-clockwise)
    port.connected                        False while a link is down (the game pauses)

Angles are degrees (ccw from east, as ring.json); the board sends centidegrees.
"""
from __future__ import annotations

import math
import os
from pathlib import Path

from ringside import store
from ringside.games import GameError, IllegalAction
from ringside.games import circles_common as cc
from ringside.errors import UsageError
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Callable
    from collections.abc import Iterable
    from ringside.games import Game
    from ringside.link.link import Link
    from ringside.sim.board import SimBoard
    import random

TABLE_SAVE_FORMAT = store.TABLE_SAVE_FORMAT
COLOURS = ["ffd000", "0050ff", "ff5000", "00c040", "ffffff"]      # yellow, blue, orange, green, white
COLOUR_NAMES = ["yellow", "blue", "orange", "green", "white"]
OFF = "off"                  # unpaints (the ground shows through)
FLICK_TIMEOUT_MS = 30000
SETTLE_MS = 1200          # after placing the marble, before flicking it
CONFIRM_MS = 1500         # after a landing, how long a simulated flick waits for the board to
                          # withdraw it (the marble moved on) before the result is played


def default_autosave() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "ringside" / "last-game.json"


class TableError(GameError):
    """The table cannot do what was asked (no board, a bad save, a lost board). Says why."""


# ----- ports -----------------------------------------------------------------------------

def _ring_leds() -> dict:
    """The LED ring's description from the host's ring.json (count, LED 0, direction)."""
    from ringside import ring
    return ring.leds()


class Port:
    """What every port has (the table asks no port what it has): override what applies."""

    simulated = False
    connected = True
    confirm_ms = 0        # after a landing, wait this long for a withdrawal before playing it
    truth = None          # a callable (on ring, angle, travel) for a simulated marble, or None

    def log(self, text: str) -> None:
        """Replaced by the table's log."""


class SimPort(Port):
    """The in-process simulated board (ringside.sim.board.SimBoard) as a port."""

    simulated = True
    confirm_ms = CONFIRM_MS   # virtual time: waiting costs nothing

    def __init__(self, board: SimBoard):
        self.board = board
        self._seen = len(board.frames)

    @property
    def ring(self) -> dict:
        return self.board.ring_dict

    def send(self, kind: str, **fields: Any) -> bool:
        b = self.board
        b.send(kind, **fields)
        seq = b._host_enc.seq
        start = len(b.frames)
        for _ in range(50):
            b.advance(b.loop_ms)
            for _, k, f in b.frames[start:]:
                if k in ("ack", "nack") and f.get("re") == seq:
                    return k == "ack"
        return False

    def events(self) -> list:
        fr = self.board.frames[self._seen:]
        self._seen = len(self.board.frames)
        return list(fr)

    def wait(self, ms: int) -> None:
        self.board.advance(int(ms))

    def place(self, angle_deg: float) -> None:
        self.board.place(angle_deg)

    def flick(self, speed_mm_s: float) -> None:
        self.board.flick(speed_mm_s)

    def truth(self) -> tuple:
        """What the players see when the board gives no usable result: (on the ring, angle
        in degrees, signed travel since the flick in degrees)."""
        m = self.board.marble
        return m.on_ring, m.position_deg, m.travel_deg


class LinkPort(Port):
    """A board over the serial link (ringside.link.Link): a real one, or a simulated one on
    a pty (which can also flick and place the marble with its sim_* commands)."""

    def __init__(self, link: Link, simulated: bool | None = None, truth: Callable[[], tuple] | None = None):
        """simulated: the board is a simulated one (it takes sim_place / sim_flick).
        truth: a callable giving the simulated marble's (on ring, angle, travel) for when
        the board's result is unusable (what the players would see and type)."""
        self.link = link
        self._t0 = None
        self.simulated = bool(simulated)
        if truth is not None:
            self.truth = truth

    @property
    def connected(self) -> bool:
        return self.link.connected

    @property
    def restores(self) -> int:
        """How often the link has sent its scene to the board again (Link.restores)."""
        return self.link.restores

    def send(self, kind: str, **fields: Any) -> bool:
        return self._call(self.link.command, kind, **fields) is not False

    def _call(self, fn, *args, **kw):
        """fn(...); a refusal gives False; a lost board pauses until it is back, then retries."""
        from ringside.link import LinkError
        while True:
            try:
                fn(*args, **kw)
                return True
            except LinkError as e:
                if e.why:          # refused by the board
                    return False
                self.log("the board is disconnected (%s): the game is paused until it returns" % e)
                while not self.link.wait_connected(1.0):
                    pass
                self.log("the board is back: the game goes on")

    def _ms(self, t):
        import time
        if self._t0 is None:
            self._t0 = time.monotonic()
        return int((t - self._t0) * 1000)

    def events(self) -> list:
        out = []
        while True:
            ev = self.link.next_event(0)
            if ev is None:
                return out
            out.append((self._ms(ev.t), ev.kind, dict(ev.fields)))

    def wait(self, ms: int) -> None:
        import time
        time.sleep(ms / 1000.0)

    def place(self, angle_deg: float) -> None:
        self._call(self.link.command, "sim_place", ang=int(round(angle_deg * 100)) % 36000)

    def flick(self, speed_mm_s: float) -> None:
        self._call(self.link.flick, abs(speed_mm_s), "ccw" if speed_mm_s > 0 else "cw")


# ----- reading the board -----------------------------------------------------------------

def frame_action(side: cc.RingSide, kind: str, fields: dict) -> dict:
    """A board frame -> the game's ring-result action. Raises ValueError when malformed."""
    if kind == "off_ring":
        a = {"type": "off_ring"}
        if "trv" in fields:
            a["travel"] = _centi(fields["trv"], "trv")
        return a
    if kind != "landed":
        raise UsageError("%s is not a ring result" % kind)
    if "sp" not in fields or "trv" not in fields:
        raise UsageError("a landed frame needs sp= and trv=")
    sp = str(fields["sp"])
    if sp not in side:
        raise UsageError("the board reports space %r, which the %s side does not have" % (sp, side.name))
    a = {"type": "landed", "space": sp, "travel": _centi(fields["trv"], "trv")}
    if "alt" in fields:
        alt = str(fields["alt"])
        if alt not in side or not side.adjacent(sp, alt):
            raise UsageError("the board reports an ambiguous neighbour %r of %s that is not one" % (alt, sp))
        a["alt"] = alt
    if "conf" in fields:
        a["conf"] = fields["conf"]
    return a


def blind_candidates(fields: dict) -> list[str]:
    """The spaces a `landed blind=1` frame says the marble may be on (cands=3,17), or []."""
    from ringside.link.messages import id_list
    if not fields.get("blind"):
        return []
    return id_list(fields.get("cands"))


def _centi(v, name):
    if isinstance(v, bool) or not isinstance(v, int):
        raise UsageError("%s=%r is not a whole number of centidegrees" % (name, v))
    return round(v / 100.0, 2)


def typed_action(game: Game, text: str) -> dict:
    """A ring result the players typed: "off", or "landed SPACE [cw|ccw] [short|lap|laps=N]"
    (the word "landed" may be left out). Without a direction or laps, the reading is the
    shortest that makes the flick valid (nearest one full lap for a flick that should go
    once round); the travel is measured centre to centre. Raises ValueError with the reason."""
    req = game.flick_request()
    if req is None:
        raise UsageError("no flick is due now")
    words = text.replace(",", " ").split()
    if not words:
        raise UsageError("type a result, e.g. 'landed 12 ccw' or 'off'")
    if words[0] in ("off", "off_ring", "offring"):
        return {"type": "off_ring"}
    if words[0] == "landed":
        words = words[1:]
    if not words:
        raise UsageError("say where it stopped: landed SPACE")
    side = game.side
    space = _find_space(side, words[0])
    direction = None
    laps = None
    for w in words[1:]:
        if w in cc.DIRECTIONS:
            direction = w
        elif w in ("anticlockwise", "counterclockwise"):
            direction = cc.CCW
        elif w == "clockwise":
            direction = cc.CW
        elif w == "short":
            laps = 0
        elif w == "lap":
            laps = 1
        elif w.startswith("laps="):
            laps = int(w[5:])
            if not 0 <= laps <= 3:
                raise UsageError("laps must be 0 to 3")
        else:
            raise UsageError("did not understand %r (say cw, ccw, short, lap or laps=N)" % w)
    dirs = req["directions"] if direction is None else [direction]   # a wrong way: the game says so
    origin = req["from"]
    target = req.get("target_travel")
    cands = [(d, k, side.travel_to(origin, space, d, k)) for d in dirs
             for k in ((laps,) if laps is not None else (0, 1, 2))]
    if target is not None:   # the flick should go once round: the reading nearest that
        direction, laps, _ = min(cands, key=lambda c: abs(abs(c[2]) - 360.0))
    else:                    # the shortest reading that is valid, else the shortest
        def valid(c):
            return c[2] != 0 and cc.steps_for(side, origin, space, c[2])[1] >= req["min_steps"]
        ok = [c for c in cands if valid(c)] or cands
        direction, laps, _ = min(ok, key=lambda c: abs(c[2]) if c[2] else 999.0)
    t = side.travel_to(origin, space, direction, laps)
    if t == 0:
        t = 5.0 if direction == cc.CCW else -5.0
    return {"type": "landed", "space": space, "travel": t}


def _find_space(side, word):
    if word in side:
        return word
    lw = word.lower()
    hits = [s for s in side.ids if s.lower() == lw or side.labels[s].lower() == lw]
    if len(hits) == 1:
        return hits[0]
    starts = [s for s in side.ids if s.lower().startswith(lw)]
    if len(starts) == 1:
        return starts[0]
    if hits or starts:
        raise UsageError("%r could be %s: give the space id" % (word, ", ".join(hits or starts)))
    raise UsageError("there is no space %r on the %s side" % (word, side.name))


# ----- the table -------------------------------------------------------------------------

class Table:
    """One game at one table. `game` may be replaced (undo, corrections): always use
    table.game. log(text) receives what happened, in plain words."""

    def __init__(self, game: Game, port: SimPort | LinkPort | None = None, *, save_path: str | Path | None = None, seats: dict | None = None, log: Callable[[str], None] | None = None,
                 meta: dict | None = None):
        self.game = game
        self.port = port
        self.save_path = Path(save_path) if save_path else None
        self.seats = dict(seats or {})       # seat -> "human" | bot level (saved with the game)
        self.meta = dict(meta or {})
        self.log = log or (lambda text: None)
        if port is not None:
            port.log = lambda text: self.log(text)
        self.leds_on = port is not None      # until the board refuses a scene command
        self._painted: dict = {}
        self._player = None                  # the seat whose colour the ring shows
        self._player_colour = None
        self.ignored = 0                     # malformed ring frames skipped
        self.fallbacks = 0                   # flicks the board gave no usable result for
        self._board_at = None                # the space the board last saw the marble rest on
        self._board_alt = None               # ... and the other space its landing named (alt=)
        self._board_off = False              # the board last saw the marble leave the ring (or lifted)
        self._arm_wait = None                # at a real board: the flick waiting for the marble to be set down
        self._px = None                      # the whole-ring picture the LEDs show (px runs)
        self._timer_turn = None              # the turn the board's timer was started for
        self._withdrawn = None               # the board withdrew the last landing (fields)
        self._corrections: list[dict] = []   # corrected landings not yet taken (fields)
        self.corrections = 0                 # landings replaced because the marble moved on
        self._from_board = None              # the last ring result the board gave (an action)
        self.on_result = None                # on_result(kind, fields, action): a board's result, the moment it is read
        self._board_entry = None             # (log index, action) where the game played it
        side = game.capabilities.ring_side   # games off the ring (Doubles) have none
        if side and port is not None:
            if not port.send("side", name=side):
                raise TableError("the board does not have a %s side (is its ring.json the host's?)" % side)
            self.port.events()               # drop what came before the game

    # --- saving ---
    def to_json(self) -> str:
        return store.table_json(self.game, self.seats, self.meta)

    def save(self, path: str | Path | None = None) -> Path:
        """Write the table (game, seats) durably to path (default: the autosave path); the
        save it replaces is kept as <path>.prev (ringside.store, docs/saves.md)."""
        p = Path(path) if path else self.save_path
        if p is None:
            raise TableError("no save file given")
        return store.write_text(p, self.to_json())

    # --- acting ---
    def apply(self, seat: int | str, action: dict) -> list[dict]:
        """Apply an action (IllegalAction propagates, nothing changed); autosave; LEDs."""
        ev = self.game.apply(seat, action)
        if action is self._from_board:
            # the board's landing is this log entry: a correction of it replaces this one
            self._board_entry = (len(self.game.log) - 1, action)
            self._from_board = None
        self._say(ev)
        if self.save_path:
            self.save()
        self.show(ev)
        return ev

    def _say(self, events) -> None:
        from ringside.games.present import event_text
        pres = self.game.presenter
        for e in events:
            self.log(event_text(pres, e))

    def undo(self, n: int = 1) -> None:
        """Take back the last n log entries (chance included)."""
        if not self.game.log:
            raise TableError("nothing to undo yet: no action has been played")
        if not 1 <= n <= len(self.game.log):
            raise TableError("only %d action%s can be undone" % (len(self.game.log),
                                                                "" if len(self.game.log) == 1 else "s"))
        self.game = self.game.undo(n)
        if self.save_path:
            self.save()
        self.log("undone: %d action%s" % (n, "" if n == 1 else "s"))
        self._place_marble()
        self.show([])

    def undo_mine(self, mine: Iterable[int]) -> int:
        """Take back the last action of a seat in `mine` (the people at the table) and all
        that came after it (the computer's replies, the chance draws): the person chooses
        again. Returns the log entries undone; TableError when there is nothing of theirs."""
        log = self.game.log
        for i in range(len(log) - 1, -1, -1):
            if log[i][0] in mine:
                n = len(log) - i
                self.undo(n)
                return n
        raise TableError("nothing to undo yet: no one at the table has played")

    def correct(self, space: str) -> list[dict]:
        """"It is on SPACE": the last ring result becomes a clear landing on SPACE; what came
        after it is undone (the players decide again); the game replays."""
        g = self.game
        if not g.capabilities.ring_side:
            raise TableError("%s has no flicks to correct" % (g.title or g.name))
        idx = None
        for i in range(len(g.log) - 1, -1, -1):
            if cc.is_ring_action(g.log[i][1]):
                idx = i
                break
        if idx is None:
            raise TableError("no flick has been recorded yet")
        seat, old = g.log[idx]
        space = _find_space(g.side, space)
        before = g.replay(idx)
        origin = before.flick_request()["from"]
        t = old.get("travel")
        try:
            if old["type"] == "off_ring" or t is None:
                raise IllegalAction("no travel to keep")
            # keep the measured travel, moved just far enough to end on the named space
            t = round(t + before.side.nudge_into(before.side.centre(origin) + t, space), 2)
            cc.steps_for(before.side, origin, space, t)
        except IllegalAction:
            dirs = before.flick_request()["directions"]
            d = (cc.CCW if t > 0 else cc.CW) if t else dirs[0]
            t = typed_action(before, "%s %s" % (space, d))["travel"]
        new = {"type": "landed", "space": space, "travel": t}
        dropped = len(g.log) - idx - 1
        ev = before.apply(seat, new)
        self.game = before
        self.log("corrected: the marble is on %s%s" % (space, "; %d later action%s undone" % (
            dropped, "" if dropped == 1 else "s") if dropped else ""))
        self._say(ev)
        if self.save_path:
            self.save()
        if self.port is not None and not self.port.simulated:
            # the players say where the marble is: the next flick starts there, no carrying
            self._board_at, self._board_alt, self._board_off = space, None, False
        self._place_marble()
        self.show(ev)
        return ev

    # --- the board ---
    def arm(self) -> None:
        """Tell the board the flick that is due: direction and minimum travel (degrees).

        At a real board whose marble was last seen resting on another space than the flick's
        start, a player must carry it there first; and a marble lifted while the board is
        armed is a flick off the ring (docs/protocol.md, the tracker's rule). So the flick is
        armed when the board says the marble was set down (`placed`), not before."""
        req = self.game.flick_request()
        if req is None or self.port is None:
            return
        start = req["from"]
        if not self.port.simulated and self.game.capabilities.ring_side and (
                self._board_off or self._board_at is not None and start not in (self._board_at, self._board_alt)):
            if self._arm_wait != (len(self.game.log), start):
                self.log("put the marble on %s: the flick is armed once it is there"
                         % self.game.side.labels.get(start, start))
            self._arm_wait = (len(self.game.log), start)
            return
        self._arm_wait = None
        self._send_arm(req)

    def _send_arm(self, req: dict) -> None:
        dirs = req["directions"]
        d = dirs[0] if len(dirs) == 1 else "any"
        mean = 360.0 / self.game.side.n
        mn = max(0.0, (req["min_steps"] - 0.5) * mean)
        if not self.port.send("arm", dir=d, min=int(round(mn * 100))):
            self.log("(the board does not take arm commands: the host checks the flick itself)")

    def _place_marble(self):
        """On a simulated board, put the marble where the game says it is (as a player
        would: only when it is not already resting there)."""
        if self.port is None or not self.port.simulated or not self.game.capabilities.ring_side:
            return
        req = self.game.flick_request()
        sid = req["from"] if req else self.game.state.get("marble")
        if sid not in self.game.side:
            return
        self._note(self.port.events())
        if self._board_at == sid:
            return
        self.port.place(self.game.side.centre(sid))
        self.port.wait(SETTLE_MS)
        self._note(self.port.events())
        self._board_at = sid

    def _note(self, frames):
        for _, kind, f in frames:
            if kind in ("withdrawn", "landed", "placed", "off_ring", "lost", "moving"):
                self._board_alt = None
                self._board_off = kind in ("off_ring", "lost")
            if kind == "withdrawn":
                self._withdrawn = dict(f)
                self._board_at = None
                self.log("the board withdraws the landing on %s: the marble moved on" % f.get("sp"))
            elif kind == "landed" and f.get("corrects"):
                self._corrections.append(dict(f))
                if "sp" in f:
                    self._board_at = str(f["sp"])
            elif kind in ("landed", "placed") and "sp" in f:
                self._board_at = str(f["sp"])
                if kind == "landed" and "alt" in f:
                    self._board_alt = str(f["alt"])
                if kind == "placed" and self._arm_wait is not None:
                    self._placed_for_arm(str(f["sp"]))
            elif kind in ("off_ring", "lost", "moving"):
                self._board_at = None

    def _board_restarted(self) -> None:
        """The board was away or restarted: where its marble is now it has not said (it may
        have been moved meanwhile), so a flick waiting for the marble to be set down is
        armed now, as at the start of a game."""
        self._board_at, self._board_alt, self._board_off = None, None, False
        if self._waiting_to_arm():
            self._arm_wait = None
            self._send_arm(self.game.flick_request())

    def _waiting_to_arm(self) -> bool:
        """A flick waits for the marble to be set down before it is armed (arm())."""
        if self._arm_wait is None:
            return False
        req = self.game.flick_request()
        return req is not None and self._arm_wait == (len(self.game.log), req["from"])

    def _placed_for_arm(self, sp: str) -> None:
        """The marble was set down while a flick waits for it (arm): arm it now."""
        wait, self._arm_wait = self._arm_wait, None
        req = self.game.flick_request()
        if req is None or wait != (len(self.game.log), req["from"]):
            return               # the game has moved on meanwhile: the next arm() decides
        if sp != req["from"]:
            self.log("the marble was set down on %s; this flick starts from %s" % (
                self.game.side.labels.get(sp, sp), self.game.side.labels.get(req["from"], req["from"])))
        self._send_arm(req)

    # --- corrections from the board (docs/protocol.md, "Landings withdrawn") ---
    @property
    def corrections_waiting(self) -> bool:
        """The board has corrected a landing (the marble moved on) and take_corrections()
        has not taken it yet (wait_result keeps what it reads)."""
        return bool(self._corrections)

    def take_corrections(self) -> list[dict]:
        """Take the board's corrected landings that have come in (the marble moved on from a
        landing the game has already played): the last ring result is replaced by the
        corrected one, as `correct` does, if nothing but chance has been played since;
        otherwise the table says so and changes nothing (the players may `correct`).
        Returns the events of the replacement (empty when none was made)."""
        if self.port is not None:
            self._note(self.port.events())
        out: list[dict] = []
        while self._corrections:
            out = self._take_correction(self._corrections.pop(0)) or out
        return out

    def _take_correction(self, fields: dict) -> list[dict] | None:
        from ringside.games import CHANCE
        g = self.game
        self._withdrawn = None
        if not g.capabilities.ring_side:
            return None
        ent = self._board_entry
        if ent is None or ent[0] >= len(g.log) or g.log[ent[0]][1] is not ent[1] \
                and g.log[ent[0]][1] != ent[1]:
            self.log("the board corrects a landing (the marble moved on to %s) the game has not "
                     "played: nothing is changed" % fields.get("sp"))
            return None
        idx = ent[0]
        seat, old = g.log[idx]
        later = [s for s, _ in g.log[idx + 1:] if s != CHANCE]
        try:
            new = frame_action(g.side, "landed", fields)
        except ValueError as e:
            self.ignored += 1
            self.log("ignored a malformed correction from the board: %s" % e)
            return None
        if old.get("type") == new["type"] and old.get("space") == new["space"] \
                and old.get("alt") == new.get("alt"):
            return None          # it moved on within the same space: the result stands
        if later:
            self.log("the board says the marble moved on to %s after the flick was scored, but play "
                     "has gone on since: nothing is changed (say 'it is on %s' to correct it)"
                     % (new["space"], new["space"]))
            return None
        before = g.replay(idx)
        origin = before.flick_request()["from"]
        try:
            cc.read_flick(before.side, origin, new)
            ev = before.apply(seat, new)
        except IllegalAction as e:
            self.ignored += 1
            self.log("the board's correction does not fit this flick (%s): ignored" % e)
            return None
        self.game = before
        self.corrections += 1
        self._board_entry = (idx, before.log[idx][1])
        dropped = len(g.log) - idx - 1
        self.log("corrected by the board: the marble moved on to %s%s" % (new["space"], (
            "; %d later draw%s undone" % (dropped, "" if dropped == 1 else "s")) if dropped else ""))
        self._say(ev)
        if self.save_path:
            self.save()
        self.show(ev)
        return ev

    def aim_limit(self) -> float:
        """The farthest a flick can be aimed (degrees) before the marble leaves the ring."""
        return cc.flick_model(self.game.ring).max_travel

    def flick_sim(self, target_travel: float, skill: float, rng: random.Random) -> dict | None:
        """Flick the simulated marble aimed at target_travel (signed degrees) with the skill
        spread; returns the board's ring result as an action (None if it gave none)."""
        from ringside.sim.physics import Flicker
        if self.port is None or not self.port.simulated:
            raise TableError("only a simulated board can flick the marble itself")
        self._place_marble()
        self.arm()
        speed = Flicker(self.game.ring).flick_speed(rng, target_travel, skill)
        if speed == 0:
            speed = math.copysign(1.0, target_travel or 1.0)
        origin = self.game.flick_request()["from"]
        self._board_at = None
        self.port.flick(speed)
        a = self.wait_result(FLICK_TIMEOUT_MS)
        if a is not None and a["type"] == "landed":
            a = self._confirm(a)
        if a is not None:
            try:
                cc.read_flick(self.game.side, origin, a)
                self._from_board = a
                return a
            except IllegalAction as e:
                self.ignored += 1
                self.log("the board's result does not fit this flick (%s): ignored" % e)
        return self._truth(origin)

    def _confirm(self, a: dict) -> dict:
        """A simulated flick's landing, once the marble has had CONFIRM_MS to move on: if the
        board withdraws it, the result is its corrected landing (the marble moved on)."""
        if self.port.confirm_ms:
            self.port.wait(self.port.confirm_ms)
        self._note(self.port.events())
        if self._withdrawn is not None and not self._corrections:
            got = self.wait_result(FLICK_TIMEOUT_MS, corrections=True)
            if got is not None:
                self._corrections.insert(0, got)
        while self._corrections:
            f = self._corrections.pop(0)
            try:
                a = frame_action(self.game.side, "landed", f)
            except ValueError as e:
                self.ignored += 1
                self.log("ignored a malformed correction from the board: %s" % e)
                continue
            self.corrections += 1
            self.log("the marble moved on: it is on %s" % a["space"])
        self._withdrawn = None
        return a

    def _truth(self, origin):
        """No usable result from the simulated board: what the players saw instead (None
        when the port cannot tell: the players must type it)."""
        if self.port.truth is None:
            self.log("(the board gave no usable result: type where the marble stopped)")
            return None
        self.fallbacks += 1
        self.port.wait(FLICK_TIMEOUT_MS // 3)        # let it come to rest first
        self._note(self.port.events())
        on, angle, travel = self.port.truth()
        if not on:
            a = {"type": "off_ring", "travel": round(travel, 2)}
        else:
            a = {"type": "landed", "space": self.game.side.space_at(angle), "travel": round(travel, 2)}
            self._board_at = a["space"]
        self.log("(the board gave no usable result: the players saw %s)" % (
            "it leave the ring" if not on else "it stop on %s" % a["space"]))
        return a

    def wait_result(self, timeout_ms: int, step_ms: int = 20, interrupt: Callable[[], dict | None] | None = None,
                    corrections: bool = False, stop_on_correction: bool = False) -> dict | None:
        """Wait for the board's landed / off_ring frame; malformed frames are logged and
        skipped. interrupt() -> truthy stops early (typed input at a real table).

        A landing that corrects the last one (`corrects=1`: the marble moved on) is not this
        flick's result: it is kept for take_corrections(), and stop_on_correction=True returns
        None at once so the caller can take it; corrections=True instead waits for exactly
        such a landing and returns its fields."""
        waited = 0
        paused = False
        while waited < timeout_ms:
            for t, kind, fields in self.port.events():
                if kind == "link_lost":
                    paused = True
                    self.log("the board is disconnected (%s): the game is paused until it returns"
                             % fields.get("why", "?"))
                elif kind == "link_restored":
                    paused = False
                    self.log("the board is back: the game goes on")
                    self._board_restarted()
                    self.show([])
                elif kind == "board_reset":
                    self._board_restarted()
                elif kind == "withdrawn" or (kind == "landed" and fields.get("corrects")):
                    self._note([(t, kind, fields)])
                    if corrections and kind == "landed":
                        self._corrections.remove(fields)
                        return dict(fields)
                    if stop_on_correction and kind == "landed":
                        return None
                elif kind in ("placed", "lost", "moving"):
                    self._note([(t, kind, fields)])      # where the marble is (a flick may wait for it)
                elif kind in ("landed", "off_ring") and self._waiting_to_arm():
                    # no flick is armed yet: the marble is on its way to the start (a marble
                    # lifted just after it stopped may even be reported off the ring)
                    self._note([(t, kind, fields)])
                    if kind == "landed" and self._waiting_to_arm():
                        self.log("(the marble moved before it was set down on %s: that was not the flick; "
                                 "click where it stopped if it was)" % self._arm_wait[1])
                elif kind in ("landed", "off_ring") and not corrections:
                    self._note([(t, kind, fields)])
                    cands = blind_candidates(fields)
                    if len(cands) > 1:
                        self.log("the marble stopped where no sensor sees: it is on one of %s "
                                 "(say 'it is on SPACE' if the board guessed wrong)" % ", ".join(cands))
                    try:
                        a = frame_action(self.game.side, kind, fields)
                        self._from_board = a
                        if self.on_result is not None:
                            self.on_result(kind, fields, a)
                        return a
                    except ValueError as e:
                        self.ignored += 1
                        self.log("ignored a malformed %s frame: %s" % (kind, e))
            if interrupt is not None:
                r = interrupt()
                if r:
                    return r
            self.port.wait(step_ms)
            if not paused:
                waited += step_ms
        return None

    # --- LEDs: the one place that builds scenes ---
    def show(self, events: list[dict]) -> None:
        """Show the game on the LEDs as its presenter's led_frame() says: the active player's
        colour, the spaces painted, the space just hit or resolved (a pulse, on an event), or
        a whole-ring picture; and the board's turn timer. Sent only while the board
        acknowledges scene commands; the first refusal turns LEDs off for the game."""
        if not self.leds_on or self.port is None:
            return
        restores = getattr(self.port, "restores", 0)
        if restores != getattr(self, "_restores", 0):
            # the link has repainted the board from its own scene: what this table thinks
            # is lit may be stale, so paint everything afresh
            self._restores = restores
            self._px = None
            self._painted = {}
            self._player = None
        try:
            self._show(events)
        except _Refused as e:
            self.leds_on = False
            self.log("(the board refused the LED scene (%s): LEDs stay as they are)" % e)

    def _send(self, kind, **fields):
        if not self.port.send(kind, **fields):
            raise _Refused(kind)

    def _animate_turn(self, frame, leds: int) -> None:
        """The picture turning by `leds` LEDs (+ = anticlockwise): the old picture glides
        there in 8 steps, then the new one is shown (a presenter marks such an event with
        led_turn(event))."""
        import time
        old = list(self._px or [])
        if len(old) != len(frame):
            return
        real = not isinstance(self.port, SimPort)
        n = len(old)
        for k in range(1, 9):
            shift = int(round(leds * k / 8.0))
            self._send_picture([old[(i - shift) % n] for i in range(n)])
            if real:
                time.sleep(0.06)   # ~0.5 s for the turn, as the eye can follow it

    def _send_picture(self, frame) -> None:
        """Send only what changed, as runs of one colour (`px i= n= c= [pulse=1]`); a colour
        ending in "*" pulses."""
        old = self._px or [None] * len(frame)
        want = [_hex(c) for c in frame]
        i = 0
        n = len(frame)
        while i < n:
            c = want[i]
            if old[i] == c:
                i += 1
                continue
            j = i + 1
            while j < n and old[j] != want[j] and want[j] == c:
                j += 1
            if c.endswith("*"):
                self._send("px", i=i, n=j - i, c=c[:-1], pulse=1)
            else:
                self._send("px", i=i, n=j - i, c=c)
            for k in range(i, j):
                old[k] = c
            i = j
        self._px = old

    def _turn_timer(self) -> None:
        """Timed turns (capabilities.turn_seconds): the board runs the timer down on the ring
        in the player's colour; a new timed turn starts it, the end of the timed part cancels it."""
        t = self.game.turn_timer()
        if t["timed"]:
            if self._timer_turn != t["turn_no"]:
                self._send("timer_start", ms=int(t["seconds"] * 1000), c=_hex(t.get("colour") or "white"))
                self._timer_turn = t["turn_no"]
        elif self._timer_turn is not None:
            self._send("timer_cancel")
            self._timer_turn = None

    def check_timer(self) -> list[dict] | None:
        """If the board says the turn timer ran out for the turn it was started for, apply the
        game's timeout (the turn passes) and return its events; else None."""
        if self.port is None or self._timer_turn is None:
            return None
        frames = self.port.events()
        self._note(frames)       # (a correction from the board must not be lost here)
        expired = any(kind == "timer_expired" for _, kind, _ in frames)
        turn = self._timer_turn
        if not expired:
            return None
        self._timer_turn = None
        if self.game.turn_timer().get("turn_no") != turn:
            return None            # a late report for a turn that is over: nothing to do
        entry = self.game.timeout_entry()
        if entry is None:
            return None
        return self.apply(*entry)

    def _show(self, events):
        g = self.game
        if g.capabilities.turn_seconds:
            self._turn_timer()
        for e in events:   # a die the host rolled: the ring blinks as many times as it shows
            if e.get("type") == "roll" and isinstance(e.get("value"), int) and not isinstance(e["value"], bool):
                self._send("flash", c="white", n=e["value"])
        pres = g.presenter
        frame = pres.led_frame(g)
        act = g.to_act()
        seat = act[0] if act and isinstance(act[0], int) else None
        if frame.get("pixels") is not None:
            turn = getattr(pres, "led_turn", None)
            leds = [turn(e) for e in events] if turn is not None else []
            leds = [x for x in leds if x]
            if leds and self._px is not None:
                self._animate_turn(frame["pixels"], leds[-1])
            self._send_picture(frame["pixels"])
            return
        if frame.get("player") and (seat != self._player or frame["player"] != self._player_colour):
            self._send("player", c=_hex(frame["player"]), w=3)
            self._player = seat
            self._player_colour = frame["player"]
        want = {sid: _hex(c) for sid, c in (frame.get("spaces") or {}).items()}
        for sid in set(self._painted) | set(want):
            c = want.get(sid, OFF)
            if self._painted.get(sid, OFF) != c:
                self._send("paint", c=c, sp=sid)
                if c == OFF:
                    self._painted.pop(sid, None)
                else:
                    self._painted[sid] = c
        if events and frame.get("pulse"):
            self._send("pulse", sp=frame["pulse"], c="ffffff")


def _hex(colour) -> str:
    """A palette name (or hex) as the board's hex colour; "off" unpaints; a trailing "*"
    (pulse) is kept."""
    from ringside.games.present import COLOUR_RGB
    c = str(colour)
    star = "*" if c.endswith("*") else ""
    c = c[:-1] if star else c
    c = c.lower()
    if c in ("off", "000000", "black"):
        return OFF + star if star else OFF
    return COLOUR_RGB.get(c, c) + star


class _Refused(Exception):
    pass


# ----- loading a table save ---------------------------------------------------------------

def load_table(text: str) -> tuple:
    """(game, seats, meta) from a table save or a plain game save. GameError if damaged."""
    return store.load_table(text)


def read_save(path: str | Path) -> tuple:
    """(game, seats, meta) from the save at path; one GameError line naming the file if not."""
    return store.read_save(path)


__all__ = ["Table", "SimPort", "LinkPort", "TableError", "frame_action", "typed_action", "load_table",
           "read_save", "default_autosave", "COLOURS", "COLOUR_NAMES", "IllegalAction"]
