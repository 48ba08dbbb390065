"""`ringside play-ring` (what `make run` starts) and `ringside calibrate`.

play-ring: the simulated ring in the terminal. You flick the marble, the firmware (the
very controller the Pico runs) finds where it stops, and you see its events next to the
simulator's truth. No hardware needed.
"""
from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

from ringside import ring
from ringside.calibration import PASSES, CalibrationError, calibrate  # noqa: F401
from ringside.errors import UsageError
from ringside.link import messages
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    import argparse

HELP = """commands:
  cw DEG | ccw DEG     flick clockwise / anticlockwise, aiming to travel DEG degrees
                       (1 to {max_deg}: a harder flick leaves the ring)
  cw hard | ccw hard   a flick too hard: the marble leaves the ring
  place SPACE          set the marble down on a space (e.g. place 7)
  side NAME            choose the board side ({sides})
  tilt DEG [LOW]       tip the ring DEG degrees, low point at LOW degrees
  fault N {faults}|ok   break or repair sensor N (0 to {last})
  calibrate            set the marble on every space and fit the sensors
  status               the board's health
  help | quit"""

_DESCRIBE = {
    "moving": lambda f: "moving %s from %.1f deg" % ("anticlockwise" if f.get("dir", 1) > 0 else "clockwise", f["ang"] / 100),
    "landed": lambda f: "landed on %s%s at %.1f deg, travelled %.1f deg %s, confidence %d%%%s" % (
        f["sp"], (" (or %s)" % f["alt"]) if "alt" in f else "", f["ang"] / 100, abs(f["trv"]) / 100,
        ring.direction_word(f["trv"]), f["conf"], _blind_words(f)) + (
        " - it moved on: this replaces the last landing" if f.get("corrects") else ""),
    "off_ring": lambda f: "left the ring (last seen at %.1f deg)" % (f["ang"] / 100),
    "placed": lambda f: "marble set down on %s at %.1f deg" % (f["sp"], f["ang"] / 100),
    "lost": lambda f: "marble taken off the ring at %.1f deg" % (f["ang"] / 100),
    "sensor_fault": lambda f: "sensor %s fault (%s): %.1f deg of the ring now blind" % (f["id"], f["why"], f["blind"] / 100),
    "sensor_ok": lambda f: "sensor %s is back: %.1f deg blind" % (f["id"], f["blind"] / 100),
    "withdrawn": lambda f: "the landing on %s is withdrawn: the marble moved on" % f["sp"],
    "degraded": lambda f: messages.degraded_text(f),
    "not_level": lambda f: "the ring is not level: low point near %.0f deg" % (f["low"] / 100),
    "nack": lambda f: "the board refused a command: %s" % f.get("why", "?"),
}


def _blind_words(f: dict) -> str:
    if not f.get("blind"):
        return ""
    c = messages.id_list(f.get("cands"))
    return " [in a blind spot: a guess%s]" % (", it is on one of %s" % ", ".join(c) if len(c) > 1 else "")


def describe(kind: str, fields: dict) -> str | None:
    fn = _DESCRIBE.get(kind)
    if fn is None:
        return None
    try:
        return fn(fields)
    except (KeyError, TypeError, ValueError):
        return "%s %s" % (kind, fields)


