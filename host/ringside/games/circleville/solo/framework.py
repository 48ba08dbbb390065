"""The solo mode's shared framework (rulebook "Solo Mode": Setup, Sequence of Play, Increasing the
Difficulty). Every reading is in docs/rules/circleville-solo.md.

A solo player is a subclass of SoloPlayer registered with @register. The engine
(circleville/engine.py) calls the functions at the bottom of this module at its few hooks:
make_players and setup_state when the game is created, setup_draws_legal / apply_setup_draw /
after_setup_draw during the set-up deal, solo_legal / solo_apply for a solo seat's turn,
completion_tiles when a solo player completes a section as the active player. Everything a solo
player does is built on the engine's own action code (its pending choices are answered by
rule: structures by the player's priority, sections in the player's order).

Shared machinery for the players:

    do_action(game, seat, kind, level, quadrant, order, fail_vp, label)   one action, with the
        clockwise quadrant fallback, "as far as it can", the out-of-cubes VP and the
        impossible-everywhere VP; kind = red|blue|orange|green (a basic action at `level`) or
        improve|beautify (the alternate actions)
    score(game, seat, vp, why)          VP with the reason in words
    move_assistant(game, seat, space, why)
    take_stack_tile(game, seat)         step 4: the top tile of the stack at the assistant's space
    quadrant_of_colour(game, colour)    the quadrant whose achievement tiles have that colour
    HIGHEST, LOWEST                      section orders within a quadrant
"""
from __future__ import annotations

import json
from pathlib import Path

from ringside.games import GameError, IllegalAction, event, possessive

from ..data import COLOURS, STRUCTURES
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Callable
    from ringside.games import Game

DATA_DIR = Path(__file__).resolve().parent / "data"
MAX_SOLO = 3
PLAYERS: dict = {}          # name (lower case) -> SoloPlayer subclass

ALTERNATE_LEVEL = {"beautify": 3, "improve": 4}
FINISHING = ("red", "blue", "orange")   # the basic actions whose cubes go towards finishing a section


class SoloDataError(GameError):
    """A solo mat file is unusable; the message names the file and the field."""


def register(cls: type[SoloPlayer]) -> type[SoloPlayer]:
    """Class decorator: make a solo player available by its name (option solo)."""
    PLAYERS[cls.name] = cls
    return cls


def known() -> list:
    """The registered solo players' names."""
    import ringside.games.circleville.solo  # noqa: F401  (imports every player module)
    return sorted(PLAYERS)


# ------------------------------------------------------------------ the mats (data files)
def read_mat(name: str, spec: dict | str | Path | None = None) -> tuple:
    """(data, source) of a solo mat: data/<name>.json, or a user's path or dict."""
    if spec is None:
        spec = DATA_DIR / ("%s.json" % name)
    if isinstance(spec, dict):
        return spec, "the %s mat data" % name
    p = Path(spec)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise SoloDataError("cannot read %s's solo mat %s: %s" % (name, p, e.strerror or e)) from None
    try:
        return json.loads(text), str(p)
    except ValueError as e:
        raise SoloDataError("%s is not valid JSON: %s" % (p, e)) from None


def _int(d, key, lo, hi, where):
    v = d.get(key) if isinstance(d, dict) else None
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise SoloDataError("%s: %r must be a whole number from %d to %d, not %r" % (where, key, lo, hi, v))
    return v


def check_spaces(data: dict, key: str, source: str, n: int = 4, need_all_colours: bool = True) -> list:
    """A list of n mat spaces {"quadrant": 1-4, "colour": c}: the quadrant icon (outlining a
    quadrant, in a colour) and the printed colour of the action space beside it."""
    sp = data.get(key)
    if not isinstance(sp, list) or len(sp) != n:
        raise SoloDataError("%s: %r must list %d spaces, not %r" % (source, key, n, sp))
    out = []
    for i, s in enumerate(sp):
        w = "%s: %s[%d]" % (source, key, i)
        q = _int(s, "quadrant", 1, 4, w)
        if s.get("colour") not in COLOURS:
            raise SoloDataError("%s: 'colour' must be one of %s, not %r" % (w, ", ".join(COLOURS), s.get("colour")))
        out.append({"quadrant": q, "colour": s["colour"]})
    if need_all_colours and sorted(x["colour"] for x in out) != sorted(COLOURS):
        raise SoloDataError("%s: the %d %s icons must show each colour once (a drawn tile picks one), not %s"
                            % (source, n, key, ", ".join(x["colour"] for x in out)))
    return out


