"""Calibration: set the marble on known spaces, fit each sensor's offset and scale.

A VL53L0X reads a fixed offset (mounting, cover glass) and a small scale error. With the
marble resting at a known angle, the true distance to it is known from the geometry
(from the lens in the outer wall to the marble's near surface: ringside.ring.lens_range_mm,
the geometry the firmware's range table inverts); a straight-line fit of what a sensor read
against that truth, over the placements it saw, with its slope held near 1 (fit_line), gives

    raw = a * true + b      ->   corrected = (raw - offset) * scale,  offset = b, scale = 1/a

which the board applies to every reading (integer: offset in 1/16 mm, scale in Q12) and
saves in its calibration.json (beside its ring.json, which it never rewrites).

The procedure talks to anything with the board's protocol. `board` needs:
    send(kind, **fields)   a command frame (acknowledged by the board)
    advance(ms)            let time pass (virtual on the simulator, real on a board)
    frames                 the list of (time, kind, fields) received so far
    place(angle_deg, space_id)  the marble set down on that space (the simulator does it
                           itself; at a real table the user is asked to)
    lift()                 (optional) the marble taken off the ring. Calibration begins so: each
                           sensor learns what it sees of the empty ring (EMPTY_MS), and the
                           board takes that blend out of every reading of the marble it sends
                           (`m`). Without it, a sensor whose window held the first placements
                           was fitted to readings with the blend still in (2-4 mm): an offset
                           that shifted every landing it saw by up to 1 deg, for good.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Callable


from ringside.errors import RingsideError  # noqa: E402
from ringside.ring import lens_range_mm  # noqa: E402


class CalibrationError(RingsideError, RuntimeError):
    pass


@dataclass
class SensorFit:
    sensor: int
    points: int
    offset_mm: float
    scale: float
    residual_mm: float     # worst |fit - reading| over its points


@dataclass
class CalibrationResult:
    fits: list = field(default_factory=list)
    skipped: list = field(default_factory=list)   # (space id, reason)
    rolled: int = 0                               # placements where the marble would not stay

    def as_dict(self) -> dict:
        return {
            "sensors": [f.__dict__ for f in self.fits],
            "skipped": [{"space": s, "why": w} for s, w in self.skipped],
            "rolled": self.rolled,
        }


# A fit stays this far (degrees) clear of a window's far end: there the cone's edge cuts the
# marble, and what it sees of it moves 3-4 mm with the marble's place across the groove
# (the physical model: +-3.5 mm at 45 deg of a 46 deg window, against +-1 mm elsewhere)
FAR_EDGE_DEG = 3.0


def true_range_mm(ring: dict, sensor: dict, angle_deg: float,
                  edge_deg: float = 1.0, far_edge_deg: float | None = None) -> float | None:
    """Distance (mm) a sensor should read to a marble resting at angle_deg, or None if out of
    view or within edge_deg of its window's near end, far_edge_deg (default: edge_deg) of its
    far end (a fit stays clear of them)."""
    d = (angle_deg - sensor["angle_deg"]) * (1 if sensor.get("aim", "ccw") == "ccw" else -1)
    d %= 360.0
    lo, hi = sensor["view_deg"]
    if not lo + edge_deg <= d <= hi - (edge_deg if far_edge_deg is None else far_edge_deg):
        return None
    return lens_range_mm(ring, d)


def _just_past(sensor: dict, angle_deg: float) -> bool:
    """Is angle_deg just past the far end of the sensor's view window (up to PAST_DEG)?"""
    d = (angle_deg - sensor["angle_deg"]) * (1 if sensor.get("aim", "ccw") == "ccw" else -1)
    hi = sensor["view_deg"][1]
    return hi < d % 360.0 <= hi + PAST_DEG


PAST_DEG = 12.0   # as far past a window's end as its cone still catches a sliver of the marble


def space_centres(ring: dict, side: str) -> list[tuple[str, float]]:
    out = []
    for sp in ring["sides"][side]["spaces"]:
        a, b = sp["from_deg"], sp["to_deg"]
        width = (b - a) % 360.0
        out.append((str(sp.get("id", sp["label"])), (a + width / 2) % 360.0))
    return out


# What one placement's mean reading leaves uncertain (mm): the marble's place across the
# groove moves the part of it the cone sees by 1-3 mm (the physical model, docs/simulator.md)
POINT_SIGMA_MM = 1.5
# A VL53L0X's own scale error is small (ST quotes offset and crosstalk calibration, no scale
# calibration): the fit's slope is held to 1 within this, as a prior
SCALE_SIGMA = 0.01


