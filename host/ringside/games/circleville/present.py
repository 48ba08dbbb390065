"""Squaring Circleville at the table: the picture, the action labels and the LED frame
(games/present.py), for the multiplayer game and the solo mode alike.

Everything here is read from game.view(seat) and the printed components every player can
read (game.board: the board's sections, rondel, levels; game.tiles: the tiles' texts). What
no seat sees: the bag's tiles, the face-down upcoming stack, the action tiles under each
rondel stack's top, and the equipment, achievement and year bonus tiles not dealt yet; the
view gives their counts only, and so does the picture.

    picture(game, seat)        the courthouse rondel (a track), the town (a grid of the 20
                               sections by quadrant and ring), every section in words, the
                               structures queue, the year track, the tiles on offer, each
                               player's mat (a solo player's mat too), what is happening now
    label(game, seat, action)  an action in the rulebook's words ("Orange - Raze Structures at
                               level 2, in section 4")
    status(game)               one line: whose turn, which step, what is left to do
    step_line(game, events)    one line after a step: what changed, then what is next
    led_frame(game)            the rondel on the ring (render.led_frame's 60 LEDs)
"""
from __future__ import annotations

from ringside.games import CHANCE, possessive
from ringside.games import present as P

from . import render
from .engine import COLOURS, SEAT_COLOURS, a_or_an
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game

BASIC = {"red": "Red - Deconstruct Roads", "blue": "Blue - Construct Roads",
         "orange": "Orange - Raze Structures", "green": "Green - Build Structures"}
BASIC_SHORT = {"red": "Deconstruct Roads", "blue": "Construct Roads", "orange": "Raze Structures",
               "green": "Build Structures"}
ALTERNATE = {"move": (1, "Move Your Supervisor"), "equipment": (2, "Take an Equipment Tile"),
             "beautify": (3, "Beautify a Completed Section"), "improve": (4, "Improve a Structure"),
             "achievement": (5, "Claim an Achievement Tile")}
YEAR_BONUS = {"new_plot": "New Plot", "new_equipment": "New Equipment", "flexible_supervisor": "Flexible Supervisor",
              "flexible_assistant": "Flexible Assistant", "level_five": "Increase to Level 5",
              "raze": "Raze a Structure", "build": "Build a Structure", "three_vp": "3 Victory Points"}
RINGS = ("inner", "middle", "outer")
# a solo player's steps as its mat prints them (the rulebook's "Solo Mode")
SOLO_STEPS = {1: "Step 1 - Move the assistant", 2: "Step 2 - Take its actions", 4: "Step 4 - Add an action tile"}
SOLO_STEP2 = {"bertha": "Take 2 actions", "carsten": "Take up to 3 actions", "denzel": "Take 3 actions",
              "katherine": "Take 2 or 4 actions"}
SOLO_SPECIAL = ("bertha", "denzel", "katherine")     # their step 4 adds a special action


def seat_colour(seat: int) -> str:
    """The seat's colour as the LEDs show it (engine.SEAT_COLOURS: none is an action colour)."""
    c = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
    return c if c in P.COLOUR_RGB else P.seat_colour(seat)


def _bonus_name(kind) -> str:
    return YEAR_BONUS.get(kind, str(kind).replace("_", " "))


def _equipment_words(game, tid) -> str:
    t = game.tiles["equipment"].get(tid) if isinstance(game.tiles["equipment"], dict) else None
    if t is None:
        t = next((x for x in _as_list(game.tiles["equipment"]) if x.get("id") == tid), None)
    return t["text"] if t else ""


def _equipment_short(game, tid) -> str:
    """An equipment tile in a menu: its number and what it does in two or three words."""
    t = game.tiles["equipment"].get(tid) if isinstance(game.tiles["equipment"], dict) else None
    if t is None:
        t = next((x for x in _as_list(game.tiles["equipment"]) if x.get("id") == tid), None)
    what = t["effect"].replace("_", " ") if t else ""
    if t and t.get("colour"):
        what += ": %s" % t["colour"]
    if t and t.get("colours"):
        what += ": %s" % " and ".join(t["colours"])
    return "equipment tile %d (%s)" % (tid, what) if what else "equipment tile %d" % tid


