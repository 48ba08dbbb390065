"""`ringside bringup [--port P]`: check every sensor of a newly built ring.

1. The empty ring: every sensor is read for a while (the board's `sense` stream: range,
   status, signal and ambient rate as the device gives them), once on the board's schedule
   and once with every sensor ranging at the same moment, which shows the crosstalk the
   schedule keeps away.
2. The marble at named spots: the centre of each space of a side, one after another (on a
   real ring the builder sets it down when asked; on the simulated board the simulator
   places it). Each sensor is judged on the spots inside its view window.

For each sensor: the background (range and signal of the empty ring), the marble's contrast
against it at each spot, the crosstalk seen, and a verdict with its reason:

    replace        it does not answer, reports a hardware failure, or reads the same
                   whatever is in front of it
    re-aim         the marble inside its window returns little more light than the empty
                   ring, or its ranges do not grow along the window as the geometry says:
                   the cone does not look along the groove
    add the baffle the empty ring returns a range: a wall or the floor is in its cone
    ok             otherwise (crosstalk seen only with the neighbours ranging at once is
                   noted: the schedule never lets them)
    marble         the marble returns too little light to most of the sensors, not only to
                   this one: it is the marble (clear glass, a small steel ball), not the aim

The marble itself is judged too (`report["marble"]`): when more than half of the sensors
that saw a spot find it barely brighter than the empty ring, re-aiming them all would be the
wrong advice, so those sensors get the verdict `marble` and the report says which marbles
work (hardware/README.md, "Which marbles work").

The report is saved as JSON, with a PNG of each sensor's view (range against the place in
its window: expected, measured, background). On the simulated board the physical sensor
model is used, and `--fault N:misaimed` / `--fault N:nobaffle` mis-mount sensor N.
"""
from __future__ import annotations

import json
import statistics
from pathlib import Path

from ringside.calibration import space_centres, true_range_mm
from ringside.errors import UsageError
from ringside.sim.board import SimTable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Callable
    import argparse

EMPTY_MS = 2500          # empty ring, on the schedule
TOGETHER_MS = 2000       # empty ring, every sensor at once
SETTLE_MS = 400          # after the marble is set down
SPOT_MS = 1200           # readings at each spot
SIGNAL_LIMIT = 0.25      # MCPS: ST's default signal-rate limit (below it: no target)
CONTRAST_MIN = 2.0       # the marble must return at least twice the empty ring's signal
SPAN_MIN = 0.6           # measured range growth along the window / the geometry's, at least
XT_AMBIENT = 0.015       # MCPS of ambient rise that counts as crosstalk seen
XT_RANGE_MM = 8          # a background range that moves this much with the neighbours on
MIN_RANGE_MM = 35        # below ~30 mm the VL53L0X reports a minimum-range failure (datasheet)
MOUNT_FAULTS = ("misaimed", "nobaffle")
STATUS_NO_ANSWER = 255
STATUS_HARDWARE = 5


class SimBench(SimTable):
    """The simulated board with the physical sensor model, the simulator placing the marble
    (frames, send and advance are SimTable's)."""

    def __init__(self, seed: int = 1, faults: dict[int, str] | None = None, ring_bytes: bytes | None = None,
                 marble: str | None = None):
        from ringside.sim.board import SimBoard
        from ringside.sim.sensors import SensorParams
        params = SensorParams(marble_material=marble) if marble is not None else None
        super().__init__(SimBoard(ring_bytes, seed=seed, sensor_model="physical", bus="register",
                                  sensor_params=params))
        for i, kind in (faults or {}).items():
            if kind not in MOUNT_FAULTS and kind not in ("dead", "stuck", "noisy"):
                raise UsageError("unknown fault %r for sensor %d (use misaimed, nobaffle, "
                                 "dead, stuck or noisy)" % (kind, i))
            self.board.set_fault(i, kind)      # register level: the chip's own faults
        self.ring_dict = self.board.ring_dict
        self.simulated = True

    def empty(self) -> None:
        self.board.lift()

    def place(self, angle_deg: float, name: str | None = None) -> None:
        self.board.place(angle_deg, lift_ms=0)

    def close(self) -> None:
        pass


