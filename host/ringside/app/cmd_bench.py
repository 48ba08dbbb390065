"""`ringside bench ring|suite|firmware|link|games|bots|doubles|circle|circleville|solo`: benchmarks that
print one JSON object."""
from __future__ import annotations

import importlib
import json
import sys
from ringside.errors import UsageError
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


def _print(result: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print("%-26s %s" % (k, v))


def _dead_sensors(text: str | None, count: int) -> dict | None:
    """--dead 1,3 -> {1: "dead", 3: "dead"}, each a sensor of the ring."""
    if not text:
        return None
    out = {}
    for part in text.split(","):
        try:
            i = int(part)
        except ValueError:
            raise UsageError("--dead takes sensor numbers like 1,3, not %r" % text) from None
        if not 0 <= i < count:
            raise UsageError("--dead: no sensor %d (there are %d, 0 to %d)" % (i, count, count - 1))
        out[i] = "dead"
    return out


def cmd_ring(args: argparse.Namespace) -> int:
    from ringside.bench import ring
    if args.flicks is not None and args.flicks < 0:
        raise UsageError("--flicks takes 0 or more")
    if not args.noise >= 0:
        raise UsageError("--noise takes a scale of 0 or more (1 = the model's own noise)")
    if not 0 <= args.tilt < 45:
        raise UsageError("--tilt takes degrees from 0 to under 45")
    if args.signal_k is not None and (args.ideal or not args.signal_k > 0):
        raise UsageError("--signal-k takes the physical model's signal constant, more than 0 "
                         "MCPS (the datasheet's: 0.83)")
    prog = (lambda k: print("  %s" % (k,), file=sys.stderr)) if args.progress else None
    try:
        ring.check_design(args.marble, args.marble_mm, args.sensors)
        grid = ring.parse_sweep(args.sweep or "all") if args.sweep is not None or args.plot \
            else None
    except ValueError as e:
        raise UsageError(str(e)) from None
    if grid is not None:
        if args.ideal:
            raise UsageError("--sweep measures the physical model; leave out --ideal")
        res = ring.sweep(grid,
                         flicks=args.flicks if args.flicks is not None else 2000,
                         seed=args.seed, side=args.side, crosstalk=not args.no_crosstalk,
                         progress=prog)
        if args.plot:
            ring.plot(res, args.plot)
            res["plot"] = args.plot
        _print(res, args.json)
        return 0
    if args.ambient is not None and args.ambient not in ring.AMBIENT:
        raise UsageError("--ambient takes low or high")
    count = args.sensors
    if count is None:
        count = len(json.loads(ring.default_ring_bytes())["sensors"])
    faults = _dead_sensors(args.dead, count)
    try:
        specs = [ring.parse_fault(t, count) for t in args.fault or ()]
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.faults not in (None, "random"):
        raise UsageError("--faults takes random (a random single fault every ~200 flicks)")
    if args.idle is not None and not args.idle > 0:
        raise UsageError("--idle takes the seconds of armed rest, more than 0")
    if args.trace_tail is not None and (args.trace_tail <= 0 or not args.save_traces):
        raise UsageError("--trace-tail takes the milliseconds (more than 0) to keep after the "
                         "marble stopped, with --save-traces")
    if args.exact_calibration and args.ideal:
        raise UsageError("--exact-calibration needs the physical model (it fits to its "
                         "noise-free readings)")
    if args.dead and (specs or args.faults):
        raise UsageError("--dead is the sensor model's; use --fault dead:N with --fault/--faults")
    if args.faults_before_boot and not (args.saved_calibration and specs):
        raise UsageError("--faults-before-boot needs --saved-calibration and a --fault KIND:N: "
                         "it moves the faults to before the board's reset")
    flicks = args.flicks if args.flicks is not None else (0 if args.idle else 2000)
    if args.seeds is not None or args.jobs != 1:
        try:
            seeds = ring.parse_seeds(args.seeds if args.seeds is not None else str(args.seed))
        except ValueError as e:
            raise UsageError(str(e)) from None
        if args.jobs < 1:
            raise UsageError("--jobs must be at least 1")
        res = ring.run_seeds(seeds, jobs=args.jobs, flicks=flicks, tilt=args.tilt, side=args.side,
                             noise=args.noise, faults=faults, fault_specs=specs,
                             random_faults=args.faults == "random", idle_s=args.idle, bus=args.bus,
                             sensor_model="ideal" if args.ideal else "physical", marble=args.marble,
                             marble_mm=args.marble_mm,
                             ambient=ring.AMBIENT[args.ambient] if args.ambient else None,
                             sensors=args.sensors, baffle=False if args.no_baffle else None,
                             crosstalk=not args.no_crosstalk,
                             exact_calibration=args.exact_calibration, centred=args.centred,
                             signal_k=args.signal_k, saved_calibration=args.saved_calibration,
                             faults_before_boot=args.faults_before_boot,
                             save_traces=args.save_traces,
                             save_flicks=tuple(args.save_flick or ()),
                             trace_tail_ms=args.trace_tail)
        _print(res, args.json)
        return 0
    res = ring.run(flicks=flicks, seed=args.seed, tilt=args.tilt, side=args.side,
                   noise=args.noise, faults=faults, fault_specs=specs,
                   random_faults=args.faults == "random", idle_s=args.idle, bus=args.bus,
                   sensor_model="ideal" if args.ideal else "physical", marble=args.marble,
                   marble_mm=args.marble_mm,
                   ambient=ring.AMBIENT[args.ambient] if args.ambient else None,
                   sensors=args.sensors, baffle=False if args.no_baffle else None,
                   crosstalk=not args.no_crosstalk, progress=prog,
                   save_traces=args.save_traces, save_flicks=tuple(args.save_flick or ()),
                   trace_tail_ms=args.trace_tail,
                   exact_calibration=args.exact_calibration, centred=args.centred,
                   signal_k=args.signal_k, saved_calibration=args.saved_calibration,
                   faults_before_boot=args.faults_before_boot)
    _print(res, args.json)
    return 0


def cmd_suite(args: argparse.Namespace) -> int:
    from ringside.bench import suite
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    parts = [p.strip() for p in args.parts.split(",") if p.strip()] if args.parts else None
    prog = (lambda s: print("  " + s, file=sys.stderr)) if args.progress else None
    try:
        spec = suite.load_spec(args.spec)
        if args.summary_only:
            res = suite.summarize(args.out, spec, parts)
        else:
            res = suite.run(args.out, spec, parts, jobs=args.jobs, resume=not args.again,
                            save_traces=args.save_traces, progress=prog)
    except suite.SuiteError as e:
        raise UsageError(str(e)) from None
    if not args.json:
        print(suite.markdown(res))
        for p in res["parts"].values():
            if p["missing"]:
                print("not run yet (%s): %s" % (p["what"] or "part", ", ".join(p["missing"])))
        return 0
    if not args.rows:
        for p in res["parts"].values():
            p.pop("rows", None)
    _print(res, True)
    return 0


def cmd_firmware(args: argparse.Namespace) -> int:
    from ringside.bench import firmware
    if args.sensors is not None:
        from ringside.bench.ring import check_design
        try:
            check_design(sensors=args.sensors)   # refused in one line, before the long run
        except ValueError as e:
            raise UsageError(str(e)) from None
    _print(firmware.run(seconds=args.seconds, seed=args.seed, sensors=args.sensors), args.json)
    return 0


def _optional(module: str, what: str):
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name == module:
            from ringside.errors import UsageError
            raise UsageError("%s is not built yet" % what) from None
        raise


def cmd_link(args: argparse.Namespace) -> int:
    mod = _optional("ringside.bench.link", "the link benchmark")
    _print(mod.run(calibrate=not args.no_calibrate), args.json)
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    out = {}
    g = _optional("ringside.bench.games", "the games benchmark")
    for name in args.game or getattr(g, "GAMES", []):
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


def cmd_bots(args: argparse.Namespace) -> int:
    from ringside.bench import bots
    _print(bots.run(args.n, args.seed, args.game or None), args.json)
    return 0


def cmd_solo(args: argparse.Namespace) -> int:
    mod = _optional("ringside.games.circleville.solo.bench", "the Circleville solo benchmark")
    _print(mod.run(args.games, args.seed, args.difficulty), args.json)
    return 0


def cmd_page(args: argparse.Namespace) -> int:
    from ringside.web import bench
    _print(bench.run(viewers=args.viewers, landings=args.landings, loads=args.loads, seed=args.seed,
                     speed=args.speed, sensor_model="ideal" if args.ideal else "physical",
                     calibrate=not args.no_calibrate), args.json)
    return 0


def _at_least_1(what: str):
    """An argparse type: a whole number of `what`, from 1 (argparse says so in one line)."""
    import argparse

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("a number of %s is a whole number, not %r"
                                             % (what, text)) from None
        if n < 1:
            raise argparse.ArgumentTypeError("the number of %s must be at least 1, not %d"
                                             % (what, n))
        return n
    return parse


_games = _at_least_1("games")


def register(sub: argparse._SubParsersAction) -> None:
    b = sub.add_parser("bench", help="benchmarks (JSON)")
    bs = b.add_subparsers(dest="bench", metavar="WHAT")
    r = bs.add_parser("ring", help="detection accuracy and latency over simulated flicks")
    r.add_argument("--flicks", type=int, default=None,
                   help="flicks to make (default 2000; 0 with --idle)")
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--seeds", metavar="LIST",
                   help="several seeds, e.g. 1-5 or 1,3,7: one run each (each the very result of "
                        "--seed S alone) and the worst seed per key")
    r.add_argument("--jobs", type=int, default=1, help="--seeds: runs at once, one process each")
    r.add_argument("--tilt", type=float, default=0.0, help="ring tilt in degrees")
    r.add_argument("--side", default="darts")
    r.add_argument("--noise", type=float, default=1.0, help="sensor noise scale (1.0 = the default model)")
    r.add_argument("--dead", help="comma-separated sensors that are dead")
    r.add_argument("--fault", action="append", metavar="KIND:SENSOR",
                   help="a register-level fault for the whole run after calibration, e.g. "
                        "bus-stuck:3 (repeatable; kinds dead, stuck, noisy, misaimed, nobaffle, "
                        "intermittent, brownout, bus-stuck)")
    r.add_argument("--faults", metavar="random",
                   help="random: a random single fault every ~200 flicks (from the seed)")
    r.add_argument("--bus", choices=("register", "direct"),
                   help="how the simulated firmware reaches the sensors: its own board code over "
                        "the simulated I2C bus, or the sensor model directly (default: register "
                        "with --fault/--faults/--idle, else direct)")
    r.add_argument("--idle", type=float, metavar="SECONDS",
                   help="first this long with the marble at rest and the board armed: "
                        "phantom flicks and landings are counted")
    r.add_argument("--ideal", action="store_true",
                   help="the ideal sensor model (only the marble is seen) instead of the physical one")
    r.add_argument("--marble",
                   help="the marble's kind: glass, opaque, steel, white or another that "
                        "ring.json marble.kinds declares (default: ring.json marble.material)")
    r.add_argument("--marble-mm", type=float, help="the marble's diameter (mm)")
    r.add_argument("--ambient", choices=("low", "high"), help="ambient infrared: a lamp / daylight")
    r.add_argument("--sensors", type=int, help="sensor count (evenly spaced; default: ring.json)")
    r.add_argument("--no-baffle", action="store_true", help="the sensors without their snouts")
    r.add_argument("--no-crosstalk", action="store_true",
                   help="switch the neighbours' light off: what a schedule in which overlapping "
                        "sensors never range at once would give (for comparison)")
    r.add_argument("--sweep", nargs="?", const="all", default=None,
                   help="a table of design choices, e.g. 'marble=glass,opaque;sensors=12,16' "
                        "(keys marble, baffle, sensors, ambient; default: all of them)")
    r.add_argument("--plot", help="draw the sweep as a PNG to this file")
    r.add_argument("--progress", action="store_true")
    r.add_argument("--save-traces", metavar="DIR",
                   help="save the worst flicks as traces in DIR (docs/traces.md): up to 20 wrong "
                        "answers (misreports, no verdicts, false or missed off-ring) and up to 20 "
                        "lesser cases (landings the marble moved on from, large travel errors)")
    r.add_argument("--save-flick", type=int, action="append", metavar="K",
                   help="with --save-traces: also save flick K (0-based), right or wrong")
    r.add_argument("--trace-tail", type=int, metavar="MS",
                   help="with --save-traces: keep each feed this long after the marble stopped "
                        "(default 3000, 5000 tilted; an unanswered flick keeps at least 6000): "
                        "room for a fixed firmware's late answer")
    r.add_argument("--exact-calibration", action="store_true",
                   help="what-if: after calibration, every sensor fitted again to the model's "
                        "noise-free readings over its whole window (no builder can)")
    r.add_argument("--centred", action="store_true",
                   help="what-if: the marble always on the groove's centre line")
    r.add_argument("--signal-k", type=float, metavar="MCPS",
                   help="what-if: the sensor model's signal constant (a full-cone rho = 1 "
                        "target at 1 m; the model's is the datasheet's 0.83; 0.5 was its "
                        "constant until stop 40)")
    r.add_argument("--saved-calibration", action="store_true",
                   help="after calibrating, reset the board: it boots from the calibration it "
                        "saved (the fit and each sensor's empty ring), as at every later "
                        "session, and learns the rest again in play")
    r.add_argument("--faults-before-boot", action="store_true",
                   help="with --saved-calibration: the --fault faults happen while the board "
                        "is off, between the calibration and the reset (a ring knocked in the "
                        "cupboard), not after the boot")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=cmd_ring)
    su = bs.add_parser("suite", help="every ring measurement README publishes, run into a "
                                     "directory (resumable) and checked against the targets")
    su.add_argument("--out", default="bench-suite", metavar="DIR",
                    help="where each run's JSON is written (default bench-suite)")
    su.add_argument("--parts", metavar="LIST",
                    help="only these parts, e.g. level,tilt (default: all; names in --spec)")
    su.add_argument("--spec", metavar="FILE", help="another suite spec (default: the packaged "
                                                   "ringside/bench/suite.json)")
    su.add_argument("--jobs", type=int, default=1, help="seeds run at once, one process each")
    su.add_argument("--again", action="store_true",
                    help="run every run again, even one whose file this firmware made")
    su.add_argument("--summary-only", action="store_true",
                    help="run nothing: check the files already in --out against the targets")
    su.add_argument("--save-traces", action="store_true",
                    help="save each run's wrong answers as traces in DIR/traces-RUN")
    su.add_argument("--rows", action="store_true", help="keep every seed's figures in the JSON")
    su.add_argument("--progress", action="store_true")
    su.add_argument("--json", action="store_true",
                    help="the summary as JSON (default: a Markdown table of the targets)")
    su.set_defaults(func=cmd_suite)
    f = bs.add_parser("firmware", help="firmware cost in the MicroPython VM")
    f.add_argument("--seconds", type=_at_least_1("simulated seconds"), default=60)
    f.add_argument("--seed", type=int, default=3)
    f.add_argument("--sensors", type=int, default=None,
                   help="the design with this many sensors (as `bench ring --sensors`)")
    f.add_argument("--json", action="store_true")
    f.set_defaults(func=cmd_firmware)
    lk = bs.add_parser("link", help="serial link round trips, latency, throughput, recovery")
    lk.add_argument("--json", action="store_true")
    lk.add_argument("--no-calibrate", action="store_true",
                    help="flick on an uncalibrated simulated board (landings go missing)")
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
    bb = bs.add_parser("bots", help="how often each game's easy computer level loses to good")
    bb.add_argument("game", nargs="*")
    bb.add_argument("-n", type=_games, default=20, help="games per game")
    bb.add_argument("--seed", type=int, default=1)
    bb.add_argument("--json", action="store_true")
    bb.set_defaults(func=cmd_bots)
    so = bs.add_parser("solo", help="Squaring Circleville solo players against the heuristic player")
    so.add_argument("--games", "-n", type=_games, default=200, help="games per solo player and for the trios")
    so.add_argument("--seed", type=int, default=1)
    so.add_argument("--difficulty", type=int, default=0,
                    help="the solo players' start on the quadrant tracks (4 suggested)")
    so.add_argument("--json", action="store_true")
    so.set_defaults(func=cmd_solo)
    pg = bs.add_parser("page", help="the table page in chromium: landed-to-shown latency, first load, 8 viewers")
    pg.add_argument("--viewers", type=_at_least_1("viewers"), default=8, help="browsers watching one game")
    pg.add_argument("--landings", type=_at_least_1("landings"), default=20, help="landings to time")
    pg.add_argument("--loads", type=_at_least_1("page loads"), default=5, help="page loads to time")
    pg.add_argument("--seed", type=int, default=1)
    pg.add_argument("--speed", type=float, default=4.0, help="the simulated ring's clock against the wall's")
    pg.add_argument("--ideal", action="store_true", help="the ideal sensor model")
    pg.add_argument("--no-calibrate", action="store_true", help="skip calibrating the simulated ring")
    pg.add_argument("--json", action="store_true")
    pg.set_defaults(func=cmd_page)