def _achievement_words(game, tid) -> str:
    t = game.tiles["achievements"].get(tid) if isinstance(game.tiles["achievements"], dict) else None
    if t is None:
        t = next((x for x in _as_list(game.tiles["achievements"]) if x.get("id") == tid), None)
    return t["text"] if t else ""


def _as_list(x):
    return list(x.values()) if isinstance(x, dict) else list(x)


def _glyphs(game):
    return P.glyphs(list(game.players))


def _seat_of(game, name):
    return game.players.index(name) if name in game.players else None


# ----- what is happening -----------------------------------------------------------------

def _actions_left(t) -> str:
    opts = ["/".join(x) for x in t["actions_left"]]
    return " and ".join(opts) if opts else "none"


PENDING = {"resolve": "choose which completed section to resolve first",
           "take_bonus": "choose the year bonus tile to take",
           "place_flipped": "choose the mat column for the used year bonus tile",
           "beautify_again": "beautify the section a second time, or stop",
           "road_cube": "place an extra cube by the roads, or stop",
           "move": "move the supervisor on (up to 3 sections), or stop",
           "orange": "choose a structure to raze", "green": "choose where to build",
           "red": "pull a cube back off a road to go on, or stop", "blue": "pull a cube back off a road to go on, or stop"}


def status(game: Game, v: dict | None = None) -> str:
    v = v or game.view(None)
    if game.over:
        r = game.result or {}
        return "Game over: %s win%s (%s)" % (" and ".join(r.get("winners", [])),
                                             "" if len(r.get("winners", [])) > 1 else "s", r.get("reason", ""))
    act = game.to_act()
    if act == [CHANCE]:
        if v["phase"] == "setup":
            return "Set-up: the table deals the tiles and draws action tiles from the bag"
        return "The table draws an action tile from the bag"
    seat = act[0]
    name = game.players[seat]
    if seat in game.solo_players:
        return "%s (solo player) plays its turn by its printed rules" % name
    t = v.get("turn") or {}
    final = " (final action)" if v.get("final_round") else ""
    if v["phase"] == "rondel":
        return "%s, step 1: move your assistant on the courthouse rondel" % name
    pd = t.get("pending")
    if pd:
        where = " in section %d" % pd["section"] if pd.get("section") else ""
        left = " (%d more)" % pd["left"] if pd.get("left") else ""
        return "%s%s: %s%s%s" % (name, final, PENDING.get(pd["kind"], pd["kind"].replace("_", " ")), where, left)
    if t.get("actions_left"):
        moves = t.get("moves_left", 0)
        return "%s%s, step 2: actions left %s; %d supervisor move%s" % (
            name, final, _actions_left(t), moves, "" if moves == 1 else "s")
    return "%s%s: take a bonus action (step 3) or end the turn (step 4: take the action tile)" % (name, final)


# ----- the picture -----------------------------------------------------------------------

def _rondel(game, v, glyph):
    act = game.to_act()
    dests = set()
    if act and act != [CHANCE] and v["phase"] == "rondel" and act[0] not in game.solo_players:
        dests = {a["space"] for a in game.legal_actions(act[0]) if a["type"] == "rondel" and not a.get("bonus")}
    steps = []
    for r in v["rondel"]:
        if r["tiles"]:
            stack = "%s on top of %d" % (r["top"], r["tiles"]) if r["top"] else "%d face down" % r["tiles"]
        else:
            stack = "no stack"
        label = "%d %s (%s)" % (r["space"], r["colour"], stack)
        marks = []
        for name in r["assistants"]:
            s = _seat_of(game, name)
            marks.append(P.mark(glyph[s], s, seat_colour(s)))
        steps.append(P.step(label, marks, highlight=r["space"] in dests, short=str(r["space"]),
                            colour=r["colour"] if r["colour"] in P.COLOUR_RGB else None))
    return P.track("The courthouse rondel: space, colour (its stack of action tiles): assistants; they move "
                   "clockwise, highlighted where you may go", steps, loop=True)