class LinkBench:
    """A board over the serial link; the builder empties the ring and places the marble."""

    def __init__(self, port: str | None, ask: Callable[[str], str] = input, say: Callable[..., None] = print):
        from ringside.link_table import LinkTable
        self.table = LinkTable.open(port, ask=ask, say=say)
        self.ring_dict = self.table.ring_dict
        self.ask = ask
        self.simulated = False

    @property
    def frames(self) -> list:
        return self.table.frames

    def send(self, kind: str, **fields: Any) -> None:
        self.table.send(kind, **fields)

    def advance(self, ms: int) -> None:
        self.table.advance(ms)

    def empty(self) -> None:
        self.ask("Take the marble off the ring, keep hands and lamps where they will be in play, "
                 "then press Enter: ")

    def place(self, angle_deg: float, name: str) -> None:
        self.ask("Set the marble down on space %s (%.0f deg), take your hand away, then press "
                 "Enter: " % (name, angle_deg))

    def close(self) -> None:
        self.table.close()


def _collect(bench, ms):
    """{sensor: [(range, status, signal MCPS, ambient MCPS), ...]} of the sense frames of ms."""
    n0 = len(bench.frames)
    bench.advance(ms)
    out = {}
    for _, kind, f in bench.frames[n0:]:
        if kind == "sense":
            out.setdefault(int(f["id"]), []).append(
                (int(f["r"]), int(f["st"]), int(f["sig"]) / 128.0, int(f["amb"]) / 128.0))
    return out


def _summary(xs):
    valid = [x for x in xs if x[1] == 0]
    med = statistics.median
    return {
        "readings": len(xs),
        "valid_share": round(len(valid) / len(xs), 3) if xs else 0.0,
        "range_mm": med([x[0] for x in valid]) if valid else None,
        "range_spread_mm": (round(statistics.pstdev([x[0] for x in valid]), 2)
                            if len(valid) > 1 else None),
        "signal_mcps": round(med([x[2] for x in xs]), 3) if xs else None,
        "ambient_mcps": round(med([x[3] for x in xs]), 3) if xs else None,
        "no_answer_share": (round(sum(1 for x in xs if x[1] in (STATUS_NO_ANSWER, STATUS_HARDWARE))
                                  / len(xs), 3) if xs else 1.0),
    }


def _in_window(ring, s, angle):
    """Degrees into sensor s's view window of a marble at angle, or None outside it."""
    d = ((angle - s["angle_deg"]) * (1 if s.get("aim", "ccw") == "ccw" else -1)) % 360.0
    near, far = s["view_deg"]
    return d if near <= d <= far else None


def run(bench: SimBench | LinkBench, side: str = "darts", log: Callable[..., None] = print) -> dict:
    """Run bring-up on bench (SimBench or LinkBench); returns the report (a dict)."""
    ring = bench.ring_dict
    if side not in ring.get("sides", {}):
        raise UsageError("no side %r in ring.json (have: %s)" % (side, ", ".join(ring["sides"])))
    sensors = ring["sensors"]
    n = len(sensors)
    log("bring-up: %d sensors; first the empty ring" % n)
    bench.empty()
    bench.send("sense", on=1)
    bench.advance(300)
    empty = _collect(bench, EMPTY_MS)
    bench.send("sense", on=1, all=1)
    bench.advance(200)
    together = _collect(bench, TOGETHER_MS)
    bench.send("sense", on=1)
    spots = []
    for sid, angle in space_centres(ring, side):
        if not any(_in_window(ring, s, angle) is not None for s in sensors):
            continue
        log("the marble on space %s (%.1f deg)" % (sid, angle))
        bench.place(angle, sid)
        bench.advance(SETTLE_MS)
        spots.append((sid, angle, _collect(bench, SPOT_MS)))
    bench.send("sense", on=0)
    report = {"sensors": [], "side": side, "simulated": bench.simulated,
              "spots": [{"space": sid, "angle_deg": round(a, 2)} for sid, a, _ in spots]}
    for i, s in enumerate(sensors):
        report["sensors"].append(_judge(ring, i, s, empty.get(i, []), together.get(i, []),
                                        [(sid, a, got.get(i, [])) for sid, a, got in spots]))
    report["marble"] = _judge_marble(report["sensors"])
    report["verdicts"] = {v: [e["sensor"] for e in report["sensors"] if e["verdict"] == v]
                          for v in VERDICTS}
    return report


VERDICTS = ("ok", "re-aim", "add the baffle", "replace", "marble")


