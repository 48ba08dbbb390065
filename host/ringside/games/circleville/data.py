"""Squaring Circleville components as data: the board and the tiles, validated.

Two JSON files (this version's reading, docs/rules/circleville.md):

    data/board.json   sections (number, quadrant, red and blue squares, structure icons,
                      build plots, beautify icons, scoring box, adjacent sections), the
                      starting sections, the structures queue, the courthouse rondel, the
                      year track, the achievements table rows, the action levels printed on
                      the player mat, the end-scoring box.
    data/tiles.json   the 22 equipment tiles, 23 achievement tiles and the year bonus kinds.

A user's own files replace them (game options "board" and "tiles": a path or a dict); every
field is checked and a bad file is refused with one line naming the file and the field.
"""
from __future__ import annotations

import json
from pathlib import Path

from ringside.games import GameError

DATA_DIR = Path(__file__).resolve().parent / "data"
COLOURS = ("red", "blue", "orange", "green")
STRUCTURES = ("golden", "silver", "brown", "natural")
STRUCTURE_COUNTS = {"golden": 5, "silver": 6, "brown": 7, "natural": 15}
YEAR_BONUS_KINDS = ("new_plot", "new_equipment", "flexible_supervisor", "flexible_assistant",
                    "level_five", "raze", "build", "three_vp")
EQUIPMENT_EFFECTS = ("beautify_twice", "flip_stack", "extra_move", "swap_year_bonus", "extra_level",
                     "extra_road_cubes", "precious_extra_cube", "rondel_three", "bonus_three",
                     "rondel_both_ways", "road_finish_cube", "swap_upcoming", "swap_mat_tile",
                     "swap_queue", "two_colours", "only_player_doubles")
ACHIEVEMENT_EFFECTS = ("quadrant_structures", "built_structures", "beautify_cubes", "mat_tiles", "achievements")


class DataError(GameError):
    """A board or tiles file is unusable; the message names the file and the field."""


def _read(spec, default_name: str):
    if spec is None:
        spec = DATA_DIR / default_name
    if isinstance(spec, dict):
        return spec, "the %s data" % default_name.split(".")[0]
    p = Path(spec)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise DataError("cannot read %s: %s" % (p, e.strerror or e)) from None
    try:
        return json.loads(text), str(p)
    except ValueError as e:
        raise DataError("%s is not valid JSON: %s" % (p, e)) from None


def _int(d, key, lo, hi, where):
    v = d.get(key) if isinstance(d, dict) else None
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise DataError("%s: %r must be a whole number from %d to %d, not %r" % (where, key, lo, hi, v))
    return v


def _ints(v, n_lo, n_hi, lo, hi, what):
    if (not isinstance(v, list) or not n_lo <= len(v) <= n_hi
            or any(isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi for x in v)):
        raise DataError("%s must be a list of %d to %d whole numbers from %d to %d, not %r"
                        % (what, n_lo, n_hi, lo, hi, v))
    return list(v)


