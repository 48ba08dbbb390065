"""The LED mirror: what the ring's LEDs show, one "rrggbb" per LED (a trailing "*" pulses),
for the page's renderLeds. It is built from the very frame the table paints the board with
(the presenter's led_frame, through table._hex): a whole-ring picture is that picture; a
game on the spaces paints each LED with its space's colour (ring.json's LED angles and the
side's spans, as the firmware's Leds.set_side maps them), the player's arc of 3 LEDs round
the starting space (the firmware's `player` default), and the space just hit pulsing. A timed
turn's sweep is not in the mirror: the page draws that timer as its own ring beside it."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ringside import ring as R
from ringside.table import _hex

if TYPE_CHECKING:
    from ringside.games import Game

PLAYER_W = 3        # the table sends `player w=3`


def ring_info(ring: dict | None = None) -> dict:
    """{"offset_deg", "clockwise", "count"}: where LED 0 sits and which way the LEDs run."""
    d = R.leds(ring)
    return {"offset_deg": float(d.get("led0_deg", 0.0)), "clockwise": d.get("direction") == "cw",
            "count": int(d.get("count", 60))}


def _plain(c: str) -> str:
    h = _hex(c)
    star = h.endswith("*")
    h = h[:-1] if star else h
    if h == "off":
        h = "000000"
    return h + ("*" if star else "")


def pixels(game: Game, pulse: bool = False, ring: dict | None = None) -> list[str]:
    """One colour per LED for the game as the table shows it now; pulse: something just
    happened (the table sends its pulse only then)."""
    info = ring_info(ring)
    n = info["count"]
    frame = game.presenter.led_frame(game)
    if frame.get("pixels") is not None:
        px = [_plain(c) for c in frame["pixels"]]
        return (px + ["000000"] * n)[:n]
    out = ["000000"] * n
    rd = R.ring_dict(ring) if ring is None or not isinstance(ring, dict) else ring
    # a game off the ring leaves the board on its first side (the firmware's side 0)
    side_name = game.capabilities.ring_side or next(iter(rd.get("sides") or {}), None)
    if side_name is None:
        return out
    side = R.load_side(side_name, rd)
    step = 360.0 / n
    sign = -1.0 if info["clockwise"] else 1.0
    angle = [(info["offset_deg"] + sign * i * step) % 360.0 for i in range(n)]
    space_of = [side.space_at(a) for a in angle]
    spaces = frame.get("spaces") or {}
    for i, sid in enumerate(space_of):
        if sid in spaces:
            out[i] = _plain(spaces[sid])
    if frame.get("player") and side.start in side:
        c = side.centre(side.start)
        near = min(range(n), key=lambda i: abs((angle[i] - c + 180.0) % 360.0 - 180.0))
        for d in range(-(PLAYER_W // 2), PLAYER_W // 2 + 1):
            out[(near + d) % n] = _plain(frame["player"])
    if pulse and frame.get("pulse") in side:
        for i, sid in enumerate(space_of):
            if sid == frame["pulse"]:
                out[i] = (out[i] if out[i] != "000000" else "ffffff").rstrip("*") + "*"
    return out