def _supervisors(game, v, num, glyph):
    return [glyph[i] for i, p in enumerate(v["players"]) if p["supervisor"] == num]


def _cell(game, v, s, glyph):
    sup = _supervisors(game, v, s["number"], glyph)
    tail = (" [%s]" % " ".join(sup)) if sup else ""
    if s["done"]:
        built = sum(1 for p in s["plots"] if p != "-")
        beau = sum(1 for b in s["beautify"] if b)
        text = "%d done: %d/%d built, %d/%d beautified%s" % (s["number"], built, len(s["plots"]), beau,
                                                             len(s["beautify"]), tail)
        first = s["number_cube"]
        return dict(P.mark(text, first, seat_colour(first) if first is not None else None), glyph=str(s["number"]),
                    **_cell_extra(v, s, glyph))
    razed = sum(1 for x in s["structures"] if x.endswith("*"))
    structs = ", razed %d/%d" % (razed, len(s["structures"])) if s["structures"] else ""
    text = "%d: red %s, blue %s%s%s" % (s["number"], s["red"], s["blue"], structs, tail)
    return dict(P.mark(text), glyph=str(s["number"]), **_cell_extra(v, s, glyph))


def _cell_extra(v, s, glyph) -> dict:
    """The optional cell keys a drawing screen uses: the section's number as the cell's id
    and its supervisors as marks (the text says them too)."""
    return {"id": str(s["number"]),
            "marks": [P.mark(glyph[i], i, seat_colour(i)) for i, p in enumerate(v["players"])
                      if p["supervisor"] == s["number"]]}


def rings(game: Game) -> dict:
    """Section -> its ring round the courthouse: steps from the inner sections (the starting
    sections) through adjacent sections; 0 inner, 1 middle, 2 outer."""
    b = game.board["sections"]
    dist = {n: 0 for n in game.board["starting_sections"]}
    todo = list(dist)
    while todo:
        x = todo.pop(0)
        for m in b[x]["adjacent"]:
            if m not in dist:
                dist[m] = dist[x] + 1
                todo.append(m)
    return {n: dist.get(n, 3) for n in b}


def _town(game, v, glyph):
    b = game.board["sections"]
    ring = rings(game)
    quads = sorted({b[s["number"]]["quadrant"] for s in v["sections"]})
    rows = []
    for r in sorted(set(ring.values())):
        cols = {q: [s for s in v["sections"] if b[s["number"]]["quadrant"] == q and ring[s["number"]] == r]
                for q in quads}
        depth = max((len(x) for x in cols.values()), default=0)
        for k in range(depth):
            cells = [_cell(game, v, cols[q][k], glyph) if k < len(cols[q]) else P.mark("") for q in quads]
            rows.append({"label": RINGS[r] if r < len(RINGS) else "ring %d" % (r + 1), "cells": cells})
    return P.grid("The town: sections by quadrant, from the courthouse outward ([A] = a supervisor there)",
                  ["quadrant %d" % q for q in quads], rows)


def _owners(names) -> str:
    return " and ".join(names)