def validate_board(data: dict, source: str = "the board data") -> dict:
    """Check a board dict; return a clean copy with sections keyed by number. Raises DataError."""
    def bad(msg):
        raise DataError("%s: %s" % (source, msg))

    if not isinstance(data, dict):
        bad("a board is a JSON object with sections, rondel, queue, years, ...")
    if data.get("format", 1) != 1:
        bad("format %r is not supported (this version reads format 1)" % data.get("format"))
    for key in ("sections", "starting_sections", "queue", "rondel", "years", "achievement_rows",
                "levels", "end_score", "highlighted_rank", "cubes_per_player", "tile_slots", "action_tiles"):
        if key not in data:
            bad("the field %r is missing" % key)
    secs = data["sections"]
    if not isinstance(secs, list) or len(secs) != 20:
        bad("there must be 20 sections, not %s" % (len(secs) if isinstance(secs, list) else repr(secs)))
    out = {}
    for i, s in enumerate(secs):
        w = "%s: sections[%d]" % (source, i)
        if not isinstance(s, dict):
            bad("sections[%d] must be an object" % i)
        n = _int(s, "number", 1, 20, w)
        if n in out:
            bad("section %d appears twice" % n)
        w = "%s: section %d" % (source, n)
        c = {"number": n, "quadrant": _int(s, "quadrant", 1, 4, w), "red": _int(s, "red", 0, 20, w),
             "blue": _int(s, "blue", 0, 20, w), "plots": _int(s, "plots", 0, 10, w),
             "beautify": _int(s, "beautify", 0, 6, w)}
        st = s.get("structures")
        if not isinstance(st, list) or any(x not in STRUCTURES for x in st):
            bad("section %d: structures must be a list of %s" % (n, ", ".join(STRUCTURES)))
        c["structures"] = list(st)
        c["score"] = _ints(s.get("score"), 4, 4, 0, 100, "%s: section %d: score" % (source, n))
        if c["score"] != sorted(c["score"], reverse=True):
            bad("section %d: a scoring box must not rise from first place down (%r)" % (n, c["score"]))
        c["adjacent"] = _ints(s.get("adjacent"), 1, 8, 1, 20, "%s: section %d: adjacent" % (source, n))
        if n in c["adjacent"]:
            bad("section %d cannot be adjacent to itself" % n)
        if c["red"] + c["blue"] + len(st) == 0:
            pass  # a starting section may hold no work; checked below for the others
        out[n] = c
    for n, c in out.items():
        for m in c["adjacent"]:
            if n not in out[m]["adjacent"]:
                bad("adjacency is not symmetric: section %d lists %d but %d does not list %d" % (n, m, m, n))
    edges = sum(len(c["adjacent"]) for c in out.values()) // 2
    if edges > 3 * 20 - 6:
        bad("%d adjacencies cannot be drawn on a flat map of 20 sections (at most 54)" % edges)
    # every quadrant holds 5 sections, connected among themselves; the town is connected
    for q in range(1, 5):
        qs = [n for n, c in out.items() if c["quadrant"] == q]
        if len(qs) != 5:
            bad("quadrant %d has %d sections, not 5" % (q, len(qs)))
        if not _connected(out, set(qs)):
            bad("the sections of quadrant %d do not form one connected area" % q)
    if not _connected(out, set(out)):
        bad("the town is not connected: some sections cannot be reached from the others")
    starts = _ints(data["starting_sections"], 1, 20, 1, 20, "%s: starting_sections" % source)
    first = data.get("first_game_start", starts[0])
    if first not in starts:
        bad("first_game_start %r is not one of the starting sections" % first)
    for s in starts:
        if out[s]["structures"]:
            bad("starting section %d holds structures; the rules sort structures onto the 19 other sections" % s)
    counts = {k: 0 for k in STRUCTURES}
    for c in out.values():
        for x in c["structures"]:
            counts[x] += 1
    q = data["queue"]
    if not isinstance(q, dict):
        bad("queue must be an object with slots and start")
    slots = _int(q, "slots", 2, 40, source + ": queue")
    qstart = q.get("start")
    if not isinstance(qstart, list) or any(x not in STRUCTURES for x in qstart) or len(qstart) > slots:
        bad("queue.start must be a list of structures that fits the queue")
    for x in qstart:
        counts[x] += 1
    if counts != STRUCTURE_COUNTS:
        bad("the board and queue hold %s structures; the game has 5 golden, 6 silver, 7 brown, 15 natural"
            % ", ".join("%d %s" % (counts[k], k) for k in STRUCTURES))
    if sum(c["plots"] for c in out.values()) < sum(STRUCTURE_COUNTS.values()):
        bad("the board has %d build plots, fewer than the 33 structures to rebuild"
            % sum(c["plots"] for c in out.values()))
    for n, c in out.items():
        if n not in starts and c["red"] + c["blue"] + len(c["structures"]) == 0:
            bad("section %d has no work in it (no red, blue or structure squares)" % n)
    r = data["rondel"]
    if not isinstance(r, dict) or not isinstance(r.get("spaces"), list) or len(r["spaces"]) != 8 \
            or any(x not in COLOURS for x in r["spaces"]):
        bad("rondel.spaces must list 8 colours from %s" % ", ".join(COLOURS))
    rstart = _int(r, "start", 0, 7, source + ": rondel")
    if r["spaces"][rstart] != "green":
        bad("the rondel start (the smokestack) must be a green space")
    y = data["years"]
    if not isinstance(y, dict):
        bad("years must be an object")
    if _int(y, "first", 1000, 3000, source + ": years") + 19 != _int(y, "last", 1000, 3000, source + ": years"):
        bad("the year track has 20 spaces (one per section)")
    ay = _ints(y.get("achievement_years"), 1, 18, y["first"] + 1, y["last"] - 1, "%s: years.achievement_years" % source)
    if len(set(ay)) != len(ay):
        bad("years.achievement_years lists a year twice")
    rows = data["achievement_rows"]
    if not isinstance(rows, dict) or set(rows) != set(COLOURS) | {"multi"}:
        bad("achievement_rows must give slots for red, blue, orange, green and multi")
    for k in rows:
        _int(rows, k, 0, 23, source + ": achievement_rows")
    lv = data["levels"]
    if not isinstance(lv, dict) or set(lv) != set(COLOURS):
        bad("levels must give the printed values for red, blue, orange, green")
    for k in COLOURS:
        v = _ints(lv[k], 5, 5, 0, 20, "%s: levels.%s" % (source, k))
        if v != sorted(v):
            bad("levels.%s must not fall as the level rises" % k)
    end = _ints(data["end_score"], 2, 4, 0, 100, "%s: end_score" % source)
    hr = _int(data, "highlighted_rank", 1, len(end), source)
    for c in out.values():
        if hr > len(c["score"]):
            bad("highlighted_rank %d is beyond section %d's scoring box" % (hr, c["number"]))
    at = data["action_tiles"]
    if not isinstance(at, dict):
        bad("action_tiles must be an object")
    per = _int(at, "per_colour", 4, 40, source + ": action_tiles")
    stack = _int(at, "stack_size", 1, 8, source + ": action_tiles")
    first_bag = _int(at, "first_bag_per_colour", 1, per, source + ": action_tiles")
    if first_bag * 4 != 8 * stack:
        bad("the first bag (%d tiles) must deal exactly 8 stacks of %d" % (first_bag * 4, stack))
    return {"sections": out, "starting_sections": starts, "first_game_start": first,
            "queue_slots": slots, "queue_start": list(qstart), "rondel": list(r["spaces"]), "rondel_start": rstart,
            "first_year": y["first"], "achievement_years": sorted(ay), "achievement_rows": dict(rows),
            "levels": {k: list(lv[k]) for k in COLOURS}, "end_score": end, "highlighted_rank": hr,
            "cubes": _int(data, "cubes_per_player", 10, 200, source), "tile_slots": _int(data, "tile_slots", 1, 6, source),
            "tiles_per_colour": per, "stack_size": stack, "first_bag": first_bag}