def validate_common(data: dict, name: str, source: str) -> dict:
    """The fields every mat has: name, title, priority, completion_vp."""
    if not isinstance(data, dict):
        raise SoloDataError("%s: a solo mat is a JSON object (name, title, priority, ...)" % source)
    if data.get("format", 1) != 1:
        raise SoloDataError("%s: format %r is not supported (this version reads format 1)" % (source, data.get("format")))
    if data.get("name") != name:
        raise SoloDataError("%s: this is the mat of %r, not of %r" % (source, data.get("name"), name))
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        raise SoloDataError("%s: 'title' (the solo player's name as printed) is missing" % source)
    pr = data.get("priority")
    if not isinstance(pr, list) or sorted(pr) != sorted(STRUCTURES):
        raise SoloDataError("%s: 'priority' must order the four structures %s, each once, not %r"
                            % (source, ", ".join(STRUCTURES), pr))
    cv = data.get("completion_vp")
    w = "%s: completion_vp" % source
    out = {"name": name, "title": title.strip(), "priority": list(pr),
           "completion_vp": {"year_bonus": _int(cv, "year_bonus", 0, 50, w),
                             "achievement": _int(cv, "achievement", 0, 50, w)}}
    return out


# ------------------------------------------------------------------ the solo player base class
class SoloPlayer:
    """A rule-driven solo player. Subclass, set name/title, implement the hooks, @register.

    The instance holds only the mat (constant data); all mutable state lives in
    game.state["solo"][seat] (plain JSON-able data; mine(game, seat) returns it), so the
    engine can roll back and replay exactly."""

    name = ""              # registry key and mat file name (data/<name>.json), lower case
    title = ""             # as printed: "Bertha"
    her = "its"            # the possessive used in the "what happened" texts
    setup_draw = False     # True: set-up draws an action tile from the bag (a chance action)

    def __init__(self, mat: dict):
        self.mat = mat
        self.title = mat["title"]
        self.priority = list(mat["priority"])
        self.completion_vp = dict(mat["completion_vp"])

    # --- the mat
    @classmethod
    def load(cls, spec: dict | str | Path | None = None) -> SoloPlayer:
        data, source = read_mat(cls.name, spec)
        mat = validate_common(data, cls.name, source)
        mat.update(cls.validate_mat(data, source))
        return cls(mat)

    @classmethod
    def validate_mat(cls, data: dict, source: str) -> dict:
        """The player's own mat fields, checked; raise SoloDataError naming source and field."""
        return {}

    # --- hooks
    def initial_state(self, game: Game, seat: int) -> dict:
        """The player's state at the start (before its own set-up)."""
        return {}

    def setup(self, game: Game, seat: int, colour: str) -> list:
        """Its own set-up, once the deal is done; colour = the drawn tile if setup_draw."""
        return []

    def move_assistant(self, game: Game, seat: int) -> list:
        """Step 1 (events). Use move_assistant(game, seat, space, why)."""
        raise NotImplementedError

    def take_actions(self, game: Game, seat: int) -> list:
        """Step 2 (events). Use do_action / score."""
        raise NotImplementedError

    def step4(self, game: Game, seat: int) -> list:
        """Step 4 (events), before the engine slides the upcoming stack and ends the turn."""
        raise NotImplementedError

    # --- asked by the engine's end for a town that cannot be finished (engine.town_stuck)
    def placeable_colours(self, game: Game, seat: int) -> set:
        """The basic actions among red, blue and orange (the ones that work towards finishing a
        section) this player may still take at some turn to come, whatever the person does.
        More is always safe (the town is then not called stuck on its account); the default,
        all three, is what a player says that cannot tell."""
        return set(FINISHING)

    def completes_without_cubes(self, game: Game, seat: int) -> bool:
        """Can its own rules still complete a section without filling it with cubes (Denzel's
        forced completion)? True is always safe."""
        return False

    def mat_tiles(self, game: Game, seat: int) -> int:
        """Action tiles on its mat (the final tie-break)."""
        return sum(1 for t in mine(game, seat).get("tiles", []) if t)

    def view(self, game: Game, seat: int) -> dict:
        d = dict(mine(game, seat))
        d["solo_player"] = self.title
        return d