def _sections_table(game, v, glyph):
    rows = []
    for s in v["sections"]:
        if not (s["done"] or s["cubes"] or any(x.endswith("*") for x in s["structures"])):
            continue      # untouched: its grid cell says it all
        razed_by = s.get("razed_by")
        structs = []
        for i, x in enumerate(s["structures"]):
            kind = x.rstrip("*")
            if x.endswith("*"):
                who = _owners(razed_by[i]) if razed_by else "someone"
                structs.append("%s razed by %s" % (kind, who))
            else:
                structs.append(kind)
        plots = []
        pc = s.get("plot_cubes")
        for i, kind in enumerate(s["plots"]):
            if kind == "-":
                plots.append("empty plot")
                continue
            words = kind
            if pc:
                builder, improver = pc[i]
                words += " built by %s" % builder if builder else ""
                words += ", improved by %s" % improver if improver else ""
            plots.append(words)
        beau = [_owners([game.players[x] for x in cubes]) if cubes else "open" for cubes in s["beautify"]]
        cubes = ", ".join("%s %d" % kv for kv in s["cubes"].items()) or "-"
        first = game.players[s["number_cube"]] if s["number_cube"] is not None else "-"
        if s["done"]:
            rows.append([str(s["number"]), "complete, first place %s" % first, "; ".join(plots) or "-",
                         "beautify icons: " + "; ".join(beau)])
        else:
            rows.append([str(s["number"]), "red %s, blue %s" % (s["red"], s["blue"]), "; ".join(structs) or "-",
                         "cubes: " + cubes])
    return P.table("Sections with work in them (red: old roads torn out / squares; blue: new roads laid)",
                   ["section", "roads", "structures or build plots", "cubes"], rows or [["-", "no work yet", "", ""]])


def _queue_and_years(game, v):
    q = v["queue"]
    slots = game.board["queue_slots"]
    lines = ["Structures queue (%d of %d, built from the front): %s" % (len(q), slots, ", ".join(q) or "empty")]
    years = [y for y in v["years"] if y["bonus"] or y["achievement"]]
    if years:
        nxt = years[0]
        lines.append("Next year bonus tile (for the next section completed): %s in %d%s" % (
            _bonus_name(nxt["bonus"]) if nxt["bonus"] else "none", nxt["year"],
            ", with achievement tile %d" % nxt["achievement"] if nxt["achievement"] else ""))
    shown = years[:5]
    lines.append("Year track: " + ("; ".join("%d %s%s" % (y["year"], _bonus_name(y["bonus"]) if y["bonus"] else "-",
                                                          " + achievement %d" % y["achievement"] if y["achievement"] else "")
                                             for y in shown) or "empty")
                 + ("; ... %d more to %d" % (len(years) - len(shown), years[-1]["year"]) if len(years) > len(shown) else ""))
    lines.append("The bag: %d action tiles; the upcoming stack: %d tiles face down" % (v["bag"], v["upcoming"]))
    return P.text("Queue and year track", lines)


def _offers(game, v):
    rows = [["equipment %d" % t, _equipment_words(game, t)] for t in v["equipment"]]
    for row, ids in v["achievements_table"].items():
        rows += [["achievement %d (%s row)" % (t, row), _achievement_words(game, t)] for t in ids]
    return P.table("Tiles to take (equipment: alternate level 2; achievements: alternate level 5)",
                   ["tile", "what it does"], rows or [["none yet", ""]])


def _mat_cell(col) -> str:
    tiles = sum(1 for x in col if x == "tile")
    parts = ["%d tile%s" % (tiles, "" if tiles == 1 else "s")] if tiles else []
    parts += ["used %s" % _bonus_name(x[3:]) for x in col if str(x).startswith("yb:")]
    return ", ".join(parts) or "no tiles"


def _held(game, tile) -> str:
    """A tile on a mat ("equipment 8") with what it does in a few words."""
    kind, _, num = str(tile).partition(" ")
    if kind == "equipment" and num.isdigit():
        return _equipment_short(game, int(num))
    return str(tile)


def _mats(game, v):
    rows = []
    for p in v["players"]:
        if p["name"] in (v.get("solo") or {}):
            continue
        rows.append([p["name"]] + ["%d (%s)" % (p["levels"][c], _mat_cell(p["mat"][c])) for c in COLOURS]
                    + [", ".join(_held(game, t) for t in p["tiles"]) or "-",
                       ", ".join(_bonus_name(k) for k in p["year_bonus"]) or "-",
                       str(p["supply"]), " / ".join(p["quadrants"])])
    return P.table("Player mats: action levels (tiles in each column), tiles, cubes, quadrant tracks 1-4",
                   ["player"] + ["%s level" % c for c in COLOURS] + ["tiles", "year bonus tiles", "cubes", "quadrants"],
                   rows)


