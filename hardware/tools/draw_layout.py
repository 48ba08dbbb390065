#!/usr/bin/env python3
"""Draw the ring layout (SVG) and the generated tables of hardware/README.md from ring.json.

    python hardware/tools/draw_layout.py [ring.json] [out.svg]       write the svg, refresh README tables
    python hardware/tools/draw_layout.py --check [ring.json] [out.svg]  exit 1 if either is stale
    python hardware/tools/draw_layout.py --tables [ring.json]         print the README tables

Defaults: hardware/ring.json and hardware/layout.svg beside this tool. The README refreshed
(or checked) is README.md in the folder of ring.json, if it exists: only the text between
its `<!-- BEGIN generated:NAME -->` and `<!-- END generated:NAME -->` markers is replaced.

Pure standard library: no dependencies. Angles are degrees counter-clockwise seen from
above with 0 = east, lengths are mm, as in ring.json. Coverage is computed exactly, in
centidegrees (1/100 degree), the firmware's unit.
"""
from __future__ import annotations

import argparse
import colorsys
import json
import math
import os
import re
import sys
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
HARDWARE = HERE.parent
DEFAULT_RING = HARDWARE / "ring.json"
DEFAULT_SVG = HARDWARE / "layout.svg"

FULL = 36000  # centidegrees in a turn
STRIP_PITCH_MM = 1000 / 60  # a 60 LED/m WS2812B strip: LED to LED, mm
PX_PER_MM = 1.45
SIZE = 1000  # svg width and height, px
CX = CY = SIZE / 2

# Raspberry Pi Pico: GPIO number -> physical pin (the 40-pin edge).
PICO_PIN = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15,
            12: 16, 13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27,
            22: 29, 26: 31, 27: 32, 28: 34}
PICO_I2C0 = {"sda": (0, 4, 8, 12, 16, 20), "scl": (1, 5, 9, 13, 17, 21)}


class LayoutError(Exception):
    """ring.json cannot be drawn: the message says why, for the user."""


# ---------------------------------------------------------------- reading ring.json

def load_ring(path: Path) -> dict:
    """Read and minimally validate ring.json (raises LayoutError with a plain reason)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise LayoutError(f"cannot read {path}: {e.strerror or e}") from None
    try:
        ring = json.loads(text)
    except ValueError as e:
        raise LayoutError(f"{path} is not valid JSON: {e}") from None
    try:
        float(ring["track"]["radius_mm"])
        float(ring["track"]["width_mm"])
        for s in ring["sensors"]:
            float(s["angle_deg"]), float(s["view_deg"][0]), float(s["view_deg"][1])
            if s.get("aim", "ccw") not in ("ccw", "cw"):
                raise LayoutError(f"{path}: sensor {s.get('id')} aim must be 'ccw' or 'cw'")
        int(ring["leds"]["count"])
        for side in ring["sides"].values():
            for sp in side["spaces"]:
                float(sp["from_deg"]), float(sp["to_deg"]), str(sp["label"])
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise LayoutError(f"{path} is missing or mistypes a field the layout needs ({e!r})") from None
    if not ring["sensors"]:
        raise LayoutError(f"{path} lists no sensors")
    return ring


def cd(deg) -> int:
    """Degrees -> integer centidegrees, rounded half away from zero (as the firmware does)."""
    v = float(deg) * 100
    return int(v + 0.5) if v >= 0 else -int(-v + 0.5)


def sensor_id(s: dict, index: int):
    return s.get("id", index)


def window(s: dict) -> tuple[int, int]:
    """A sensor's view window on the track as (start, length) in centidegrees, start ccw."""
    a = cd(s["angle_deg"])
    near, far = cd(s["view_deg"][0]), cd(s["view_deg"][1])
    if s.get("aim", "ccw") == "ccw":
        return (a + near) % FULL, far - near
    return (a - far) % FULL, far - near