# ------------------------------------------------------------------ helpers for players
def mine(game: Game, seat: int) -> dict:
    """The solo player's own state (game.state["solo"][seat])."""
    return game.state["solo"][seat]


def who(game: Game, seat: int) -> str:
    return game.players[seat]


def say(game: Game, seat: int, text: str, **data: Any) -> dict:
    """A "what happened" event of a solo player."""
    return event("solo", text, seat=seat, **data)


def score(game: Game, seat: int, vp: int, why: str) -> list:
    """Score vp for a solo player, saying why."""
    game.state["players"][seat]["score"] += vp
    return [event("score", "%s scores %d VP: %s." % (who(game, seat), vp, why), seat=seat, vp=vp)]


def move_assistant(game: Game, seat: int, space: int, why: str) -> list:
    """Step 1: put the assistant on rondel space `space`."""
    S = game.state
    frm = S["players"][seat]["assistant"]
    S["players"][seat]["assistant"] = space
    st = S["stacks"][space]
    top = st[-1] if st else None
    return [event("rondel", "%s assistant moves from rondel space %d to space %d (%s space, stack %s): %s."
                  % (possessive(who(game, seat)), frm, space, game.board["rondel"][space],
                     "shows %s" % top if top else "empty", why),
                  seat=seat, space=space)]


def rondel_colour(game: Game, space: int) -> str:
    return game.board["rondel"][space]


def stack_top(game: Game, space: int) -> dict | None:
    """The colour atop the stack beside rondel space `space`, or None for no stack."""
    st = game.state["stacks"][space]
    return st[-1] if st else None


def take_stack_tile(game: Game, seat: int) -> dict | None:
    """Step 4: take the top tile of the stack at the assistant's space (its colour, or None)."""
    st = game.state["stacks"][game.state["players"][seat]["assistant"]]
    return st.pop() if st else None


def tile_beside_supervisor(game: Game, seat: int, where: str) -> list:
    """Step 4 of Bertha, Carsten and Katherine: the top tile of the stack at the assistant's
    rondel space goes on the mat's action space beside the supervisor (st["space"]); the tile
    that was there goes to the box. `where` says where, in the player's words. Returns events."""
    S = game.state
    st = mine(game, seat)
    sp = S["players"][seat]["assistant"]
    i = st["space"]
    name = who(game, seat)
    c = take_stack_tile(game, seat)
    if c is None:
        return [say(game, seat, "The stack at rondel space %d is empty: %s takes no tile." % (sp, name))]
    old = st["tiles"][i]
    st["tiles"][i] = c
    if old:
        to_box(game, old)
    return [say(game, seat, "%s takes the %s tile from the stack at rondel space %d and places it %s (space %d)%s."
                % (name, c, sp, where, i + 1, "; the %s tile there goes to the box" % old if old else ""),
                colour=c)]


def to_box(game: Game, colour: str) -> None:
    """An action tile goes back to the box."""
    game.state["box"][colour] += 1


def tiles_settled(game: Game) -> bool:
    """No action tile is left in a stack, the upcoming stack or the bag: from now on no tile can
    reach a stack or a solo mat, so every stack stays empty and every solo mat stays as it is."""
    S = game.state
    return not any(S["stacks"]) and not S["upcoming"] and not any(S["bag"].values())


def next_step(game: Game, seat: int) -> int:
    """The solo seat's next step: 2 or 4 in the middle of its own turn, else 1 (another seat's
    turn, or its own turn at the rondel or just finished: the engine marks a finished turn)."""
    S = game.state
    ts = S["ts"] or {}
    if S["active"] != seat or ts.get("finished") or S["phase"] != "actions":
        return 1
    return ts.get("solo_step", 2)


def quadrant_of_colour(game: Game, colour: str) -> int:
    """The quadrant a colour stands for: the quadrant whose structure achievement tiles have
    that colour (tiles.json: quadrant 1 red, 2 blue, 3 orange, 4 green)."""
    for t in game.tiles["achievements"].values():
        if t["effect"] == "quadrant_structures" and t["colour"] == colour:
            return t["quadrant"]
    return COLOURS.index(colour) + 1


def clockwise(quadrant: int) -> list:
    """The quadrant and then the others clockwise (1, 2, 3, 4 run clockwise round the town)."""
    return [(quadrant - 1 + i) % 4 + 1 for i in range(4)]