class RingSession:
    """The simulated ring driven by text commands; prints what the board says."""

    def __init__(self, seed: int = 1, tilt: float = 0.0, side: str = "darts", out: Callable[[str], None] = print, auto_calibrate: bool = True,
                 sensor_model: str | None = None):
        from ringside.flicks import max_travel_deg
        from ringside.sim.board import FAULT_KINDS, SimBoard, SimTable
        self.faults = FAULT_KINDS          # register-level faults on the simulated I2C bus
        ring.check_side(side)              # one line naming the sides, before anything starts
        self.SimTable = SimTable
        self.board = SimBoard(seed=seed, tilt_deg=tilt, sensor_model=sensor_model, bus="register")
        self.out = out
        self.side = side
        self.seen = 0
        self.calibrated = False
        b = self.board
        # the longest aim that stays on a level ring, whole degrees (the skill-free flick here)
        self.max_deg = int(max_travel_deg(b.ring_dict, b.marble.params))
        b.place(self._centre(self._side().start))
        b.advance(1200)
        if side != "darts":
            self.command("side " + side)
        self._flush(quiet={"hb", "ack", "raw"})
        hello = b.frames_of("hello")[0][2]
        out("simulated board: firmware %s, protocol %s, ring.json %s, %d sensors, seed %d"
            % (hello["fw"], hello["proto"], hello["ring"], hello["sensors"], seed))
        out("flick strength: cw DEG or ccw DEG aims the marble DEG degrees round the ring, "
            "from 1 to %d (one lap is 360; harder leaves the ring); type help for the rest"
            % self.max_deg)
        if auto_calibrate:
            self.command("calibrate")
        else:
            out("not calibrated: the sensors' offsets are unknown, so the board may not see the "
                "marble stop (type calibrate to fit them)")

    def _side(self, side=None):
        return ring.load_side(side or self.side, self.board.ring_dict)

    def _centre(self, space_id, side=None):
        sd = self._side(side)
        if str(space_id) not in sd:
            raise UsageError("no space %r on the %s side (it has: %s)" % (space_id, sd.name, " ".join(sd.ids)))
        return sd.centre(str(space_id))

    def help_text(self) -> str:
        return HELP.format(max_deg=self.max_deg, sides=", ".join(ring.side_names(self.board.ring_dict)),
                           faults="|".join(self.faults), last=self.board.model.count - 1)

    def _flush(self, quiet=("hb", "ack", "raw", "hello")):
        for t, kind, f in self.board.frames[self.seen:]:
            if kind in quiet:
                continue
            text = describe(kind, f)
            if text:
                self.out("  [%7.2f s] %s" % (t / 1000.0, text))
        self.seen = len(self.board.frames)

    def _truth(self):
        m = self.board.marble
        if not m.on_ring:
            return "(simulator: off the ring)"
        sp = self._side().space_at(m.position_deg)
        # the same words as the board's verdict: a distance and a direction, no sign
        return "(simulator: %s at %.1f deg, travelled %.1f deg %s)" % (
            sp, m.position_deg, abs(m.travel_deg), ring.direction_word(m.travel_deg))

    def command(self, line: str) -> bool:
        """Run one command; False means quit."""
        from ringside.sim.physics import speed_for_travel
        words = shlex.split(line)
        if not words:
            return True
        cmd, args = words[0].lower(), words[1:]
        b = self.board
        if cmd in ("quit", "exit", "q"):
            return False
        if cmd == "help":
            self.out(self.help_text())
        elif cmd in ("cw", "ccw", "flick"):
            if cmd == "flick":
                if not args:
                    raise UsageError("flick needs a direction: flick cw 120")
                cmd, args = args[0], args[1:]
            if cmd not in ("cw", "ccw"):
                raise UsageError("the direction is cw or ccw")
            if not b.marble.on_ring:
                raise UsageError("the marble is not on the ring: place it first (place 7)")
            sign = 1 if cmd == "ccw" else -1
            if args and args[0] == "hard":
                speed = sign * 1.3 * b.marble.params.off_ring_speed_mm_s
            else:
                deg = _number(args[0], "%s needs the degrees to aim, from 1 to %d, e.g. %s 120 (or %s hard)"
                              % (cmd, self.max_deg, cmd, cmd)) if args else 180.0
                if not 1 <= deg <= self.max_deg:
                    raise UsageError("aim between 1 and %d degrees (one lap is 360; harder leaves the ring: "
                                     "%s hard)" % (self.max_deg, cmd))
                speed = speed_for_travel(b.ring_dict, sign * deg, b.marble.params)
            frame, _ = b.run_flick(speed, timeout_ms=30000)
            while b.marble.on_ring and not b.marble.at_rest:
                b.advance(50)
            b.advance(200)
            self._flush()
            if frame is None:
                self.out("  the board gave no verdict: it has not seen the marble stop%s" % (
                    "" if self.calibrated else
                    " (uncalibrated sensors disagree about where it is: type calibrate)"))
            self.out("  " + self._truth())
        elif cmd == "place":
            if not args:
                raise UsageError("place which space? e.g. place 7")
            b.place(self._centre(args[0]))
            b.advance(1500)
            self._flush()
        elif cmd == "side":
            name = args[0] if args else ""
            ring.check_side(name, b.ring_dict)
            b.send("side", name=name)
            b.advance(20)
            self.side = name
            self._flush()
            self.out("  side: %s" % name)
        elif cmd == "tilt":
            usage = "tilt DEG [LOW]: the tilt and the low point in degrees, e.g. tilt 1.5 90"
            deg = _number(args[0], usage) if args else 0.0
            low = _number(args[1], usage) if len(args) > 1 else 0.0
            b.marble.set_tilt(deg, low)
            self.out("  the ring now tilts %.1f deg, low point at %.0f deg" % (deg, low))
        elif cmd == "fault":
            usage = "fault N KIND: N a sensor from 0 to %d, KIND one of %s or ok (repaired)" % (
                b.model.count - 1, ", ".join(self.faults))
            if len(args) != 2 or not args[0].isdigit():
                raise UsageError(usage)
            i = int(args[0])
            kind = args[1].lower()
            if not 0 <= i < b.model.count or kind not in self.faults + ("ok",):
                raise UsageError(usage)
            b.set_fault(i, None if kind == "ok" else kind)
            b.advance(1500)
            self._flush()
        elif cmd == "calibrate":
            self.out("  calibrating: the marble goes on every space of the %s side..." % self.side)
            t0 = time.perf_counter()
            res = calibrate(self.SimTable(b), b.ring_dict, side=self.side, log=lambda *a: None)
            self.calibrated = True
            self._flush(quiet={"hb", "ack", "raw", "placed", "moving", "lost", "landed", "off_ring"})
            worst = max(f.residual_mm for f in res.fits)
            self.out("  calibrated %d sensors (worst fit residual %.2f mm) in %.1f s%s"
                     % (len(res.fits), worst, time.perf_counter() - t0,
                        "; %d placements rolled away - is the ring level?" % res.rolled if res.rolled else ""))
            b.place(self._centre(self._side().start))
            b.advance(1500)
            self._flush()
        elif cmd == "status":
            b.send("status")
            b.advance(20)
            hb = b.frames_of("hb")[-1][2]
            self.out("  up %ss, worst loop %s ms, frames dropped %s, errors %s, blind %.1f deg"
                     % (hb["up"], hb["loop"], hb["drop"], hb["err"], hb["blind"] / 100))
            self.seen = len(b.frames)
        else:
            raise UsageError("unknown command %r (type help)" % cmd)
        return True