def _solo_lines(v):
    out = []
    for name, m in (v.get("solo") or {}).items():
        parts = []
        for k, val in m.items():
            if k == "solo_player":
                continue
            if isinstance(val, dict):
                val = ", ".join("%s %s" % kv for kv in val.items())
            elif isinstance(val, list):
                val = ", ".join(map(str, val)) or "-"
            parts.append("%s: %s" % (k.replace("_", " "), val))
        title = m.get("solo_player", name)
        out.append("%s (solo player%s): %s" % (name, "" if title == name else " " + title, "; ".join(parts)))
    return out


def _now(game, v):
    lines = [status(game, v) + "."]
    t = v.get("turn")
    if t and not game.over:
        lines.append("Actions left: %s; supervisor moves left: %d." % (_actions_left(t), t.get("moves_left", 0)))
    if v.get("end_triggered") and not game.over:
        lines.append("The end is triggered: the round finishes, then everyone takes one final action.")
    return lines


def picture(game: Game, seat: int | None = None) -> dict:
    v = game.view(seat)
    glyph = _glyphs(game)
    act = game.to_act()
    solo = v.get("solo") or {}
    players = []
    for i, p in enumerate(v["players"]):
        if p["name"] in solo:
            facts = ["solo player", "%d cubes" % p["supply"], "quadrant tracks %s" % " / ".join(p["quadrants"])]
        else:
            facts = ["%d cubes" % p["supply"], "supervisor in section %d" % p["supervisor"],
                     "assistant on space %d" % p["assistant"]]
        players.append({"seat": i, "name": p["name"], "colour": seat_colour(i), "glyph": glyph[i],
                        "score": p["score"], "facts": facts, "to_act": i in act})
    legend = [{"glyph": glyph[i], "colour": seat_colour(i), "means": "%s pieces" % possessive(game.players[i])}
              for i in range(len(game.players))]
    legend += [{"glyph": c, "colour": c, "means": BASIC_SHORT[c]} for c in COLOURS]
    legend.append({"glyph": "red 1/3", "colour": None, "means": "1 of a section's 3 red squares (old roads) torn out"})
    sections = [_rondel(game, v, glyph), _town(game, v, glyph), _sections_table(game, v, glyph),
                _queue_and_years(game, v), _offers(game, v), _mats(game, v)]
    if solo:
        sections.append(P.text("Solo players' mats", _solo_lines(v)))
    sections.append(P.text("Now", _now(game, v)))
    result = None
    if game.over:
        r = game.result or {}
        result = {"winners": list(r.get("winners", [])), "scores": dict(r.get("scores") or {}),
                  "text": status(game, v)[len("Game over: "):]}
    hidden = ["the bag's action tiles (%d)" % v["bag"], "the upcoming stack (%d tiles, face down)" % v["upcoming"],
              "the action tiles under each stack's top", "the tiles not dealt yet"]
    return {"game": "circleville", "title": game.title, "status": status(game, v), "to_act": act,
            "players": players, "sections": sections, "legend": legend, "hidden": hidden, "result": result}


# ----- labels ----------------------------------------------------------------------------

def _level_words(game, seat, colour, boost=False) -> str:
    lv = game.level(seat, colour, boost)
    n = game.board["levels"][colour][lv - 1]
    what = {"red": "up to %d cubes on red squares", "blue": "up to %d cubes on blue squares",
            "orange": "raze %d structure%s", "green": "build %d structure%s"}[colour]
    return "level %d: %s" % (lv, what % ((n, "" if n == 1 else "s") if "%s" in what.split("%d", 1)[1] else n))


def _tile_return(a) -> str:
    return ", returning equipment tile %d" % a["return"] if "return" in a else ""


def _sup(game):
    a = game.to_act()
    return game.view(None)["players"][a[0]]["supervisor"] if a and a != [CHANCE] else None