def _connected(secs, nodes: set) -> bool:
    if not nodes:
        return True
    seen, todo = set(), [min(nodes)]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        todo.extend(m for m in secs[n]["adjacent"] if m in nodes and m not in seen)
    return seen == nodes


def validate_tiles(data: dict, source: str = "the tiles data", board: dict | None = None) -> dict:
    """Check a tiles dict; return {"equipment": {id: tile}, "achievements": {...}, "year_bonus": {...}}."""
    def bad(msg):
        raise DataError("%s: %s" % (source, msg))

    if not isinstance(data, dict) or data.get("format", 1) != 1:
        bad("a tiles file is a JSON object (format 1) with equipment, achievements and year_bonus")
    eq = data.get("equipment")
    if not isinstance(eq, list) or len(eq) != 22:
        bad("there must be 22 equipment tiles, not %s" % (len(eq) if isinstance(eq, list) else repr(eq)))
    equipment = {}
    for t in eq:
        if not isinstance(t, dict):
            bad("every equipment tile is an object")
        i = _int(t, "id", 1, 22, source + ": equipment")
        if i in equipment:
            bad("equipment tile %d appears twice" % i)
        if t.get("effect") not in EQUIPMENT_EFFECTS:
            bad("equipment tile %d: unknown effect %r" % (i, t.get("effect")))
        if t["effect"] in ("extra_level", "extra_road_cubes", "precious_extra_cube") and t.get("colour") not in COLOURS:
            bad("equipment tile %d: needs a colour from %s" % (i, ", ".join(COLOURS)))
        if t["effect"] == "two_colours" and (not isinstance(t.get("colours"), list) or len(t["colours"]) != 2
                                             or any(c not in COLOURS for c in t["colours"])):
            bad("equipment tile %d: needs two colours" % i)
        equipment[i] = dict(t)
    ach = data.get("achievements")
    if not isinstance(ach, list) or len(ach) != 23:
        bad("there must be 23 achievement tiles, not %s" % (len(ach) if isinstance(ach, list) else repr(ach)))
    achievements = {}
    for t in ach:
        if not isinstance(t, dict):
            bad("every achievement tile is an object")
        i = _int(t, "id", 1, 23, source + ": achievements")
        if i in achievements:
            bad("achievement tile %d appears twice" % i)
        if t.get("effect") not in ACHIEVEMENT_EFFECTS:
            bad("achievement tile %d: unknown effect %r" % (i, t.get("effect")))
        if t.get("colour") not in COLOURS + ("multi",):
            bad("achievement tile %d: colour must be one of red, blue, orange, green, multi" % i)
        _int(t, "vp", 0, 20, "%s: achievement tile %d" % (source, i))
        if t["effect"] in ("quadrant_structures", "built_structures") and t.get("structure") not in STRUCTURES:
            bad("achievement tile %d: needs a structure kind" % i)
        if t["effect"] == "quadrant_structures":
            _int(t, "quadrant", 1, 4, "%s: achievement tile %d" % (source, i))
        achievements[i] = dict(t)
    yb = data.get("year_bonus")
    if not isinstance(yb, dict) or set(yb) != set(YEAR_BONUS_KINDS):
        bad("year_bonus must give a count for each of %s" % ", ".join(YEAR_BONUS_KINDS))
    for k in YEAR_BONUS_KINDS:
        _int(yb, k, 0, 19, source + ": year_bonus")
    if sum(yb.values()) != 19 or yb["three_vp"] != 1:
        bad("there are 19 year bonus tiles with exactly one '3 victory points' tile (here %d, %d)"
            % (sum(yb.values()), yb["three_vp"]))
    if board is not None:
        for c in COLOURS + ("multi",):
            n = sum(1 for t in achievements.values() if t["colour"] == c)
            if n > board["achievement_rows"][c]:
                bad("%d %s achievement tiles do not fit the %d slots of their row" % (n, c, board["achievement_rows"][c]))
        if len(board["achievement_years"]) > 23:
            bad("more achievement slots on the year track than achievement tiles")
    return {"equipment": equipment, "achievements": achievements, "year_bonus": dict(yb)}


_CACHE: dict = {}


def load(board: dict | str | Path | None = None, tiles: dict | str | Path | None = None) -> tuple[dict, dict]:
    """The board and tiles (defaults, a path, or a dict), validated. Raises DataError."""
    bdata, bsrc = _read(board, "board.json")
    tdata, tsrc = _read(tiles, "tiles.json")
    try:
        key = (json.dumps(bdata, sort_keys=True), json.dumps(tdata, sort_keys=True), bsrc, tsrc)
    except (TypeError, ValueError):
        raise DataError("the board or tiles data holds something that is not plain JSON") from None
    if key not in _CACHE:
        b = validate_board(bdata, bsrc)
        t = validate_tiles(tdata, tsrc, b)
        _CACHE[key] = json.dumps([_keys(b), _keys(t)])
    b, t = json.loads(_CACHE[key])
    return _ints_back(b), _ints_back(t)


def _keys(d):
    return d  # json turns int keys into strings; _ints_back restores them


def _ints_back(d):
    if isinstance(d, dict):
        return {(int(k) if isinstance(k, str) and k.isdigit() else k): _ints_back(v) for k, v in d.items()}
    if isinstance(d, list):
        return [_ints_back(x) for x in d]
    return d
