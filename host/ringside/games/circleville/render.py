"""Squaring Circleville as text (for the terminal player) and the rondel as an LED scene.

    render(game) -> str          sections, queue, rondel, year track, each mat, scores
    describe(game, action) -> str  one action in plain words (for menus; present.label's words)
    rondel_scene(game) -> dict   the courthouse rondel on the LED ring: eight segments in the
                                 space colours, each assistant in its player's colour, and the
                                 active player's possible destinations to pulse
"""
from __future__ import annotations

from ringside.games import CHANCE

from .engine import COLOURS, a_or_an
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game

SHORT = {"red": "R", "blue": "B", "orange": "O", "green": "G", None: "."}
STRUCT = {"golden": "g", "silver": "s", "brown": "b", "natural": "n"}
RGB = {"red": "ff2000", "blue": "0040ff", "orange": "ff8000", "green": "00c020"}
PLAYER_RGB = ("ffe000", "a000ff", "00e0c0", "ffffff")   # yellow, purple, teal, white


def _sec_line(s):
    structs = "".join(STRUCT[x.rstrip("*")] + ("x" if x.endswith("*") else "") for x in s["structures"]) or "-"
    cubes = " ".join("%s:%d" % (k, n) for k, n in s["cubes"].items()) or "no cubes"
    return "red %s blue %s structures %s  %s" % (s["red"], s["blue"], structs, cubes)


def _solo_mat(m: dict) -> str:
    """A solo player's mat in one line (its view without the name)."""
    parts = []
    for k, val in m.items():
        if k == "solo_player":
            continue
        if isinstance(val, dict):
            val = " ".join("%s %s" % kv for kv in val.items())
        elif isinstance(val, list):
            val = ", ".join(map(str, val)) or "-"
        parts.append("%s %s" % (k.replace("_", " "), val))
    return "; ".join(parts)


def render(g: Game) -> str:
    v = g.view(None)
    lines = ["Squaring Circleville - %s" % ("game over" if g.over else "%s to act" % (
        ", ".join(g.seat_name(x) for x in g.to_act())))]
    lines.append("Sections (x = razed):")
    for s in v["sections"]:
        b = g.board["sections"][s["number"]]
        sup = [p["name"] for p in v["players"] if p["supervisor"] == s["number"]]
        if s["done"]:
            plots = " ".join("-" if p == "-" else STRUCT[p] for p in s["plots"])
            beau = sum(1 for x in s["beautify"] if x)
            first = g.players[s["number_cube"]] if s["number_cube"] is not None else "-"
            body = "complete  plots [%s]  beautified %d/%d  first place: %s" % (plots, beau, len(s["beautify"]), first)
        else:
            body = _sec_line(s)
        lines.append("  %2d Q%d %s%s" % (s["number"], b["quadrant"], body,
                                             ("  supervisors: " + ", ".join(sup)) if sup else ""))
    lines.append("Queue (%d/12): %s" % (len(v["queue"]), " ".join(v["queue"]) or "empty"))
    rondel = []
    for r in v["rondel"]:
        who = "".join(n[0] for n in r["assistants"])
        rondel.append("%d:%s/%s%s%s" % (r["space"], SHORT[r["colour"]], SHORT[r["top"]] if r["top"] else "-",
                                        "x%d" % r["tiles"], "[%s]" % who if who else ""))
    lines.append("Rondel (space:colour/top tile x tiles [assistants]): " + "  ".join(rondel))
    lines.append("Upcoming: %d face down, bag: %d" % (v["upcoming"], v["bag"]))
    years = []
    for y in v["years"]:
        if y["bonus"] or y["achievement"]:
            years.append("%d:%s%s" % (y["year"], (y["bonus"] or "-").replace("_", " "),
                                      "+A%d" % y["achievement"] if y["achievement"] else ""))
    lines.append("Year track: " + (", ".join(years) or "empty"))
    lines.append("Achievements table: " + "; ".join("%s %s" % (r, ids) for r, ids in v["achievements_table"].items() if ids))
    lines.append("Equipment available: %s" % (" ".join(map(str, v["equipment"])) or "none"))
    solo = v.get("solo") or {}
    for i, p in enumerate(v["players"]):
        mark = ">" if v["active"] == i else " "
        if p["name"] in solo:   # a solo player: its mat, not a person's levels
            lines.append("%s %-8s %3d VP  cubes %2d  quadrants %s  mat: %s" % (
                mark, p["name"], p["score"], p["supply"], "/".join(p["quadrants"]),
                _solo_mat(solo[p["name"]])))
            continue
        lines.append("%s %-8s %3d VP  cubes %2d  levels %s  tiles %s  year bonus %s  quadrants %s  sup %d" % (
            mark, p["name"], p["score"], p["supply"],
            " ".join("%s%d" % (SHORT[c], p["levels"][c]) for c in COLOURS),
            ", ".join(p["tiles"]) or "-", ", ".join(p["year_bonus"]) or "-", "/".join(p["quadrants"]), p["supervisor"]))
    t = v["turn"]
    if t and not g.over:
        lines.append("Actions left: %s  supervisor moves left: %d%s" % (
            " ".join("/".join(x) for x in t["actions_left"]) or "none", t["moves_left"],
            "  (choosing: %s)" % t["pending"]["kind"] if t["pending"] else ""))
    if g.over:
        lines.append("Winner%s: %s (%s)" % ("s" if len(g.result["winners"]) > 1 else "",
                                           ", ".join(g.result["winners"]), g.result["reason"]))
    return "\n".join(lines)


