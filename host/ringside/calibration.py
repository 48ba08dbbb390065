"""Calibration: set the marble on known spaces, fit each sensor's offset and scale.

A VL53L0X reads a fixed offset (mounting, cover glass) and a small scale error. With the
marble resting at a known angle, the true distance to it is known from the geometry
(chord to the marble's centre minus its radius); a straight-line fit of what a sensor
read against that truth, over the placements it saw, gives

    raw = a * true + b      ->   corrected = (raw - offset) * scale,  offset = b, scale = 1/a

which the board applies to every reading (integer: offset in 1/16 mm, scale in Q12) and
saves in its calibration.json (beside its ring.json, which it never rewrites).

The procedure talks to anything with the board's protocol. `board` needs:
    send(kind, **fields)   a command frame (acknowledged by the board)
    advance(ms)            let time pass (virtual on the simulator, real on a board)
    frames                 the list of (time, kind, fields) received so far
    place(angle_deg, space_id)  the marble set down on that space (the simulator does it
                           itself; at a real table the user is asked to)
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


def true_range_mm(ring: dict, sensor: dict, angle_deg: float,
                  edge_deg: float = 1.0) -> float | None:
    """Distance (mm) a sensor should read to a marble resting at angle_deg, or None if out of
    view or within edge_deg of its window's ends (a fit stays clear of them)."""
    d = (angle_deg - sensor["angle_deg"]) * (1 if sensor.get("aim", "ccw") == "ccw" else -1)
    d %= 360.0
    lo, hi = sensor["view_deg"]
    if not lo + edge_deg <= d <= hi - edge_deg:
        return None
    r = ring["track"]["radius_mm"]
    return 2 * r * math.sin(math.radians(d / 2)) - ring["track"]["marble_diameter_mm"] / 2


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


def _fit(points):
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    if len(points) == 1 or max(xs) - min(xs) < 10.0:
        a = 1.0
        b = statistics.fmean(ys) - statistics.fmean(xs)
    else:
        mx, my = statistics.fmean(xs), statistics.fmean(ys)
        sxx = sum((x - mx) ** 2 for x in xs)
        a = sum((x - mx) * (y - my) for x, y in points) / sxx
        b = my - a * mx
    res = max(abs(a * x + b - y) for x, y in points)
    return a, b, res


def calibrate(board: Any, ring: dict, *, side: str = "darts", spaces: list[str] | None = None,
              settle_ms: int = 1500, collect_ms: int = 3000, log: Callable = print) -> CalibrationResult:
    """Run the whole calibration on a board; returns the fits (already sent and saved)."""
    targets = space_centres(ring, side)
    if spaces:
        want = set(spaces)
        unknown = want - {s for s, _ in targets}
        if unknown:
            raise CalibrationError("no such space on the %s side: %s" % (side, ", ".join(sorted(unknown))))
        targets = [t for t in targets if t[0] in want]
    sensors = ring["sensors"]
    # start from a clean slate: the fit is of raw readings
    for i in range(len(sensors)):
        board.send("cal", id=i, off=0, scale=4096)
    board.send("raw", on=1)
    points: dict[int, list] = {i: [] for i in range(len(sensors))}
    result = CalibrationResult()
    for sid, angle in targets:
        board.place(angle, sid)
        board.advance(settle_ms)
        start = len(board.frames)
        board.advance(collect_ms)
        got: dict[int, list] = {}
        moved = False
        for _, kind, f in board.frames[start:]:
            if kind == "raw" and f.get("st") == 0:
                got.setdefault(f["id"], []).append(f["r"])
            elif kind in ("moving", "lost", "off_ring"):
                moved = True
        spread = max((max(v) - min(v) for v in got.values() if len(v) > 4), default=0)
        # not the sensors whose window ends just short of the marble: one past its window's
        # end sees a sliver of it, whose blend with the ring says nothing of where the marble
        # is (a sensor 5 deg past its window's end read 133 then 145 mm of a marble at rest:
        # the physical model, seed 1, space 20 skipped as "rolled away" on a level ring)
        if moved or _drifting({i: v for i, v in got.items() if not _just_past(sensors[i], angle)}):
            result.rolled += 1
            result.skipped.append((sid, "the marble did not stay (is the ring level?)"))
            log("  %s: the marble rolled away - is the ring level? skipped" % sid)
            continue
        seen = 0
        for i, vals in got.items():
            truth = true_range_mm(ring, sensors[i], angle)
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
        a, b, res = _fit(pts)
        if not 0.5 <= a <= 2.0:
            # a stuck sensor reads one range wherever the marble is: slope 0, no scale at all
            why = "its readings do not follow the marble (stuck?)" if abs(a) < 1e-6 else "scale %.3f" % (1 / a)
            log("  sensor %d: fit is implausible (%s) - left uncalibrated" % (i, why))
            continue
        fit = SensorFit(i, len(pts), round(b, 2), round(1 / a, 4), round(res, 2))
        result.fits.append(fit)
        board.send("cal", id=i, off=int(round(b * 16)), scale=int(round(4096 / a)))
    if not result.fits:
        raise CalibrationError("no sensor could be calibrated: is the marble on the ring and are the sensors wired?")
    board.send("calsave")
    return result


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
