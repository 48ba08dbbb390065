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

The terminal player is generic: it renders the game (a text board for the games it knows,
the view otherwise), shows "what happened" after every event, offers legal_actions() as a
numbered menu, and takes these commands at any prompt:

    undo                 take back the last action
    it is on 12          the last flick stopped on 12 (a wrong detection, or overruling an
                         ambiguous Darts landing): the game undoes and replays
    save FILE            save now (every action is also saved as it happens)
    board | help | quit

On the simulated ring a player flicks by typing a direction and a distance: `cw 200` aims
200 degrees clockwise; the marble goes with the player's skill spread (--skill).
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from ringside import games
from ringside.games import CHANCE, GameError, IllegalAction, possessive
from ringside.games import circles_common as cc


class Quit(Exception):
    pass


# ----- command line --------------------------------------------------------------------

def register(sub) -> None:
    p = sub.add_parser("play", help="play a game at the ring (or the simulated ring)",
                       description="Play a game from the terminal: on the simulated ring (--sim), "
                                   "a board over the serial link (--port, or a Pico found by itself), "
                                   "the simulated board over its pty (--sim-pty), or a real table with "
                                   "the results typed in (--typed).")
    p.add_argument("game", help="darts or wildwest (or any game in `ringside play --list`)", nargs="?")
    p.add_argument("--list", action="store_true", help="list the games and exit")
    p.add_argument("--players", default="", metavar="A,B",
                   help="human players in playing (clockwise) order, the youngest first")
    p.add_argument("--bots", default="", metavar="NAME[:LEVEL],...",
                   help="computer players, seated after the humans; LEVEL good (default), weak or random")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--sim", action="store_true", help="the simulated ring, in-process (fast)")
    where.add_argument("--sim-pty", action="store_true",
                       help="the simulated board on a pty, through the serial link")
    where.add_argument("--port", metavar="PATH", help="a board: device, pty or pyserial URL")
    where.add_argument("--typed", action="store_true", help="no board: type the ring results")
    p.add_argument("--seed", type=int, default=None, help="seed of the game, the ring and the bots")
    p.add_argument("--skill", type=float, default=0.6, help="the humans' flicking skill on the simulated "
                                                           "ring, 0 (beginner) to 1 (default 0.6)")
    p.add_argument("--ages", default="", metavar="N,N", help="players' ages in seat order (ties and the "
                                                             "youngest-first rules use them)")
    p.add_argument("--hard", action="store_true", help="Wild West: the harder start (no wagons)")
    p.add_argument("--solo", default="", metavar="NAME,...",
                   help="Squaring Circleville solo mode: 1 to 3 solo players (Bertha, Carsten, Denzel, "
                        "Katherine) seated after you; --players gives your name")
    p.add_argument("--difficulty", type=int, default=None,
                   help="solo mode: the solo players' start on the quadrant tracks (0 by default, 4 suggested)")
    p.add_argument("--data", metavar="FILE", help="the game's printed data from your own file")
    p.add_argument("--save", metavar="FILE", help="save every action to FILE (default: the autosave)")
    p.add_argument("--load", metavar="FILE", help="continue a saved game")
    p.add_argument("--no-calibrate", action="store_true",
                   help="simulated ring: skip calibrating it first (detections will be worse)")
    p.add_argument("--speed", type=float, default=20.0, help="--sim-pty: the board's clock speed-up")
    p.set_defaults(func=_play)

    r = sub.add_parser("resume", help="continue the last game (after a crash, nothing is lost)",
                       description="Continue a game from its save: the last autosave by default.")
    r.add_argument("file", nargs="?", help="a save file (default: the autosave)")
    for flag in ("--sim", "--typed"):
        r.add_argument(flag, action="store_true")
    r.add_argument("--port", metavar="PATH")
    r.add_argument("--seed", type=int, default=None)
    r.add_argument("--skill", type=float, default=0.6)
    r.add_argument("--no-calibrate", action="store_true")
    r.set_defaults(func=_resume)