def describe(g: Game, a: dict) -> str:
    """An action in the rulebook's words: present.label for the player to act; the table's
    deals and draws in plain words."""
    if a.get("type") in CHANCE_TYPES:
        return words(g, a)
    from . import present
    act = g.to_act()
    seat = act[0] if act and isinstance(act[0], int) else g.state.get("active")
    return present.label(g, seat, a)


CHANCE_TYPES = ("deal_achievement", "reveal_equipment", "deal_year_bonus", "draw", "first_player")


def words(g: Game, a: dict) -> str:
    """Plain words for any action (chance's deals and draws, and every other type as a fallback)."""
    t = a.get("type")
    if t == "rondel":
        c = g.board["rondel"][a["space"]]
        st = g.state["stacks"][a["space"]]
        extra = " (Flexible Assistant)" if a.get("bonus") else (" counter-clockwise" if a.get("ccw") else "")
        return "assistant to space %d: %s + %s%s" % (a["space"], c, st[-1] if st and st[-1] else "nothing", extra)
    if t == "act":
        words = {"move": "move the supervisor up to 3", "equipment": "take equipment tile %s" % a.get("tile"),
                 "beautify": "beautify section %s" % a.get("section"),
                 "improve": "improve the structure on plot %s of section %s" % (a.get("plot"), a.get("section")),
                 "achievement": "claim achievement tile %s" % a.get("tile")}
        what = "%s basic action" % a["action"] if a["action"] in COLOURS else words[a["action"]]
        ret = " (returning equipment %d)" % a["return"] if "return" in a else ""
        return "%s action: %s%s%s" % (a["colour"], what, ret, " at level 5" if a.get("boost") else "")
    if t == "move":
        return "supervisor to section %d" % a["to"]
    if t == "use_bonus":
        rest = ", ".join("%s %s" % (k, v) for k, v in a.items() if k not in ("type", "kind"))
        return "use year bonus %s%s" % (a["kind"].replace("_", " "), (": " + rest) if rest else "")
    if t == "raze":
        return "raze a %s structure" % a["structure"]
    if t == "build":
        return "build in section %d" % a["section"]
    if t == "pull":
        return "pull a cube off a %s square of section %d" % (a["road"], a["section"])
    if t == "resolve":
        return "resolve section %d first" % a["section"]
    if t == "take_bonus":
        return "take the year bonus tile of %d" % a["year"]
    if t == "place_flipped":
        return "put the used year bonus tile in the %s column" % a["colour"]
    if t == "bonus_action":
        return "bonus action (return top tiles%s)" % (", keep %s" % a["keep"] if a.get("keep") else "")
    if t == "deal_achievement":
        return "achievement tile %d is dealt" % a["tile"]
    if t == "reveal_equipment":
        return "equipment tile %d is revealed" % a["tile"]
    if t == "deal_year_bonus":
        return "%s year bonus tile is dealt" % a_or_an(a["kind"].replace("_", " "))
    if t == "draw":
        return "%s action tile comes out of the bag" % a_or_an(a["colour"])
    if t == "first_player":
        return "%s goes first" % g.players[a["seat"]]
    if t == "end_turn":
        return "end the turn (take the action tile)"
    return t.replace("_", " ") if t else str(a)


def rondel_scene(g: Game) -> dict:
    """The rondel on the LED ring: 8 segments of 45 degrees (space k centred at 90 - 45k degrees,
    counter-clockwise from east, so space 0 is at the top and play runs clockwise)."""
    segs = []
    for k, c in enumerate(g.board["rondel"]):
        segs.append({"space": k, "centre_deg": (90 - 45 * k) % 360, "width_deg": 45, "colour": RGB[c]})
    assistants = [{"space": p["assistant"], "colour": PLAYER_RGB[i % 4], "player": g.players[i]}
                  for i, p in enumerate(g.state["players"])]
    pulse = []
    act = g.to_act()
    if act and act != [CHANCE] and g.state["phase"] == "rondel":
        pulse = sorted({a["space"] for a in g.legal_actions(act[0]) if a["type"] == "rondel" and not a.get("bonus")})
    return {"segments": segs, "assistants": assistants, "pulse": pulse}


def led_frame(g: Game, leds: dict | None = None) -> list[str]:
    """The rondel as 60 LED colours (hex, "000000" = off; a trailing "*" = pulsing) from
    rondel_scene(g): each segment in its space colour, each assistant as one LED in its player's
    colour near the segment's centre, and the segments the active player may move to pulsing."""
    leds = leds or {"count": 60, "led0_deg": 0.0, "direction": "ccw"}
    n = int(leds["count"])
    sign = 1 if leds.get("direction", "ccw") == "ccw" else -1
    scene = rondel_scene(g)
    by_seg: dict[int, list[int]] = {k: [] for k in range(8)}
    for i in range(n):
        a = (leds.get("led0_deg", 0.0) + sign * 360.0 * i / n) % 360.0
        k = int(round((90.0 - a) / 45.0)) % 8          # space k is centred at 90 - 45k degrees
        by_seg[k].append((((90.0 - 45 * k) - a + 180.0) % 360.0 - 180.0, i))
    frame = ["000000"] * n
    for seg in scene["segments"]:
        for _, i in by_seg[seg["space"]]:
            frame[i] = seg["colour"]
    for k in scene["pulse"]:
        for _, i in by_seg[k]:
            frame[i] = frame[i] + "*"
    placed: dict[int, int] = {}
    for a in scene["assistants"]:
        idx = [i for _, i in sorted(by_seg[a["space"]], key=lambda t: abs(t[0]))]
        j = placed.get(a["space"], 0)
        if j < len(idx):
            frame[idx[j]] = a["colour"]
        placed[a["space"]] = j + 1
    return frame