def quadrant_sections(game: Game, q: int) -> list:
    return [n for n in range(1, 21) if game.board["sections"][n]["quadrant"] == q]


def HIGHEST(game: Game, seat: int, q: int) -> list:
    """Sections of quadrant q, highest-numbered first."""
    return sorted(quadrant_sections(game, q), reverse=True)


def LOWEST(game: Game, seat: int, q: int) -> list:
    """Sections of quadrant q, lowest-numbered first."""
    return sorted(quadrant_sections(game, q))


HIGHEST.words = "the highest-numbered"
LOWEST.words = "the lowest-numbered"


def possible(game: Game, seat: int, kind: str, num: int) -> bool:
    """Can a `kind` action be done (at least in part) in section num? (cubes aside)"""
    S = game.state
    s, b = game.section(num), game.board["sections"][num]
    if kind in ("red", "blue"):
        return not s["done"] and len(s[kind]) < b[kind]
    if kind == "orange":
        return (not s["done"] and any(not i["cubes"] for i in s["icons"])
                and len(S["queue"]) < game.board["queue_slots"])
    if kind == "green":
        return s["done"] and bool(S["queue"]) and any(p["kind"] is None for p in s["plots"])
    if kind == "beautify":
        return s["done"] and any(not x for x in s["beautify"])
    if kind == "improve":
        return s["done"] and any(p["kind"] and p["cubes"][1] is None for p in s["plots"])
    raise ValueError("unknown solo action %r" % kind)


def action_words(game: Game, kind: str, level: int) -> str:
    """An action in words, e.g. 'red at level 3 (4 cubes on red squares)'."""
    if kind in ("beautify", "improve"):
        return {"beautify": "the alternate level 3 action Beautify a Completed Section",
                "improve": "the alternate level 4 action Improve a Structure"}[kind]
    v = game.board["levels"][kind][level - 1]
    what = {"red": "%d cube%s on red squares" % (v, "" if v == 1 else "s"),
            "blue": "%d cube%s on blue squares" % (v, "" if v == 1 else "s"),
            "orange": "raze %d structure%s" % (v, "" if v == 1 else "s"),
            "green": "build %d structure%s" % (v, "" if v == 1 else "s")}[kind]
    return "%s at level %d (%s)" % (kind, level, what)


def _why_nowhere(game, kind) -> str:
    S = game.state
    if kind == "orange" and len(S["queue"]) >= game.board["queue_slots"]:
        return "the structures queue is full"
    if kind == "green" and not S["queue"]:
        return "the structures queue is empty"
    return {"red": "no unfinished section has an empty red square",
            "blue": "no unfinished section has an empty blue square",
            "orange": "no unfinished section has a structure left to raze",
            "green": "no completed section has an empty build plot",
            "beautify": "no completed section has an empty beautify icon",
            "improve": "no completed section has a built structure with an empty second square"}[kind]


def find_section(game: Game, seat: int, kind: str, quadrant: int, order: Callable[[Game, int, int], list[int]]) -> tuple | None:
    """(section, quadrant) of the first section where the action is possible: the assigned
    quadrant in the player's order, then the other quadrants clockwise; None if nowhere."""
    for q in clockwise(quadrant):
        for n in order(game, seat, q):
            if possible(game, seat, kind, n):
                return n, q
    return None


