"""`ringside play <game>` and `ringside resume`: a game at the ring, from the terminal.

    ringside play darts --players Ann --bots Cy:good --sim      simulated ring, in-process
    ringside play wildwest --players Ann,Bob --typed            a real table, results typed in
    ringside play darts --players Ann,Bob --port /dev/ttyACM0   a real board over the link
    ringside play darts --players Ann --bots Cy --sim-pty       the simulated board on a pty,
                                                                through the real serial link
    ringside play circleville --solo Bertha,Denzel --difficulty 4
                                                                Squaring Circleville solo: you against
                                                                1-3 solo players who play themselves
    ringside resume [FILE]                                      after a crash: nothing lost

The terminal player knows no game: it draws the game's picture (games/<game>/present.py,
through app/screen.py), prints what happened, offers the legal actions by their labels, and
lets the computer players choose through ringside.bots. HELP below is what `help` prints.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import select
import sys
import time
from pathlib import Path

from ringside import bots as B
from ringside import games
from ringside.games import CHANCE, GameError, IllegalAction, possessive
from ringside.games import circles_common as cc
from ringside.errors import UsageError
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Sequence
    from ringside.games import Game
    from ringside.sim.board import SimBoard
    from ringside.table import Table

HELP = """\
How to play from the terminal

  When it is your turn, the screen shows the table and what you may do.
  Choose a move by typing its number, or a few of its words: "b2", "put it on 5",
  "pass". If several moves match, they are listed; type more words or a number.

  A flick on the simulated ring: type a direction and how far to aim, in degrees:
      cw 200       aim 200 degrees clockwise
      ccw 150      aim 150 degrees anticlockwise
  The marble goes with your skill's spread (--skill), so it stops near, not exactly
  on, what you aimed at. One space is 18 degrees; a full lap is 360. Too hard a
  flick leaves the ring (the prompt says how hard is too hard).
  At a real table (--typed) say where the marble stopped: "landed 12 ccw", or "off".