def _play(args) -> int:
    if args.list:
        print("\n".join(games.names()))
        return 0
    if args.load:
        from ringside.table import read_save
        game, seats, meta = read_save(args.load)
        return _run(args, game, seats, meta, save=args.save or args.load)
    if not args.game:
        raise GameError("which game? (%s)" % ", ".join(games.names()))
    humans = [x.strip() for x in args.players.split(",") if x.strip()]
    bots = []
    for spec in [x.strip() for x in args.bots.split(",") if x.strip()]:
        name, _, level = spec.partition(":")
        bots.append((name.strip(), (level or "good").strip()))
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
    cls = games.game_class(args.game)
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
    game = games.new(args.game, names, seed=seed, options=opts)
    seats = {i: "human" for i in range(len(humans))}
    for k in range(len(solo)):
        seats[1 + k] = "solo"
    for k, (_, level) in enumerate(bots):
        _bot(game, level)              # an unknown level fails before the game starts
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


class _SoloSeat:
    """A Circleville solo player's seat: it plays its one legal step (the printed rules choose)."""
    aims = False

    def wants_flick(self, game, seat) -> bool:
        return False

    def choose(self, game, seat, rng=None) -> dict:
        return game.legal_actions(seat)[0]


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


def _bot(game, level):
    if level == "solo":
        return _SoloSeat()
    try:
        mod = __import__("ringside.games.%s.bots" % game.name, fromlist=["make"])
    except ImportError:
        mod = None
    if mod is None or not hasattr(mod, "make"):
        if level != "random":
            raise GameError("%s has only the random bot" % game.name)
        return cc.random_bot()
    try:
        return mod.make(level)
    except ValueError as e:
        raise GameError(str(e)) from None


def _run(args, game, seats, meta, save=None) -> int:
    from ringside.table import Table, default_autosave
    seed = args.seed if args.seed is not None else game.seed
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
    ring_side = getattr(getattr(game, "side", None), "name", None)
    if getattr(args, "sim", False):
        from ringside.sim.board import SimBoard
        board = SimBoard(seed=seed)
        port = SimPort(board)
        if not args.no_calibrate and ring_side:
            calibrate_sim(board, ring_side, print)
        return port, "sim", None
    if getattr(args, "typed", False):
        return None, "typed", None
    from ringside.link import Link
    if getattr(args, "sim_pty", False):
        from ringside.sim.serve import SimServer
        server = SimServer(seed=seed, speed=args.speed, out=open("/dev/null", "w")).start()
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
    return LinkPort(link, simulated=False), "board", link.close


def calibrate_sim(board, side: str, log=print) -> None:
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

        def place(self, angle, space_id=None):
            link.command("sim_place", ang=int(round(angle * 100)) % 36000)

    print("calibrating the simulated board over the link...")
    o = _Over()
    o.frames = []
    link.side(side)
    calibrate(o, server.board.ring_dict, side=side, log=lambda *a: None)
    link.raw(False)


# ----- the terminal session ----------------------------------------------------------------

