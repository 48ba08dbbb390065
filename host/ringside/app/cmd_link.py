"""`ringside sim`, `ringside monitor`, `ringside flick`, `ringside release`: the serial link
from the command line (docs/protocol.md)."""
from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

from ringside.errors import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    from ringside.sim import serve

    p = sub.add_parser("sim", help="run a simulated board on a pty (prints its path)",
                       description="Run the firmware controller against the ring simulator on a "
                                   "pty, in real time, until Ctrl-C. Connect to the printed path "
                                   "with `ringside monitor --port PATH` or any host.")
    serve.add_arguments(p)
    p.set_defaults(func=_sim)

    p = sub.add_parser("monitor", help="connect to a board and print its events",
                       description="Connect to a board (real or simulated) and print every event "
                                   "until Ctrl-C. It reconnects by itself if the board resets.")
    _port_argument(p)
    p.add_argument("--ring", metavar="FILE",
                   help="check that the board carries this ring.json (default: no check)")
    p.add_argument("--hb", action="store_true", help="print heartbeats too")
    p.add_argument("--seconds", type=float, metavar="S", help="stop after S seconds")
    p.set_defaults(func=_monitor)

    p = sub.add_parser("flick", help="ask a simulated board to flick its marble",
                       description="Ask a simulated board to flick the marble and print where it "
                                   "lands (aim in degrees of travel, as everywhere in ringside), "
                                   "or put the marble back on a space with --place. A real board "
                                   "cannot do this and says so.")
    _port_argument(p)
    how = p.add_mutually_exclusive_group()
    how.add_argument("--degrees", type=float, metavar="DEG",
                     help="aim the marble DEG degrees round the ring (one lap is 360; the longest "
                          "that stays on a level ring is about %d)" % _max_degrees())
    how.add_argument("--mm-s", type=float, metavar="SPEED", dest="mm_s",
                     help="the launch speed itself in mm/s instead (above 1500 it leaves the ring)")
    p.add_argument("--direction", choices=("cw", "ccw"),
                   help="clockwise or counter-clockwise (seen from above)")
    p.add_argument("--place", metavar="SPACE",
                   help="first set the marble down on SPACE (e.g. 7): how to put back a marble "
                        "flicked off the ring")
    p.add_argument("--side", default="darts", help="the board side SPACE is on (default darts)")
    p.add_argument("--timeout", type=float, default=30.0, metavar="S",
                   help="longest wait for the marble to stop (default 30 s of real time)")
    p.set_defaults(func=_flick)

    p = sub.add_parser("release", help="hand a board's port back to the MicroPython REPL",
                       description="Send the `repl` command: the firmware stops its app and "
                                   "turns Ctrl-C back on, so mpremote (make deploy) can reach "
                                   "the REPL. A board already at the REPL passes. Reset the "
                                   "board to start the app again. Exit status 2, with the "
                                   "reason, when neither the app nor the REPL answers.")
    _port_argument(p)
    p.set_defaults(func=_release)


def _port_argument(p) -> None:
    p.add_argument("--port", metavar="PATH",
                   help="device, pty or pyserial URL (default: the first Raspberry Pi Pico "
                        "found by USB vendor id)")


def _sim(args) -> int:
    from ringside.sim import serve
    if args.speed <= 0:
        from ringside.errors import UsageError
        raise UsageError("--speed must be above 0")
    if args.ring:       # the user's own ring.json: its faults are theirs to fix, said in one line
        from ringfw.geometry import RingError, load
        try:
            load(args.ring)
        except RingError as e:
            raise RingError("%s: %s" % (args.ring, e)) from None
    return serve.serve(args)


def _stamp(t0: float, t: float) -> str:
    return "%9.3f" % (t - t0)


def _fields(f: dict) -> str:
    return " ".join("%s=%s" % kv for kv in f.items())