def _judge_marble(entries):
    """Too dim for most sensors at once is the marble, not their aim: those sensors' verdict
    becomes "marble". Returns the marble's own verdict and reason."""
    judged = [e for e in entries if e["spots"] and e["verdict"] != "replace"]
    dim = [e for e in judged if e.get("dim")]
    if not judged or 2 * len(dim) <= len(judged):
        return {"verdict": "ok", "dim_sensors": [e["sensor"] for e in dim],
                "reason": "it stands out against the empty ring at %d of %d sensors"
                          % (len(judged) - len(dim), len(judged))}
    for e in dim:
        m = next(m for m in e["spots"] if _dim(m))
        e["verdict"] = "marble"
        e["reason"] = (_dim_words(m, e["background"]["signal_mcps"])
                       + ", as at most sensors: the marble, not the aim")
    spots = [m for e in judged for m in e["spots"]]
    n_dim = sum(1 for m in spots if _dim(m))
    return {"verdict": "too dim", "dim_sensors": [e["sensor"] for e in dim],
            "reason": ("it returns barely more light than the empty ring to %d of %d sensors "
                       "(at %d of the %d places they saw it; contrast %s needed): a clear glass "
                       "marble or a small steel ball does that, whatever the aim. Set down an "
                       "opaque, light-coloured or white marble and run bring-up again "
                       "(hardware/README.md, \"Which marbles work\")"
                       % (len(dim), len(judged), n_dim, len(spots), CONTRAST_MIN))}


def _judge(ring, i, s, empty, together, spots):
    bg = _summary(empty)
    tg = _summary(together)
    xt_amb = (round(tg["ambient_mcps"] - bg["ambient_mcps"], 3)
              if tg["ambient_mcps"] is not None and bg["ambient_mcps"] is not None else None)
    shift = (abs(tg["range_mm"] - bg["range_mm"])
             if tg["range_mm"] is not None and bg["range_mm"] is not None else None)
    crosstalk = {"ambient_rise_mcps": xt_amb,
                 "signal_rise_mcps": (round(tg["signal_mcps"] - bg["signal_mcps"], 3)
                                      if tg["signal_mcps"] is not None and bg["signal_mcps"] is not None
                                      else None),
                 "background_shift_mm": shift,
                 "valid_share_together": tg["valid_share"]}
    crosstalk["seen"] = bool((xt_amb is not None and xt_amb >= XT_AMBIENT)
                             or (shift is not None and shift >= XT_RANGE_MM)
                             or tg["valid_share"] - bg["valid_share"] >= 0.3)
    bg_sig = bg["signal_mcps"] or 0.0
    seen = []
    for sid, angle, xs in spots:
        into = _in_window(ring, s, angle)
        if into is None:
            continue
        m = _summary(xs)
        m.update({"space": sid, "into_window_deg": round(into, 2),
                  # (the report's expectation holds to the window's very ends, which a
                  # calibration fit stays clear of: a space centre 8-9 deg from a sensor)
                  "expected_mm": round(true_range_mm(ring, s, angle, edge_deg=0.0), 1)})
        m["contrast"] = (round(m["signal_mcps"] / bg_sig, 2)
                         if m["signal_mcps"] is not None and bg_sig > 0 else None)
        seen.append(m)
    out = {"sensor": i, "angle_deg": s["angle_deg"], "background": bg, "crosstalk": crosstalk,
           "spots": seen}
    out["verdict"], out["reason"] = _verdict(i, bg, crosstalk, seen, empty + together)
    # too little light from the marble (not a range that fails to grow): the aim, or the marble
    out["dim"] = out["verdict"] == "re-aim" and any(_dim(m) for m in seen)
    return out


def _dim(m):
    """The marble at spot m returns too little light (or too few valid readings) to count."""
    short = m["expected_mm"] < MIN_RANGE_MM
    return (m["valid_share"] < 0.5 and not short) or (m["contrast"] is not None
                                                      and m["contrast"] < CONTRAST_MIN)


def _dim_words(m, bg_sig):
    """What a spot where the marble is too dim shows, in words."""
    return ("the marble on space %s, %.0f deg into its window, returns %s MCPS against the "
            "empty ring's %.3f (contrast %s, %d%% valid)"
            % (m["space"], m["into_window_deg"], m["signal_mcps"], bg_sig or 0.0, m["contrast"],
               100 * m["valid_share"]))