class Session:
    """Plays a table from a terminal: humans answer prompts, bots play themselves."""

    def __init__(self, table, seats: dict, *, mode: str = "typed", skill: float = 0.6, rng=None,
                 inp=None, out=None):
        self.table = table
        self.seats = seats
        self.mode = mode
        self.skill = skill
        self.rng = rng or random.Random(0)
        self.inp = inp or input
        self.out = out or print
        self.bots = {s: _bot(table.game, lv) for s, lv in seats.items() if lv != "human"}

    @property
    def game(self):
        return self.table.game

    def say(self, text: str) -> None:
        self.out("  " + text)

    def run(self) -> int:
        self.out(render(self.game))
        while not self.game.over:
            try:
                self.step()
            except Quit:
                self.out("saved to %s; continue with `ringside resume %s`" % (self.table.save_path,
                                                                             self.table.save_path))
                return 0
        self.out(final_words(self.game))
        return 0

    def step(self) -> None:
        g = self.game
        seat = g.to_act()[0]
        if seat == CHANCE:
            self._chance()
        elif seat in self.bots:
            self._bot_turn(seat)
        else:
            self._human_turn(seat)

    # --- chance ---
    def _chance(self):
        g = self.game
        if self.mode in ("sim", "sim-pty", "screen"):
            self.table.apply(CHANCE, g.chance_action())
            return
        acts = g.legal_actions(CHANCE)
        self.out("What did it give? (r = let the computer draw)")
        a = self._menu(CHANCE, acts, allow_random=True)
        if a is not None:
            self._apply(CHANCE, a)

    # --- bots ---
    def _bot_turn(self, seat):
        g = self.game
        bot = self.bots[seat]
        name = g.seat_name(seat)
        # bots of games off the ring (Doubles) never flick
        if getattr(bot, "aims", False) and bot.wants_flick(g, seat):
            target = bot.aim(g, seat, self.rng)
            if self.table.port is not None and self.table.port.simulated:
                self.say("%s flicks, aiming %.0f degrees %s" % (name, abs(target),
                                                                "clockwise" if target < 0 else "anticlockwise"))
                a = self.table.flick_sim(target, bot.skill, self.rng)
                if a is None:
                    return self._typed_flick(seat, g.flick_request())
            else:
                req = g.flick_request() if hasattr(g, "flick_request") else None
                a = cc.flick_model(g.ring).result(g.side, req["from"], target, bot.skill, self.rng)
                self.say("%s flick (played by the computer): %s; set the marble there" % (possessive(name), g.describe(a)
                                                                                           if hasattr(g, "describe")
                                                                                           else a))
        else:
            try:
                a = bot.choose(g, seat, self.rng)
            except TypeError:        # a bot with ARCHITECTURE's two-argument choose()
                a = bot.choose(g, seat)
        self._apply(seat, a)

    # --- humans ---
    def _human_turn(self, seat):
        g = self.game
        req = g.flick_request() if hasattr(g, "flick_request") else None
        if req is not None and req["seat"] == seat:
            self._human_flick(seat, req)
        else:
            acts = g.legal_actions(seat)
            self.out("%s, choose:" % g.seat_name(seat))
            a = self._menu(seat, acts)
            if a is not None:
                self._apply(seat, a)

    def _human_flick(self, seat, req):
        g = self.game
        name = g.seat_name(seat)
        way = "either way" if len(req["directions"]) == 2 else "clockwise"
        need = ""
        if req.get("purpose") in ("flickoff", "saloon"):
            need = "try to go exactly once round"
        elif req["min_steps"]:
            need = "at least %d spaces" % req["min_steps"]
        port = self.table.port
        if port is not None and port.simulated:
            line = self._ask("%s, flick from %s (%s%s): type cw|ccw DEGREES, e.g. 'cw 200'"
                             % (name, req["from"], way, ", " + need if need else ""))
            if line is None:
                return
            try:
                target = parse_aim(line, req["directions"])
            except ValueError as e:
                self.out("  %s" % e)
                return
            a = self.table.flick_sim(target, self.skill, self.rng)
            if a is None:
                return self._typed_flick(seat, req)
            self._apply(seat, a)
            return
        if port is not None:
            self.table.arm()
            self.out("%s, flick the marble from %s (%s%s) - or type the result" % (name, req["from"], way,
                                                                                  ", " + need if need else ""))
            a = self.table.wait_result(10 ** 9, interrupt=self._typed_interrupt)
            if isinstance(a, dict):
                self._apply(seat, a)
            return
        self._typed_flick(seat, req, "%s flicks from %s (%s%s). " % (name, req["from"], way,
                                                                    ", " + need if need else ""))

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
        """At a real board: a line typed while waiting for the marble (non-blocking)."""
        import select
        try:
            r, _, _ = select.select([sys.stdin], [], [], 0)
        except (OSError, ValueError):
            return None
        if not r:
            return None
        line = sys.stdin.readline().strip()
        if self._command(line):
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
        if any(e["type"] == "ambiguous" for e in ev):
            other = [s for s in next(e for e in ev if e["type"] == "ambiguous")["spaces"]
                     if s != self.game.state.get("marble")]
            if other:
                self.say("(type 'it is on %s' to overrule)" % other[0])
        self.out(render(self.game))

    def _ask(self, prompt):
        """A line from the player; commands are handled here (None returned)."""
        self.out(prompt)
        try:
            line = self._read_line()
        except EOFError:
            raise Quit() from None
        if line is None:         # the turn timer ran out while waiting
            return None
        line = (line or "").strip()
        if self._command(line):
            return None
        return line

    def _read_line(self):
        """A line of input; while a board runs a turn timer, its expiry ends the wait (None)."""
        import select
        t = self.table
        if (t.port is None and self.inp is input and hasattr(self.game, "turn_timer")
                and self.game.turn_timer()["timed"]):
            return self._read_line_host_timed()
        timed = (self.inp is input and t.port is not None and hasattr(self.game, "turn_timer")
                 and getattr(t, "_timer_turn", None) is not None)
        if not timed:
            return self.inp("> ")
        import time
        from ringside.table import SimPort
        sys.stdout.write("> ")
        sys.stdout.flush()
        last = time.monotonic()
        while True:
            try:
                r, _, _ = select.select([sys.stdin], [], [], 0.1)
            except (OSError, ValueError):       # stdin that select cannot watch
                return self.inp("")
            if r:
                line = sys.stdin.readline()
                if not line:
                    raise EOFError
                return line
            if isinstance(t.port, SimPort):     # the simulated board keeps the wall clock's time
                now = time.monotonic()
                t.port.wait(int((now - last) * 1000))
                last = now
            ev = t.check_timer()
            if ev is not None:
                self.out("\n  time is up: the turn passes")
                self.out(render(self.game))
                return None

    def _read_line_host_timed(self):
        """No board: this computer keeps the turn's time itself (and says so)."""
        import select
        import time
        tt = self.game.turn_timer()
        key = tt["turn_no"]
        if getattr(self, "_host_turn", None) != key:
            self._host_turn = key
            self._host_deadline = time.monotonic() + tt["seconds"]
            self.out("  (no board: this computer keeps the %d seconds)" % tt["seconds"])
        sys.stdout.write("> ")
        sys.stdout.flush()
        while True:
            left = self._host_deadline - time.monotonic()
            if left <= 0:
                entry = self.game.timeout_entry()
                if entry is not None and self.game.turn_timer()["turn_no"] == key:
                    self.table.apply(*entry)
                    self.out("\n  time is up: the turn passes")
                    self.out(render(self.game))
                return None
            try:
                r, _, _ = select.select([sys.stdin], [], [], min(0.1, left))
            except (OSError, ValueError):
                return self.inp("")
            if r:
                line = sys.stdin.readline()
                if not line:
                    raise EOFError
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
                self.table.undo(1)
            except IllegalAction as e:
                self.out("  %s" % e)
            self.out(render(self.game))
            return True
        if w in ("help", "?"):
            self.out(__doc__.split("The terminal player is generic:")[1].split("On the simulated")[0].strip())
            return True
        if w == "board":
            self.out(render(self.game))
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
            self.out(render(self.game))
            return True
        return False

    def _menu(self, seat, acts, allow_random=False):
        g = self.game
        for i, a in enumerate(acts, 1):
            self.out("  %2d) %s" % (i, _words(g, a)))
        line = self._ask("number" + (" or r" if allow_random else "") + " (or a command)")
        if line is None:
            return None
        if allow_random and line.lower() == "r":
            return g.chance_action()
        try:
            k = int(line)
        except ValueError:
            self.out("  type a number from 1 to %d, or a command (help)" % len(acts))
            return None
        if not 1 <= k <= len(acts):
            self.out("  type a number from 1 to %d" % len(acts))
            return None
        return acts[k - 1]