def _coverage_counts(windows: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """Exact sweep: [(start_cd, length_cd, how many windows cover it)] tiling the ring."""
    cuts = {0}
    for start, length in windows:
        cuts.add(start % FULL)
        cuts.add((start + length) % FULL)
    cuts = sorted(cuts)
    out = []
    for k, a in enumerate(cuts):
        b = cuts[k + 1] if k + 1 < len(cuts) else FULL
        if b <= a:
            continue
        mid2 = a + b  # twice the midpoint: avoids halves
        n = sum(1 for start, length in windows if (mid2 - 2 * start) % (2 * FULL) < 2 * length)
        out.append((a, b - a, n))
    return out


def coverage(ring: dict) -> dict[int, int]:
    """How much of the ring (centidegrees) is seen by exactly k sensors, for each k present."""
    tally: dict[int, int] = {}
    for _, length, n in _coverage_counts([window(s) for s in ring["sensors"]]):
        tally[n] = tally.get(n, 0) + length
    return tally


def blind_arcs(ring: dict, dead: int) -> list[tuple[int, int]]:
    """Arcs (start_cd, length_cd) that no sensor sees when sensor index `dead` has failed."""
    wins = [window(s) for i, s in enumerate(ring["sensors"]) if i != dead]
    arcs = [(a, n) for a, n, k in _coverage_counts(wins) if k == 0]
    # merge the piece that wraps through 0 deg
    if len(arcs) > 1 and arcs[0][0] == 0 and sum(arcs[-1]) == FULL:
        arcs = [(arcs[-1][0], arcs[-1][1] + arcs[0][1])] + arcs[1:-1]
    return arcs


def overlaps(ring: dict) -> list[int]:
    """Overlap (cd, negative = gap) of each sensor's window with the next one round the ring."""
    wins = sorted(window(s) for s in ring["sensors"])
    out = []
    for k, (start, length) in enumerate(wins):
        nstart = wins[(k + 1) % len(wins)][0]
        out.append((start + length - nstart + FULL // 2) % FULL - FULL // 2)
    return out


def strip_radius(ring: dict) -> float:
    """Radius (mm) at which `count` LEDs of a 60/m strip close into a ring, ends meeting."""
    return int(ring["leds"]["count"]) * STRIP_PITCH_MM / (2 * math.pi)


def led_angle(ring: dict, i: int) -> float:
    leds = ring["leds"]
    step = 360.0 / int(leds["count"])
    d = 1 if leds.get("direction", "ccw") == "ccw" else -1
    return (float(leds.get("led0_deg", 0)) + d * i * step) % 360


# ---------------------------------------------------------------- mounting geometry

def mount_geometry(ring: dict, s: dict) -> dict:
    """Where a sensor's lens sits and what its line of sight does (mm, degrees).

    The lens is in the outer wall (track radius + half the width); the marble's centre runs
    on the track's centre line. The firmware's range table assumes the chord 2 R sin(phi/2)
    from a lens on the centre line; the difference is what calibration's offset and scale fit.
    """
    t = ring["track"]
    r = float(t["radius_mm"])
    rl = r + float(t["width_mm"]) / 2
    marble_r = float(t.get("marble_diameter_mm", 16)) / 2
    near, far = float(s["view_deg"][0]), float(s["view_deg"][1])

    def point(phi):  # centre-line point phi degrees ahead, lens at (rl, 0), ahead = +y
        p = math.radians(phi)
        return r * math.cos(p) - rl, r * math.sin(p)

    def heading(phi):  # degrees the line of sight turns in from the wall's tangent
        x, y = point(phi)
        return math.degrees(math.atan2(-x, y))

    def dist(phi):
        x, y = point(phi)
        return math.hypot(x, y)

    steps = [near + (far - near) * k / 100 for k in range(101)]
    heads = [heading(p) for p in steps]
    axis = (max(heads) + min(heads)) / 2
    # closest approach to the ring's centre of the sight line to the far end of the window
    fx, fy = point(far)
    ux, uy = fx / dist(far), fy / dist(far)
    tclamp = max(0.0, min(dist(far), -rl * ux))  # projection of the centre onto the segment
    rmin = math.hypot(rl + ux * tclamp, uy * tclamp)
    return {
        "lens_radius_mm": rl,
        "axis_in_deg": axis,
        "spread_deg": max(heads) - min(heads),
        "near_mm": dist(near) - marble_r,
        "far_mm": dist(far) - marble_r,
        "near_chord_mm": 2 * r * math.sin(math.radians(near / 2)) - marble_r,
        "far_chord_mm": 2 * r * math.sin(math.radians(far / 2)) - marble_r,
        "sight_rmin_mm": rmin,
        "cone_halfwidth_far_mm": dist(far) * math.tan(math.radians(float(s.get("fov_deg", 25)) / 2)),
    }


# ---------------------------------------------------------------- the picture

def _xy(angle_deg: float, r_mm: float) -> tuple[float, float]:
    a = math.radians(angle_deg)
    return CX + r_mm * PX_PER_MM * math.cos(a), CY - r_mm * PX_PER_MM * math.sin(a)


def _f(v: float) -> str:
    s = f"{v:.1f}"
    return "0.0" if s == "-0.0" else s


def _pt(angle_deg: float, r_mm: float) -> str:
    x, y = _xy(angle_deg, r_mm)
    return f"{_f(x)},{_f(y)}"


def _span(a1: float, a2: float) -> float:
    """ccw span from a1 to a2 in degrees, in (0, 360]."""
    s = (a2 - a1) % 360
    return 360.0 if s == 0 else s


def _arc(a1: float, a2: float, r: float, move=True) -> str:
    """Path of a ccw arc at radius r mm from a1 to a2 (degrees)."""
    span = _span(a1, a2)
    rp = _f(r * PX_PER_MM)
    large = 1 if span > 180 else 0
    head = ("M" if move else "L") + _pt(a1, r)
    return f"{head} A{rp},{rp} 0 {large} 0 {_pt(a2, r)}"


def _sector(a1: float, a2: float, r_in: float, r_out: float) -> str:
    span = _span(a1, a2)
    large = 1 if span > 180 else 0
    ro, ri = _f(r_out * PX_PER_MM), _f(r_in * PX_PER_MM)
    return (f"M{_pt(a1, r_out)} A{ro},{ro} 0 {large} 0 {_pt(a2, r_out)} "
            f"L{_pt(a2, r_in)} A{ri},{ri} 0 {large} 1 {_pt(a1, r_in)} Z")


def _colour(i: int, n: int) -> str:
    r, g, b = colorsys.hls_to_rgb((i / max(n, 1)) % 1.0, 0.42, 0.75)
    return "#%02x%02x%02x" % (round(r * 255), round(g * 255), round(b * 255))


def _text(x: float, y: float, s: str, size: float = 11, anchor: str = "middle",
          extra: str = "") -> str:
    return (f'<text x="{_f(x)}" y="{_f(y)}" font-size="{_f(size)}" text-anchor="{anchor}" '
            f'dominant-baseline="central"{extra}>{escape(str(s))}</text>')


SIDE_TITLES = {"darts": "Darts", "wildwest": "Wild West"}


def side_title(name: str) -> str:
    """A side's key in ring.json -> the name printed on the board."""
    return SIDE_TITLES.get(name, name.replace("_", " ").title())


def _side_ring(side: dict, r_in: float, r_out: float, fills: tuple[str, str], radial: bool,
               title: str) -> list[str]:
    out = [f'<g class="side" id="side-{escape(title.lower().replace(" ", "-"))}">']
    spaces = side["spaces"]
    start = str(side.get("start", ""))
    for k, sp in enumerate(spaces):
        a1, a2 = float(sp["from_deg"]), float(sp["to_deg"])
        is_start = str(sp.get("id", sp["label"])) == start
        fill = "#ffd54f" if is_start else fills[k % 2]
        out.append(f'<path d="{_sector(a1, a2, r_in, r_out)}" fill="{fill}" stroke="#555" '
                   f'stroke-width="0.8"/>')
        mid = (a1 + _span(a1, a2) / 2) % 360
        label = str(sp["label"]) + (" \u2605" if is_start else "")
        if radial:
            right = math.cos(math.radians(mid)) >= 0
            x, y = _xy(mid, r_in + 3)
            rot = -mid if right else 180 - mid
            out.append(_text(x, y, label, 10.5, "start" if right else "end",
                             f' transform="rotate({_f(rot)} {_f(x)} {_f(y)})"'))
        else:
            x, y = _xy(mid, (r_in + r_out) / 2)
            out.append(_text(x, y, label, 12, extra=' font-weight="bold"'))
    out.append("</g>")
    return out


def render_svg(ring: dict, name: str = "ring.json") -> str:
    """The whole layout as SVG text (deterministic: same ring.json, same bytes)."""
    t = ring["track"]
    r = float(t["radius_mm"])
    w = float(t["width_mm"])
    r_wall_in, r_wall_out = r - w / 2, r + w / 2
    sensors = ring["sensors"]
    n = len(sensors)
    sides = ring["sides"]
    side_names = list(sides)

    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{SIZE}" height="{SIZE}" '
         f'viewBox="0 0 {SIZE} {SIZE}" font-family="Helvetica, Arial, sans-serif">',
         f"<!-- generated from {escape(name)} by hardware/tools/draw_layout.py: do not edit -->",
         '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" '
         'markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
         'fill="#222"/></marker></defs>',
         f'<rect width="{SIZE}" height="{SIZE}" fill="#ffffff"/>']

    # side rings: first side inside, second outside (radial labels), others skipped
    rings = [(205.0, 232.0, ("#e8f1fb", "#cfe0f4"), False), (236.0, 300.0, ("#f6eee3", "#eadbc6"), True)]
    for (ri, ro, fills, radial), sname in zip(rings, side_names, strict=False):
        o += _side_ring(sides[sname], ri, ro, fills, radial, sname)

    # the track
    o.append('<g id="track">')
    o.append(f'<path d="{_sector(0, 180, r_wall_in, r_wall_out)} {_sector(180, 360, r_wall_in, r_wall_out)}" '
             f'fill="#e6e6e6" stroke="none"/>')
    o.append(f'<circle cx="{_f(CX)}" cy="{_f(CY)}" r="{_f(r_wall_out * PX_PER_MM)}" fill="none" '
             f'stroke="#333" stroke-width="2"/>')
    o.append(f'<circle cx="{_f(CX)}" cy="{_f(CY)}" r="{_f(r_wall_in * PX_PER_MM)}" fill="none" '
             f'stroke="#333" stroke-width="1.5"/>')
    o.append(f'<circle cx="{_f(CX)}" cy="{_f(CY)}" r="{_f(r * PX_PER_MM)}" fill="none" '
             f'stroke="#999" stroke-width="0.8" stroke-dasharray="4 3"/>')
    o.append("</g>")

    # view windows: a faint fan from the lens, and the arc it sees on the centre line
    o.append('<g id="views">')
    for i, s in enumerate(sensors):
        col = _colour(i, n)
        a = float(s["angle_deg"])
        d = 1 if s.get("aim", "ccw") == "ccw" else -1
        near, far = float(s["view_deg"][0]), float(s["view_deg"][1])
        pts = [_pt(a, r_wall_out)] + [_pt(a + d * (near + (far - near) * k / 12), r) for k in range(13)]
        o.append(f'<polygon points="{" ".join(pts)}" fill="{col}" fill-opacity="0.10" stroke="none"/>')
        a1, a2 = (a + near, a + far) if d == 1 else (a - far, a - near)
        rr = r - 4 if i % 2 == 0 else r + 4
        o.append(f'<path d="{_arc(a1 % 360, a2 % 360, rr)}" fill="none" stroke="{col}" '
                 f'stroke-width="4" stroke-linecap="butt" opacity="0.9"/>')
    o.append("</g>")

    # the snouts' slots (ring.json mount.baffle): the directions a sensor sends and takes
    # light in, out to where they meet the outer wall again
    mount = ring.get("mount", {})
    o.append('<g id="baffles">')
    for i, s in enumerate(sensors):
        m = dict(mount)
        m.update(s.get("mount", {}))
        baf = m.get("baffle")
        if not baf:
            continue
        a = float(s["angle_deg"])
        d = 1 if s.get("aim", "ccw") == "ccw" else -1
        yaw = float(m.get("yaw_in_deg", 24.6))
        x0, y0 = _xy(a, r_wall_out)
        pts = [f"{_f(x0)},{_f(y0)}"]
        for edge in (float(baf["yaw_deg"][0]), float(baf["yaw_deg"][1])):
            psi = yaw + edge                       # turned in from the tangent
            length = 2 * r_wall_out * math.sin(math.radians(psi)) * PX_PER_MM
            heading = a + d * (90 + psi)
            pts.append(f"{_f(x0 + length * math.cos(math.radians(heading)))},"
                       f"{_f(y0 - length * math.sin(math.radians(heading)))}")
        o.append(f'<polygon points="{" ".join(pts)}" fill="none" stroke="{_colour(i, n)}" '
                 f'stroke-width="0.7" stroke-dasharray="3 2" opacity="0.8"/>')
    o.append("</g>")

    # sensors: a badge with the id in the outer wall, an arrow along the aim
    o.append('<g id="sensors">')
    for i, s in enumerate(sensors):
        col = _colour(i, n)
        a = float(s["angle_deg"])
        g = mount_geometry(ring, s)
        d = 1 if s.get("aim", "ccw") == "ccw" else -1
        # the axis turns in from the tangent (ccw tangent = a + 90 deg) by axis_in_deg
        heading = a + d * (90 + g["axis_in_deg"])
        x0, y0 = _xy(a, r_wall_out)
        L = 34 * PX_PER_MM
        x1 = x0 + L * math.cos(math.radians(heading))
        y1 = y0 - L * math.sin(math.radians(heading))
        o.append(f'<line x1="{_f(x0)}" y1="{_f(y0)}" x2="{_f(x1)}" y2="{_f(y1)}" stroke="#222" '
                 f'stroke-width="1.6" marker-end="url(#arrow)"/>')
        o.append(f'<rect x="{_f(x0 - 5)}" y="{_f(y0 - 5)}" width="10" height="10" fill="{col}" '
                 f'stroke="#000" stroke-width="1" transform="rotate({_f(-a)} {_f(x0)} {_f(y0)})"/>')
        bx, by = _xy(a, r_wall_out + 7)
        o.append(f'<circle cx="{_f(bx)}" cy="{_f(by)}" r="8" fill="#fff" stroke="{col}" stroke-width="2"/>')
        o.append(_text(bx, by, f"S{sensor_id(s, i)}", 8.5, extra=' font-weight="bold"'))
    o.append("</g>")

    # LEDs
    leds = ring["leds"]
    count = int(leds["count"])
    rs = min(strip_radius(ring), r_wall_in - 4)
    o.append('<g id="leds">')
    for i in range(count):
        a = led_angle(ring, i)
        x, y = _xy(a, rs)
        if i == 0:
            o.append(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="5" fill="#e53935" stroke="#000" stroke-width="1"/>')
            lx, ly = _xy(a, rs - 26)
            o.append(_text(lx, ly, "LED 0", 10, extra=' font-weight="bold" fill="#b71c1c"'))
        else:
            o.append(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="2.6" fill="#fff59d" stroke="#555" stroke-width="0.7"/>')
            if i % 10 == 0:
                lx, ly = _xy(a, rs - 10)
                o.append(_text(lx, ly, str(i), 8.5, extra=' fill="#555"'))
    o.append("</g>")

    # legend in the middle
    pitch = 360.0 / count
    first = side_title(side_names[0]) if side_names else "-"
    second = side_title(side_names[1]) if len(side_names) > 1 else "-"
    lines = [
        ("Ringside ring layout", 15, "bold"),
        (f"from {name}; angles ccw from east (0\u00b0 \u2192)", 10, None),
        (f"track r {_f(r)} mm, {_f(w)} mm wide (grey), centre line dashed", 10, None),
        (f"S0..S{n - 1}: VL53L0X in the outer wall; arrow = aim", 10, None),
        ("coloured arc + fan = the arc each sensor sees", 10, None),
        (f"{count} LEDs every {pitch:g}\u00b0, LED 0 red, numbered "
         f"{leds.get('direction', 'ccw')}", 10, None),
        (f"inner ring: {first}; outer ring: {second}", 10, None),
        ("\u2605 / yellow = the side's start space", 10, None),
    ]
    y = CY - 78
    for s, size, weight in lines:
        o.append(_text(CX, y, s, size, extra=f' font-weight="{weight}"' if weight else ""))
        y += 21 if size > 12 else 18
    # 0 deg arrow
    o.append(f'<line x1="{_f(CX + 60)}" y1="{_f(CY + 80)}" x2="{_f(CX + 110)}" y2="{_f(CY + 80)}" '
             f'stroke="#222" stroke-width="1.4" marker-end="url(#arrow)"/>')
    o.append(_text(CX + 55, CY + 80, "0\u00b0", 10, "end"))
    o.append("</svg>")
    return "\n".join(o) + "\n"


# ---------------------------------------------------------------- README tables

def _deg(cdv: int) -> str:
    return f"{cdv / 100:.1f}\u00b0" if cdv % 100 else f"{cdv // 100}\u00b0"


def _mm_of(ring: dict, cdv: int) -> int:
    return round(2 * math.pi * float(ring["track"]["radius_mm"]) * cdv / FULL)


def _pico(gp: int) -> str:
    pin = PICO_PIN.get(gp)
    return f"GP{gp} (pin {pin})" if pin else f"GP{gp}"


def _import_power():
    fw = str(HARDWARE.parent / "firmware")
    if fw not in sys.path:
        sys.path.insert(0, fw)
    from ringfw import power  # noqa: E402  (the firmware's own module: one source of the cap)
    return power


# ---------------------------------------------------------------- harness and bill of materials

IDC_SIZES = (10, 14, 16, 20, 26, 34, 40, 50, 64)   # 2.54 mm IDC sockets for 1.27 mm ribbon
# The harness's fixed conductors: SDA and SCL each between grounds, the sensors' 3.3 V on
# two conductors (current), then one XSHUT conductor per sensor.
HARNESS_FIXED = (("GND", "GND"), ("SDA", "sda"), ("GND", "GND"), ("SCL", "scl"),
                 ("GND", "GND"), ("3.3 V, sensors", "U2 output"), ("3.3 V, sensors", "U2 output"),
                 ("GND", "GND"))
HARNESS_OUT_MM = 10       # the ribbon runs this far outside the lenses, behind the pockets
HARNESS_LEAD_MM = 100     # Pico board to the first sensor's socket, and slack at the end
DEFAULT_BOM = HARDWARE / "bom.csv"


def harness(ring: dict) -> dict:
    """The sensor harness from ring.json: its conductors, their use, the ribbon's width, and
    where along it each sensor's socket is crimped (mm from the Pico end). The Pico board
    sits outside the ring just clockwise of the first sensor; the ribbon runs
    counter-clockwise behind the pockets past every sensor in ring.json order."""
    sensors = ring["sensors"]
    pins = ring.get("pins", {})
    bus = {"sda": _pico(int(pins.get("sda", 0))), "scl": _pico(int(pins.get("scl", 1)))}
    cond = [(k + 1, sig, bus.get(to, to)) for k, (sig, to) in enumerate(HARNESS_FIXED)]
    for i, s in enumerate(sensors):
        cond.append((len(cond) + 1, f"XSHUT S{sensor_id(s, i)}", _pico(int(s.get("xshut_pin", -1)))))
    width = next((w for w in IDC_SIZES if w >= len(cond)), len(cond) + len(cond) % 2)
    r = float(ring.get("mount", {}).get("lens_radius_mm", 192)) + HARNESS_OUT_MM
    first = cd(sensors[0]["angle_deg"])
    at = []
    for s in sensors:
        arc = (cd(s["angle_deg"]) - first) % FULL
        at.append(HARNESS_LEAD_MM + 2 * math.pi * r * arc / FULL)
    length = at[-1] + HARNESS_LEAD_MM
    return {"conductors": cond, "width": width, "radius_mm": r, "socket_mm": at, "length_mm": length,
            "xshut_first": len(HARNESS_FIXED) + 1}


def harness_block(ring: dict) -> str:
    h = harness(ring)
    n = len(ring["sensors"])
    rows = [f"{n} XSHUT lines + SDA + SCL + 3.3 V + GND = **{n + 4} signals**; the ribbon carries them on "
            f"**{len(h['conductors'])} conductors** (SDA and SCL each between grounds, 3.3 V on two), in a "
            f"**{h['width']}-way** 1.27 mm ribbon"
            + (f" ({h['width'] - len(h['conductors'])} spare)" if h["width"] > len(h["conductors"]) else "")
            + f", **{h['length_mm'] / 1000:.2f} m** long (run {h['radius_mm']:.0f} mm from the centre, "
            f"behind the pockets, plus {HARNESS_LEAD_MM} mm at each end).", "",
            "| Conductor | Signal | Pico board end |", "| --- | --- | --- |"]
    rows += [f"| {k} | {sig} | {to} |" for k, sig, to in h["conductors"]]
    if h["width"] > len(h["conductors"]):
        rows.append(f"| {len(h['conductors']) + 1}-{h['width']} | not connected | |")
    rows += ["", "| Sensor | Socket crimped at (from the Pico end) | Its XSHUT conductor | VIN | GND | SDA | SCL |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for i, s in enumerate(ring["sensors"]):
        rows.append(f"| S{sensor_id(s, i)} | {h['socket_mm'][i]:.0f} mm | {h['xshut_first'] + i} "
                    f"(through 1 k\u03a9) | 6, 7 | 8 | 2 | 4 |")
    return "\n".join(rows)


def load_bom(path: Path) -> list[dict]:
    """hardware/bom.csv: one row per line item (ref, qty, unit, part_number, description,
    unit_usd, notes). LayoutError with the line when a row is unusable."""
    import csv
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise LayoutError(f"cannot read {path}: {e.strerror or e}") from None
    want = ["ref", "qty", "unit", "part_number", "description", "unit_usd", "notes"]
    out = []
    for k, r in enumerate(rows, start=2):
        if list(r) != want or None in r.values():
            raise LayoutError(f"{path.name} line {k}: want the columns {', '.join(want)}")
        try:
            qty = float(r["qty"])
            each = round(float(r["unit_usd"]) * 100)
        except ValueError:
            raise LayoutError(f"{path.name} line {k}: qty and unit_usd must be numbers") from None
        out.append(dict(r, qty_n=qty, each_c=each, line_c=round(qty * each)))
    return out


def _usd(cents: int) -> str:
    return f"${cents // 100:,}.{cents % 100:02d}"


def bom_block(bom: list[dict]) -> str:
    rows = ["| Ref | Qty | Part number | What it is | Each | Line | Notes |",
            "| --- | ---: | --- | --- | ---: | ---: | --- |"]
    for b in bom:
        q = f"{b['qty_n']:g}" + ("" if b["unit"] == "pcs" else f" {b['unit']}")
        rows.append(f"| {b['ref']} | {q} | {b['part_number']} | {b['description']} | {_usd(b['each_c'])} | "
                    f"{_usd(b['line_c'])} | {b['notes']} |")
    total = sum(b["line_c"] for b in bom)
    rows.append(f"| **Total** | | | {len(bom)} lines | | **{_usd(total)}** | |")
    return "\n".join(rows)


def readme_blocks(ring: dict) -> dict[str, str]:
    """Markdown for each generated section of hardware/README.md, by marker name."""
    blocks = {}
    sensors = ring["sensors"]
    pins = ring.get("pins", {})
    leds = ring["leds"]
    i2c_id = int(pins.get("i2c_id", 0))
    sda, scl = int(pins.get("sda", 0)), int(pins.get("scl", 1))
    hz = int(ring.get("sensor_timing", {}).get("i2c_hz", 400000))

    rows = ["| Signal | Pico | Goes to |", "| --- | --- | --- |",
            f"| I2C{i2c_id} SDA ({hz // 1000} kHz) | {_pico(sda)} | SDA of every sensor, one daisy-chained bus |",
            f"| I2C{i2c_id} SCL | {_pico(scl)} | SCL of every sensor |",
            f"| NeoPixel data | {_pico(int(leds['pin']))} | 74AHCT125 input 1A; output 1Y \u2192 330 \u03a9 \u2192 strip DIN |",
            "| 5 V (USB) | VBUS (pin 40) | Q1 source (the soft start); Q1 drain = \"5 V soft\": strip +5 V, "
            "1000 \u00b5F capacitor +, 74AHCT125 VCC (pin 14), U2 input |",
            "| 3.3 V, sensors | U2 output (not the Pico's) | VIN of every sensor: harness conductors 6 and 7 |",
            "| 3.3 V, Pico | 3V3(OUT) (pin 36) | nothing else (the RP2040 and its pins only) |",
            "| Ground | GND (pins 3, 8, 13, 18, 23, 28, 33, 38) | every sensor, strip, 74AHCT125 (pins 1 and 7), "
            "U2, capacitors \u2212, R14 |"]
    safe = int(pins.get("safe", -1))
    if safe >= 0:
        rows.append(f"| Safe-mode jumper | {_pico(safe)} | a jumper shunt to the GND pin beside it skips the app "
                    "at boot (docs/board.md *Rescuing a board*) |")
    rows += ["", "| Sensor | Mounted at | Aim | XSHUT | I2C address | Sees (ccw) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for i, s in enumerate(sensors):
        start, length = window(s)
        rows.append(f"| S{sensor_id(s, i)} | {_deg(cd(s['angle_deg']))} | {s.get('aim', 'ccw')} | "
                    f"{_pico(int(s.get('xshut_pin', -1)))} | 0x{int(s.get('i2c_address', 0x29)):02X} | "
                    f"{_deg(start)}\u2013{_deg((start + length) % FULL)} |")
    blocks["pins"] = "\n".join(rows)

    blocks["harness"] = harness_block(ring)
    blocks["bom"] = bom_block(load_bom(DEFAULT_BOM))

    cov = coverage(ring)
    rows = ["| Seen by | Arc | Share of the ring | Along the centre line |", "| --- | --- | --- | --- |"]
    for k in range(0, max(cov) + 1):
        v = cov.get(k, 0)
        who = "no sensor (blind)" if k == 0 else ("1 sensor" if k == 1 else f"{k} sensors")
        rows.append(f"| {who} | {_deg(v)} | {100 * v / FULL:.1f} % | {_mm_of(ring, v)} mm |")
    ov = overlaps(ring)
    rows.append("")
    rows.append("Each window overlaps the next one round the ring by "
                + (f"{_deg(min(ov))}" if min(ov) == max(ov) else f"{_deg(min(ov))} to {_deg(max(ov))}")
                + " (a negative overlap would be a gap).")
    rows += ["", "| If this sensor fails | The ring is blind over | Blind length |", "| --- | --- | --- |"]
    for i, s in enumerate(sensors):
        arcs = blind_arcs(ring, i)
        where = ", ".join(f"{_deg(a)}\u2013{_deg((a + n) % FULL)}" for a, n in arcs) or "nothing"
        total = sum(n for _, n in arcs)
        rows.append(f"| S{sensor_id(s, i)} | {where} | {_deg(total)} ({_mm_of(ring, total)} mm) |")
    blocks["coverage"] = "\n".join(rows)

    g = mount_geometry(ring, sensors[0])
    t = ring["track"]
    same = all(mount_geometry(ring, s) == g for s in sensors)
    s0 = sensors[0]
    rows = [f"Computed for {'every sensor (all are mounted alike)' if same else 'sensor S%s' % sensor_id(s0, 0)}:",
            "",
            "| Quantity | Value |", "| --- | --- |",
            f"| lens radius (outer wall) | {g['lens_radius_mm']:.0f} mm |",
            f"| beam height above the track floor | {float(t.get('beam_height_mm', 10)):g} mm "
            f"(inner lip {float(t.get('inner_lip_mm', 6)):g} mm, marble \u2300 {float(t.get('marble_diameter_mm', 16)):g} mm) |",
            f"| aim: optical axis turned in from the wall's tangent | {g['axis_in_deg']:.1f}\u00b0 |",
            f"| whole view window seen within | {g['spread_deg']:.1f}\u00b0 of directions "
            f"(cone: {float(s0.get('fov_deg', 25)):g}\u00b0) |",
            f"| range to the marble at the near edge ({float(s0['view_deg'][0]):g}\u00b0 ahead) | "
            f"{g['near_mm']:.0f} mm (the chord from the centre line: {g['near_chord_mm']:.0f} mm) |",
            f"| range to the marble at the far edge ({float(s0['view_deg'][1]):g}\u00b0 ahead) | "
            f"{g['far_mm']:.0f} mm (the chord from the centre line: {g['far_chord_mm']:.0f} mm) |",
            f"| closest approach of the far sight line to the ring's centre | {g['sight_rmin_mm']:.0f} mm "
            f"(inner wall at {float(t['radius_mm']) - float(t['width_mm']) / 2:g} mm) |",
            f"| half-height of the sensor's cone at the far edge | {g['cone_halfwidth_far_mm']:.0f} mm |"]
    blocks["mounting"] = "\n".join(rows)

    # the design the physical sensor model reads: mount, baffle, surfaces, marble
    mount = ring.get("mount", {})
    build = ring.get("build", {})
    mats = build.get("materials", {})
    rows = ["| Part | ring.json | Value |", "| --- | --- | --- |"]
    if mount:
        rows.append(f"| lens | `mount` | r = {float(mount.get('lens_radius_mm', 192)):g} mm, "
                    f"{float(mount.get('height_mm', 10)):g} mm above the floor |")
        rows.append(f"| aim | `mount` | axis turned in {float(mount.get('yaw_in_deg', 24.6)):g}\u00b0 "
                    f"from the wall's tangent, pitch {float(mount.get('pitch_deg', 0)):+g}\u00b0 |")
        baf = mount.get("baffle")
        if baf:
            y0, y1 = (float(x) for x in baf["yaw_deg"])
            p0, p1 = (float(x) for x in baf["pitch_deg"])
            rows.append(f"| snout (baffle) | `mount.baffle` | slot {y1 - y0:g}\u00b0 wide "
                        f"({y0:+g}\u00b0 to {y1:+g}\u00b0 about the axis, + = inwards), "
                        f"{p1 - p0:g}\u00b0 tall ({p0:+g}\u00b0 to {p1:+g}\u00b0) |")
        else:
            rows.append("| snout (baffle) | `mount.baffle` | none |")
    for name, mat in build.get("surfaces", {}).items():
        rho = mats.get(mat, {}).get("reflectance")
        rows.append(f"| {name.replace('_', ' ')} | `build.surfaces` | {mat.replace('_', ' ')}, "
                    f"reflectance {rho:g} at 940 nm |" if rho is not None else
                    f"| {name} | `build.surfaces` | {mat} |")
    if build:
        rows.append(f"| outer wall, drum | `build` | wall {float(build.get('outer_wall_height_mm', 24)):g} mm "
                    f"high; drum r = {float(build.get('drum_radius_mm', 159.2)):g} mm, "
                    f"{float(build.get('drum_height_mm', 16)):g} mm high |")
    mb = ring.get("marble")
    if mb:
        k = mb.get("kinds", {}).get(mb.get("material"), {})
        rows.append(f"| marble | `marble` | {mb.get('material')}, \u2300 {float(mb.get('diameter_mm', 16)):g} mm"
                    + (f", effective reflectance {k['effective_reflectance']:g}" if k else "") + " |")
    blocks["design"] = "\n".join(rows)

    count = int(leds["count"])
    rs = strip_radius(ring)
    circ = 2 * math.pi * float(t["radius_mm"])
    blocks["leds"] = "\n".join([
        "| Quantity | Value |", "| --- | --- |",
        f"| LEDs | {count}, LED 0 at {float(leds.get('led0_deg', 0)):g}\u00b0, numbered {leds.get('direction', 'ccw')} |",
        f"| strip length (60 LED/m) | {count * STRIP_PITCH_MM:.0f} mm |",
        f"| track centre line circumference | {circ:.0f} mm (radius {float(t['radius_mm']):g} mm) |",
        f"| radius at which the strip closes, ends meeting | {rs:.1f} mm |",
        f"| LED spacing round the ring | {360 / count:g}\u00b0 |"])

    power = _import_power()
    rep = power.power_report(ring)
    blocks["power"] = "\n".join([
        "| Quantity | Value |", "| --- | --- |",
        f"| USB budget (`budget_ma`) | {rep['budget_ma']} mA |",
        f"| board: Pico + {len(sensors)} sensors ranging (`board_ma`) | {rep['board_ma']} mA |",
        f"| LEDs dark ({rep['count']} \u00d7 {rep['idle_ma_per_led']} mA) | {rep['count'] * rep['idle_ma_per_led']} mA |",
        f"| all LEDs full white at brightness 255 ({rep['count']} \u00d7 3 \u00d7 {rep['ma_per_channel']} mA) | "
        f"{rep['count'] * 3 * rep['ma_per_channel']} mA |",
        f"| worst case at full brightness, whole build | **{rep['full_white_ma']} mA** |",
        f"| brightness cap from `ringfw.power.brightness_cap` | **cap = {rep['cap']} / 255** "
        f"({rep['cap_permille'] / 10:.1f} % of full) |",
        f"| worst case at the cap, whole build | {rep['worst_case_ua_at_cap'] / 1000:.1f} mA "
        f"({rep['headroom_ma']} mA under budget) |"])
    return blocks


_BLOCK = re.compile(r"(<!-- BEGIN generated:(\w+) -->\n)(.*?)(<!-- END generated:\2 -->)", re.S)


def refresh_readme(text: str, blocks: dict[str, str]) -> str:
    """README text with every generated block replaced by its fresh content."""
    def sub(m):
        body = blocks.get(m.group(2))
        if body is None:
            return m.group(0)
        return m.group(1) + "\n" + body + "\n\n" + m.group(4)  # blank lines: plain markdown blocks
    return _BLOCK.sub(sub, text)


# ---------------------------------------------------------------- command line

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Draw hardware/layout.svg and the README tables from ring.json.")
    ap.add_argument("ring", nargs="?", default=str(DEFAULT_RING), help="ring.json (default: %(default)s)")
    ap.add_argument("out", nargs="?", default=None, help="svg to write (default: layout.svg beside ring.json)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if the svg or README tables are stale")
    ap.add_argument("--tables", action="store_true", help="print the README's generated tables and exit")
    args = ap.parse_args(argv)

    ring_path = Path(args.ring)
    out = Path(args.out) if args.out else ring_path.resolve().parent / "layout.svg"
    readme = ring_path.resolve().parent / "README.md"
    try:
        ring = load_ring(ring_path)
        svg = render_svg(ring, ring_path.name)
        blocks = readme_blocks(ring)
    except LayoutError as e:
        print(f"draw_layout: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # ring.json that validates here but the firmware's power check rejects
        print(f"draw_layout: cannot use {ring_path}: {e}", file=sys.stderr)
        return 2

    if args.tables:
        for name, body in blocks.items():
            print(f"<!-- BEGIN generated:{name} -->\n{body}\n<!-- END generated:{name} -->\n")
        return 0

    old_readme = readme.read_text(encoding="utf-8") if readme.is_file() else None
    new_readme = refresh_readme(old_readme, blocks) if old_readme is not None else None

    if args.check:
        stale = []
        if not out.is_file() or out.read_text(encoding="utf-8") != svg:
            stale.append(str(out))
        if old_readme is not None and new_readme != old_readme:
            stale.append(f"{readme} (generated tables)")
        if stale:
            print("draw_layout: stale: " + ", ".join(stale) + f"\n  regenerate: python {os.path.relpath(__file__)}",
                  file=sys.stderr)
            return 1
        print(f"draw_layout: {out} and README tables are up to date with {ring_path}")
        return 0

    try:
        out.write_text(svg, encoding="utf-8")
        if new_readme is not None and new_readme != old_readme:
            readme.write_text(new_readme, encoding="utf-8")
    except OSError as e:
        print(f"draw_layout: cannot write: {e}", file=sys.stderr)
        return 2
    print(f"draw_layout: wrote {out}" + (" and refreshed README tables" if new_readme != old_readme else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