def _verdict(i, bg, xt, spots, everything):
    if bg["readings"] == 0 or bg["no_answer_share"] > 0.5:
        return "replace", "it does not answer on the bus"
    if any(x[1] == STATUS_HARDWARE for x in everything):
        return "replace", "it reports a hardware failure"
    vals = [m["range_mm"] for m in spots if m["range_mm"] is not None]
    if (bg["range_mm"] is not None and vals and bg["range_spread_mm"] == 0
            and all(v == bg["range_mm"] for v in vals)):
        return "replace", ("it reads %d mm whatever is in front of it (empty ring and marble "
                           "alike): stuck" % bg["range_mm"])
    if not spots:
        return "replace", "no spot of the side lies in its view window: check ring.json"
    for m in spots:
        # (closer than the VL53L0X's minimum range the device says so: only the light counts)
        if _dim(m):
            return "re-aim", (_dim_words(m, bg["signal_mcps"])
                              + ": the cone does not look along the groove")
    if bg["valid_share"] >= 0.5 and (bg["signal_mcps"] or 0) >= SIGNAL_LIMIT:
        return "add the baffle", ("the empty ring reads %s mm at %.3f MCPS (%d%% of readings "
                                  "valid): a wall or the floor is in its cone"
                                  % (bg["range_mm"], bg["signal_mcps"], 100 * bg["valid_share"]))
    far = [m for m in spots if m["expected_mm"] >= MIN_RANGE_MM and m["range_mm"] is not None]
    if len(far) >= 2:
        a, b = far[0], far[-1]
        if a["range_mm"] is not None and b["range_mm"] is not None:
            want = b["expected_mm"] - a["expected_mm"]
            got = b["range_mm"] - a["range_mm"]
            if want and got / want < SPAN_MIN:
                return "re-aim", ("from space %s to space %s its range grows %.0f mm where the "
                                  "geometry says %.0f mm: it sees something else than the marble"
                                  % (a["space"], b["space"], got, want))
    note = ""
    if xt["seen"]:
        note = ("; crosstalk seen only with its neighbours ranging at once (ambient %+.3f MCPS), "
                "which the schedule never lets happen" % (xt["ambient_rise_mcps"] or 0.0))
    worst = min((m["contrast"] for m in spots if m["contrast"] is not None), default=None)
    return "ok", ("empty ring: no return; the marble stands out at every spot (contrast %s or "
                  "more)%s" % (worst, note))


def print_report(report: dict, out: Callable[[str], None] = print) -> None:
    for e in report["sensors"]:
        bg = e["background"]
        out("sensor %2d: background %s, signal %.3f MCPS, ambient %.3f MCPS; %s"
            % (e["sensor"], ("%s mm" % bg["range_mm"]) if bg["valid_share"] >= 0.5 else
               "no return (%d%% valid)" % (100 * bg["valid_share"]),
               bg["signal_mcps"] or 0.0, bg["ambient_mcps"] or 0.0,
               "crosstalk seen (ambient %+.3f MCPS with neighbours at once)"
               % e["crosstalk"]["ambient_rise_mcps"] if e["crosstalk"]["seen"] else "no crosstalk"))
        for m in e["spots"]:
            out("           marble on %s (%.0f deg in): %s mm (expected %.0f), signal %s MCPS, "
                "contrast %s" % (m["space"], m["into_window_deg"], m["range_mm"],
                                 m["expected_mm"], m["signal_mcps"], m["contrast"]))
        out("           -> %s: %s" % (e["verdict"].upper(), e["reason"]))
    mb = report.get("marble") or {"verdict": "ok"}
    if mb["verdict"] != "ok":
        out("the marble -> %s: %s" % (mb["verdict"].upper(), mb["reason"]))
    bad = [(v, report["verdicts"][v]) for v in ("replace", "re-aim", "add the baffle")
           if report["verdicts"][v]]
    if mb["verdict"] != "ok":
        bad.insert(0, ("change the marble (then check again)", report["verdicts"]["marble"]))
    if bad:
        out("to do: " + "; ".join("%s sensor%s %s" % (v, "s" if len(ids) > 1 else "",
                                                      ", ".join(map(str, ids))) for v, ids in bad))
    else:
        out("every sensor ok")


