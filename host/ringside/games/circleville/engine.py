"""Squaring Circleville, the multiplayer game (seeds/000_9f93764fc2dea436.txt up to "Solo Mode").

Every reading of the rules this engine makes is in docs/rules/circleville.md. Seats are
0..n-1 in clockwise order. A turn is a sequence of small decisions, one apply() each:

    chance   set-up deals (achievements, equipment, year bonus tiles, action tiles from the
             bag, the first player) and every later bag draw: an action tile is drawn when it
             is turned face up (the "upcoming" stack is face down, so its tiles stay in the
             bag's count until revealed).
    rondel   {"type": "rondel", "space": k[, "ccw": true][, "bonus": "flexible_assistant"]}
    actions  {"type": "act", "colour": c, "action": a, ...}   a = red|blue|orange|green (basic,
             only the same colour) or move|equipment|beautify|improve|achievement (alternate
             level 1..5); "boost": true spends a Level 5 year bonus tile on it;
             {"type": "move", "to": s}      the supervisor move that goes with each action;
             {"type": "use_bonus", "kind": k, ...}   a year bonus tile, any time of your turn;
             equipment: flip_stack, swap_upcoming, swap_mat, swap_queue;
             {"type": "bonus_action"[, "keep": c]}   step 3; {"type": "end_turn"} step 4.
    pending  the small choices inside an action: raze (a structure kind), build (a section),
             pull (a cube back off a road square), move (alternate move, up to 3), stop,
             beautify_again, road_cube, resolve (which completed section first),
             take_bonus (equipment 4), place_flipped (a used year bonus tile's column).
    solo     option solo (solo/, docs/rules/circleville-solo.md): seats 1.. are solo players whose
             one legal action at a time is {"type": "solo", "step": 1 | 2 | 4 | "final"}; their
             set-up draws are chance actions {"type": "solo_draw", "seat", "colour"}.
"""
from __future__ import annotations

from ringside.games import CHANCE, Capabilities, Game, GameError, IllegalAction, event, possessive, register

from . import data as D

COLOURS = D.COLOURS
ALTERNATES = ("move", "equipment", "beautify", "improve", "achievement")   # levels 1..5
SEAT_COLOURS = ("yellow", "purple", "teal", "white")


def a_or_an(word: str) -> str:
    """'a red', 'an orange': the article a word takes, with the word."""
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def _rank_values(box: list, players: int, highlighted: int) -> list:
    """The values by rank; in a 2-player game the highlighted rank's value is skipped."""
    if players == 2:
        return [v for i, v in enumerate(box) if i != highlighted - 1]
    return list(box)


