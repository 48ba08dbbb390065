"""The time wheel on the LED ring: one 60-LED frame per wheel state, and the turn animation.

The ring's LEDs are hardware/ring.json "leds": `count` LEDs, LED 0 at `led0_deg` (degrees ccw
from east), then `direction`. The wheel's 8 numbers are 8 segments of 45 degrees, fixed on the
ring; number 8 (where spies become ready: the golden arrow) is centred at 12 o'clock (90 deg),
and the numbers run 8, 7, 6 ... 1 clockwise from there (1 sits just before 8), so a spy moves
one segment clockwise every turn (numbers k -> k-1, 1 -> 8), as the wheel's arrows turn, and
arrives at the top.

In a segment, the LED on each boundary is a gap (off, or gold on both sides of square 8:
the mark). The LEDs in between show that number's queue, innermost spy first, going
counter-clockwise from the segment's clockwise edge (outward = counter-clockwise): each spy in its owner's piece colour,
grey when unowned. A queue longer than the segment's LEDs shows white on its last LED.

    led_frame(view)              -> ["rrggbb" | "off"] * 60
    turn_frames(view, steps=8)   -> frames of the wheel turning one square (45 deg), the spies
                                    gliding one segment on; the last equals the turned layout
"""
from __future__ import annotations

RGB = {"red": "ff0000", "blue": "0040ff", "green": "00c000", "yellow": "ffc000", "white": "ffffff",
       "black": "300030", "grey": "606060"}
GOLD = "ffb000"
MORE = "ffffff"
OFF = "off"
DEFAULT_LEDS = {"count": 60, "led0_deg": 0.0, "direction": "ccw"}
SEGMENT_DEG = 45.0
TOP_DEG = 90.0


def number_centre_deg(number: int) -> float:
    """Centre of wheel number 1..8 in degrees ccw from east (8 at the top, 7 next clockwise)."""
    return (TOP_DEG - SEGMENT_DEG * (8 - number)) % 360.0


def led_angle(i: int, leds: dict = DEFAULT_LEDS) -> float:
    step = 360.0 / leds["count"]
    sign = 1.0 if leds.get("direction", "ccw") == "ccw" else -1.0
    return (leds.get("led0_deg", 0.0) + sign * step * i) % 360.0


def _segment_leds(number: int, leds: dict, shift_deg: float = 0.0) -> list[int]:
    """LED indices whose centres fall in the segment of `number` (turned ccw by shift_deg),
    ordered counter-clockwise from the segment's clockwise edge (outward = counter-clockwise)."""
    lo = number_centre_deg(number) + shift_deg - SEGMENT_DEG / 2
    out = []
    for i in range(leds["count"]):
        d = (led_angle(i, leds) - lo) % 360.0
        if d < SEGMENT_DEG - 1e-9:
            out.append((d, i))
    return [i for _, i in sorted(out)]


def _colour(spy) -> str:
    return RGB.get(spy.get("colour"), RGB["grey"]) if spy.get("owner") is not None else RGB["grey"]


def led_frame(view: dict, leds: dict = DEFAULT_LEDS, shift_deg: float = 0.0) -> list[str]:
    """The ring frame for view["wheel"]; shift_deg turns the spies (not the gold mark), ccw > 0."""
    frame = [OFF] * leds["count"]
    mark = _segment_leds(8, leds)
    if mark:
        frame[mark[0]] = GOLD
        frame[mark[-1]] = GOLD
    for seg in view["wheel"]:
        idx = _segment_leds(seg["number"], leds, shift_deg)
        inner = idx[1:-1] if len(idx) > 2 else idx
        spies = seg["spies"]
        for k, i in enumerate(inner[:len(spies)]):
            frame[i] = _colour(spies[k])
        if len(spies) > len(inner) and inner:
            frame[inner[-1]] = MORE
    return frame


def turn_frames(view: dict, steps: int = 8, leds: dict = DEFAULT_LEDS) -> list[list[str]]:
    """The animation of one turn of the wheel: `steps` frames, spies gliding one segment clockwise."""
    if steps < 1:
        raise ValueError("an animation needs at least 1 step")
    return [led_frame(view, leds, -SEGMENT_DEG * (k + 1) / steps) for k in range(steps)]


def turned(view: dict) -> dict:
    """The wheel of `view` after one turn with nothing taken off (for the animation's end)."""
    w = {s["number"]: s["spies"] for s in view["wheel"]}
    return dict(view, wheel=[{"number": k, "spies": w[k % 8 + 1]} for k in range(1, 9)])