def do_action(game: Game, seat: int, kind: str, level: int = 1, quadrant: int = 1, order: Callable[[Game, int, int], list[int]] = HIGHEST, fail_vp: int = 0, label: str = "") -> dict:
    """One solo action, as far as it can be done, by the shared framework:

    - in `quadrant`, in the first section of `order` where it is possible; if none there, the
      other quadrants clockwise; if it is impossible everywhere (or the player has no cube):
      fail_vp instead;
    - structures chosen by the player's priority; built in that section first;
    - out of cubes part way: what could be placed stays, and fail_vp is scored on top.

    Returns {"events", "section", "quadrant", "placed", "ran_out", "impossible", "vp"}."""
    S = game.state
    pl = game.solo_players[seat]
    p = S["players"][seat]
    name = who(game, seat)
    what = action_words(game, kind, level)
    lead = "%s%s: %s" % (name, " (%s)" % label if label else "", what)
    out = {"events": [], "section": None, "quadrant": None, "placed": 0, "ran_out": False,
           "impossible": False, "vp": 0}
    ev = out["events"]
    if p["supply"] <= 0:
        out["impossible"] = True
        ev.append(say(game, seat, "%s. %s has no cubes left, so the action cannot be done anywhere." % (lead, name), action=kind, level=level))
        if fail_vp:
            ev += score(game, seat, fail_vp, "the action failed")
            out["vp"] = fail_vp
        return out
    found = find_section(game, seat, kind, quadrant, order)
    if found is None:
        out["impossible"] = True
        ev.append(say(game, seat, "%s. It cannot be done in quadrant %d nor in any other quadrant (%s)."
                      % (lead, quadrant, _why_nowhere(game, kind)), action=kind, level=level))
        if fail_vp:
            ev += score(game, seat, fail_vp, "the action is impossible everywhere")
            out["vp"] = fail_vp
        return out
    num, q = found
    out["section"], out["quadrant"] = num, q
    words = getattr(order, "words", "the first")
    if q == quadrant:
        where = "section %d, %s section of quadrant %d where it can be done" % (num, words, q)
    else:
        skipped = clockwise(quadrant)[:clockwise(quadrant).index(q)]
        where = ("section %d: it cannot be done in quadrant%s %s, so going clockwise it is done in quadrant %d, "
                 "%s section there where it can be done" % (num, "s" if len(skipped) > 1 else "",
                                                             ", ".join(map(str, skipped)), q, words))
    ev.append(say(game, seat, "%s in %s." % (lead, where), section=num, quadrant=q, action=kind, level=level))
    p["supervisor"] = num   # the supervisor pawn marks where the solo player works
    before = len(ev)
    if kind in COLOURS:
        value = game.board["levels"][kind][level - 1]
        ev += game.start_action(seat, kind, kind, {}, value)
    elif kind == "beautify":
        ev += game.start_action(seat, None, "beautify", {"section": num}, 0)
    else:   # improve: the structure by the priority order
        plots = [(i, pl_["kind"]) for i, pl_ in enumerate(game.section(num)["plots"])
                 if pl_["kind"] and pl_["cubes"][1] is None]
        i, k = min(plots, key=lambda x: (pl.priority.index(x[1]), x[0]))
        if len({x[1] for x in plots}) > 1:
            ev.append(say(game, seat, "Of the structures there that can be improved, %s structure priority (%s) "
                                      "picks the %s one." % (pl.her, ", ".join(pl.priority), k)))
        ev += game.start_action(seat, None, "improve", {"section": num, "plot": i}, 0)
    ev += _drive(game, seat, num, order, q, out)
    out["placed"] = _placed(ev[before:])
    if out["ran_out"]:
        ev.append(say(game, seat, "%s ran out of cubes part way (%d placed): what is placed stays."
                      % (name, out["placed"])))
        if fail_vp:
            ev += score(game, seat, fail_vp, "the action failed (out of cubes)")
            out["vp"] = fail_vp
    return out


def _placed(events) -> int:
    n = 0
    for e in events:
        if e["type"] == "roads":
            n += e.get("cubes", 0)
        elif e["type"] in ("raze", "beautify", "improve"):
            n += 1
        elif e["type"] == "build" and e.get("structure"):
            n += 1
    return n


def _drive(game, seat, num, order, q, out) -> list:
    """Answer the engine's pending choices inside a solo action by rule."""
    S = game.state
    pl = game.solo_players[seat]
    ev = []
    for _ in range(200):
        pd = S["ts"]["pending"]
        if not pd:
            return ev
        legal = game.pending_choices(seat, pd)
        kind = pd["kind"]
        choice = None
        if kind == "orange":
            razes = [a for a in legal if a["type"] == "raze"]
            if razes:
                choice = min(razes, key=lambda a: pl.priority.index(a["structure"]))
        elif kind == "green":
            builds = [a["section"] for a in legal if a["type"] == "build"]
            if builds:
                rank = {n: i for i, n in enumerate(order(game, seat, q))}
                choice = {"type": "build", "section": num if num in builds else min(builds, key=lambda n: rank.get(n, 99))}
        elif kind == "resolve":
            choice = {"type": "resolve", "section": min(pd["sections"])}
        if choice is None:
            # out of cubes (solo players never pull cubes back), or an equipment choice (never used)
            if pd.get("left") and S["players"][seat]["supply"] <= 0:
                out["ran_out"] = True
            if {"type": "stop"} not in legal:
                raise IllegalAction("solo player stuck at a %s choice" % kind)
            choice = {"type": "stop"}
        ev += [e for e in game.resolve_pending(seat, choice) if e["type"] != "stop"]
    raise IllegalAction("a solo action did not finish")