def _number(word: str, message: str) -> float:
    """A number typed by the player, or ValueError(message) in plain words."""
    try:
        v = float(word)
    except ValueError:
        raise UsageError(message) from None
    if v != v or v in (float("inf"), float("-inf")):
        raise UsageError(message)
    return v


def model_of(ideal: bool) -> str:
    from ringside.sim.board import model_of as m
    return m(ideal)


def cmd_play_ring(args: argparse.Namespace) -> int:
    if args.ring:
        ring.use_file(args.ring)
    s = RingSession(seed=args.seed, tilt=args.tilt, side=args.side, auto_calibrate=not args.no_calibrate,
                    sensor_model=model_of(args.ideal))
    lines = None
    if args.script:
        lines = [c.strip() for c in args.script.split(";")]
    interactive = lines is None and sys.stdin.isatty()
    if interactive:
        print("flick the marble: cw 120, ccw 200, cw hard; place 7; help; quit")
    source = lines if lines is not None else None
    while True:
        if source is not None:
            if not source:
                return 0
            line = source.pop(0)
            print("> " + line)
        else:
            try:
                line = input("> " if interactive else "")
            except EOFError:
                return 0
        try:
            if not s.command(line):
                return 0
        except ValueError as e:
            print("  %s" % e)


def cmd_calibrate(args: argparse.Namespace) -> int:
    if args.ring:
        ring.use_file(args.ring)
    ring.check_side(args.side)      # one line naming the sides, before a board is touched
    if args.ideal and args.port is not None:
        raise UsageError("--ideal chooses the simulated board's sensor model: leave it out with --port")
    if args.port is None:
        from ringside.sim.board import SimBoard, SimTable
        b = SimBoard(seed=args.seed, tilt_deg=args.tilt, sensor_model=model_of(args.ideal))
        b.place(90.0)
        b.advance(1000)
        print("calibrating the simulated board (seed %d): the simulator sets the marble down itself" % args.seed)
        res = calibrate(SimTable(b), b.ring_dict, side=args.side, spaces=args.spaces, log=print,
                        passes=getattr(args, "passes", None))
        saved = b.saved_ring
        truth = {i: (b.model.bias_mm[i], 1 / b.model.scale[i]) for i in range(b.model.count)}
    else:
        from ringside.link_table import LinkTable
        table = LinkTable.open(args.port)
        ring_d = table.ring_dict
        print("calibrating the board on %s: set the marble on each space when asked" % args.port)
        try:
            res = calibrate(table, ring_d, side=args.side, spaces=args.spaces, log=print,
                            passes=getattr(args, "passes", None))
            # the board has no calendar: this computer keeps the date, for the lobby's health
            from ringside import calibration_record
            calibration_record.record(table.link.board_uid, len(res.fits), res.rolled)
        finally:
            table.close()
        saved = None
        truth = None
    for f in res.fits:
        extra = ""
        if truth:
            extra = "   (simulator truth: offset %.2f mm, scale %.4f)" % truth[f.sensor]
        print("sensor %2d: %d points, offset %+.2f mm, scale %.4f, residual %.2f mm%s"
              % (f.sensor, f.points, f.offset_mm, f.scale, f.residual_mm, extra))
    if res.rolled:
        print("%d placements rolled away: the ring is not level" % res.rolled)
    if args.out and saved is not None:
        Path(args.out).write_text(json.dumps(saved, indent=1) + "\n")
        print("the board's calibrated ring description: %s" % args.out)
    if args.json:
        print(json.dumps(res.as_dict()))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play-ring", help="the simulated ring in the terminal: flick and see the events (make run)")
    p.add_argument("--seed", type=int, default=1, help="simulator seed (recorded; the same seed replays the same ring)")
    p.add_argument("--tilt", type=float, default=0.0, help="ring tilt in degrees")
    p.add_argument("--side", default="darts", help="board side (darts, wildwest)")
    p.add_argument("--ring", metavar="FILE", help="your own ring.json (default: $RINGSIDE_RING, else the one shipped)")
    p.add_argument("--script", help="commands separated by ';' instead of typing them")
    p.add_argument("--no-calibrate", action="store_true", help="skip the start-up calibration")
    p.add_argument("--ideal", action="store_true",
                   help="the ideal sensor model (only the marble is seen; docs/simulator.md)")
    p.set_defaults(func=cmd_play_ring)

    c = sub.add_parser("calibrate", help="fit each sensor's offset and scale with the marble on known spaces")
    c.add_argument("--port", help="a real board's serial port (default: the simulated board)")
    c.add_argument("--side", default="darts", help="board side (darts, wildwest)")
    c.add_argument("--ring", metavar="FILE", help="your own ring.json (default: $RINGSIDE_RING, else the one shipped)")
    c.add_argument("--spaces", type=lambda s: [x.strip() for x in s.split(",") if x.strip()],
                   help="the spaces to use, comma-separated (default: every space of the side)")
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--tilt", type=float, default=0.0)
    c.add_argument("--passes", type=int, default=PASSES, choices=range(1, 6), metavar="N",
                   help="go round the spaces N times (1-5, default %d): each placement lands the "
                        "marble at its own place across the groove, and more of them average "
                        "that out" % PASSES)
    c.add_argument("--out", help="write the calibrated ring description here (simulated board)")
    c.add_argument("--json", action="store_true")
    c.add_argument("--ideal", action="store_true",
                   help="simulated board: the ideal sensor model (only the marble is seen) instead of "
                        "the physical one (docs/simulator.md)")
    c.set_defaults(func=cmd_calibrate)