@register
class Circleville(Game):
    name = "circleville"
    title = "Squaring Circleville"
    rulebook = ("000_9f93764fc2dea436.txt", None, "Glossary")    # solo mode included
    min_players = 2
    max_players = 4
    # the solo rules (solo/framework.py) register themselves here when the package loads
    # (circleville/__init__.py): they drive the town through its public methods, and the
    # engine never imports them
    solo_rules = None
    default_options = {"start": None, "board": None, "tiles": None, "solo": None, "difficulty": 0,
                       "solo_mats": None}
    capabilities = Capabilities(chance="bag and tiles", led="picture",
                                chance_prompt="draw from the bag or turn up the tile, and enter what came out",
                                bot_levels=("random", "easy", "good"), default_level="easy")
    option_types = {"start": ("int", "null"), "board": ("str", "dict", "null"), "tiles": ("str", "dict", "null"),
                    "solo": ("list", "str", "null"), "difficulty": ("int",), "solo_mats": ("dict", "null")}

    # ------------------------------------------------------------------ set-up
    def _setup(self):
        try:
            self.board, self.tiles = D.load(self.options.get("board"), self.options.get("tiles"))
        except D.DataError:
            raise
        b = self.board
        start = self.options.get("start")
        if start is None:
            start = b["first_game_start"]
        if start not in b["starting_sections"]:
            raise GameError("the starting section must be one of %s, not %r"
                            % (", ".join(map(str, b["starting_sections"])), start))
        n = len(self.players)
        secs = []
        for num in range(1, 21):
            s = b["sections"][num]
            done = num == start
            secs.append({"done": done, "red": [], "blue": [],
                         "icons": [] if done else [{"kind": k, "cubes": []} for k in s["structures"]],
                         "extra": [], "plots": [{"kind": None, "cubes": [None, None], "new": False}
                                                for _ in range(s["plots"])],
                         "beautify": [[] for _ in range(s["beautify"])], "number": None})
        equipment = sorted(self.tiles["equipment"])
        # solo mode (ringside.games.circleville.solo): seats 1.. are rule-driven solo players
        self.solo_players = {}
        if self.options.get("solo") is not None:
            make_players = self.solo_rules.make_players
            self.solo_players = make_players(self)
        elif self.options.get("difficulty"):
            raise GameError("difficulty is the solo players' start on the quadrant tracks: "
                            "it needs solo players (option solo)")
        if n == 2 or self.solo_players:
            equipment = [i for i in equipment if not self.tiles["equipment"][i].get("not_in_two_player")]
        years = [{"year": b["first_year"] + i, "bonus": None, "achievement": None} for i in range(20)]
        years[-1]["bonus"] = "three_vp"
        yb = dict(self.tiles["year_bonus"])
        yb["three_vp"] -= 1
        self.state = {
            "phase": "setup", "start": start,
            "sections": secs,
            "queue": list(b["queue_start"]),
            "players": [{"supply": b["cubes"], "score": 0, "assistant": b["rondel_start"], "supervisor": start,
                         "mat": {c: [] for c in COLOURS}, "tiles": [], "bonus": [], "markers": [0, 0, 0, 0]}
                        for _ in range(n)],
            "deal": {"achievements": sorted(self.tiles["achievements"]), "ach_slots": list(b["achievement_years"]),
                     "equipment": equipment, "reveal": 6 if self.solo_players else 3 * n,
                     "year_bonus": yb, "first": True},
            "equipment": [], "years": years, "table": {r: [] for r in b["achievement_rows"]},
            "bag": {c: b["first_bag"] for c in COLOURS},
            "stacks": [[None] * b["stack_size"] for _ in range(8)], "upcoming": [],
            "box": {c: 0 for c in COLOURS}, "discarded_bonus": 0, "bag_refilled": False,
            "first": None, "active": None, "turns": 0, "end": False, "final": None, "ts": None,
            "end_reason": None,
        }
        if self.solo_players:
            setup_state = self.solo_rules.setup_state
            setup_state(self)

    # ------------------------------------------------------------------ helpers
    @property
    def S(self) -> dict:
        return self.state

    def _sec(self, num):
        return self.state["sections"][num - 1]

    def _who(self, seat):
        return self.players[seat]

    def level(self, seat: int, colour: str, boost: bool = False) -> int:
        """The level of a colour for an action: tiles in the column + 1, equipment, two-colour tiles."""
        if boost:
            return 5
        p = self.state["players"][seat]

        def raw(c):
            lv = 1 + len(p["mat"][c])
            if any(self._eq_effect(t, "extra_level", c) for t in self._equipment_of(seat)):
                lv += 1
            return min(5, lv)
        lv = raw(colour)
        for t in self._equipment_of(seat):
            e = self.tiles["equipment"][t]
            if e["effect"] == "two_colours" and colour in e["colours"]:
                lv = max(lv, max(raw(c) for c in e["colours"]))
        return lv

    def mat_level(self, seat: int, colour: str) -> int:
        return 1 + len(self.state["players"][seat]["mat"][colour])

    def _equipment_of(self, seat):
        if seat in self.solo_players:
            return []   # solo players never use equipment (they may hold it)
        return [t["id"] for t in self.state["players"][seat]["tiles"] if t["kind"] == "equipment"]

    def _has(self, seat, effect):
        return any(self.tiles["equipment"][t]["effect"] == effect for t in self._equipment_of(seat))

    def _eq_effect(self, tid, effect, colour=None):
        e = self.tiles["equipment"][tid]
        return e["effect"] == effect and (colour is None or e.get("colour") == colour)

    def _has_colour(self, seat, effect, colour):
        return any(self._eq_effect(t, effect, colour) for t in self._equipment_of(seat))

    def _bag_physical(self) -> int:
        hidden = sum(1 for st in self.S["stacks"] for x in st if x is None) + sum(1 for x in self.S["upcoming"] if x is None)
        return sum(self.S["bag"].values()) - hidden

    def _components(self) -> dict:
        """Section -> id of its node for supervisor movement: a completed large section is one node."""
        key = tuple(s["done"] for s in self.state["sections"])
        cache = getattr(self, "_node_cache", None)
        if cache and cache[0] == key:
            return cache[1]
        node = self._node_map()
        self._node_cache = (key, node)
        return node

    def _node_map(self) -> dict:
        node = {}
        for num in range(1, 21):
            if not self._sec(num)["done"]:
                node[num] = num
        for num in range(1, 21):
            if num in node:
                continue
            q = self.board["sections"][num]["quadrant"]
            todo, comp = [num], []
            while todo:
                x = todo.pop()
                if x in node:
                    continue
                node[x] = -num
                comp.append(x)
                todo.extend(m for m in self.board["sections"][x]["adjacent"]
                            if self._sec(m)["done"] and self.board["sections"][m]["quadrant"] == q and m not in node)
        return node

    def area(self, num: int) -> list:
        """The sections a supervisor in `num` may act in: itself, or its whole completed large section."""
        node = self._components()
        return [s for s in range(1, 21) if node[s] == node[num]]

    def move_targets(self, num: int) -> list:
        """One section per node reachable in one supervisor move (the lowest-numbered of each)."""
        node = self._components()
        here = node[num]
        out = {}
        for a in range(1, 21):
            if node[a] != here:
                continue
            for m in self.board["sections"][a]["adjacent"]:
                if node[m] != here:
                    out[node[m]] = min(out.get(node[m], 99), min(s for s in range(1, 21) if node[s] == node[m]))
        return sorted(out.values())

    def _can_step(self, frm, to) -> bool:
        node = self._components()
        if node[frm] == node[to]:
            return False
        return any(node[m] == node[to] for a in range(1, 21) if node[a] == node[frm]
                   for m in self.board["sections"][a]["adjacent"])

    def section_cubes(self, num: int) -> dict:
        """Seat -> (cubes in the section, cubes on structure icons)."""
        s = self._sec(num)
        out = {}
        for seat in s["red"] + s["blue"] + s["extra"]:
            c, i = out.get(seat, (0, 0))
            out[seat] = (c + 1, i)
        for icon in s["icons"]:
            for seat in icon["cubes"]:
                c, i = out.get(seat, (0, 0))
                out[seat] = (c + 1, i + 1)
        return out

    def remaining_work(self, num: int) -> int:
        """Empty red and blue squares and unrazed structures left in a section."""
        s, b = self._sec(num), self.board["sections"][num]
        if s["done"]:
            return 0
        return (b["red"] - len(s["red"])) + (b["blue"] - len(s["blue"])) + sum(1 for i in s["icons"] if not i["cubes"])

    def _is_complete(self, num) -> bool:
        return not self._sec(num)["done"] and self.remaining_work(num) == 0

    def cubes_on_board(self, seat: int) -> int:
        n = 0
        for s in self.S["sections"]:
            n += s["red"].count(seat) + s["blue"].count(seat) + s["extra"].count(seat)
            n += sum(i["cubes"].count(seat) for i in s["icons"])
            n += sum(p["cubes"].count(seat) for p in s["plots"])
            n += sum(b.count(seat) for b in s["beautify"])
            n += 1 if s["number"] == seat else 0
        return n

    # ------------------------------------------------------------------ to act
    def _to_act(self):
        S = self.S
        if S["phase"] == "setup" or self._hidden_in_stacks():
            return [CHANCE]
        return [S["active"]]

    def _hidden_in_stacks(self) -> bool:
        return any(x is None for st in self.S["stacks"] for x in st)

    # ------------------------------------------------------------------ chance
    def _chance_legal(self):
        S = self.S
        if S["phase"] == "setup":
            d = S["deal"]
            if d["ach_slots"]:
                return [{"type": "deal_achievement", "tile": t} for t in d["achievements"]]
            if d["reveal"]:
                return [{"type": "reveal_equipment", "tile": t} for t in d["equipment"]]
            if any(v > 0 for v in d["year_bonus"].values()):
                return [{"type": "deal_year_bonus", "kind": k} for k, v in sorted(d["year_bonus"].items()) if v > 0]
            if self._hidden_in_stacks():
                return [{"type": "draw", "colour": c} for c in COLOURS if S["bag"][c] > 0]
            if self.solo_players:
                setup_draws_legal = self.solo_rules.setup_draws_legal
                return setup_draws_legal(self)
            return [{"type": "first_player", "seat": i} for i in range(len(self.players))]
        return [{"type": "draw", "colour": c} for c in COLOURS if S["bag"][c] > 0]

    def _chance(self, rng):
        acts = self._chance_legal()
        if acts and acts[0]["type"] in ("draw", "solo_draw"):
            bag = self.S["bag"]
            return rng.choices(acts, weights=[bag[a["colour"]] for a in acts])[0]
        if acts and acts[0]["type"] == "deal_year_bonus":
            yb = self.S["deal"]["year_bonus"]
            return rng.choices(acts, weights=[yb[a["kind"]] for a in acts])[0]
        return rng.choice(acts)

    def _apply_chance(self, a):
        S = self.S
        if a not in self._chance_legal():
            raise IllegalAction("the chance action %r is not possible now" % (a,))
        t = a["type"]
        d = S["deal"]
        if t == "deal_achievement":
            year = d["ach_slots"].pop(0)
            d["achievements"].remove(a["tile"])
            S["years"][year - self.board["first_year"]]["achievement"] = a["tile"]
            return [event("deal", "Achievement tile %d is dealt beside %d." % (a["tile"], year), tile=a["tile"], year=year, what="achievement")]
        if t == "reveal_equipment":
            d["equipment"].remove(a["tile"])
            S["equipment"].append(a["tile"])
            S["equipment"].sort()
            d["reveal"] = 0 if not d["equipment"] else d["reveal"] - 1
            return [event("deal", "Equipment tile %d is revealed." % a["tile"], tile=a["tile"], what="equipment")]
        if t == "deal_year_bonus":
            d["year_bonus"][a["kind"]] -= 1
            y = next(y for y in S["years"][1:] if y["bonus"] is None)
            y["bonus"] = a["kind"]
            return [event("deal", "%s year bonus tile goes on %d." % (a_or_an(a["kind"].replace("_", " ")).capitalize(), y["year"]), tile_kind=a["kind"], year=y["year"], what="year_bonus")]
        if t == "draw":
            for st in S["stacks"]:
                if None in st:
                    st[st.index(None)] = a["colour"]
                    break
            S["bag"][a["colour"]] -= 1
            ev = [event("draw", "%s action tile comes out of the bag." % a_or_an(a["colour"]).capitalize(), colour=a["colour"])]
            if S["phase"] == "setup" and not self._hidden_in_stacks() and not S["bag_refilled"]:
                for c in COLOURS:
                    S["bag"][c] += self.board["tiles_per_colour"] - self.board["first_bag"]
                S["bag_refilled"] = True
                S["upcoming"] = [None] * min(self.board["stack_size"], self._bag_physical())
            elif S["phase"] != "setup" and not self._hidden_in_stacks():
                self._refresh_colours()
            if S["phase"] == "setup" and self.solo_players:
                after_setup_draw = self.solo_rules.after_setup_draw
                ev += after_setup_draw(self)
            return ev
        if t == "solo_draw":
            apply_setup_draw = self.solo_rules.apply_setup_draw
            return apply_setup_draw(self, a)
        if t == "first_player":
            return self._begin(a["seat"])
        raise IllegalAction("unknown chance action %r" % t)

    def _begin(self, seat):
        """Set-up is over: `seat` takes the first player marker and starts."""
        S = self.S
        S["first"] = S["active"] = seat
        S["phase"] = "rondel"
        S["ts"] = self._new_turn(seat)
        return [event("first_player", "%s goes first and takes the first player marker." % self._who(seat), seat=seat)]

    # ------------------------------------------------------------------ turn state
    def _new_turn(self, seat, final=False):
        per = 2 if self._has(seat, "extra_move") else 1
        return {"final": final, "avail": [list(COLOURS)] if final else [], "k": 0, "moves": [per] if final else [],
                "pending": None, "flipped": [], "used": [], "boost_used": False,
                "flip_stack": False, "swap_upcoming": False, "swap_mat": False, "swap_queue": False,
                "bonus_done": False, "resolve": [], "step4": False}

    def _space_colours(self, seat) -> list:
        sp = self.S["players"][seat]["assistant"]
        cols = [self.board["rondel"][sp]]
        st = self.S["stacks"][sp]
        if st and st[-1] is not None:
            cols.append(st[-1])
        return cols

    def _refresh_colours(self):
        ts = self.S["ts"]
        if ts and not ts["final"] and ts["k"] == 0 and self.S["phase"] == "actions":
            cols = self._space_colours(self.S["active"])
            ts["avail"] = [[c] for c in cols]
            per = 2 if self._has(self.S["active"], "extra_move") else 1
            # a move already made before the first action stays spent
            ts["moves"] = [ts["moves"][i] if i < len(ts["moves"]) else per for i in range(len(cols))]

    def _moves_available(self) -> int:
        ts = self.S["ts"]
        k, m = ts["k"], ts["moves"]
        n = 0
        if k >= 1 and k - 1 < len(m):
            n += m[k - 1]
        if k < len(m):
            n += m[k]
        return n

    def _spend_move(self):
        ts = self.S["ts"]
        k = ts["k"]
        if k >= 1 and k - 1 < len(ts["moves"]) and ts["moves"][k - 1] > 0:
            ts["moves"][k - 1] -= 1
        else:
            ts["moves"][k] -= 1

    # ------------------------------------------------------------------ legal actions
    def _legal(self, seat):
        if seat == CHANCE:
            return self._chance_legal()
        if seat in self.solo_players:
            solo_legal = self.solo_rules.solo_legal
            return solo_legal(self, seat)
        S = self.S
        ts = S["ts"]
        out = []
        if ts["pending"]:
            return self._pending_legal(seat, ts["pending"])
        if S["phase"] == "rondel":
            return self._rondel_legal(seat) + self._bonus_tile_legal(seat)
        # actions phase
        out.extend(self._act_legal(seat))
        if self._moves_available() > 0:
            out.extend({"type": "move", "to": t} for t in self.move_targets(S["players"][seat]["supervisor"]))
        out.extend(self._bonus_tile_legal(seat))
        out.extend(self._equipment_legal(seat))
        if not ts["avail"] and not ts["bonus_done"] and not ts["final"] and self._bonus_action_ok(seat):
            p = S["players"][seat]
            full = [c for c in COLOURS if p["mat"][c]]
            if len(full) == 4:
                out.append({"type": "bonus_action"})
            if self._has(seat, "bonus_three") and len(full) >= 3:
                if len(full) == 4:
                    out.extend({"type": "bonus_action", "keep": c} for c in COLOURS)
                else:
                    out.append({"type": "bonus_action", "keep": next(c for c in COLOURS if c not in full)})
        out.append({"type": "end_turn"})
        return out

    def _bonus_action_ok(self, seat):
        p = self.S["players"][seat]
        full = sum(1 for c in COLOURS if p["mat"][c])
        return full == 4 or (full >= 3 and self._has(seat, "bonus_three"))

    def _rondel_dests(self, seat, ccw=False) -> list:
        S = self.S
        here = S["players"][seat]["assistant"]
        occupied = {p["assistant"] for i, p in enumerate(S["players"]) if i != seat}
        steps = 3 if self._has(seat, "rondel_three") else 2
        out, counted, pos = [], 0, here
        for _ in range(7):
            pos = (pos + (-1 if ccw else 1)) % 8
            if pos in occupied:
                out.append(pos)   # land along with the others, or skip without counting
                continue
            counted += 1
            out.append(pos)
            if counted == steps:
                break
        return out

    def _rondel_legal(self, seat):
        out = [{"type": "rondel", "space": k} for k in self._rondel_dests(seat)]
        if self._has(seat, "rondel_both_ways"):
            cw = set(self._rondel_dests(seat))
            out.extend({"type": "rondel", "space": k, "ccw": True}
                       for k in self._rondel_dests(seat, ccw=True) if k not in cw)
        if "flexible_assistant" in self.S["players"][seat]["bonus"]:
            out.extend({"type": "rondel", "space": k, "bonus": "flexible_assistant"} for k in range(8))
        return out

    def _act_legal(self, seat):
        ts = self.S["ts"]
        colours = sorted({c for opt in ts["avail"] for c in opt}, key=COLOURS.index)
        out = []
        boost_ok = "level_five" in self.S["players"][seat]["bonus"] and not ts["boost_used"]
        for c in colours:
            for boost in ([False, True] if boost_ok else [False]):
                lv = self.level(seat, c, boost)
                extra = {"boost": True} if boost else {}
                if self._basic_ok(seat, c):
                    out.append(dict({"type": "act", "colour": c, "action": c}, **extra))
                for i, alt in enumerate(ALTERNATES):
                    if i + 1 > lv or (boost and i + 1 <= self.level(seat, c)):
                        continue   # a boost is only listed where it reaches a new alternate
                    out.extend(dict(a, **extra) for a in self._alt_choices(seat, c, alt))
        return out

    def _basic_ok(self, seat, c) -> bool:
        S = self.S
        sup = S["players"][seat]["supervisor"]
        s, b = self._sec(sup), self.board["sections"][sup]
        if c in ("red", "blue"):
            return not s["done"] and len(s[c]) < b[c]
        if c == "orange":
            return (not s["done"] and any(not i["cubes"] for i in s["icons"])
                    and len(S["queue"]) < self.board["queue_slots"])
        return bool(S["queue"]) and bool(self._open_plots(sup))

    def _open_plots(self, sup) -> list:
        """Sections in the supervisor's completed area with an empty build plot."""
        if not self._sec(sup)["done"]:
            return []
        return [n for n in self.area(sup) if any(p["kind"] is None for p in self._sec(n)["plots"])]

    def _alt_choices(self, seat, c, alt):
        S = self.S
        base = {"type": "act", "colour": c, "action": alt}
        sup = S["players"][seat]["supervisor"]
        if alt == "move":
            return [base]
        if alt == "equipment":
            return [dict(base, **x) for x in self._equipment_takes(seat)]
        if alt == "beautify":
            if not self._sec(sup)["done"] or S["players"][seat]["supply"] == 0:
                return []
            return [dict(base, section=n) for n in self.area(sup)
                    if any(not b for b in self._sec(n)["beautify"])]
        if alt == "improve":
            if not self._sec(sup)["done"] or S["players"][seat]["supply"] == 0:
                return []
            return [dict(base, section=n, plot=i) for n in self.area(sup)
                    for i, p in enumerate(self._sec(n)["plots"]) if p["kind"] and p["cubes"][1] is None]
        if alt == "achievement":
            return [dict(base, **x) for x in self._achievement_takes(seat)]
        return []

    def _slot_choices(self, seat):
        """Ways to make room for a new tile: [{}] if a slot is free, else which equipment to return."""
        tiles = self.S["players"][seat]["tiles"]
        if len(tiles) < self.board["tile_slots"]:
            return [{}]
        return [{"return": t["id"]} for t in tiles if t["kind"] == "equipment"]

    def _equipment_takes(self, seat):
        return [dict({"tile": t}, **r) for t in self.S["equipment"] for r in self._slot_choices(seat)]

    def _achievement_takes(self, seat):
        return [dict({"tile": t}, **r) for row in self.S["table"].values() for t in row for r in self._slot_choices(seat)]

    def _bonus_tile_legal(self, seat):
        S = self.S
        p = S["players"][seat]
        out = []
        for kind in sorted(set(p["bonus"])):
            base = {"type": "use_bonus", "kind": kind}
            if kind == "new_plot" and p["supply"] > 0:
                out.extend(dict(base, section=n) for n in range(1, 21) if self._sec(n)["done"])
            elif kind == "new_equipment":
                out.extend(dict(base, **x) for x in self._equipment_takes(seat))
            elif kind == "flexible_supervisor":
                out.extend(dict(base, to=n) for n in range(1, 21) if n != p["supervisor"])
            elif kind == "raze" and len(S["queue"]) < self.board["queue_slots"] and p["supply"] > 0:
                out.extend(dict(base, section=n, structure=k) for n in range(1, 21) if not self._sec(n)["done"]
                           for k in sorted({i["kind"] for i in self._sec(n)["icons"] if not i["cubes"]}))
            elif kind == "build" and S["queue"]:
                out.extend(dict(base, section=n, structure=k) for n in range(1, 21) if self._sec(n)["done"]
                           and any(pl["kind"] is None for pl in self._sec(n)["plots"]) for k in sorted(set(S["queue"])))
            elif kind == "three_vp":
                out.append(base)
        return out

    def _equipment_legal(self, seat):
        S, ts = self.S, self.S["ts"]
        out = []
        before = ts["k"] == 0 and not ts["final"] and not ts["bonus_done"]
        sp = S["players"][seat]["assistant"]
        if before and not ts["flip_stack"] and self._has(seat, "flip_stack") and len(S["stacks"][sp]) > 1:
            out.append({"type": "flip_stack"})
        if before and not ts["swap_upcoming"] and self._has(seat, "swap_upcoming") and (S["upcoming"] or S["stacks"][sp]):
            out.append({"type": "swap_upcoming"})
        if not ts["swap_mat"] and self._has(seat, "swap_mat_tile"):
            mat = S["players"][seat]["mat"]
            for c in COLOURS:
                if "tile" not in mat[c]:
                    continue
                for k, st in enumerate(S["stacks"]):
                    if st and st[-1] is not None and (st[-1] == c or len(mat[st[-1]]) < 4):
                        out.append({"type": "swap_mat", "colour": c, "stack": k})
        if not ts["swap_queue"] and self._has(seat, "swap_queue"):
            q = S["queue"]
            out.extend({"type": "swap_queue", "a": i, "b": j} for i in range(len(q))
                       for j in range(i + 1, len(q)) if q[i] != q[j])
        return out

    def _pending_legal(self, seat, pd):
        S = self.S
        p = S["players"][seat]
        kind = pd["kind"]
        out = []
        if kind == "resolve":
            return [{"type": "resolve", "section": n} for n in pd["sections"]]
        if kind == "take_bonus":
            return [{"type": "take_bonus", "year": y} for y in pd["years"]]
        if kind == "place_flipped":
            cols = [c for c in COLOURS if len(p["mat"][c]) < 4]
            return [{"type": "place_flipped", "colour": c} for c in cols]
        if kind == "beautify_again":
            return [{"type": "beautify_again"}, {"type": "stop"}]
        if kind == "road_cube":
            return [{"type": "road_cube"}, {"type": "stop"}]
        if kind == "move":
            out = [{"type": "move", "to": t} for t in self.move_targets(p["supervisor"])]
            return out + [{"type": "stop"}]
        sup = p["supervisor"]
        if p["supply"] == 0:
            out = [{"type": "pull", "section": n, "road": r} for n in range(1, 21) if not self._sec(n)["done"]
                   for r in ("red", "blue") if seat in self._sec(n)[r] and not (n == sup and r == kind)]
            return out + [{"type": "stop"}]
        if kind in ("red", "blue"):   # only reached when cubes ran out; handled above
            return [{"type": "stop"}]
        if kind == "orange":
            return [{"type": "raze", "structure": k}
                    for k in sorted({i["kind"] for i in self._sec(sup)["icons"] if not i["cubes"]})]
        if kind == "green":
            return [{"type": "build", "section": n} for n in self._open_plots(sup)]
        return [{"type": "stop"}]

    # ------------------------------------------------------------------ apply
    # the fields of each action (Game.check_action refuses any other, before _apply runs)
    actions = {k: {} for k in ("beautify_again", "end_turn", "flip_stack", "road_cube", "stop", "swap_upcoming")}
    actions.update(
        act={"colour": "str", "action": "str", "tile?": "int", "return?": "int", "section?": "int",
             "plot?": "int", "boost?": "bool"},
        use_bonus={"kind": "str", "to?": "int", "tile?": "int", "return?": "int", "section?": "int",
                   "structure?": "str"},
        rondel={"space": "int", "ccw?": "bool", "bonus?": "str"}, bonus_action={"keep?": "str"},
        build={"section": "int"}, resolve={"section": "int"}, move={"to": "int"}, pull={"section": "int", "road": "str"},
        raze={"structure": "str"}, take_bonus={"year": "int"}, place_flipped={"colour": "str"},
        swap_mat={"colour": "str", "stack": "int"}, swap_queue={"a": "int", "b": "int"},
        deal_achievement={"tile": "int"}, reveal_equipment={"tile": "int"}, deal_year_bonus={"kind": "str"},
        draw={"colour": "str"}, first_player={"seat": "int"}, solo={"step": "id"},
        solo_draw={"seat": "int", "colour": "str"})

    def _apply(self, seat, a):
        if seat == CHANCE:
            return self._apply_chance(a)
        if seat in self.solo_players:
            solo_apply = self.solo_rules.solo_apply
            return solo_apply(self, seat, a)
        S = self.S
        ts = S["ts"]
        t = a["type"]
        if ts["pending"]:
            return self._apply_pending(seat, a)
        if S["phase"] == "rondel":
            if t == "use_bonus":
                return self._apply_bonus_tile(seat, a)
            if t != "rondel":
                raise IllegalAction("first move your assistant on the courthouse rondel (step 1)")
            return self._apply_rondel(seat, a)
        if t == "act":
            return self._apply_act(seat, a)
        if t == "move":
            if self._moves_available() <= 0:
                raise IllegalAction("your supervisor has already moved once for each of your actions")
            ev = self._move_supervisor(seat, a["to"])
            self._spend_move()
            return ev
        if t == "use_bonus":
            return self._apply_bonus_tile(seat, a)
        if t in ("flip_stack", "swap_upcoming", "swap_mat", "swap_queue"):
            if a not in self._equipment_legal(seat):
                raise IllegalAction(self._why_equipment(seat, t))
            return self._apply_equipment(seat, a)
        if t == "bonus_action":
            return self._apply_bonus_action(seat, a)
        if t == "end_turn":
            return self._end_turn(seat)
        raise IllegalAction("%r is not an action of this phase" % t)

    def _why_equipment(self, seat, t):
        names = {"flip_stack": "flip_stack", "swap_upcoming": "swap_upcoming", "swap_mat": "swap_mat_tile",
                 "swap_queue": "swap_queue"}
        if not self._has(seat, names[t]):
            return "you hold no equipment tile that lets you %s" % t.replace("_", " ")
        if self.S["ts"][t]:
            return "you have already used that equipment tile this turn"
        if t in ("flip_stack", "swap_upcoming") and self.S["ts"]["k"] > 0:
            return "that equipment tile is used before taking your actions"
        return "that %s is not possible now" % t.replace("_", " ")

    # --- step 1
    def _apply_rondel(self, seat, a):
        S = self.S
        p = S["players"][seat]
        k = a["space"]
        if not isinstance(k, int) or not 0 <= k < 8:
            raise IllegalAction("a rondel space is 0 to 7")
        ev = []
        if a.get("bonus") == "flexible_assistant":
            if "flexible_assistant" not in p["bonus"]:
                raise IllegalAction("you have no Flexible Assistant year bonus tile")
            self._flip_bonus(seat, "flexible_assistant")
            ev.append(event("bonus", "%s uses Flexible Assistant." % self._who(seat), seat=seat, bonus="flexible_assistant"))
        elif a.get("ccw"):
            if not self._has(seat, "rondel_both_ways"):
                raise IllegalAction("only equipment tile 15 lets an assistant move counter-clockwise")
            if k not in self._rondel_dests(seat, ccw=True):
                raise IllegalAction("space %d is not 1-%d unoccupied spaces counter-clockwise" % (k, 3 if self._has(seat, "rondel_three") else 2))
        elif k not in self._rondel_dests(seat):
            raise IllegalAction("your assistant moves 1 or 2 unoccupied spaces clockwise (occupied ones "
                                "skipped or shared); space %d is not reachable (you may: %s)"
                                % (k, ", ".join(map(str, self._rondel_dests(seat)))))
        p["assistant"] = k
        S["phase"] = "actions"
        cols = self._space_colours(seat)
        ts = S["ts"]
        ts["avail"] = [[c] for c in cols]
        per = 2 if self._has(seat, "extra_move") else 1
        ts["moves"] = [per] * len(cols)
        ev.append(event("rondel", "%s moves to rondel space %d: %s." % (self._who(seat), k, " and ".join(cols)),
                        space=k, colours=cols, seat=seat))
        return ev

    # --- step 2
    def _apply_act(self, seat, a):
        S, ts = self.S, self.S["ts"]
        c, act = a["colour"], a["action"]
        opts = [i for i, opt in enumerate(ts["avail"]) if c in opt]
        if not opts:
            left = sorted({x for opt in ts["avail"] for x in opt})
            raise IllegalAction("you have no %s action left this turn (left: %s)" % (c, ", ".join(left) or "none"))
        boost = bool(a.get("boost"))
        if boost and ("level_five" not in S["players"][seat]["bonus"] or ts["boost_used"]):
            raise IllegalAction("you have no unused Increase to Level 5 tile")
        lv = self.level(seat, c, boost)
        if act in COLOURS:
            if act != c:
                raise IllegalAction("a %s action can take the %s basic action or an alternate, not %s" % (c, c, act))
            if not self._basic_ok(seat, c):
                raise IllegalAction(self._why_basic(seat, c))
        elif act in ALTERNATES:
            need = ALTERNATES.index(act) + 1
            if need > lv:
                raise IllegalAction("the %s alternate action needs level %d in %s; you have level %d" % (act, need, c, lv))
            probe = {k: v for k, v in a.items() if k != "boost"}
            if probe not in self._alt_choices(seat, c, act):
                raise IllegalAction(self._why_alt(seat, act, a))
        else:
            raise IllegalAction("unknown action %r" % act)
        ts["avail"].pop(opts[0])
        ts["k"] += 1
        if boost:
            ts["boost_used"] = True
            self._flip_bonus(seat, "level_five")
        ev = [event("act", "%s takes %s action: %s%s." % (self._who(seat), a_or_an(c), act, " (at level 5)" if boost else ""),
                    colour=c, action=act, seat=seat)]
        value = self.board["levels"][c][lv - 1] if act in COLOURS else 0
        ev += self._start_action(seat, c, act, a, value)
        return ev

    def _why_basic(self, seat, c):
        S = self.S
        sup = S["players"][seat]["supervisor"]
        s = self._sec(sup)
        if c in ("red", "blue"):
            return ("section %d is complete: basic actions work in unfinished sections" % sup if s["done"]
                    else "section %d has no empty %s square" % (sup, c))
        if c == "orange":
            if s["done"]:
                return "section %d is complete: there is nothing left to raze" % sup
            if len(S["queue"]) >= self.board["queue_slots"]:
                return "the structures queue is full (12): build before razing"
            return "section %d has no structure left to raze" % sup
        if not S["queue"]:
            return "the structures queue is empty: there is nothing to build"
        if not s["done"]:
            return "green builds in a completed section; your supervisor is in unfinished section %d" % sup
        return "there is no empty build plot where your supervisor is"

    def _why_alt(self, seat, act, a):
        sup = self.S["players"][seat]["supervisor"]
        if act in ("beautify", "improve") and not self._sec(sup)["done"]:
            return "%s works in a completed section; your supervisor is in unfinished section %d" % (act, sup)
        if act in ("beautify", "improve") and self.S["players"][seat]["supply"] == 0:
            return "you have no cubes left"
        if act in ("equipment", "achievement") and len(self.S["players"][seat]["tiles"]) >= self.board["tile_slots"] \
                and "return" not in a:
            return "your three tile slots are full: name an equipment tile to return"
        return "that %s choice is not possible: %r" % (act, {k: v for k, v in a.items() if k not in ("type",)})

    def _start_action(self, seat, c, act, a, value):
        S, ts = self.S, self.S["ts"]
        p = S["players"][seat]
        sup = p["supervisor"]
        if act in ("red", "blue"):
            if self._has_colour(seat, "extra_road_cubes", act):
                value += 2
            b = self.board["sections"][sup]
            n = min(value, b[act] - len(self._sec(sup)[act]))
            ev = self._place_roads(seat, sup, act, n)
            left = n - ev[0]["cubes"]
            if left > 0:
                ts["pending"] = {"kind": act, "left": left, "section": sup}
                return ev
            return ev + self._after_roads(seat, sup)
        if act == "orange":
            n = min(value, sum(1 for i in self._sec(sup)["icons"] if not i["cubes"]),
                    self.board["queue_slots"] - len(S["queue"]))
            ts["pending"] = {"kind": "orange", "left": n, "section": sup}
            return []
        if act == "green":
            n = min(value, len(S["queue"]), sum(1 for x in self.area(sup) for pl in self._sec(x)["plots"] if pl["kind"] is None))
            ts["pending"] = {"kind": "green", "left": n}
            return []
        if act == "move":
            ts["pending"] = {"kind": "move", "left": 3}
            return []
        if act == "equipment":
            return self._take_tile(seat, "equipment", a["tile"], a.get("return")) + self._action_done(seat)
        if act == "achievement":
            row = next(r for r, ids in S["table"].items() if a["tile"] in ids)
            ev = self._take_tile(seat, "achievement", a["tile"], a.get("return"))
            if row == c or row == "multi":
                p["score"] += 2
                ev.append(event("score", "%s scores 2 VP: the tile came from the %s row." % (self._who(seat), row), vp=2, seat=seat))
            return ev + self._action_done(seat)
        if act == "beautify":
            n = a["section"]
            sec = self._sec(n)
            i = next(i for i, b in enumerate(sec["beautify"]) if not b)
            sec["beautify"][i].append(seat)
            p["supply"] -= 1
            ev = [event("beautify", "%s beautifies section %d." % (self._who(seat), n), seat=seat, section=n)] + self._advance(seat, n, 1)
            if self._has(seat, "beautify_twice") and p["supply"] > 0 and len(sec["beautify"][i]) < 2:
                ts["pending"] = {"kind": "beautify_again", "section": n, "icon": i}
                return ev
            return ev + self._action_done(seat)
        if act == "improve":
            n, i = a["section"], a["plot"]
            self._sec(n)["plots"][i]["cubes"][1] = seat
            p["supply"] -= 1
            return ([event("improve", "%s improves the %s structure in section %d."
                           % (self._who(seat), self._sec(n)["plots"][i]["kind"], n), seat=seat, section=n, plot=i, structure=self._sec(n)["plots"][i]["kind"])]
                    + self._advance(seat, n, 1) + self._action_done(seat))
        raise IllegalAction("unknown action %r" % act)

    def _place_roads(self, seat, sup, road, n):
        p = self.S["players"][seat]
        k = min(n, p["supply"])
        self._sec(sup)[road].extend([seat] * k)
        p["supply"] -= k
        return [event("roads", "%s places %d cube%s on %s squares in section %d."
                      % (self._who(seat), k, "" if k == 1 else "s", road, sup), cubes=k, section=sup, road=road, seat=seat)]

    def _after_roads(self, seat, sup):
        s, b = self._sec(sup), self.board["sections"][sup]
        if (self._has(seat, "road_finish_cube") and self.S["players"][seat]["supply"] > 0
                and len(s["red"]) == b["red"] and len(s["blue"]) == b["blue"]):
            self.S["ts"]["pending"] = {"kind": "road_cube", "section": sup}
            return []
        return self._action_done(seat)

    def _advance(self, seat, num, k):
        q = self.board["sections"][num]["quadrant"]
        m = self.S["players"][seat]["markers"]
        before = m[q - 1]
        m[q - 1] += k
        ev = [event("marker", "%s quadrant %d marker moves to %d%s."
                    % (possessive(self._who(seat)), q, m[q - 1], " (flipped to +10)" if before < 10 <= m[q - 1] else ""),
                    quadrant=q, value=m[q - 1], seat=seat)]
        return ev

    def _take_tile(self, seat, kind, tid, ret):
        S = self.S
        p = S["players"][seat]
        pool = S["equipment"] if kind == "equipment" else [t for r in S["table"].values() for t in r]
        if tid not in pool:
            raise IllegalAction("%s tile %r is not available" % (kind, tid))
        ev = []
        if len(p["tiles"]) >= self.board["tile_slots"]:
            if ret is None:
                raise IllegalAction("your tile slots are full: name an equipment tile to return")
            if {"kind": "equipment", "id": ret} not in p["tiles"]:
                raise IllegalAction("you can only return an equipment tile you hold (achievement tiles stay)")
            p["tiles"].remove({"kind": "equipment", "id": ret})
            S["equipment"].append(ret)
            S["equipment"].sort()
            ev.append(event("return", "%s returns equipment tile %d." % (self._who(seat), ret), seat=seat, tile=ret))
        elif ret is not None:
            raise IllegalAction("you have a free tile slot: nothing needs returning")
        if kind == "equipment":
            S["equipment"].remove(tid)
        else:
            for ids in S["table"].values():
                if tid in ids:
                    ids.remove(tid)
        p["tiles"].append({"kind": kind, "id": tid})
        ev.append(event("take", "%s takes %s tile %d." % (self._who(seat), kind, tid), tile_kind=kind, tile=tid, seat=seat))
        return ev

    def _move_supervisor(self, seat, to):
        p = self.S["players"][seat]
        if not isinstance(to, int) or not 1 <= to <= 20:
            raise IllegalAction("sections are numbered 1 to 20")
        if not self._can_step(p["supervisor"], to):
            raise IllegalAction("section %d is not one move from section %d (adjacent across a road, or "
                                "into/out of a completed large section): you may go to %s"
                                % (to, p["supervisor"], ", ".join(map(str, self.move_targets(p["supervisor"])))))
        p["supervisor"] = to
        return [event("supervisor", "%s supervisor moves to section %d." % (possessive(self._who(seat)), to), section=to, seat=seat)]

    def _action_done(self, seat):
        """An action (or a year bonus raze) finished: count it and check for completed sections."""
        ts = self.S["ts"]
        ts["pending"] = None
        return self._check_complete(seat)

    def _check_complete(self, seat):
        done = [n for n in range(1, 21) if self._is_complete(n)]
        if not done:
            return []
        if len(done) == 1:
            return self._resolve(seat, done[0])
        self.S["ts"]["pending"] = {"kind": "resolve", "sections": done}
        return [event("choose", "%s completed sections %s at once and chooses the order."
                      % (self._who(seat), ", ".join(map(str, done))), seat=seat, sections=list(done))]

    # --- completing a section (steps I-IV)
    def _resolve(self, seat, num):
        S = self.S
        n = len(self.players)
        b = self.board["sections"][num]
        cubes = self.section_cubes(num)
        order = sorted(cubes, key=lambda x: (-cubes[x][0], -cubes[x][1], (x - seat) % n))
        values = _rank_values(b["score"], n, self.board["highlighted_rank"])
        ev = [event("complete", "Section %d is complete." % num, section=num)]
        for rank, who in enumerate(order):
            vp = values[rank] if rank < len(values) else 0
            if len(order) == 1 and who == seat and n > 2 and self._has(seat, "only_player_doubles"):
                vp *= 2
            S["players"][who]["score"] += vp
            ev.append(event("score", "%s places %d in section %d and scores %d VP." % (self._who(who), rank + 1, num, vp),
                            seat=who, vp=vp))
        # step II: the year bonus tile; step III: the achievement beside it
        if seat in self.solo_players:
            completion_tiles = self.solo_rules.completion_tiles
            ev += completion_tiles(self, seat, num)
            return ev + self._clean_up(seat, num, order[0] if order else None)
        avail = [y for y in S["years"] if y["bonus"] is not None]
        if avail:
            swaps = [y["year"] for y in avail[1:] if y["bonus"] != "three_vp"]
            if self._has(seat, "swap_year_bonus") and swaps and avail[0]["bonus"] != "three_vp":
                S["ts"]["pending"] = {"kind": "take_bonus", "years": [avail[0]["year"]] + swaps, "section": num,
                                      "first": order[0] if order else None}
                return ev
            ev += self._take_year_bonus(seat, avail[0]["year"])
        return ev + self._clean_up(seat, num, order[0] if order else None)

    def _take_year_bonus(self, seat, year):
        S = self.S
        avail = [y for y in S["years"] if y["bonus"] is not None]
        cur = avail[0]
        other = next(y for y in avail if y["year"] == year)
        cur["bonus"], other["bonus"] = other["bonus"], cur["bonus"]
        kind = cur["bonus"]
        cur["bonus"] = None
        S["players"][seat]["bonus"].append(kind)
        ev = [event("year_bonus", "%s takes the %s year bonus tile from %d%s." % (
            self._who(seat), kind.replace("_", " "), cur["year"],
            "" if year == cur["year"] else " (swapped with %d by equipment)" % year), bonus=kind, seat=seat)]
        if cur["achievement"] is not None:
            tid = cur["achievement"]
            cur["achievement"] = None
            row = self.tiles["achievements"][tid]["colour"]
            if len(S["table"][row]) >= self.board["achievement_rows"][row]:
                row = "multi"
            S["table"][row].append(tid)
            ev.append(event("achievement", "Achievement tile %d goes to the %s row of the achievements table." % (tid, row), tile=tid, row=row))
        return ev

    def _clean_up(self, seat, num, first):
        S = self.S
        sec = self._sec(num)
        for who in sec["red"] + sec["blue"] + sec["extra"] + [x for i in sec["icons"] for x in i["cubes"]]:
            S["players"][who]["supply"] += 1
        sec["red"], sec["blue"], sec["extra"], sec["icons"] = [], [], [], []
        sec["done"] = True
        ev = [event("section_tile", "Section tile %d is placed; supervisors there stay on it." % num, section=num, first=first)]
        if first is not None:
            p = S["players"][first]
            if p["supply"] > 0:
                p["supply"] -= 1
                sec["number"] = first
            ev += self._advance(first, num, 1)
        if all(s["done"] for s in S["sections"]) and not S["end"]:
            S["end"] = True
            ev.append(event("end", "Circleville is squared: the last section is complete. The round finishes.", reason="squared"))
        return ev + self._check_complete(seat)

    # --- pending choices
    def _apply_pending(self, seat, a):
        S, ts = self.S, self.S["ts"]
        pd = ts["pending"]
        if a not in self._pending_legal(seat, pd):
            raise IllegalAction(self._why_pending(seat, pd, a))
        t = a["type"]
        p = S["players"][seat]
        if t == "resolve":
            ts["pending"] = None
            return self._resolve(seat, a["section"])
        if t == "take_bonus":
            ts["pending"] = None
            return self._take_year_bonus(seat, a["year"]) + self._clean_up(seat, pd["section"], pd["first"])
        if t == "place_flipped":
            kind = ts["flipped"].pop(0)
            p["mat"][a["colour"]].append("yb:" + kind)
            ev = [event("flipped", "%s adds the used %s tile to the %s column." % (self._who(seat), kind.replace("_", " "), a["colour"]), seat=seat, tile_kind=kind, colour=a["colour"])]
            ts["pending"] = None
            return ev + self._finish_turn(seat)
        if t == "stop":
            if pd["kind"] in ("orange", "green", "red", "blue") and p["supply"] > 0 and pd.get("left"):
                raise IllegalAction("an action places every cube it calls for while you have cubes")
            return [event("stop", "%s stops." % self._who(seat), seat=seat)] + self._action_done(seat)
        if t == "beautify_again":
            n, i = pd["section"], pd["icon"]
            self._sec(n)["beautify"][i].append(seat)
            p["supply"] -= 1
            return ([event("beautify", "%s beautifies section %d a second time (equipment)." % (self._who(seat), n), seat=seat, section=n, again=True)]
                    + self._advance(seat, n, 1) + self._action_done(seat))
        if t == "road_cube":
            self._sec(pd["section"])["extra"].append(seat)
            p["supply"] -= 1
            return [event("road_cube", "%s places an extra cube by the roads of section %d (equipment)."
                          % (self._who(seat), pd["section"]), seat=seat, section=pd["section"])] + self._action_done(seat)
        if t == "move":
            ev = self._move_supervisor(seat, a["to"])
            pd["left"] -= 1
            if pd["left"] == 0:
                ev += self._action_done(seat)
            return ev
        if t == "pull":
            sec = self._sec(a["section"])
            sec[a["road"]].remove(seat)
            p["supply"] += 1
            ev = [event("pull", "%s pulls a cube back off a %s square in section %d." % (self._who(seat), a["road"], a["section"]), seat=seat, section=a["section"], road=a["road"])]
            if pd["kind"] in ("red", "blue"):
                ev += self._place_roads(seat, pd["section"], pd["kind"], 1)
                pd["left"] -= 1
                if pd["left"] == 0:
                    ts["pending"] = None
                    ev += self._after_roads(seat, pd["section"])
            return ev
        if t == "raze":
            sec = self._sec(pd["section"])
            icon = next(i for i in sec["icons"] if not i["cubes"] and i["kind"] == a["structure"])
            icon["cubes"].append(seat)
            p["supply"] -= 1
            if a["structure"] in ("silver", "golden") and self._has_colour(seat, "precious_extra_cube", "orange") and p["supply"] > 0:
                icon["cubes"].append(seat)
                p["supply"] -= 1
            S["queue"].append(a["structure"])
            pd["left"] -= 1
            ev = [event("raze", "%s razes a %s structure in section %d; it joins the queue."
                        % (self._who(seat), a["structure"], pd["section"]), seat=seat, section=pd["section"], structure=a["structure"])]
            return ev + (self._action_done(seat) if pd["left"] == 0 else [])
        if t == "build":
            ev = self._build(seat, a["section"], S["queue"].pop(0), precious=self._has_colour(seat, "precious_extra_cube", "green"))
            pd["left"] -= 1
            return ev + (self._action_done(seat) if pd["left"] == 0 or not S["queue"] else [])
        raise IllegalAction("%r is not a choice now" % t)

    def _why_pending(self, seat, pd, a):
        legal = self._pending_legal(seat, pd)
        kinds = sorted({x["type"] for x in legal})
        return "finish the %s first: choose %s (not %r)" % (pd["kind"].replace("_", " "), " or ".join(kinds), a)

    def _build(self, seat, num, kind, precious=False):
        p = self.S["players"][seat]
        plot = next(pl for pl in self._sec(num)["plots"] if pl["kind"] is None)
        plot["kind"] = kind
        plot["builder"] = seat
        placed = 0
        for i in (0, 1):
            if plot["cubes"][i] is None and p["supply"] > 0 and (placed == 0 or (precious and kind in ("silver", "golden"))):
                plot["cubes"][i] = seat
                p["supply"] -= 1
                placed += 1
        return ([event("build", "%s builds a %s structure in section %d." % (self._who(seat), kind, num),
                       section=num, structure=kind, seat=seat)] + (self._advance(seat, num, placed) if placed else []))

    # --- year bonus tiles
    def _flip_bonus(self, seat, kind):
        p = self.S["players"][seat]
        p["bonus"].remove(kind)
        if kind != "new_plot":
            self.S["ts"]["flipped"].append(kind)

    def _apply_bonus_tile(self, seat, a):
        S = self.S
        p = S["players"][seat]
        kind = a["kind"]
        if kind not in p["bonus"]:
            raise IllegalAction("you have no unused %s year bonus tile" % str(kind).replace("_", " "))
        if kind in ("flexible_assistant", "level_five"):
            raise IllegalAction("%s is used when moving your assistant / choosing an action ('bonus' or 'boost')" % kind)
        if a not in self._bonus_tile_legal(seat):
            raise IllegalAction("that use of %s is not possible now: %r" % (kind.replace("_", " "), a))
        self._flip_bonus(seat, kind)
        ev = [event("bonus", "%s uses the %s year bonus tile." % (self._who(seat), kind.replace("_", " ")), bonus=kind, seat=seat)]
        if kind == "new_plot":
            sec = self._sec(a["section"])
            sec["plots"].append({"kind": None, "cubes": [seat, None], "new": True})
            p["supply"] -= 1
            return ev + self._advance(seat, a["section"], 1)
        if kind == "new_equipment":
            return ev + self._take_tile(seat, "equipment", a["tile"], a.get("return"))
        if kind == "flexible_supervisor":
            p["supervisor"] = a["to"]
            return ev + [event("supervisor", "%s supervisor jumps to section %d." % (possessive(self._who(seat)), a["to"]), seat=seat, to=a["to"])]
        if kind == "raze":
            sec = self._sec(a["section"])
            icon = next(i for i in sec["icons"] if not i["cubes"] and i["kind"] == a["structure"])
            icon["cubes"].append(seat)
            p["supply"] -= 1
            S["queue"].append(a["structure"])
            return ev + self._check_complete(seat)
        if kind == "build":
            S["queue"].remove(a["structure"])
            return ev + self._build(seat, a["section"], a["structure"])
        if kind == "three_vp":
            p["score"] += 3
            ev.append(event("score", "%s scores 3 VP." % self._who(seat), vp=3, seat=seat))
            if not S["end"]:
                S["end"] = True
                S["end_reason"] = "the 3 victory points tile was used"
                ev.append(event("end", "The 3 victory points tile ends the game: the round finishes.", reason="three_vp"))
            return ev
        raise IllegalAction("unknown year bonus %r" % kind)

    # --- equipment used as actions
    def _apply_equipment(self, seat, a):
        S, ts = self.S, self.S["ts"]
        t = a["type"]
        ts[t] = True
        sp = S["players"][seat]["assistant"]
        if t == "flip_stack":
            S["stacks"][sp].reverse()
            self._refresh_colours()
            return [event("equipment", "%s flips the stack at space %d over." % (self._who(seat), sp), seat=seat, effect="flip_stack", space=sp)]
        if t == "swap_upcoming":
            S["stacks"][sp], S["upcoming"] = S["upcoming"], S["stacks"][sp]
            self._refresh_colours()
            return [event("equipment", "%s swaps the stack at space %d with the upcoming stack." % (self._who(seat), sp), seat=seat, effect="swap_upcoming", space=sp)]
        if t == "swap_mat":
            mat = S["players"][seat]["mat"]
            c = a["colour"]
            # the topmost action tile of that column leaves; tiles above slide down
            idx = len(mat[c]) - 1 - mat[c][::-1].index("tile")
            mat[c].pop(idx)
            st = S["stacks"][a["stack"]]
            got = st.pop()
            st.append(c)
            mat[got].append("tile")
            self._refresh_colours()
            return [event("equipment", "%s swaps a %s tile on the mat for the %s tile on stack %d."
                          % (self._who(seat), c, got, a["stack"]), seat=seat, effect="swap_mat", colour=c, got=got, stack=a["stack"])]
        if t == "swap_queue":
            q = S["queue"]
            q[a["a"]], q[a["b"]] = q[a["b"]], q[a["a"]]
            return [event("equipment", "%s swaps queue positions %d and %d." % (self._who(seat), a["a"] + 1, a["b"] + 1), seat=seat, effect="swap_queue", positions=[a["a"], a["b"]])]
        raise IllegalAction("unknown equipment action %r" % t)

    # --- step 3
    def _apply_bonus_action(self, seat, a):
        S, ts = self.S, self.S["ts"]
        if a not in self._legal(seat):
            if ts["avail"]:
                raise IllegalAction("the bonus action (step 3) comes after your two actions")
            if ts["bonus_done"] or ts["final"]:
                raise IllegalAction("you have had your bonus action")
            return_needed = "3 of different colours (equipment 14)" if self._has(seat, "bonus_three") else "one in each of the four columns"
            raise IllegalAction("a bonus action needs tiles to return: %s" % return_needed)
        p = S["players"][seat]
        keep = a.get("keep")
        ev = []
        for c in COLOURS:
            if c == keep or not p["mat"][c]:
                continue
            top = p["mat"][c].pop()
            if top == "tile":
                S["box"][c] += 1
            else:
                S["discarded_bonus"] += 1
            ev.append(event("return", "%s returns the top %s tile to the box." % (self._who(seat), c), seat=seat, colour=c, piece=top))
        ts["bonus_done"] = True
        ts["avail"] = [list(COLOURS)]
        ts["moves"].append(2 if self._has(seat, "extra_move") else 1)
        return ev + [event("bonus_action", "%s takes a bonus action." % self._who(seat), seat=seat, keep=keep)]

    # --- step 4 and the end of a turn
    def _end_turn(self, seat):
        S, ts = self.S, self.S["ts"]
        ev = []
        if not ts["final"] and not ts["step4"]:
            ts["step4"] = True
            sp = S["players"][seat]["assistant"]
            st = S["stacks"][sp]
            if st:
                c = st.pop()
                col = S["players"][seat]["mat"][c]
                if len(col) < 4:
                    col.append("tile")
                    ev.append(event("tile", "%s adds %s action tile to the mat (level %d)."
                                    % (self._who(seat), a_or_an(c), 1 + len(col)), colour=c, seat=seat))
                else:
                    S["box"][c] += 1
                    ev.append(event("tile", "The %s column is full: the tile goes to the box." % c, seat=seat, colour=c, to="box"))
            ev += self._slide_upcoming(sp)
        return ev + self._finish_turn(seat)

    def _slide_upcoming(self, sp):
        """Step 4: an emptied stack at space sp is replaced by the upcoming stack, refilled from the bag."""
        S = self.S
        if S["stacks"][sp] or not S["upcoming"]:
            return []
        S["stacks"][sp], S["upcoming"] = S["upcoming"], []
        S["upcoming"] = [None] * min(self.board["stack_size"], self._bag_physical())
        return [event("upcoming", "The upcoming stack slides to space %d%s." % (
            sp, "" if S["upcoming"] else "; the bag is empty, the upcoming slot stays empty"), space=sp, refilled=len(S["upcoming"]))]

    def _finish_turn(self, seat):
        S, ts = self.S, self.S["ts"]
        p = S["players"][seat]
        if ts["flipped"]:
            if any(len(p["mat"][c]) < 4 for c in COLOURS):
                ts["pending"] = {"kind": "place_flipped"}
                return []
            S["discarded_bonus"] += len(ts["flipped"])
            ts["flipped"] = []
        n = len(self.players)
        S["turns"] += 1
        ev = []
        ts["finished"] = True    # the solo players' end questions read where their turn is
        if not S["end"] and self.town_stuck():
            S["end"] = True
            if not any(p["supply"] for p in S["players"]):
                S["end_reason"] = "every player ran out of cubes: the town cannot be finished"
                ev.append(event("end", "No player has a cube left and no section can be finished even by pulling "
                                       "cubes back: the town cannot be finished. The round finishes.", reason="stuck"))
            else:
                S["end_reason"] = ("no player can place the cubes a section still needs: "
                                   "the town cannot be finished")
                ev.append(event("end", "No person has a cube left, the solo players' rules can never place theirs "
                                       "where a section still needs them, and no section can be finished even by "
                                       "pulling cubes back: the town cannot be finished. The round finishes.",
                                reason="stuck"))
        last = (S["first"] - 1) % n
        if ts["final"]:
            nxt = (seat + 1) % n
            if nxt == S["first"]:
                return self._final_scoring()
            S["active"] = nxt
            S["ts"] = self._new_turn(nxt, final=True)
            return [event("final", "%s takes the final action." % self._who(nxt), seat=nxt)]
        if S["end"] and seat == last:
            S["final"] = True
            S["active"] = S["first"]
            S["ts"] = self._new_turn(S["first"], final=True)
            S["phase"] = "actions"
            return ev + [event("final", "The last round is over. Everyone takes one final action, starting with %s."
                               % self._who(S["first"]), seat=S["first"], last_round=True)]
        S["active"] = (seat + 1) % n
        S["phase"] = "rondel"
        S["ts"] = self._new_turn(S["active"])
        return ev + [event("turn", "%s turn." % possessive(self._who(S["active"])), seat=S["active"])]

    # --- the end
    def town_stuck(self) -> bool:
        """True when no section can ever be finished (docs/rules/circleville.md, "A town that
        cannot be finished"). Cubes come back only when a section is finished, so: no person has
        a cube, and no unfinished section can be filled by the cubes that could still go there:
        a person's cubes on red and blue squares elsewhere (the only ones a player may pull back;
        a solo player's never are), and a solo player's cubes in supply, for the basic actions its
        rules can still take (solo placeable_colours; a player whose rules can still complete a
        section without cubes, Denzel, keeps the town open)."""
        S = self.S
        if any(p["supply"] > 0 for seat, p in enumerate(S["players"]) if seat not in self.solo_players):
            return False
        open_ = [n for n in range(1, 21) if not self._sec(n)["done"]]
        if not open_:
            return False
        solo = []   # (cubes, the colours it can still place them with)
        for seat, pl in self.solo_players.items():
            have = S["players"][seat]["supply"]
            if have <= 0:
                continue
            if pl.completes_without_cubes(self, seat):
                return False
            colours = set(pl.placeable_colours(self, seat))
            if colours:
                solo.append((have, colours))
        # a solo player never pulls cubes back (circleville-solo.md): its road cubes stay put
        roads = {n: sum(1 for seat in self._sec(n)["red"] + self._sec(n)["blue"] if seat not in self.solo_players)
                 for n in open_}
        total = sum(roads.values())

        def can_finish(n):
            s, b = self._sec(n), self.board["sections"][n]
            need = {"red": b["red"] - len(s["red"]), "blue": b["blue"] - len(s["blue"]),
                    "orange": sum(1 for i in s["icons"] if not i["cubes"])}
            kinds = [k for k in need if need[k] > 0]
            pool = total - roads[n]      # pulled-back cubes go anywhere
            # enough cubes for every set of kinds the section still needs (Hall's condition):
            # the pool and every solo player able to place one of those kinds
            for mask in range(1, 1 << len(kinds)):
                ks = {k for i, k in enumerate(kinds) if mask >> i & 1}
                if sum(need[k] for k in ks) > pool + sum(h for h, cs in solo if cs & ks):
                    return False
            return True
        return not any(can_finish(n) for n in open_)

    def quadrant_beautified(self, seat: int, q: int) -> int:
        return sum(1 for num in range(1, 21) if self.board["sections"][num]["quadrant"] == q
                   and any(seat in b for b in self._sec(num)["beautify"]))

    def _final_scoring(self):
        S = self.S
        n = len(self.players)
        ev = []
        for seat, p in enumerate(S["players"]):
            if seat not in self.solo_players:   # a solo player's supervisor is on its own mat
                ev += self._advance(seat, p["supervisor"], 1)
        values = _rank_values(self.board["end_score"], n, self.board["highlighted_rank"])
        for q in range(1, 5):
            on = [s for s in range(n) if S["players"][s]["markers"][q - 1] > 0]
            on.sort(key=lambda s: (-S["players"][s]["markers"][q - 1], -self.quadrant_beautified(s, q)))
            rank = 0
            while rank < len(on):
                s0 = on[rank]
                key = (S["players"][s0]["markers"][q - 1], self.quadrant_beautified(s0, q))
                group = [s for s in on if (S["players"][s]["markers"][q - 1], self.quadrant_beautified(s, q)) == key]
                total = sum(values[r] if r < len(values) else 0 for r in range(rank, rank + len(group)))
                share = -(-total // len(group))
                for s in group:
                    S["players"][s]["score"] += share
                    ev.append(event("score", "%s scores %d VP for quadrant %d." % (self._who(s), share, q), vp=share, seat=s))
                rank += len(group)
        for seat, p in enumerate(S["players"]):
            if seat in self.solo_players:
                continue   # solo players score their quadrant ranks only
            for t in p["tiles"]:
                if t["kind"] == "achievement":
                    vp = self.achievement_value(seat, t["id"])
                    p["score"] += vp
                    ev.append(event("score", "%s scores %d VP for achievement %d." % (self._who(seat), vp, t["id"]), vp=vp, seat=seat))
            if p["bonus"]:
                p["score"] += len(p["bonus"])
                ev.append(event("score", "%s scores %d VP for unused year bonus tiles." % (self._who(seat), len(p["bonus"])), seat=seat, vp=len(p["bonus"])))
        scores = {self.players[s]: S["players"][s]["score"] for s in range(n)}
        best = max(scores.values())
        tied = [s for s in range(n) if S["players"][s]["score"] == best]
        tiles = {s: (self.solo_players[s].mat_tiles(self, s) if s in self.solo_players
                     else sum(col.count("tile") for col in S["players"][s]["mat"].values())) for s in tied}
        most = max(tiles.values())
        winners = [self.players[s] for s in tied if tiles[s] == most]
        reason = S["end_reason"] or "the town is squared"
        S["phase"] = "over"
        self._finish(winners, scores, reason)
        ev.append(event("over", "%s win%s with %d VP." % (" and ".join(winners), "" if len(winners) > 1 else "s", best), winners=winners, scores=scores))
        return ev

    def achievement_value(self, seat: int, tid: int) -> int:
        a = self.tiles["achievements"][tid]
        S = self.S
        e = a["effect"]
        if e == "quadrant_structures":
            return a["vp"] * sum(1 for num in range(1, 21) if self.board["sections"][num]["quadrant"] == a["quadrant"]
                                 for pl in self._sec(num)["plots"] if pl["kind"] == a["structure"])
        if e == "built_structures":
            return a["vp"] * sum(1 for s in S["sections"] for pl in s["plots"]
                                 if pl["kind"] == a["structure"] and pl.get("builder") == seat and seat in pl["cubes"])
        if e == "beautify_cubes":
            return a["vp"] * sum(1 for s in S["sections"] for b in s["beautify"] if seat in b)
        if e == "mat_tiles":
            return a["vp"] * sum(col.count("tile") for col in S["players"][seat]["mat"].values())
        if e == "achievements":
            return a["vp"] * sum(1 for t in S["players"][seat]["tiles"] if t["kind"] == "achievement")
        return 0

    def render_text(self) -> str:
        """The whole table as text: sections, queue, rondel, year track, mats, scores."""
        from .render import render
        return render(self)

    def describe(self, a: dict) -> str:
        """One action in plain words (menus)."""
        if a.get("type") in ("solo", "solo_draw"):
            solo_describe = self.solo_rules.describe
            return solo_describe(self, a)
        from .render import describe
        return describe(self, a)

    # ------------------------------------------------------------------ view
    def _view(self, seat):
        S = self.S
        b = self.board
        return {
            "phase": S["phase"], "active": S["active"], "first": S["first"], "end_triggered": S["end"],
            "final_round": bool(S["final"]),
            "sections": [{"number": i + 1, "quadrant": b["sections"][i + 1]["quadrant"], "done": s["done"],
                          "red": "%d/%d" % (len(s["red"]), b["sections"][i + 1]["red"]),
                          "blue": "%d/%d" % (len(s["blue"]), b["sections"][i + 1]["blue"]),
                          # who razed each structure (the cubes on its icon)
                          "razed_by": [[self.players[x] for x in i2["cubes"]] for i2 in s["icons"]],
                          "structures": [i2["kind"] + ("*" if i2["cubes"] else "") for i2 in s["icons"]],
                          "plots": [p["kind"] or "-" for p in s["plots"]],
                          # the cubes on each plot (builder's spot, improver's spot): public pieces too
                          "plot_cubes": [[None if c is None else self.players[c] for c in p["cubes"]] for p in s["plots"]],
                          "beautify": [list(x) for x in s["beautify"]], "number_cube": s["number"],
                          "cubes": {self.players[k]: v[0] for k, v in self.section_cubes(i + 1).items()}}
                         for i, s in enumerate(S["sections"])],
            "queue": list(S["queue"]),
            "rondel": [{"space": k, "colour": b["rondel"][k], "top": (S["stacks"][k][-1] if S["stacks"][k] else None),
                        "tiles": len(S["stacks"][k]),
                        "assistants": [self.players[i] for i, p in enumerate(S["players"]) if p["assistant"] == k]}
                       for k in range(8)],
            "upcoming": len(S["upcoming"]), "bag": self._bag_physical(),
            "years": [{"year": y["year"], "bonus": y["bonus"], "achievement": y["achievement"]} for y in S["years"]],
            "achievements_table": {r: list(v) for r, v in S["table"].items()},
            "equipment": list(S["equipment"]),
            "players": [{"name": self.players[i], "score": p["score"], "supply": p["supply"],
                         "supervisor": p["supervisor"], "assistant": p["assistant"],
                         "levels": {c: self.mat_level(i, c) for c in COLOURS},
                         "mat": {c: list(v) for c, v in p["mat"].items()},
                         "tiles": ["%s %d" % (t["kind"], t["id"]) for t in p["tiles"]],
                         "year_bonus": list(p["bonus"]),
                         "quadrants": ["%d%s" % (m, " (+10)" if m >= 10 else "") for m in p["markers"]]}
                        for i, p in enumerate(S["players"])],
            "turn": None if not S["ts"] else {"actions_left": [list(x) for x in S["ts"]["avail"]],
                                              "moves_left": self._moves_available() if S["phase"] == "actions" else 0,
                                              "pending": S["ts"]["pending"]},
            "result": self.result,
            "solo": {self.players[s]: pl.view(self, s) for s, pl in self.solo_players.items()},
        }

    # ------------------------------------------------------------------ the public town layer
    # What a player does to the town, named: the human's actions (through apply) and the solo
    # players and bots (directly, following their printed rules) run the same code here. Each
    # returns the events it caused, or reads the state; none checks whose turn it is (apply does).

    def section(self, num: int) -> dict:
        """The state of section num (1..20): done, plots, icons with their cubes, roads (read it only)."""
        return self._sec(num)

    def supervisor_nodes(self) -> dict:
        """Section -> the node a supervisor stands on (a completed large section is one node)."""
        return self._components()

    def open_plots(self, sup: int) -> list:
        """Sections in the completed area of section sup that still have an empty build plot."""
        return self._open_plots(sup)

    def build(self, seat: int, num: int, kind: str, precious: bool = False) -> list:
        """seat builds a structure of kind on the first empty plot of section num."""
        return self._build(seat, num, kind, precious)

    def clean_up_section(self, seat: int, num: int, first: bool) -> list:
        """A completed section num is cleared: its cubes go home, scoring as the rules say."""
        return self._clean_up(seat, num, first)

    def take_tile(self, seat: int, kind: str, tid: int, ret: int | None) -> list:
        """seat takes tile tid of kind (equipment or an achievement), returning ret if given."""
        return self._take_tile(seat, kind, tid, ret)

    def start_action(self, seat: int, colour: str, act: str, fields: dict, value: int) -> list:
        """seat starts action act (a colour's main action or an alternate) worth value."""
        return self._start_action(seat, colour, act, fields, value)

    def pending_choices(self, seat: int, pending: dict) -> list:
        """The choices the half-done action `pending` offers seat (what apply would accept)."""
        return self._pending_legal(seat, pending)

    def resolve_pending(self, seat: int, choice: dict) -> list:
        """seat makes one choice of the half-done action."""
        return self._apply_pending(seat, choice)

    def stacks_hidden(self) -> bool:
        """True while a rondel stack still holds an undrawn (hidden) cube."""
        return self._hidden_in_stacks()

    def begin_play(self, seat: int) -> list:
        """Set-up is over: seat takes the first player marker and starts."""
        return self._begin(seat)

    def slide_upcoming(self, space: int) -> list:
        """Step 4: the emptied stack at rondel space `space` is replaced by the upcoming one."""
        return self._slide_upcoming(space)

    def finish_turn(self, seat: int) -> list:
        """seat's turn ends (years, flips and the next player as the rules say)."""
        return self._finish_turn(seat)