def parse_aim(line: str, directions) -> float:
    """'cw 200' -> -200.0 (signed degrees, + = counter-clockwise)."""
    words = line.lower().split()
    if len(words) != 2 or words[0] not in cc.DIRECTIONS:
        raise ValueError("type a direction and a distance in degrees, e.g. 'cw 200'")
    if words[0] not in directions:
        raise ValueError("this flick must go %s" % " or ".join(directions))
    try:
        deg = float(words[1])
    except ValueError:
        raise ValueError("%r is not a number of degrees" % words[1]) from None
    if not 1 <= deg <= 1000:
        raise ValueError("aim between 1 and 1000 degrees")
    return deg if words[0] == cc.CCW else -deg


def typed_result(table, line: str) -> dict:
    from ringside.table import typed_action
    return typed_action(table.game, line)


def _words(game, a):
    return game.describe(a) if hasattr(game, "describe") else json.dumps(a)


# ----- rendering --------------------------------------------------------------------------

def render(game) -> str:
    """The board and the scores as text (generic: the view's top level)."""
    if game.name == "darts":
        return _render_darts(game)
    if game.name == "wildwest":
        return _render_wildwest(game)
    if hasattr(game, "render_text"):      # an engine that draws its own table (Circleville)
        return game.render_text()
    if game.name == "doubles":
        from ringside.games.doubles.render import render as render_doubles
        return render_doubles(game.view(None))
    v = game.view(None)
    return "\n".join("%s: %s" % (k, json.dumps(val)) for k, val in v.items())


