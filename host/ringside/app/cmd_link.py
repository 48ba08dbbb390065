"""`ringside sim`, `ringside monitor`, `ringside flick`, `ringside release`: the serial link
from the command line (docs/protocol.md)."""
from __future__ import annotations

import sys
import time


def register(sub) -> None:
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
                                   "lands. A real board cannot do this and says so.")
    _port_argument(p)
    p.add_argument("--force", type=float, required=True, metavar="F",
                   help="launch speed of the marble in mm/s (above 1500 it leaves the ring)")
    p.add_argument("--direction", choices=("cw", "ccw"), required=True,
                   help="clockwise or counter-clockwise (seen from above)")
    p.add_argument("--timeout", type=float, default=30.0, metavar="S",
                   help="longest wait for the marble to stop (default 30 s of real time)")
    p.set_defaults(func=_flick)

    p = sub.add_parser("release", help="hand a board's port back to the MicroPython REPL",
                       description="Send the `repl` command: the firmware stops its app and "
                                   "turns Ctrl-C back on, so mpremote (make deploy) can reach "
                                   "the REPL. Reset the board to start the app again.")
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


def _flick(args) -> int:
    from ringside.link import Link, LinkError
    if not 0 < args.force <= 5000:
        from ringside.errors import UsageError
        raise UsageError("--force must be above 0 and at most 5000 mm/s, not %g" % args.force)
    with Link(args.port, ring=None) as link:
        link.flick(args.force, args.direction)
        print("flicked the marble %s at %g mm/s" % (args.direction, args.force))
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
    from ringside.link import Link
    link = Link(args.port, ring=None, reconnect=False)
    link.open()
    name = link.port_name
    link.release_repl()
    print("%s: the app stopped and the REPL is free (mpremote can connect now)" % name)
    return 0