Commands, at any prompt:
  undo            take back your last move (and the computer's moves after it)
  it is on 12     the marble is really on 12: the last flick is corrected
  board           draw the table again
  save FILE       save now (every move is also saved as it happens)
  levels          the computer's levels in this game
  help            this text
  quit            save and stop; `ringside resume` continues the game
"""


class Quit(Exception):
    pass


def _unit(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number from 0 to 1" % text) from None
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError("%s is outside 0 (a beginner) to 1 (perfect)" % text)
    return v


MAX_DIFFICULTY = 19     # a quadrant track runs 0 to 9, and on to 19 with the marker's +10 side


def _difficulty(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a whole number from 0 to %d" % (text, MAX_DIFFICULTY)) from None
    if not 0 <= v <= MAX_DIFFICULTY:
        raise argparse.ArgumentTypeError("%d is outside 0 to %d (the quadrant tracks' spaces; 4 suggested)"
                                         % (v, MAX_DIFFICULTY))
    return v


def _levels_help() -> str:
    return "; ".join("%s: %s" % (n, B.describe_levels(games.game_class(n))) for n in games.names())


# ----- command line --------------------------------------------------------------------

def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="play a game at the ring (or the simulated ring)",
                       description="Play a game from the terminal: on the simulated ring (--sim), "
                                   "a board over the serial link (--port, or a Pico found by itself), "
                                   "the simulated board over its pty (--sim-pty), or a real table with "
                                   "the results typed in (--typed). Type `help` at any prompt.")
    p.add_argument("game", help="one of: %s" % ", ".join(games.names()), nargs="?")
    p.add_argument("--list", action="store_true", help="list the games and exit")
    p.add_argument("--players", default="", metavar="A,B",
                   help="human players in playing (clockwise) order, the youngest first")
    p.add_argument("--bots", default="", metavar="NAME[:LEVEL],...",
                   help="computer players, seated after the humans. Levels, weakest first: " + _levels_help())
    where = p.add_mutually_exclusive_group()
    where.add_argument("--sim", action="store_true", help="the simulated ring, in-process (fast)")
    where.add_argument("--sim-pty", action="store_true",
                       help="the simulated board on a pty, through the serial link")
    where.add_argument("--port", metavar="PATH", help="a board: device, pty or pyserial URL")
    where.add_argument("--typed", action="store_true", help="no board: type the ring results")
    p.add_argument("--seed", type=int, default=None, help="seed of the game, the ring and the bots")
    p.add_argument("--skill", type=_unit, default=0.6, help="the humans' flicking skill on the simulated "
                                                           "ring, 0 (beginner) to 1 (default 0.6)")
    p.add_argument("--ages", default="", metavar="N,N", help="players' ages in seat order (ties and the "
                                                             "youngest-first rules use them)")
    p.add_argument("--hard", action="store_true", help="Wild West: the harder start (no wagons)")
    p.add_argument("--solo", default="", metavar="NAME,...",
                   help="Squaring Circleville solo mode: 1 to 3 solo players (Bertha, Carsten, Denzel, "
                        "Katherine) seated after you; --players gives your name")
    p.add_argument("--difficulty", type=_difficulty, default=None,
                   help="solo mode: the solo players' start on the quadrant tracks, 0 to %d "
                        "(0 by default, 4 suggested)" % MAX_DIFFICULTY)
    p.add_argument("--data", metavar="FILE", help="the game's printed data from your own file")
    p.add_argument("--save", metavar="FILE", help="save every action to FILE (default: the autosave)")
    p.add_argument("--load", metavar="FILE", help="continue a saved game")
    p.add_argument("--no-calibrate", action="store_true",
                   help="simulated ring: skip calibrating it first (detections will be worse)")
    p.add_argument("--speed", type=float, default=20.0, help="--sim-pty: the board's clock speed-up")
    p.add_argument("--ideal", action="store_true",
                   help="--sim/--sim-pty: the ideal sensor model (only the marble is seen) instead of "
                        "the physical one (docs/simulator.md)")
    p.set_defaults(func=_play)

    r = sub.add_parser("resume", help="continue the last game (after a crash, nothing is lost)",
                       description="Continue a game from its save: the last autosave by default.")
    r.add_argument("file", nargs="?", help="a save file (default: the autosave)")
    for flag in ("--sim", "--typed"):
        r.add_argument(flag, action="store_true")
    r.add_argument("--port", metavar="PATH")
    r.add_argument("--seed", type=int, default=None)
    r.add_argument("--skill", type=_unit, default=0.6)
    r.add_argument("--no-calibrate", action="store_true")
    r.add_argument("--ideal", action="store_true",
                   help="--sim: the ideal sensor model instead of the physical one")
    r.set_defaults(func=_resume)


def _play(args) -> int:
    if args.list:
        print("\n".join(games.names()))
        return 0
    if args.load:
        from ringside.table import read_save
        game, seats, meta = read_save(args.load)
        if args.game and args.game != game.name:
            raise GameError("%s holds a game of %s, not %s: leave out the game's name, or name %s"
                            % (args.load, game.title or game.name, args.game, game.name))
        return _run(args, game, seats, meta, save=args.save or args.load)
    if not args.game:
        raise GameError("which game? (%s)" % ", ".join(games.names()))
    cls = games.game_class(args.game)
    humans = [x.strip() for x in args.players.split(",") if x.strip()]
    bots = []
    for spec in [x.strip() for x in args.bots.split(",") if x.strip()]:
        name, _, level = spec.partition(":")
        bots.append((name.strip(), B.check_level(cls, level.strip() or None)))
    solo = [x.strip().lower() for x in args.solo.split(",") if x.strip()]
    if solo:
        humans, names = _solo_names(args, humans, bots, solo)
    else:
        if args.difficulty is not None:
            raise GameError("--difficulty is for solo games (--solo)")
        names = humans + [b[0] for b in bots]
    if not names:
        raise GameError("no players: give --players and/or --bots")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2 ** 31)
    opts = {}
    if args.ages:
        try:
            opts["ages"] = [float(a) for a in args.ages.split(",")]
        except ValueError:
            raise GameError("--ages takes numbers separated by commas") from None
    if args.hard:
        if "hard" not in cls.default_options:
            raise GameError("%s has no harder variant" % args.game)
        opts["hard"] = True
    if args.data:
        if "data" not in cls.default_options:
            raise GameError("%s takes no data file" % args.game)
        try:
            opts["data"] = json.loads(Path(args.data).read_text())
        except OSError as e:
            raise GameError("cannot read %s: %s" % (args.data, e.strerror)) from None
        except ValueError as e:
            raise GameError("%s is not valid JSON: %s" % (args.data, e)) from None
    if solo:
        opts["solo"] = solo
        opts["difficulty"] = args.difficulty or 0
    if "computer" in cls.default_options:      # a game that treats the computer's seats apart (untimed)
        opts["computer"] = list(range(len(humans), len(humans) + len(bots)))
    game = games.new(args.game, names, seed=seed, options=opts)
    seats = {i: "human" for i in range(len(humans))}
    for k in range(len(solo)):
        seats[1 + k] = "solo"
    for k, (_, level) in enumerate(bots):
        seats[len(humans) + k] = level
    return _run(args, game, seats, {}, save=args.save)


def _solo_names(args, humans, bots, solo):
    """(humans, seat names) of a solo game: one person, then the solo players as printed."""
    if "solo" not in games.game_class(args.game).default_options:
        raise GameError("%s has no solo mode (--solo is for circleville)" % args.game)
    if bots:
        raise GameError("a solo game seats you and the solo players: leave out --bots")
    if len(humans) > 1:
        raise GameError("a solo game has one person: give one name in --players, not %d" % len(humans))
    from ringside.games.circleville.solo.framework import MAX_SOLO, PLAYERS, known
    names = known()
    for n in solo:
        if n not in PLAYERS:
            raise GameError("there is no solo player called %r (there are: %s)" % (n, ", ".join(names)))
    if len(solo) > MAX_SOLO:
        raise GameError("a solo game has 1 to %d solo players, not %d" % (MAX_SOLO, len(solo)))
    person = humans[0] if humans else "You"
    titles = [PLAYERS[n].title for n in solo]
    if person in titles:
        raise GameError("your name %r is a solo player's: choose another with --players" % person)
    return [person], [person] + titles


def _resume(args) -> int:
    from ringside.table import default_autosave, read_save
    path = args.file or default_autosave()
    game, seats, meta = read_save(path)
    args.sim_pty = False
    args.speed = 20.0
    mode = meta.get("board")
    if not (args.sim or args.typed or args.port):
        args.sim = mode == "sim"
        args.typed = mode in ("typed", None)
    return _run(args, game, seats, meta, save=str(path))


def _run(args, game, seats, meta, save=None) -> int:
    from ringside.table import Table, default_autosave
    seed = args.seed if args.seed is not None else game.seed
    for s, level in seats.items():
        if level not in ("human", "solo"):
            seats[s] = B.check_level(game, level)    # a save's level: known, or one clear line
    port, mode, closer = _open_board(args, game, seed)
    try:
        meta = dict(meta)
        meta["board"] = mode
        table = Table(game, port, save_path=save or default_autosave(), seats=seats, meta=meta)
        session = Session(table, seats, mode=mode, skill=args.skill, rng=random.Random(seed))
        table.log = session.say
        table.save()
        return session.run()
    finally:
        if closer:
            closer()


def _open_board(args, game, seed):
    """(port or None, mode word for the save, close function)."""
    from ringside.table import LinkPort, SimPort
    # games played off the ring (Doubles, The Circle) have no board side to calibrate on
    ring_side = game.capabilities.ring_side
    ideal = getattr(args, "ideal", False)
    if ideal and not (getattr(args, "sim", False) or getattr(args, "sim_pty", False)):
        raise GameError("--ideal chooses the simulated ring's sensor model: use it with --sim or --sim-pty")
    if getattr(args, "sim", False):
        from ringside.sim.board import SimBoard, model_of
        board = SimBoard(seed=seed, sensor_model=model_of(ideal))
        port = SimPort(board)
        if not args.no_calibrate and ring_side:
            calibrate_sim(board, ring_side, print)
        return port, "sim", None
    if getattr(args, "typed", False):
        return None, "typed", None
    from ringside.link import Link
    if getattr(args, "sim_pty", False):
        from ringside.sim.board import model_of
        from ringside.sim.serve import SimServer
        server = SimServer(seed=seed, speed=args.speed, out=open("/dev/null", "w"),
                           sensor_model=model_of(ideal)).start()
        link = Link(server.port).open()

        def truth():
            m = server.board.marble
            return m.on_ring, m.position_deg, m.travel_deg
        port = LinkPort(link, simulated=True, truth=truth)

        def close():
            link.close()
            server.stop()
        if not args.no_calibrate and ring_side:
            _calibrate_link(link, server, ring_side)
        return port, "sim-pty", close
    if not args.port and not ring_side:
        # A game played off the ring needs no board: use one if a Pico is plugged in (its
        # LEDs show the game), else play on the screen with the computer dealing.
        from ringside.link import LinkError
        try:
            link = Link(None).open()
        except LinkError:
            print("no board found: playing on the screen, the computer deals and draws "
                  "(--typed to type in what a real table gives, --port PATH for a board)")
            return None, "screen", None
        return LinkPort(link, simulated=False), "board", link.close
    link = Link(args.port).open()       # None: find a Pico
    from ringside.link.messages import board_calibration
    kept = board_calibration(link.hello)
    if kept is not None and not kept[0] and ring_side:   # a game off the ring uses only the LEDs
        print("the board on %s is %s" % (link.port_name, kept[1].replace("PORT", link.port_name or "PORT")))
    return LinkPort(link, simulated=False), "board", link.close


def calibrate_sim(board: SimBoard, side: str, log: Callable[[str], None] = print) -> None:
    """Calibrate the in-process simulated ring as a user calibrates a real one."""
    from ringside.calibration import calibrate
    from ringside.sim.board import SimTable
    log("calibrating the simulated ring (the marble is set on every space, as you would a real one)...")
    board.advance(500)
    t = SimTable(board)
    t.send("side", name=side)
    calibrate(t, board.ring_dict, side=side, log=lambda *a: None)
    t.send("raw", on=0)


def _calibrate_link(link, server, side):
    """Calibration over the link, on a simulated board (its marble is placed by sim_place)."""
    import time

    from ringside.calibration import calibrate

    class _Over:
        frames: list = []

        def send(self, kind, **fields):
            link.command(kind, **fields)

        def advance(self, ms):
            end = time.monotonic() + ms / 1000.0 / server.speed
            while time.monotonic() < end:
                ev = link.next_event(max(0.0, end - time.monotonic()))
                if ev is not None:
                    self.frames.append((int(ev.t * 1000), ev.kind, dict(ev.fields)))

        def lift(self):
            link.command("sim_lift")

        def place(self, angle, space_id=None):
            link.command("sim_place", ang=int(round(angle * 100)) % 36000)

    print("calibrating the simulated board over the link...")
    o = _Over()
    o.frames = []
    link.side(side)
    calibrate(o, server.board.ring_dict, side=side, log=lambda *a: None)
    link.raw(False)


# ----- the terminal session ----------------------------------------------------------------

MENU_MAX = 24            # a longer menu folds into its groups (the presenter's group())
COUNTDOWN = (10, 5)      # seconds left that a timed turn calls out


class LineReader:
    """Lines from a file descriptor as they arrive. A prompt that also watches a clock or a
    board selects on the descriptor; reading it with os.read into this buffer (not through
    sys.stdin, whose own buffer select() cannot see) means that lines a script pipes in are
    all read, one per prompt, instead of being left behind while every turn runs out."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buf = b""
        self.eof = False

    def poll(self, timeout: float | None) -> str | None:
        """The next line; None when none came within timeout (seconds; None waits). EOFError
        at the end of the input."""
        while True:
            if b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                return line.decode("utf-8", "replace")
            if self.eof:
                if self.buf:
                    line, self.buf = self.buf, b""
                    return line.decode("utf-8", "replace")
                raise EOFError
            r, _, _ = select.select([self.fd], [], [], timeout)
            if not r:
                return None
            chunk = os.read(self.fd, 4096)
            if chunk:
                self.buf += chunk
            else:
                self.eof = True
            timeout = 0


def _stdin_reader():
    try:
        fd = sys.stdin.fileno()
        select.select([fd], [], [], 0)
    except (OSError, ValueError, AttributeError):
        return None          # an stdin that select cannot watch: plain input()
    return LineReader(fd)


class Session:
    """Plays a table from a terminal: humans answer prompts, computer players play
    themselves. inp(prompt) -> line replaces the terminal (tests, scripts); EOFError from it,
    or the end of the input, saves and quits."""

    def __init__(self, table: Table, seats: dict, *, mode: str = "typed", skill: float = 0.6, rng: random.Random | None = None,
                 inp: Callable[[str], str] | None = None, out: Callable[[str], None] | None = None, colour: bool | None = None):
        from ringside.app.screen import Screen, colour_wanted
        self.table = table
        self.seats = seats
        self.mode = mode
        self.skill = skill
        self.rng = rng or random.Random(0)
        self.inp = inp
        self.reader = None if inp is not None else _stdin_reader()
        self.out = out or print
        self.screen = Screen(colour=colour_wanted() if colour is None and out is None else bool(colour))
        self.people = {s for s, lv in seats.items() if lv == "human"}
        if not seats:
            self.people = set(range(len(table.game.players)))
        self.bots = {}
        for s, lv in sorted(seats.items()):
            if lv == "solo":
                self.bots[s] = B.FirstLegal("solo")
            elif lv != "human":
                self.bots[s] = B.make(table.game, lv, seed=self.rng.randrange(2 ** 31))
        self._drawn_for = None        # the seat the table was last drawn for
        self._turn_clock = None       # (turn_no, when that timed turn's first prompt came)
        self._flicked = False         # the flick ranges were shown
        self._shown_status = None
        self._drawn_log = 0

    @property
    def game(self) -> Game:
        return self.table.game

    def say(self, text: str) -> None:
        self.out("  " + text)

    # --- the picture ---
    def picture(self, seat: int | None = None) -> dict:
        return self.game.presenter.picture(self.game, seat)

    def draw(self, seat: int | None = None) -> None:
        pic = self.picture(seat)
        self.out(self.screen.render(pic))
        self._drawn_for = seat
        self._drawn_log = len(self.game.log)
        self._shown_status = pic["status"]

    def run(self) -> int:
        first = self.game.to_act()
        self.draw(first[0] if first and first[0] in self.people else None)
        self.out("(type help for how to play)")
        while not self.game.over:
            try:
                self.step()
            except Quit:
                self.out("saved to %s; continue with `ringside resume %s`" % (self.table.save_path,
                                                                             self.table.save_path))
                return 0
            except KeyboardInterrupt:
                self.table.save()
                self.out("\ninterrupted: the game is saved in %s; `ringside resume %s` continues it"
                         % (self.table.save_path, self.table.save_path))
                return 130
        self.draw(None)
        self.out(final_words(self.game))
        return 0

    def step(self) -> None:
        self.table.take_corrections()   # the board corrected a landing (the marble moved on)
        g = self.game
        seat = g.to_act()[0]
        if seat == CHANCE:
            self._chance()
        elif seat in self.bots:
            self._bot_turn(seat)
        else:
            others = any(s != seat for s, _ in g.log[self._drawn_log:])
            if self._drawn_for != seat or others:
                self.draw(seat)       # a new turn, or others played since: the table again
            self._human_turn(seat)

    # --- chance ---
    def _chance(self):
        g = self.game
        if self.mode in ("sim", "sim-pty", "screen"):
            self.table.apply(CHANCE, g.chance_action())
            return
        acts = g.legal_actions(CHANCE)
        self.out("The table: %s (r = let the computer draw)" % (g.capabilities.chance_prompt or "chance decides"))
        a = self._choose(CHANCE, acts, allow_random=True)
        if a is not None:
            self._apply(CHANCE, a)

    # --- computer players ---
    def _bot_turn(self, seat):
        g = self.game
        bot = self.bots[seat]
        name = g.seat_name(seat)
        port = self.table.port
        target = bot.aim(g, seat)
        if target is not None and port is not None and port.simulated:
            self.say("%s flicks, aiming %.0f degrees %s" % (name, abs(target),
                                                            "clockwise" if target < 0 else "anticlockwise"))
            a = self.table.flick_sim(target, bot.skill if bot.skill is not None else 0.6, self.rng)
            if a is None:
                return self._typed_flick(seat, g.flick_request())
        else:
            req = g.flick_request()
            a = bot.choose(g, seat)
            if req is not None and req["seat"] == seat:
                self.say("%s flick (played by the computer): %s%s" % (
                    possessive(name), g.presenter.label(g, seat, a),
                    "; set the marble there" if port is not None or self.mode == "typed" else ""))
        self._apply(seat, a)

    # --- people ---
    def _human_turn(self, seat):
        g = self.game
        req = g.flick_request()
        if req is not None and req["seat"] == seat:
            self._human_flick(seat, req)
            return
        acts = g.legal_actions(seat)
        if self._drawn_for == seat and self._shown_status != self.picture(seat)["status"]:
            self.out("Now: %s" % self.picture(seat)["status"])
        self._shown_status = self.picture(seat)["status"]
        self.out("%s, choose:" % g.seat_name(seat))
        a = self._choose(seat, acts)
        if a is not None:
            self._apply(seat, a)

    def _flick_words(self, req) -> str:
        ds = req["directions"]
        way = "either way" if len(ds) == 2 else ("clockwise only" if ds[0] == cc.CW else "anticlockwise only")
        need = ""
        if req.get("target_travel") is not None:
            need = ", try to go exactly once round"
        elif req["min_steps"]:
            need = ", at least %d spaces" % req["min_steps"]
        return "%s%s" % (way, need)

    def _human_flick(self, seat, req):
        g = self.game
        name = g.seat_name(seat)
        port = self.table.port
        if port is not None and port.simulated:
            hi = self.table.aim_limit()
            ds = req["directions"]
            how = " or ".join(ds)
            example = "%s %d" % (ds[0], 200 if req.get("target_travel") is None else 360)
            rng_words = "1 to %d degrees; one space is about %d, a lap 360; harder leaves the ring" % (
                hi, round(360.0 / g.side.n))
            start = g.side.labels.get(req["from"], req["from"])    # as printed on the ring, not its id
            line = self._ask("%s, flick from %s (%s). Type %s and degrees, e.g. '%s' (%s)"
                             % (name, start, self._flick_words(req), how, example, rng_words)
                             if not self._flicked else
                             "%s, flick from %s (%s): %s DEGREES, 1 to %d" % (name, start,
                                                                           self._flick_words(req), how, hi))
            if line is None:
                return
            try:
                target = parse_aim(line, ds, hi)
            except ValueError as e:
                self.out("  %s" % e)
                return
            self._flicked = True
            a = self.table.flick_sim(target, self.skill, self.rng)
            if a is None:
                return self._typed_flick(seat, req)
            self._apply(seat, a)
            return
        if port is not None:
            self.table.arm()
            self.out("%s, flick the marble from %s (%s) - or type the result" % (name, req["from"],
                                                                                self._flick_words(req)))
            a = self.table.wait_result(10 ** 9, interrupt=self._typed_interrupt, stop_on_correction=True)
            if isinstance(a, dict):
                self._apply(seat, a)
            return
        self._typed_flick(seat, req, "%s flicks from %s (%s). " % (name, req["from"], self._flick_words(req)))

    def _typed_flick(self, seat, req, intro=""):
        line = self._ask(intro + "Where did it stop? 'landed SPACE [cw|ccw]' or 'off'")
        if line is None:
            return
        try:
            a = typed_result(self.table, line)
        except ValueError as e:
            self.out("  %s" % e)
            return
        self._apply(seat, a)

    def _typed_interrupt(self):
        """At a real board: a line typed while waiting for the marble (never blocks). The end
        of the input saves and quits."""
        if self.reader is None:
            return None
        try:
            line = self.reader.poll(0)
        except EOFError:
            raise Quit() from None
        if line is None:
            return None
        line = line.strip()
        if not line or self._command(line):
            return None
        try:
            return typed_result(self.table, line)
        except ValueError as e:
            self.out("  %s" % e)
            return None

    # --- plumbing ---
    def _apply(self, seat, a):
        try:
            ev = self.table.apply(seat, a)
        except IllegalAction as e:
            self.out("  not allowed: %s" % e)
            return
        amb = [e for e in ev if e["type"] == "ambiguous"]
        if amb:
            other = [s for s in amb[0].get("spaces", []) if s != amb[0].get("space")]
            if other:
                self.say("(type 'it is on %s' to overrule)" % other[0])

    def _ask(self, prompt):
        """A line from the player; commands are handled here (None returned), and so is a
        timed turn's clock (None when it ran out). The end of the input: Quit."""
        self.out(prompt)
        line = self._read_line()
        if line is None:         # the turn timer ran out while waiting
            return None
        line = line.strip()
        if self._command(line):
            return None
        return line

    def _read_line(self):
        if self.inp is not None:
            try:
                return self.inp("> ")
            except EOFError:
                raise Quit() from None
        timed = self.game.turn_timer()["timed"] and self.game.to_act()[0] not in self.bots
        if self.reader is None:
            try:
                return input("> ")
            except EOFError:
                raise Quit() from None
        sys.stdout.write("> ")
        sys.stdout.flush()
        try:
            if not timed:
                return self.reader.poll(None)
            return self._read_timed()
        except EOFError:
            raise Quit() from None

    def _read_timed(self):
        """Read while the turn's clock runs: the board's (it reports the expiry) or, with no
        board, this computer's. The seconds left are called out; None when time is up."""
        from ringside.table import SimPort
        t = self.table
        tt = self.game.turn_timer()
        key = tt["turn_no"]
        now = time.monotonic()
        if self._turn_clock is None or self._turn_clock[0] != key:
            self._turn_clock = (key, now)
            self.out("  %s: %d seconds for this turn%s" % (
                self.game.seat_name(tt["seat"]), tt["seconds"],
                "" if t.port is not None else " (no board: this computer keeps the time)"))
        start = self._turn_clock[1]
        called = {c for c in COUNTDOWN if tt["seconds"] - (now - start) <= c}
        last = now
        while True:
            now = time.monotonic()
            left = tt["seconds"] - (now - start)
            for c in COUNTDOWN:
                if left <= c and c not in called and left > 0:
                    called.add(c)
                    self.out("\n  %d seconds left" % c)
            if t.port is None:
                if left <= 0:
                    entry = self.game.timeout_entry()
                    if entry is not None and self.game.turn_timer().get("turn_no") == key:
                        self.out("\n  time is up: the turn passes")
                        t.apply(*entry)
                    return None
            else:
                if isinstance(t.port, SimPort):     # the simulated board keeps the wall clock's time
                    t.port.wait(int((now - last) * 1000))
                last = now
                if t.check_timer() is not None:
                    self.out("\n  time is up: the turn passes")
                    return None
            line = self.reader.poll(0.1 if t.port is not None else max(0.0, min(0.1, left)))
            if line is not None:
                return line

    def _command(self, line) -> bool:
        words = line.split()
        if not words:
            return False
        w = words[0].lower()
        if w in ("quit", "q", "exit"):
            raise Quit()
        if w == "undo":
            try:
                n = self.table.undo_mine(self.people) if self.bots else None
                if n is None:
                    self.table.undo(1)
            except GameError as e:
                self.out("  %s" % e)
                return True
            seat = self.game.to_act()[0] if self.game.to_act() else None
            self.draw(seat if seat in self.people else None)
            return True
        if w in ("help", "?"):
            self.out(HELP)
            return True
        if w == "levels":
            self.out("  the computer's levels in %s, weakest first: %s" % (
                self.game.title or self.game.name, B.describe_levels(self.game)))
            return True
        if w == "board":
            seat = self.game.to_act()[0] if self.game.to_act() else None
            self.draw(seat if seat in self.people else None)
            return True
        if w == "save":
            if len(words) < 2:
                self.out("  save FILE")
                return True
            try:
                self.out("  saved to %s" % self.table.save(words[1]))
            except GameError as e:        # store.SaveError: the disk refused, in one line
                self.out("  cannot save: %s" % e)
            return True
        on = None
        if w == "it" and len(words) >= 4 and words[1] == "is" and words[2] == "on":
            on = words[3]
        elif w == "on" and len(words) == 2:
            on = words[1]
        if on is not None:
            try:
                self.table.correct(on)
            except (GameError, ValueError) as e:
                self.out("  cannot correct: %s" % e)
            return True
        return False

    def _choose(self, seat, acts, allow_random=False):
        """A move from acts, by number or by the words of its label; a long menu folds into
        the presenter's groups first. None when a command was typed (the caller asks again)."""
        g = self.game
        pres = g.presenter
        labels = [pres.label(g, seat, a) for a in acts]
        group = getattr(pres, "group", None)
        current = list(range(len(acts)))
        groups = None
        if len(acts) > MENU_MAX and group is not None:
            groups = {}
            for i, a in enumerate(acts):
                groups.setdefault(group(g, seat, a) or "other", []).append(i)
            if len(groups) < 2:
                groups = None
        while True:
            if groups is not None:
                names = list(groups)
                self.out("  %d moves; pick a group first (its number or its name):" % len(acts))
                self.out("  " + "   ".join("%d) %s (%d)" % (k, n, len(groups[n])) for k, n in enumerate(names, 1)))
            else:
                for k, i in enumerate(current, 1):
                    self.out("  %2d) %s" % (k, labels[i]))
            line = self._ask("a number or words of a move" + (", or r" if allow_random else "") + " (help: commands)")
            if line is None:
                return None
            if not line:
                continue
            if allow_random and line.lower() == "r":
                return g.chance_action()
            if groups is not None:
                names = list(groups)
                if line.isdigit() and 1 <= int(line) <= len(names):
                    current, groups = groups[names[int(line) - 1]], None
                    continue
                if line.lower() in [n.lower() for n in names]:
                    current, groups = groups[[n.lower() for n in names].index(line.lower())], None
                    continue
            elif line.isdigit():
                k = int(line)
                if 1 <= k <= len(current):
                    return acts[current[k - 1]]
                self.out("  type a number from 1 to %d, or words of a move" % len(current))
                continue
            hits = _match(line, [labels[i] for i in current], current) or _match(line, labels, range(len(acts)))
            if len(hits) == 1:
                return acts[hits[0]]
            if not hits:
                self.out("  no move matches %r: type a number, or words of a move (help: commands)" % line)
                continue
            current, groups = hits, None


def _match(line: str, labels, index) -> list:
    """Indices whose label is the line, else those whose label has every word of it."""
    want = line.lower().split()
    idx = list(index)
    exact = [i for i, lab in zip(idx, labels, strict=True) if lab.lower() == line.lower().strip()]
    if exact:
        return exact
    out = []
    for i, lab in zip(idx, labels, strict=True):
        words = lab.lower().replace(",", " ").replace("(", " ").replace(")", " ").split()
        if all(any(w == x or (len(w) > 2 and x.startswith(w)) for x in words) for w in want):
            out.append(i)
    return out


def parse_aim(line: str, directions: Sequence[str], limit: float = 1000.0) -> float:
    """'cw 200' -> -200.0 (signed degrees, + = counter-clockwise)."""
    words = line.lower().split()
    example = "%s 200" % directions[0]
    if len(words) != 2 or words[0] not in cc.DIRECTIONS:
        raise UsageError("type a direction and a distance in degrees, e.g. '%s'" % example)
    if words[0] not in directions:
        raise UsageError("this flick goes %s only: type e.g. '%s'" % (" or ".join(directions), example))
    try:
        deg = float(words[1])
    except ValueError:
        raise UsageError("%r is not a number of degrees (e.g. '%s')" % (words[1], example)) from None
    if not 1 <= deg <= limit:
        raise UsageError("aim between 1 and %d degrees" % limit)
    return deg if words[0] == cc.CCW else -deg


def typed_result(table: Table, line: str) -> dict:
    from ringside.table import typed_action
    return typed_action(table.game, line)


def render(game: Game, seat: int | None = None, colour: bool = False) -> str:
    """The table as text, for any game (its presenter's picture through the screen)."""
    from ringside.app.screen import Screen
    return Screen(colour=colour).render(game.presenter.picture(game, seat))


def final_words(game: Game) -> str:
    r = game.presenter.picture(game, None).get("result") or {}
    return "Game over: %s" % r.get("text", "")