# ------------------------------------------------------------------ engine hooks
def make_players(game: Game) -> dict:
    """Option solo -> {seat: SoloPlayer}; validates the names, count, seats and difficulty."""
    names = game.options.get("solo")
    if isinstance(names, str):
        names = [x for x in names.split(",")]
    if not isinstance(names, list) or not names:
        raise GameError("option solo is a list of 1 to %d solo players (%s)" % (MAX_SOLO, ", ".join(known())))
    keys = [str(x).strip().lower() for x in names]
    avail = known()
    for k in keys:
        if k not in PLAYERS:
            raise GameError("there is no solo player called %r (there are: %s)" % (k, ", ".join(avail)))
    if len(keys) > MAX_SOLO:
        raise GameError("a solo game has 1 to %d solo players, not %d" % (MAX_SOLO, len(keys)))
    if len(set(keys)) != len(keys):
        raise GameError("each solo player has one mat: %s is named twice" % next(k for k in keys if keys.count(k) > 1))
    if len(game.players) != 1 + len(keys):
        raise GameError("a solo game seats one person first and then its solo players: give %d player names "
                        "(you and %s), not %d" % (1 + len(keys), ", ".join(keys), len(game.players)))
    d = game.options.get("difficulty", 0)
    if isinstance(d, bool) or not isinstance(d, int) or d < 0:
        raise GameError("difficulty is where the solo players start on the quadrant tracks: a whole number "
                        "from 0 (4 suggested), not %r" % (d,))
    mats = game.options.get("solo_mats") or {}
    if not isinstance(mats, dict) or any(str(k).lower() not in keys for k in mats):
        raise GameError("option solo_mats maps a solo player in the game to its own mat file (a path or a dict), "
                        "not %r" % (mats,))
    mats = {str(k).lower(): v for k, v in mats.items()}
    return {seat: PLAYERS[k].load(mats.get(k)) for seat, k in enumerate(keys, 1)}


def setup_state(game: Game) -> None:
    """Solo set-up 2 and the difficulty: markers on the tracks, each player's state."""
    S = game.state
    d = game.options.get("difficulty", 0) or 0
    S["solo"] = [None] * len(game.players)
    for seat, pl in game.solo_players.items():
        S["players"][seat]["markers"] = [d, d, d, d]
        S["solo"][seat] = pl.initial_state(game, seat)
    S["solo_setup"] = {"draws": [s for s, pl in sorted(game.solo_players.items()) if pl.setup_draw], "drawn": []}


def setup_draws_legal(game: Game) -> list:
    su = game.state["solo_setup"]
    if not su["draws"]:
        return []
    s = su["draws"][0]
    return [{"type": "solo_draw", "seat": s, "colour": c} for c in COLOURS if game.state["bag"][c] > 0]


def apply_setup_draw(game: Game, a: dict) -> list:
    su = game.state["solo_setup"]
    s = su["draws"].pop(0)
    su["drawn"].append([s, a["colour"]])
    ev = [event("deal", "For %s set-up an action tile is drawn from the bag: %s. It goes back into the bag."
                % (possessive(who(game, s)), a["colour"]), seat=s, colour=a["colour"])]
    return ev + after_setup_draw(game)


def after_setup_draw(game: Game) -> list:
    """Once every stack and every solo set-up draw is dealt: the solo players' own set-up, and the
    person (seat 0) goes first."""
    S = game.state
    if S["phase"] != "setup" or game.stacks_hidden() or S["solo_setup"]["draws"]:
        return []
    drawn = {s: c for s, c in S["solo_setup"]["drawn"]}
    ev = []
    for seat, pl in sorted(game.solo_players.items()):
        ev += pl.setup(game, seat, drawn.get(seat))
    d = game.options.get("difficulty", 0) or 0
    if d:
        ev.append(event("solo", "Difficulty %d: the solo players start on space %d of every quadrant track." % (d, d), difficulty=d))
    ev.append(event("solo", "In a solo game the person always goes first.", seat=0, first=True))
    return ev + game.begin_play(0)