def save(report: dict, out_dir: str | Path) -> list[Path]:
    """report.json and sensor_NN.png (each sensor's view) in out_dir; returns the paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    paths = [d / "report.json"]
    paths[0].write_text(json.dumps(report, indent=1) + "\n")
    for e in report["sensors"]:
        fig, ax = plt.subplots(figsize=(5, 3.4), dpi=90)
        xs = [m["into_window_deg"] for m in e["spots"]]
        ax.plot(xs, [m["expected_mm"] for m in e["spots"]], "k--", label="geometry")
        got = [(m["into_window_deg"], m["range_mm"]) for m in e["spots"] if m["range_mm"] is not None]
        if got:
            ax.plot([g[0] for g in got], [g[1] for g in got], "o", color="tab:blue",
                    label="marble (median)")
        bg = e["background"]["range_mm"]
        if bg is not None:
            ax.axhline(bg, color="tab:red", label="empty ring reads")
        for m in e["spots"]:
            ax.annotate("sp %s\nx%s" % (m["space"], m["contrast"]),
                        (m["into_window_deg"], m["range_mm"] or m["expected_mm"]),
                        fontsize=7, textcoords="offset points", xytext=(4, 4))
        ax.set_xlabel("degrees into the view window")
        ax.set_ylabel("range (mm)")
        ax.set_title("sensor %d: %s" % (e["sensor"], e["verdict"]), fontsize=10)
        ax.legend(fontsize=7, loc="lower right")
        fig.tight_layout()
        p = d / ("sensor_%02d.png" % e["sensor"])
        fig.savefig(p)
        plt.close(fig)
        paths.append(p)
    return paths


def _faults(specs, count):
    out = {}
    for spec in specs or ():
        try:
            i, kind = spec.split(":", 1)
            i = int(i)
        except ValueError:
            raise UsageError("--fault takes N:KIND, e.g. 3:misaimed (not %r)" % spec) from None
        if not 0 <= i < count:
            raise UsageError("--fault %s: no sensor %d (0..%d)" % (spec, i, count - 1))
        out[i] = kind
    return out


def cmd_bringup(args: argparse.Namespace) -> int:
    if args.port is None:
        from ringside.sim.board import default_ring_bytes
        count = len(json.loads(default_ring_bytes())["sensors"])
        if args.marble is not None:
            from ringside.bench.ring import check_design
            try:
                check_design(marble=args.marble)
            except ValueError as e:
                raise UsageError(str(e)) from None
        bench = SimBench(seed=args.seed, faults=_faults(args.fault, count), marble=args.marble)
        print("bring-up on the simulated board (physical sensor model, seed %d%s%s)"
              % (args.seed, "; mis-mounted: " + ", ".join("%d %s" % kv for kv in
                                                         sorted(_faults(args.fault, count).items()))
                 if args.fault else "", "; marble: %s" % args.marble if args.marble else ""))
    else:
        if args.fault:
            raise UsageError("--fault mis-mounts a simulated sensor: not with --port")
        if args.marble is not None:
            raise UsageError("--marble chooses the simulated marble: not with --port (on a real "
                             "ring, set down the marble you play with)")
        bench = LinkBench(args.port)
    try:
        report = run(bench, side=args.side, log=print)
    finally:
        bench.close()
    report["seed"] = args.seed if args.port is None else None
    print_report(report)
    paths = save(report, args.out)
    print("report: %s (and a picture of each sensor's view: %s/sensor_NN.png)"
          % (paths[0], args.out))
    if args.json:
        print(json.dumps(report["verdicts"]))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bringup", help="check every sensor of a newly built ring (simulated without --port)")
    p.add_argument("--port", help="the board's serial port (default: the simulated board)")
    p.add_argument("--side", default="darts", help="the side whose spaces are the spots (default darts)")
    p.add_argument("--seed", type=int, default=1, help="simulator seed (default 1)")
    p.add_argument("--fault", action="append", metavar="N:KIND",
                   help="simulated board only: mis-mount sensor N (misaimed, nobaffle) or break it "
                        "(dead, stuck, noisy); repeatable")
    p.add_argument("--marble", help="simulated board only: the marble set down (glass, opaque, "
                                    "steel, white or a kind ring.json declares)")
    p.add_argument("--out", default="bringup", help="folder for report.json and the pictures "
                                                   "(default ./bringup)")
    p.add_argument("--json", action="store_true", help="also print the verdicts as JSON")
    p.set_defaults(func=cmd_bringup)