def _monitor(args) -> int:
    from ringside.link import Link
    link = Link(args.port, ring=args.ring, heartbeats=args.hb)
    link.open()
    t0 = time.monotonic()
    out = sys.stdout
    try:
        out.write("%s  connected to %s: %s\n" % (_stamp(t0, t0), link.port_name,
                                                _describe("hello", link.board)))
        out.flush()
        end = None if args.seconds is None else t0 + args.seconds
        while True:
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                break
            ev = link.next_event(timeout=0.2 if left is None else min(0.2, left))
            if ev is None:
                continue
            out.write("%s  %-13s %s  | %s\n" % (_stamp(t0, ev.t), ev.kind, _fields(ev.fields),
                                                 ev.text))
            out.flush()
    except KeyboardInterrupt:
        pass
    finally:
        link.close()
    return 0


def _describe(kind, fields) -> str:
    from ringside.link.messages import describe
    return describe(kind, fields)


def _max_degrees() -> int:
    """The longest aim (degrees) that stays on a level ring, from the ring in use."""
    from ringside import ring
    from ringside.flicks import max_travel_deg
    try:
        return int(max_travel_deg(ring.ring_dict()))
    except Exception:   # a broken ring file is reported by the command that reads it
        return 0


def _flick(args) -> int:
    from ringside import ring
    from ringside.flicks import speed_for_travel
    from ringside.link import Link, LinkError
    strength = args.degrees is not None or args.mm_s is not None
    if not strength and args.place is None:
        raise UsageError("say how hard: --degrees DEG (1 to %d) or --mm-s SPEED, or --place SPACE "
                         "to put the marble back" % _max_degrees())
    if strength and args.direction is None:
        raise UsageError("say which way: --direction cw or --direction ccw")
    angle = None
    if args.place is not None:
        side = ring.load_side(ring.check_side(args.side))
        if args.place not in side:
            raise UsageError("no space %r on the %s side (it has: %s)" % (args.place, side.name, " ".join(side.ids)))
        angle = side.centre(args.place)
    speed = None
    if args.degrees is not None:
        top = _max_degrees()
        if not 1 <= args.degrees <= top:
            raise UsageError("--degrees must be from 1 to %d (one lap is 360); to throw the marble "
                             "off the ring use --mm-s 2000" % top)
        speed = abs(speed_for_travel(ring.ring_dict(), args.degrees))
    elif args.mm_s is not None:
        if not 0 < args.mm_s <= 5000:
            raise UsageError("--mm-s must be above 0 and at most 5000 mm/s, not %g" % args.mm_s)
        speed = args.mm_s
    with Link(args.port, ring=None) as link:
        if angle is not None:
            link.command("sim_place", ang=int(round(angle * 100)) % 36000)
            ev = link.wait_for("placed", timeout=5.0)
            print("the marble is on %s again%s" % (args.place, "" if ev is not None else
                                                   " (the board has not confirmed it yet)"))
            if speed is None:
                return 0
        try:
            link.arm("any")     # as a table does on a turn: a marble gone is then off the ring
            link.flick(speed, args.direction)
        except LinkError as e:
            if e.why and e.why.startswith("marble_off_the_ring"):
                raise LinkError("the marble is off the ring: put it back first with `ringside flick "
                                "--port %s --place 7`" % (args.port or link.port_name), why=e.why) from None
            raise
        if args.degrees is not None:
            print("flicked the marble %s, aiming %g degrees (%.0f mm/s)" % (args.direction, args.degrees, speed))
        else:
            print("flicked the marble %s at %g mm/s" % (args.direction, speed))
        ev = link.wait_for(("landed", "off_ring"), timeout=args.timeout)
        if ev is None:
            raise LinkError("the marble did not come to rest within %g s" % args.timeout)
        print("%s  %s" % (ev.kind, _fields(ev.fields)))
        print(ev.text)
        verdict = link.wait_for("verdict", timeout=0.2)
        if verdict is not None:
            print(verdict.text)
    return 0


def _release(args) -> int:
    from ringside.app.deploy import release   # also passes a board already at the REPL
    print(release(args.port))
    return 0