def _render_darts(g) -> str:
    v = g.view()
    n = len(g.players)
    lines = []
    if v["phase"] == "flickoff":
        lines.append("Flick-off: flick from the %s once round; the nearest to the %s starts" % (g.start, g.start))
    else:
        lines.append("Round %d, turn %d of %d. Marble on %s." % (v["round"], min(v["turn"], v["turns_per_round"]),
                                                                v["turns_per_round"], v["marble"]))
    order = v["spaces_cw"]
    k = order.index("20") if "20" in order else 0
    order = order[k:] + order[:k]
    cells = []
    for sid in order:
        cubes = v["board"].get(sid)
        mark = "".join(g.players[p][0] * c for p, c in enumerate(cubes)) if cubes else ""
        if sid == v["marble"]:
            mark += "o"
        cells.append("%3s%-3s" % (sid, mark))
    lines.append(" ".join(cells[:10]))
    lines.append(" ".join(cells[10:]))
    sc = []
    for p in range(n):
        sc.append("%s %d (+%d this round, %d cube%s left, %d aside)" % (
            g.players[p], v["scores"][p], v["round_points"][p], v["hand"][p], "" if v["hand"][p] == 1 else "s",
            v["aside"][p]))
    lines.append("Scores: " + " | ".join(sc))
    act = g.to_act()
    if act and not g.over:
        lines.append("To act: %s" % g.seat_name(act[0]))
    return "\n".join(lines)


def _render_wildwest(g) -> str:
    from ringside.games.wildwest import money as M
    v = g.view()
    lines = ["Marble on %s. Sheriff: %s. Bag: %d discs. Reserve: %s." % (
        v["labels"][v["marble"]], g.players[v["sheriff"]], v["bag"], M.text(v["reserve"]))]
    bowl = " ".join("[%s]" % (M.text(b) if b else "  ") for b in v["bowl"])
    mine = " ".join(M.text(m) if M.count(m) else "-" for m in v["mine"])
    lines.append("Donation bowl: %s   Mine (outside in): %s" % (bowl, mine))
    lines.append("Shop: %d tickets, %d shovels, %d wagons" % (v["shop"]["tickets"], v["shop"]["shovels"],
                                                              v["shop"]["wagons"]))
    for p, name in enumerate(g.players):
        star = "*" if p == v["sheriff"] else " "
        lines.append("%s%-8s %-24s bank: %-16s tickets %d, shovels %d, wagons %d" % (
            star, name, M.text(v["purse"][p]), M.text(v["bank"][p]), v["tickets"][p], v["shovels"][p],
            v["wagons"][p]))
    act = g.to_act()
    if act and not g.over:
        lines.append("To act: %s" % g.seat_name(act[0]))
    return "\n".join(lines)


def final_words(game) -> str:
    r = game.result or {}
    scores = ", ".join("%s %s" % (k, v) for k, v in (r.get("scores") or {}).items())
    return "Game over: %s won (%s). Final scores: %s" % (" and ".join(r.get("winners", [])), r.get("reason", ""),
                                                         scores)