def solo_legal(game: Game, seat: int) -> list:
    """A solo seat's one legal action: its next step."""
    S = game.state
    ts = S["ts"]
    if ts["final"]:
        return [{"type": "solo", "step": "final"}]
    if S["phase"] == "rondel":
        return [{"type": "solo", "step": 1}]
    return [{"type": "solo", "step": ts.get("solo_step", 2)}]


def solo_apply(game: Game, seat: int, a: dict) -> list:
    S = game.state
    ts = S["ts"]
    legal = solo_legal(game, seat)
    if a not in legal:
        raise IllegalAction("%s is a solo player and plays by its printed rules: its only action now is %r"
                            % (who(game, seat), legal[0]))
    pl = game.solo_players[seat]
    step = a["step"]
    if step == "final":
        ev = [say(game, seat, "%s final turn: every solo player's final action is to score 3 VP." % possessive(who(game, seat)))]
        ev += score(game, seat, 3, "the final turn")
        return ev + game.finish_turn(seat)
    if step == 1:
        ev = pl.move_assistant(game, seat)
        S["phase"] = "actions"
        ts["solo_step"] = 2
        ts["avail"] = []
        return ev
    if step == 2:
        ev = pl.take_actions(game, seat)
        ts["solo_step"] = 4
        return ev
    ev = pl.step4(game, seat)
    ev += game.slide_upcoming(S["players"][seat]["assistant"])
    return ev + game.finish_turn(seat)


def describe(game: Game, a: dict) -> str:
    """A solo action or a solo set-up draw in words (menus)."""
    if a["type"] == "solo_draw":
        c = a["colour"]
        return "%s set-up draw from the bag: %s %s tile" % (possessive(game.seat_name(a["seat"])), "an" if c[0] in "aeiou" else "a", c)
    step = a.get("step")
    return ("%s final turn (3 VP)" % possessive(game.seat_name(game.state["active"])) if step == "final"
            else "%s plays step %s by the printed rules" % (game.seat_name(game.state["active"]), step))


def completion_tiles(game: Game, seat: int, num: int) -> list:
    """A solo player completed a section as the active player: the year bonus tile and the
    achievement tile beside it go to the box, and it scores its own VP for each."""
    S = game.state
    pl = game.solo_players[seat]
    name = who(game, seat)
    ev = []
    avail = [y for y in S["years"] if y["bonus"] is not None]
    if not avail:
        return [say(game, seat, "No year bonus tile is left on the year track for %s." % name)]
    cur = avail[0]
    kind, ach = cur["bonus"], cur["achievement"]
    cur["bonus"], cur["achievement"] = None, None
    S["discarded_bonus"] += 1
    ev.append(say(game, seat, "%s returns the %s year bonus tile (%d) to the box%s." % (
        name, kind.replace("_", " "), cur["year"],
        " and achievement tile %d beside it" % ach if ach is not None else "")))
    ev += score(game, seat, pl.completion_vp["year_bonus"], "the year bonus tile of a completed section")
    if ach is not None:
        ev += score(game, seat, pl.completion_vp["achievement"], "the achievement tile of a completed section")
    return ev


# ------------------------------------------------------------------ for tests, the bench and the terminal
def new_game(solo: str | list[str], seed: int = 1, difficulty: int = 0, person: str = "You", **options: Any) -> Game:
    """A solo game, dealt (chance drawn from the seed), with the person (seat 0) to act."""
    import ringside.games as G
    names = [solo] if isinstance(solo, str) else list(solo)
    players = [person] + [PLAYERS[n.lower()].title if n.lower() in PLAYERS else n for n in names]
    opts = dict(options, solo=names, difficulty=difficulty)
    g = G.new("circleville", players, seed=seed, options=opts)
    run_chance(g)
    return g


def run_chance(game: Game) -> list:
    """Apply chance actions from the game's seeded RNG while chance is to act."""
    from ringside.games import CHANCE
    ev = []
    while not game.over and game.to_act() == [CHANCE]:
        ev += game.apply(CHANCE, game.chance_action())
    return ev


def solo_step(game: Game) -> list:
    """The acting solo seat plays its one legal step (events); then any chance draws follow."""
    seat = game.to_act()[0]
    if seat not in game.solo_players:
        raise IllegalAction("%s is not a solo player" % game.seat_name(seat))
    ev = game.apply(seat, game.legal_actions(seat)[0])
    return ev + run_chance(game)