def label(game: Game, seat: int | str, action: dict) -> str:
    """A legal action in the rulebook's words."""
    a = action
    t = a.get("type")
    if t == "solo":
        name = game.players[seat] if isinstance(seat, int) else "the solo player"
        pl = game.solo_players.get(seat)
        kind = getattr(pl, "name", "")
        st = a.get("step")
        if st == "final":
            return "%s takes its final action by its printed rules" % name
        words = SOLO_STEPS.get(st, "Step %s" % st)
        if st == 2 and kind in SOLO_STEP2:
            words = "Step 2 - " + SOLO_STEP2[kind]
        if st == 4 and kind in SOLO_SPECIAL:
            words += " and take a special action"
        return "%s: %s (by its printed rules)" % (name, words)
    if t == "solo_draw":
        return game.describe(a)
    if t == "rondel":
        c = game.board["rondel"][a["space"]]
        top = game.view(None)["rondel"][a["space"]]["top"]
        how = " with the Flexible Assistant year bonus tile" if a.get("bonus") else \
            " counter-clockwise (equipment)" if a.get("ccw") else ""
        return "move your assistant to rondel space %d%s: actions %s%s" % (
            a["space"], how, c, " and %s" % top if top and top != c else " twice" if top == c else " only")
    if t == "act":
        c, act = a["colour"], a["action"]
        boost = bool(a.get("boost"))
        five = " (Increase to Level 5 tile)" if boost else ""
        if act in COLOURS:
            sup = _sup(game)
            where = " in section %d" % sup if sup and act != "green" else ""
            return "%s%s, %s%s" % (BASIC[act], where, _level_words(game, seat, c, boost), five)
        lv, name = ALTERNATE[act]
        head = "%s action, alternate level %d - %s" % (c, lv, name)
        if act == "equipment":
            return "%s: %s%s%s" % (head, _equipment_short(game, a["tile"]), _tile_return(a), five)
        if act == "achievement":
            return "%s: achievement tile %d (%s)%s%s" % (head, a["tile"], _achievement_words(game, a["tile"]).rstrip("."),
                                                         _tile_return(a), five)
        if act == "beautify":
            return "%s: section %d%s" % (head, a["section"], five)
        if act == "improve":
            kind = game.view(None)["sections"][a["section"] - 1]["plots"][a["plot"]]
            return "%s: the %s structure on plot %d of section %d%s" % (head, kind, a["plot"] + 1, a["section"], five)
        return head + five
    if t == "move":
        return "move your supervisor to section %d" % a["to"]
    if t == "use_bonus":
        k = a["kind"]
        name = "use the %s year bonus tile" % _bonus_name(k)
        if k == "new_plot":
            return "%s: open a new plot in section %d" % (name, a["section"])
        if k == "new_equipment":
            return "%s: %s%s" % (name, _equipment_short(game, a["tile"]), _tile_return(a))
        if k == "flexible_supervisor":
            return "%s: your supervisor jumps to section %d" % (name, a["to"])
        if k == "raze":
            return "%s: raze a %s structure in section %d" % (name, a["structure"], a["section"])
        if k == "build":
            return "%s: build a %s structure in section %d" % (name, a["structure"], a["section"])
        if k == "three_vp":
            return "%s: score 3 VP and end the game" % name
        rest = ", ".join("%s %s" % kv for kv in a.items() if kv[0] not in ("type", "kind"))
        return name + (": " + rest if rest else "")
    if t == "flip_stack":
        return "flip the action tile stack at your rondel space over (equipment)"
    if t == "swap_upcoming":
        return "swap the stack at your rondel space with the upcoming stack (equipment)"
    if t == "swap_mat":
        top = game.view(None)["rondel"][a["stack"]]["top"]
        return "swap a %s tile on your mat for the %s tile on stack %d (equipment)" % (a["colour"], top, a["stack"])
    if t == "swap_queue":
        q = game.view(None)["queue"]
        return "swap structures %d (%s) and %d (%s) in the queue (equipment)" % (a["a"] + 1, q[a["a"]], a["b"] + 1, q[a["b"]])
    if t == "bonus_action":
        keep = " (keep your %s tile)" % a["keep"] if a.get("keep") else ""
        return "take a bonus action: return the top tile of each column%s" % keep
    if t == "end_turn":
        v = game.view(None)
        if v.get("final_round"):
            return "end your final action"
        return "end your turn (step 4: take the top tile of the stack at your rondel space)"
    if t == "raze":
        return "raze a %s structure" % a["structure"]
    if t == "build":
        q = game.view(None)["queue"]
        return "build %s structure in section %d" % (a_or_an(q[0]) if q else "a", a["section"])
    if t == "pull":
        return "pull your cube back off a %s square in section %d" % (a["road"], a["section"])
    if t == "resolve":
        return "resolve section %d first" % a["section"]
    if t == "take_bonus":
        y = next((y for y in game.view(None)["years"] if y["year"] == a["year"]), {})
        return "take the %s year bonus tile of %d" % (_bonus_name(y.get("bonus")), a["year"])
    if t == "place_flipped":
        return "put the used year bonus tile in your %s column" % a["colour"]
    if t == "beautify_again":
        return "beautify the section a second time (equipment)"
    if t == "road_cube":
        return "place an extra cube by the roads (equipment)"
    if t == "stop":
        pd = (game.view(None).get("turn") or {}).get("pending") or {}
        return {"move": "stop moving the supervisor", "beautify_again": "do not beautify again",
                "road_cube": "no extra cube"}.get(pd.get("kind"), "stop: leave the rest of the action undone")
    return render.words(game, a)