def fit_line(points: list[tuple[float, float]]) -> tuple[float, float, float, float]:
    """Straight line raw = a * true + b through the points: least squares with a prior that
    a is 1 +- SCALE_SIGMA. Two placements 50 mm apart, each 1.5 mm uncertain, would
    otherwise give the slope +-4 %: wrong by a degree at the other end of the window."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in points)
    lam = (POINT_SIGMA_MM / SCALE_SIGMA) ** 2
    a = (sxy + lam) / (sxx + lam)
    b = my - a * mx
    res = max(abs(a * x + b - y) for x, y in points)
    # the slope the points alone give (1 when they are too close to tell): a stuck sensor
    # reads one range wherever the marble is, slope 0, which the prior must not hide
    free = sxy / sxx if max(xs) - min(xs) >= 10.0 else 1.0
    return a, b, res, free


# How many times each space is visited (ringside calibrate --passes). Twice: each placement
# lands the marble at its own place across the groove, and a sensor sees only one to three of
# the twenty spaces, so one pass leaves each fit a placement's draw (POINT_SIGMA_MM). On the
# level bench two passes took primary accuracy on the weakest seeds 2, 4 and 8 from
# 0.977-0.980 to 0.982-0.984 (docs/simulator.md "Stop 55"); three gave no more. It costs the
# builder 40 placements instead of 20, once.
PASSES = 2
# How long the ring stays empty before the first placement (ms): a sensor needs 16 readings of
# the empty ring (the tracker's _BG_WARM / 2) before it takes the blend out; the schedule
# ranges each sensor every 67 ms or so, so 16 take about 1.1 s; 3 s leaves room.
EMPTY_MS = 3000


def calibrate(board: Any, ring: dict, *, side: str = "darts", spaces: list[str] | None = None,
              settle_ms: int = 1500, collect_ms: int = 3000, log: Callable = print,
              passes: int | None = None) -> CalibrationResult:
    """Run the whole calibration on a board; returns the fits (already sent and saved).
    passes: go round the spaces that many times (each placement lands the marble at its own
    place across the groove: more placements average that out)."""
    targets = space_centres(ring, side)
    if spaces:
        want = set(spaces)
        unknown = want - {s for s, _ in targets}
        if unknown:
            raise CalibrationError("no such space on the %s side: %s" % (side, ", ".join(sorted(unknown))))
        targets = [t for t in targets if t[0] in want]
    passes = PASSES if passes is None else passes
    if not isinstance(passes, int) or not 1 <= passes <= 5:
        raise CalibrationError("passes must be 1 to 5, not %r" % (passes,))
    targets = targets * passes
    sensors = ring["sensors"]
    # start from a clean slate: the fit is of raw readings
    for i in range(len(sensors)):
        board.send("cal", id=i, off=0, scale=4096)
    board.send("raw", on=1)
    first = len(board.frames)     # this calibration's frames start here (_collect)
    lift = getattr(board, "lift", None)
    if lift is not None and targets:
        # Set down first, so that the board sees it go: only a marble seen to leave tells it
        # the ring is empty (at boot it may lie anywhere unseen). Then the ring left empty.
        board.place(targets[0][1], targets[0][0])
        board.advance(settle_ms)
        log("  the marble off the ring for %.0f s: the sensors learn the empty ring" % (EMPTY_MS / 1000))
        lift()
        board.advance(EMPTY_MS)
    points: dict[int, list] = {i: [] for i in range(len(sensors))}
    result = CalibrationResult()
    for sid, angle in targets:
        board.place(angle, sid)
        board.advance(settle_ms)
        got, moved = _collect(board, collect_ms, first)
        # not the sensors whose window ends just short of the marble: one past its window's
        # end sees a sliver of it, whose blend with the ring says nothing of where the marble
        # is (a sensor 5 deg past its window's end read 133 then 145 mm of a marble at rest:
        # the physical model, seed 1, space 20 skipped as "rolled away" on a level ring)
        def drifting(g, angle=angle):
            return _drifting({i: v for i, v in g.items() if not _just_past(sensors[i], angle)})
        if not moved and drifting(got):
            # Look again before calling the ring tilted: a trend of 4 standard errors in
            # one sensor's readings happens by chance now and then over a calibration's 20
            # placements (physical model, seed 5, space 10: 92 then 87 mm of a marble
            # that never moved), and chance does not repeat; a creeping marble goes on
            # creeping, in the second look and across both.
            log("  %s: the readings drifted with nothing said to move - looking again" % sid)
            again, moved = _collect(board, collect_ms, first)
            both = {i: got.get(i, []) + again.get(i, []) for i in set(got) | set(again)}
            if moved or drifting(again) or drifting(both):
                moved = True
            else:
                got = again
        spread = max((max(v) - min(v) for v in got.values() if len(v) > 4), default=0)
        if moved:
            result.rolled += 1
            result.skipped.append((sid, "the marble did not stay (is the ring level?)"))
            log("  %s: the marble rolled away - is the ring level? skipped" % sid)
            continue
        seen = 0
        for i, vals in got.items():
            truth = true_range_mm(ring, sensors[i], angle, far_edge_deg=FAR_EDGE_DEG)
            if truth is None or len(vals) < 5:
                continue
            points[i].append((truth, _robust_mean(vals)))
            seen += 1
        if not seen:
            result.skipped.append((sid, "no sensor saw the marble"))
            log("  %s: no sensor saw the marble, skipped" % sid)
        else:
            log("  %s: seen by %d sensor(s) (spread %d mm)" % (sid, seen, spread))
    board.send("raw", on=0)
    for i in range(len(sensors)):
        pts = points[i]
        if not pts:
            log("  sensor %d: no placement in its view - left uncalibrated" % i)
            continue
        a, b, res, free = fit_line(pts)
        if not 0.5 <= free <= 2.0:
            # a stuck sensor reads one range wherever the marble is: slope 0, no scale at all
            why = "its readings do not follow the marble (stuck?)" if abs(free) < 0.05 else "scale %.3f" % (1 / free)
            log("  sensor %d: fit is implausible (%s) - left uncalibrated" % (i, why))
            continue
        fit = SensorFit(i, len(pts), round(b, 2), round(1 / a, 4), round(res, 2))
        result.fits.append(fit)
        board.send("cal", id=i, off=int(round(b * 16)), scale=int(round(4096 / a)))
    if not result.fits:
        raise CalibrationError("no sensor could be calibrated: is the marble on the ring and are the sensors wired?")
    board.send("calsave")
    return result


def _collect(board: Any, collect_ms: int, first: int = 0) -> tuple[dict, bool]:
    """The marble's raw readings over collect_ms, {sensor: [mm, ...]}, and whether the board
    said it moved."""
    start = len(board.frames)
    board.advance(collect_ms)
    got: dict[int, list] = {}
    plain: dict[int, list] = {}
    moved = False
    for _, kind, f in board.frames[start:]:
        if kind == "raw" and f.get("st") == 0:
            # the marble's own range where the board gives it (its blend with the empty
            # ring taken out, as the board does before it turns a range into an angle:
            # the blend put 1-3 mm on a reading, more towards a window's far end). A board
            # sends it once that sensor has learnt the empty ring, and a board that never
            # takes the blend out (older firmware) never sends it.
            if "m" in f:
                got.setdefault(f["id"], []).append(f["m"])
            else:
                plain.setdefault(f["id"], []).append(f["r"])
        elif kind in ("moving", "lost", "off_ring"):
            moved = True
    if not got and not any(k == "raw" and "m" in f for _, k, f in board.frames[first:start]):
        return plain, moved      # a board that has sent no m in this calibration never will
    return got, moved


def _robust_mean(vals):
    """Mean of the readings within 3 robust sigmas of the median (stray readings out)."""
    med = statistics.median(vals)
    mad = statistics.median(abs(v - med) for v in vals) or 1.0
    kept = [v for v in vals if abs(v - med) <= 4.5 * mad]
    return statistics.fmean(kept)


def _drifting(got: dict) -> bool:
    """A marble that rolls while we collect: some sensor's readings trend (the median of
    the first third against the last) by more than 3 mm and by more than 4 standard errors
    of that difference. The error comes from the scatter within the thirds (each about its
    own median, so a trend does not count as scatter): a faint reading far in a sensor's
    window scatters by 5 mm or more, and a fixed 3 mm step between two medians of ten such
    readings is noise there (it called a level ring tilted: `ringside calibrate`, physical
    model, seeds 1 and 4)."""
    for vals in got.values():
        if len(vals) < 9:
            continue
        k = len(vals) // 3
        first, last = vals[:k], vals[-k:]
        step = abs(statistics.median(first) - statistics.median(last))
        if step <= 3:
            continue
        dev = [abs(v - statistics.median(part)) for part in (first, vals[k:-k], last) for v in part]
        sd = 1.4826 * statistics.median(dev)      # robust sigma of one reading
        se = 1.2533 * sd * math.sqrt(2.0 / k)     # of the difference of two medians of k
        if step > 4 * se:
            return True
    return False
