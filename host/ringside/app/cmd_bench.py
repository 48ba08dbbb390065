"""`ringside bench ring|firmware|link|games|doubles|circle|circleville|solo`: benchmarks that print one JSON object."""
from __future__ import annotations

import importlib
import json
import sys


def _print(result: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print("%-26s %s" % (k, v))


def cmd_ring(args) -> int:
    from ringside.bench import ring
    faults = {int(i): "dead" for i in args.dead.split(",")} if args.dead else None
    res = ring.run(flicks=args.flicks, seed=args.seed, tilt=args.tilt, side=args.side,
                   noise=args.noise, faults=faults,
                   progress=(lambda k: print("  %d flicks" % k, file=sys.stderr)) if args.progress else None)
    _print(res, args.json)
    return 0


def cmd_firmware(args) -> int:
    from ringside.bench import firmware
    _print(firmware.run(seconds=args.seconds, seed=args.seed), args.json)
    return 0


def _optional(module: str, what: str):
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name == module:
            from ringside.errors import UsageError
            raise UsageError("%s is not built yet" % what) from None
        raise


def cmd_link(args) -> int:
    mod = _optional("ringside.bench.link", "the link benchmark")
    _print(mod.run(), args.json)
    return 0


def cmd_games(args) -> int:
    out = {}
    g = _optional("ringside.bench.games", "the games benchmark")
    for name in args.game or g.GAMES if hasattr(g, "GAMES") else args.game:
        out[name] = g.run(name, args.n, args.seed)
    _print(out, args.json)
    return 0


# engines with a benchmark of their own: (command, module, what it measures, default games)
_GAME_BENCHES = [
    ("doubles", "ringside.bench.doubles", "Doubles: bot matches and strong-move time", 400),
    ("circle", "ringside.games.circle.bench", "The Circle: self-play games and bot results", 100),
    ("circleville", "ringside.games.circleville.bench",
     "Squaring Circleville: 4-heuristic-player self-play", 200),
]


def _game_bench(module):
    def run(args) -> int:
        mod = _optional(module, "that benchmark")
        _print(mod.run(args.n, args.seed), args.json)
        return 0
    return run


def cmd_solo(args) -> int:
    mod = _optional("ringside.games.circleville.solo.bench", "the Circleville solo benchmark")
    _print(mod.run(args.games, args.seed, args.difficulty), args.json)
    return 0


def _games(text: str) -> int:
    """A number of games: a whole number from 1 (argparse says so in one line)."""
    import argparse
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("a number of games is a whole number, not %r" % text) from None
    if n < 1:
        raise argparse.ArgumentTypeError("the number of games must be at least 1, not %d" % n)
    return n


def register(sub) -> None:
    b = sub.add_parser("bench", help="benchmarks (JSON)")
    bs = b.add_subparsers(dest="bench", metavar="WHAT")
    r = bs.add_parser("ring", help="detection accuracy and latency over simulated flicks")
    r.add_argument("--flicks", type=int, default=2000)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--tilt", type=float, default=0.0, help="ring tilt in degrees")
    r.add_argument("--side", default="darts")
    r.add_argument("--noise", type=float, default=1.0, help="sensor noise scale (1.0 = the default model)")
    r.add_argument("--dead", help="comma-separated sensors that are dead")
    r.add_argument("--progress", action="store_true")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=cmd_ring)
    f = bs.add_parser("firmware", help="firmware cost in the MicroPython VM")
    f.add_argument("--seconds", type=int, default=60)
    f.add_argument("--seed", type=int, default=3)
    f.add_argument("--json", action="store_true")
    f.set_defaults(func=cmd_firmware)
    lk = bs.add_parser("link", help="serial link round trips, latency, throughput, recovery")
    lk.add_argument("--json", action="store_true")
    lk.set_defaults(func=cmd_link)
    g = bs.add_parser("games", aliases=["engines"], help="engine self-play throughput")
    g.add_argument("game", nargs="*")
    g.add_argument("-n", type=_games, default=200)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--json", action="store_true")
    g.set_defaults(func=cmd_games)
    for name, module, what, n in _GAME_BENCHES:
        p = bs.add_parser(name, help=what)
        p.add_argument("-n", type=_games, default=n, help="games")
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--json", action="store_true")
        p.set_defaults(func=_game_bench(module))
    so = bs.add_parser("solo", help="Squaring Circleville solo players against the heuristic player")
    so.add_argument("--games", "-n", type=_games, default=200, help="games per solo player and for the trios")
    so.add_argument("--seed", type=int, default=1)
    so.add_argument("--difficulty", type=int, default=0,
                    help="the solo players' start on the quadrant tracks (4 suggested)")
    so.add_argument("--json", action="store_true")
    so.set_defaults(func=cmd_solo)