def group(game: Game, seat: int | str | None, action: dict) -> str:
    """A short heading under which a long menu folds this action (the screen offers the
    headings first): the kind of action, in the rulebook's words."""
    a = action
    t = a.get("type")
    if t == "act":
        if a["action"] in COLOURS:
            return BASIC[a["action"]]
        lv, name = ALTERNATE[a["action"]]
        return "alternate level %d - %s" % (lv, name)
    if t == "use_bonus":
        return "use the %s year bonus tile" % _bonus_name(a["kind"])
    if t in ("flip_stack", "swap_upcoming", "swap_mat", "swap_queue"):
        return "use an equipment tile"
    return {"rondel": "move your assistant on the rondel", "move": "move your supervisor",
            "bonus_action": "take a bonus action", "end_turn": "end your turn", "raze": "raze a structure",
            "build": "build a structure", "pull": "pull a cube back", "resolve": "resolve a section first",
            "take_bonus": "take a year bonus tile", "place_flipped": "place the used year bonus tile",
            "solo": "the solo player's step", "solo_draw": "a set-up draw"}.get(t, label(game, seat, a))


def event_text(ev: dict) -> str:
    return ev.get("text", "")


QUIET = ("turn",)      # said again by the status line that follows


def step_line(game: Game, events: list[dict], width: int = 160) -> str:
    """One short line after a step: what changed (the events' sentences) and what comes next,
    so a screen need not redraw the whole table after every small action."""
    said = [e.get("text", "").rstrip(".") for e in events if e.get("type") not in QUIET and e.get("text")]
    return P.summary_line(said, status(game), width)


# ----- the LEDs --------------------------------------------------------------------------

def ring_leds() -> dict:
    """The LED ring of ring.json through ringside.ring where it exists; the shipped ring's 60 otherwise."""
    try:
        from ringside import ring
        return dict(ring.leds())
    except (ImportError, AttributeError):
        return {"count": 60, "led0_deg": 0.0, "direction": "ccw"}


def led_frame(game: Game, leds: dict | None = None) -> dict:
    """The rondel on the ring (render.led_frame: its segments in their colours, the assistants,
    the active player's destinations pulsing) and the active player's colour."""
    act = game.to_act()
    seat = act[0] if act and isinstance(act[0], int) else None
    return P.led_frame(player=seat_colour(seat) if seat is not None else None,
                       pixels=render.led_frame(game, leds or ring_leds()))
