"""The Circle (seeds/002_a849dcb173c2f371.txt): secret agencies against the Circle.

3-6 players gather secrets in four divisions, hire spies on the time wheel, act with them,
infiltrate the Circle and capture its members. Every reading of the rules this engine makes
is written down in docs/rules/circle.md.

Seats are 0..n-1 in clockwise order. All mutable state is in self.state; s["need"] says who
decides what next ({"seat": seat or "chance", "kind": ...}):

    first     chance: who is the first starting player
    agency    a player chooses a secret agency (starting player first, then clockwise)
    draw      chance: the neutral card turned face up (set-up, and refills)
    p1        phase 1: activate a spy, or place n of this phase's secrets in one division
    p2        phase 2: use a spy, infiltrate, activate the marker, unmask, or end
    param     the parameters of the spy action being used (targets), one pick at a time
    cancel    the homeland agency of the acting spy: cancel the action or allow it
    guard     an attacked spy's owner with a bodyguard in front: repel or allow
    division  phase 3: the recruiter picks the division a spy is hired by
    auction   phase 3: raise the bid by 1 secret or drop out
    aspy      phase 3: the auction's winner uses an auction-secrets spy or pays in full
    pay       phase 3: the winner of a grey auction picks the division of each secret paid
    warp      phase 3: a player holding a Time Warp spy uses it or passes

The time wheel is state["wheel"]: 8 lists (numbers 1..8), each a queue innermost first of
{"card", "owner" (seat or None), "rec" (an attached recruitment spy or None)}.
"""
from __future__ import annotations

from ringside.games import CHANCE, Capabilities, Game, GameError, IllegalAction, event, possessive, register

from . import cards as cardlib
from .cards import COLOURS, GREY, NATIONS, NEUTRAL

WIN_VP = 20
SECRET_LIMIT = 12
NEW_SECRETS = 4
ACTIVATION_COST = 2
PIECE_COLOURS = ("red", "blue", "green", "yellow", "white", "black")
PHASE3_TYPES = ("int_auction", "sup_warp")      # used in phase 3, not from the phase-2 menu
ATTACKS = ("ops_remove", "ops_double", "ops_foil")


def start_squares(n: int) -> tuple[int, int]:
    """(players' starting VP, the Circle's starting VP) for n players (this version's table)."""
    return 8 - n, max(0, n - 4)


@register
class Circle(Game):
    name = "circle"
    title = "The Circle"
    rulebook = ("002_a849dcb173c2f371.txt", None, None)    # seeds/: file, first heading, next heading
    min_players = 3
    max_players = 6
    default_options = {"data": None}
    capabilities = Capabilities(chance="deck", led="picture",
                                chance_prompt="turn up the top card of the deck (or pick the first player) and enter it",
                                bot_levels=("random", "easy", "good"), default_level="easy")
    option_types = {"data": ("str", "dict", "list", "null")}

    # ----- set-up -----
    def _setup(self):
        self.deck = cardlib.load(self.options["data"])
        self.card = {c["id"]: c for c in self.deck}
        n = len(self.players)
        pvp, cvp = start_squares(n)
        stacks = []
        for col in COLOURS:
            for typ in cardlib.TYPES[col]:
                st = [c["id"] for c in self.deck if c["colour"] == col and c["type"] == typ]
                st.sort(key=lambda i: (self.card[i]["homeland"] is None, i))   # homeland spy on top
                stacks.append(st)
        self.state = {
            "turn": 0, "phase": "setup", "starter": None, "actor": None, "order": [],
            "players": [{"agency": None, "marker": False, "marker_turn": -1, "vp": pvp,
                         "secrets": [0, 0, 0, 0], "ready": [], "guards": [], "front": [],
                         "infiltrated": [], "moths": 0, "infiltrations": 0, "allowed": 1}
                        for _ in range(n)],
            "circle": cvp, "stacks": stacks,
            "deck": sorted(c["id"] for c in self.deck if c["colour"] == NEUTRAL),
            "faceup": [], "wheel": [[] for _ in range(8)], "guard_on": {}, "removed": [],
            "draws": 2, "p1": None, "pending": None, "p3": None, "auction": None,
            "need": {"seat": CHANCE, "kind": "draw"},
        }
        self.state["phase"] = "first"
        self._advance([])

    def describe(self, a: dict) -> str:
        """An action in the rulebook's words (for menus)."""
        from .present import label      # the words are presentation: games/circle/present.py
        act = self.to_act()
        return label(self, act[0] if act and isinstance(act[0], int) else None, a)

    # ----- helpers -----
    def _order_from(self, first):
        n = len(self.players)
        return [(first + k) % n for k in range(n)]

    def _ctype(self, cid):
        return self.card[cid]["type"]

    def _neutral(self, cid):
        return self.card[cid]["colour"] == NEUTRAL

    def _name(self, cid):
        c = self.card[cid]
        extra = ", homeland %s" % c["homeland"] if c["homeland"] else ""
        if c["colour"] == NEUTRAL:
            extra += ", bought with %s secrets" % ("any" if c["auction"] == GREY else c["auction"])
        return "%s (%s %s, time %d, %d VP%s)" % (cid, c["colour"], c["type"], c["time"], c["vp"], extra)

    def _add_secret(self, p, d, ev):
        pl = self.state["players"][p]
        pl["secrets"][d] += 1
        if pl["secrets"][d] > SECRET_LIMIT:
            pl["secrets"][d] = 1
            pl["vp"] += 2
            self.state["circle"] += 2
            ev.append(event("arrest", "%s %s division gains its 13th secret: 2 Circle members arrested "
                            "(+2 VP, the Circle +2), the marker goes back to 1"
                            % (possessive(self.players[p]), COLOURS[d]), seat=p, division=COLOURS[d]))

    def _place_on_wheel(self, cid, owner, ev, number=None):
        num = self.card[cid]["time"] if number is None else number
        self.state["wheel"][num - 1].append({"card": cid, "owner": owner, "rec": None})
        who = "unowned" if owner is None else "with %s piece" % possessive(self.players[owner])
        ev.append(event("wheel", "%s goes on the time wheel at %d, %s" % (cid, num, who),
                        card=cid, number=num, owner=owner))

    def _find_wheel(self, cid):
        for i, q in enumerate(self.state["wheel"]):
            for j, e in enumerate(q):
                if e["card"] == cid:
                    return i, j
        return None

    def _holder(self, cid):
        """The seat whose ready spies (in front of him) include cid, or None."""
        for p, pl in enumerate(self.state["players"]):
            if cid in pl["ready"]:
                return p
        return None

    def _guard_holder(self, cid):
        for p, pl in enumerate(self.state["players"]):
            if cid in pl["guards"]:
                return p
        return None

    def _leave_ready(self, cid, ev):
        """Take cid out of its holder's ready spies; a bodyguard on it goes to the wheel."""
        p = self._holder(cid)
        self.state["players"][p]["ready"].remove(cid)
        g = self.state["guard_on"].pop(cid, None)
        if g is not None:
            ev.append(event("guard", "the bodyguard %s on %s has nothing left to guard" % (g["card"], cid), card=g["card"], guarded=cid, owner=g["owner"]))
            self._place_on_wheel(g["card"], g["owner"], ev)
        return p

    def _agency_seat(self, nation):
        for p, pl in enumerate(self.state["players"]):
            if pl["agency"] == nation:
                return p
        return None

    def _moths(self, p):
        inf = self.state["players"][p]["infiltrated"]
        counts = [sum(1 for c in inf if self.card[c]["moth"] == col) for col in COLOURS]
        jokers = sum(1 for c in inf if self.card[c]["moth"] is None)
        k = 0
        while sum(max(0, k + 1 - c) for c in counts) <= jokers and 4 * (k + 1) <= len(inf):
            k += 1
        return k

    def totals(self) -> dict:
        """Where the 60 cards are (for checks): every card exactly once."""
        s = self.state
        where = {}

        def put(cid, place):
            if cid in where:
                raise GameError("card %s is in two places (%s, %s)" % (cid, where[cid], place))
            where[cid] = place
        for st in s["stacks"]:
            for c in st:
                put(c, "stacks")
        for c in s["deck"]:
            put(c, "deck")
        for c in s["faceup"]:
            put(c, "faceup")
        for q in s["wheel"]:
            for e in q:
                put(e["card"], "wheel")
                if e["rec"]:
                    put(e["rec"]["card"], "wheel")
        for pl in s["players"]:
            for c in pl["ready"] + pl["guards"]:
                put(c, "players")
            for f in pl["front"]:
                put(f["card"], "players")
            for c in pl["infiltrated"]:
                put(c, "infiltrated")
        for g in s["guard_on"].values():
            put(g["card"], "players")
        for c in s["removed"]:
            put(c, "removed")
        if s["p3"] and s["p3"]["warp_after"]:
            put(s["p3"]["warp_after"]["card"], "wheel")
        if s["p3"]:
            for e in s["p3"]["queue"]:
                put(e["card"], "wheel")
                if e["rec"]:
                    put(e["rec"]["card"], "wheel")
        out = {}
        for v in where.values():
            out[v] = out.get(v, 0) + 1
        out["all"] = len(where)
        return out

    # ----- the contract -----
    def _to_act(self):
        return [self.state["need"]["seat"]]

    def _legal(self, seat):
        s = self.state
        kind = s["need"]["kind"]
        return getattr(self, "_legal_" + kind)(seat)

    # the fields of each action (Game.check_action refuses any other, before _apply runs)
    actions = {k: {"card": "str"} for k in ("activate", "auction_spy", "draw", "free_neutral", "infiltrate",
                                              "unmask", "use", "warp")}
    actions.update({k: {} for k in ("allow", "cancel", "drop", "end", "marker", "pass", "pay_in_full", "raise")})
    actions.update(agency={"agency": "str"}, division={"division": "str"}, pay={"division": "str"},
                   first={"seat": "int"}, repel={"guard": "str"}, secret={"division": "str", "n": "int"},
                   pick={"card?": "str", "seat?": "int", "division?": "str", "front?": "bool"})

    def _apply(self, seat, a):
        s = self.state
        kind = s["need"]["kind"]
        legal = self._legal(seat)
        if a not in legal:
            t = a.get("type")
            raise IllegalAction("%s is not legal now (%s must %s; legal: %s)"
                                % (_show(a), self.seat_name(seat), _KIND_TEXT.get(kind, kind),
                                   ", ".join(sorted({x["type"] for x in legal})) or "nothing")
                                if t else "an action needs a type")
        ev = getattr(self, "_do_" + kind)(seat, a)
        self._advance(ev)
        return ev

    # ----- set-up actions -----
    def _legal_first(self, seat):
        return [{"type": "first", "seat": p} for p in range(len(self.players))]

    def _do_first(self, seat, a):
        s = self.state
        s["starter"] = a["seat"]
        s["order"] = self._order_from(a["seat"])
        s["actor"] = a["seat"]
        s["phase"] = "agency"
        return [event("first", "%s is the first starting player" % self.players[a["seat"]], seat=a["seat"])]

    def _legal_agency(self, seat):
        taken = {pl["agency"] for pl in self.state["players"]}
        return [{"type": "agency", "agency": nat} for nat in NATIONS if nat not in taken]

    def _do_agency(self, seat, a):
        s = self.state
        s["players"][seat]["agency"] = a["agency"]
        i = s["order"].index(seat)
        if i + 1 < len(s["order"]):
            s["actor"] = s["order"][i + 1]
        else:
            s["phase"] = "reveal"
        return [event("agency", "%s takes the %s agency (marker passive)" % (self.players[seat], a["agency"]),
                      seat=seat, agency=a["agency"])]

    def _legal_draw(self, seat):
        return [{"type": "draw", "card": c} for c in self.state["deck"]]

    def _do_draw(self, seat, a):
        s = self.state
        s["deck"].remove(a["card"])
        s["faceup"].append(a["card"])
        s["draws"] -= 1
        return [event("draw", "neutral spy %s is turned face up" % self._name(a["card"]), card=a["card"])]

    # ----- the flow: everything automatic until someone must decide -----
    def _need(self, seat, kind):
        self.state["need"] = {"seat": seat, "kind": kind}

    def _advance(self, ev):
        s = self.state
        while not self.over:
            if s["circle"] >= WIN_VP:
                self._circle_wins(ev)
                return
            if s["draws"] > 0 and s["deck"] and len(s["faceup"]) < 2:
                return self._need(CHANCE, "draw")
            s["draws"] = 0
            if s["pending"] is not None:
                if self._pending_step(ev):
                    return
                continue
            ph = s["phase"]
            if ph == "first":
                return self._need(CHANCE, "first")
            if ph == "agency":
                return self._need(s["actor"], "agency")
            if ph == "reveal":
                self._start_turn(ev)
                continue
            if ph == "p1":
                if self._p1_done():
                    self._next_actor(ev)
                    continue
                return self._need(s["actor"], "p1")
            if ph == "p2":
                return self._need(s["actor"], "p2")
            if ph == "p3":
                if self._p3_step(ev):
                    return
                continue
            raise GameError("the engine lost its place (phase %r)" % ph)

    def _start_turn(self, ev):
        s = self.state
        s["turn"] += 1
        s["order"] = self._order_from(s["starter"])
        for pl in s["players"]:
            pl["infiltrations"] = 0
            pl["allowed"] = 1
        ev.append(event("turn", "turn %d: %s is the starting player" % (s["turn"], self.players[s["starter"]]),
                        turn=s["turn"], starter=s["starter"]))
        s["phase"] = "p1"
        self._begin_p1(s["order"][0], ev)

    def _next_actor(self, ev):
        s = self.state
        i = s["order"].index(s["actor"])
        if s["phase"] == "p2":
            self._end_p2_of(s["actor"], ev)
        if i + 1 < len(s["order"]):
            nxt = s["order"][i + 1]
            if s["phase"] == "p1":
                self._begin_p1(nxt, ev)
            else:
                s["actor"] = nxt
            return
        if s["phase"] == "p1":
            s["phase"] = "p2"
            s["actor"] = s["order"][0]
            ev.append(event("phase", "phase 2: actions, infiltration", phase="p2"))
        elif s["phase"] == "p2":
            if self._players_win(ev):
                return
            s["phase"] = "p3"
            s["actor"] = None
            s["p3"] = {"stage": "turn", "queue": [], "warp_idx": 0, "warp_after": None}
            ev.append(event("phase", "phase 3: the time wheel turns, spies are hired", phase="p3"))

    # ----- phase 1 -----
    def _begin_p1(self, p, ev):
        s = self.state
        s["actor"] = p
        pl = s["players"][p]
        new = NEW_SECRETS
        keep = []
        for f in pl["front"]:
            if f["kind"] == "attack" and f["turn"] <= s["turn"]:
                cut = 3 if self._neutral(f["card"]) else 2
                new = min(new, cut)
                ev.append(event("attack", "%s spy %s attacks: %s gets only %d new secrets"
                                % (possessive(self.players[f["owner"]]), f["card"], self.players[p], cut), seat=p))
                self._place_on_wheel(f["card"], f["owner"], ev)
            else:
                keep.append(f)
        pl["front"] = keep
        s["p1"] = {"left": new, "colour": False, "neutral": False, "free": p == s["starter"]}
        ev.append(event("secrets", "%s receives %d new secrets" % (self.players[p], new), seat=p, n=new))

    def _p1_done(self):
        s = self.state
        p1 = s["p1"]
        if p1["free"] and not s["faceup"]:
            p1["free"] = False      # no neutral spy is left to activate
        return p1["left"] == 0 and not p1["free"]

    def _legal_p1(self, seat):
        s = self.state
        p1 = s["p1"]
        out = []
        if p1["free"]:
            out += [{"type": "free_neutral", "card": c} for c in s["faceup"]]
        if p1["left"] >= ACTIVATION_COST and not p1["colour"]:
            out += [{"type": "activate", "card": st[0]} for st in s["stacks"] if st]
        if p1["left"] >= ACTIVATION_COST and not p1["neutral"]:
            out += [{"type": "activate", "card": c} for c in s["faceup"]]
        if p1["left"] > 0:
            out += [{"type": "secret", "division": d, "n": k} for d in COLOURS for k in range(1, p1["left"] + 1)]
        return out

    def _do_p1(self, seat, a):
        s = self.state
        p1 = s["p1"]
        ev = []
        if a["type"] == "secret":
            d = COLOURS.index(a["division"])
            p1["left"] -= a["n"]
            ev.append(event("secret", "%s puts %d secret%s in %s" % (self.players[seat], a["n"], "s" if a["n"] > 1 else "",
                                                                    a["division"]),
                            seat=seat, division=a["division"], n=a["n"]))
            for _ in range(a["n"]):
                self._add_secret(seat, d, ev)
            return ev
        cid = a["card"]
        if cid in s["faceup"]:
            s["faceup"].remove(cid)
            s["draws"] += 1
            if a["type"] == "free_neutral":
                p1["free"] = False
                how = "for free (starting player)"
            else:
                p1["neutral"] = True
                p1["left"] -= ACTIVATION_COST
                how = "for 2 secrets"
        else:
            for st in s["stacks"]:
                if st and st[0] == cid:
                    st.pop(0)
            p1["colour"] = True
            p1["left"] -= ACTIVATION_COST
            how = "for 2 secrets"
        ev.append(event("activate", "%s activates %s %s" % (self.players[seat], self._name(cid), how),
                        seat=seat, card=cid))
        self._place_on_wheel(cid, None, ev)
        return ev

    # ----- phase 2 -----
    def _blocked(self, p):
        return any(f["kind"] == "foil" and f["turn"] <= self.state["turn"] for f in self.state["players"][p]["front"])

    def _legal_p2(self, seat):
        s = self.state
        pl = s["players"][seat]
        out = []
        for cid in pl["ready"]:
            if self._ctype(cid) not in PHASE3_TYPES and self._first_picks(seat, cid, []) is not None:
                out.append({"type": "use", "card": cid})
        if pl["infiltrations"] < pl["allowed"] and not self._blocked(seat):
            out += [{"type": "infiltrate", "card": c} for c in pl["ready"]]
        if not pl["marker"] and pl["vp"] >= 1 and pl["marker_turn"] != s["turn"]:
            out.append({"type": "marker"})
        out += [{"type": "unmask", "card": c} for c in pl["infiltrated"]]
        out.append({"type": "end"})
        return out

    def _do_p2(self, seat, a):
        s = self.state
        pl = s["players"][seat]
        ev = []
        t = a["type"]
        if t == "end":
            ev.append(event("end", "%s has finished phase 2" % self.players[seat], seat=seat))
            self._next_actor(ev)
        elif t == "marker":
            pl["vp"] -= 1
            pl["marker"] = True
            pl["marker_turn"] = s["turn"]
            ev.append(event("marker", "%s pays 1 VP to activate the %s marker" % (self.players[seat], pl["agency"]),
                            seat=seat))
        elif t == "unmask":
            cid = a["card"]
            v = self.card[cid]["vp"]
            pl["infiltrated"].remove(cid)
            s["removed"].append(cid)
            pl["vp"] = max(0, pl["vp"] - v)
            s["circle"] = max(0, s["circle"] - v)
            ev.append(event("unmask", "%s unmasks %s: %s and the Circle lose %d VP; the card leaves the game"
                            % (self.players[seat], cid, self.players[seat], v), seat=seat, card=cid))
        elif t == "infiltrate":
            cid = a["card"]
            self._leave_ready(cid, ev)
            pl["infiltrated"].append(cid)
            pl["infiltrations"] += 1
            v = self.card[cid]["vp"]
            pl["vp"] += v
            ev.append(event("infiltrate", "%s spy %s infiltrates the Circle: +%d VP" % (possessive(self.players[seat]), cid, v),
                            seat=seat, card=cid))
            m = self._moths(seat)
            if m > pl["moths"]:
                pl["vp"] += m - pl["moths"]
                pl["moths"] = m
                ev.append(event("moth", "%s completes the moth: +1 VP for team infiltration" % self.players[seat],
                                seat=seat))
        else:   # use
            cid = a["card"]
            s["pending"] = {"card": cid, "seat": seat, "type": self._ctype(cid), "picks": [],
                            "stage": "param", "ctx": "p2", "failed": False, "targets": None}
            ev.append(event("use", "%s uses %s" % (self.players[seat], self._name(cid)), seat=seat, card=cid))
        return ev

    def _end_p2_of(self, p, ev):
        s = self.state
        pl = s["players"][p]
        keep = []
        for f in pl["front"]:
            if f["kind"] == "foil" and f["turn"] <= s["turn"]:
                self._place_on_wheel(f["card"], f["owner"], ev)
            else:
                keep.append(f)
        pl["front"] = keep

    # ----- spy actions: parameters -----
    def _count(self, cid):
        return 1 if self._neutral(cid) else 2

    def _wheel_entries(self):
        return [e for q in self.state["wheel"] for e in q]

    def _first_picks(self, seat, cid, picks):
        """The next legal picks for cid's action after `picks`; [] when complete; None if unusable."""
        s = self.state
        t = self._ctype(cid)
        n = len(self.players)
        k = self._count(cid)
        if t == "int_gain":
            if len(picks) >= k:
                return []
            return [{"type": "pick", "seat": p, "division": d} for p in range(n) for d in COLOURS]
        if t == "int_destroy":
            if len(picks) >= k:
                return []
            left = []
            for p in range(n):
                for di, d in enumerate(COLOURS):
                    used = sum(1 for pk in picks if pk["seat"] == p and pk["division"] == d)
                    if s["players"][p]["secrets"][di] - used > 0:
                        left.append({"type": "pick", "seat": p, "division": d})
            if not left:
                return [] if picks else None
            return left
        if t == "int_attack":
            if picks:
                return []
            return [{"type": "pick", "seat": p} for p in range(n) if p != seat]
        if t in ("sup_gain", "sup_lose"):
            if len(picks) >= k:
                return []
            sign = -1 if t == "sup_gain" else 1
            opts = []
            moved = [pk["card"] for pk in picks]
            for i, q in enumerate(s["wheel"]):
                for e in q:
                    num = i + 1 + sign * (moved.count(e["card"]) + 1)
                    if 1 <= num <= 8:
                        opts.append({"type": "pick", "card": e["card"]})
            if not opts:
                return [] if picks else None
            return opts
        if t == "sup_infiltrate":
            return []
        if t in ("rec_division", "rec_neutral", "rec_quit"):
            if picks:
                return []
            opts = []
            for e in self._wheel_entries():
                if t == "rec_quit":
                    ok = e["owner"] is not None
                else:
                    ok = e["owner"] is None and e["rec"] is None and \
                        (t == "rec_division" or not self._neutral(e["card"]))
                if ok:
                    opts.append({"type": "pick", "card": e["card"]})
            return opts or None
        if t == "rec_guard":
            if picks:
                return []
            opts = [{"type": "pick", "front": True}]
            for pl in s["players"]:
                for c in pl["ready"]:
                    if c != cid and c not in s["guard_on"]:
                        opts.append({"type": "pick", "card": c})
            return opts
        if t == "ops_capture":
            return []
        if t == "ops_remove":
            if picks:
                return []
            opts = []
            for pl in s["players"]:
                opts += [{"type": "pick", "card": c} for c in pl["ready"] + pl["guards"] if c != cid]
            opts += [{"type": "pick", "card": e["card"]} for e in self._wheel_entries() if e["owner"] is not None]
            return opts or None
        if t == "ops_double":
            if len(picks) >= 2:
                return []
            first_owner = self._holder(picks[0]["card"]) if picks else None
            opts = []
            for p, pl in enumerate(s["players"]):
                if p == first_owner:
                    continue
                opts += [{"type": "pick", "card": c} for c in pl["ready"] if c != cid]
            if not picks:   # the first pick needs a partner with another owner
                owners = {p for p, pl in enumerate(s["players"]) for c in pl["ready"] if c != cid}
                if len(owners) < 2:
                    return None
            return opts or None
        if t == "ops_foil":
            if picks:
                return []
            opts = []
            for pl in s["players"]:
                opts += [{"type": "pick", "card": c} for c in pl["ready"] if c != cid]
            opts += [{"type": "pick", "seat": p} for p in range(n) if p != seat]
            return opts
        return None     # int_auction, sup_warp: phase 3 only

    def _legal_param(self, seat):
        pd = self.state["pending"]
        return self._first_picks(pd["seat"], pd["card"], pd["picks"]) or []

    def _do_param(self, seat, a):
        self.state["pending"]["picks"].append(dict(a))
        return []

    # ----- spy actions: the homeland, bodyguards, resolution -----
    def _pending_step(self, ev):
        """Move the pending spy action on. True when someone must decide."""
        s = self.state
        pd = s["pending"]
        if pd["stage"] == "param":
            nxt = self._first_picks(pd["seat"], pd["card"], pd["picks"]) if pd["ctx"] == "p2" else []
            if nxt:
                self._need(pd["seat"], "param")
                return True
            pd["stage"] = "cancel"
        if pd["stage"] == "cancel":
            pd["stage"] = "guard"
            home = self.card[pd["card"]]["homeland"]
            h = self._agency_seat(home) if home else None
            if h is not None and h != pd["seat"] and s["players"][h]["marker"]:
                pd["stage"] = "cancel_wait"
                self._need(h, "cancel")
                return True
        if pd["stage"] == "cancel_wait":
            return True
        if pd["stage"] == "guard":
            if pd["targets"] is None:
                pd["targets"] = self._attacked(pd)
            while pd["targets"] and not pd["failed"]:
                tcid = pd["targets"][0]
                g = s["guard_on"].get(tcid)
                if g is not None:
                    del s["guard_on"][tcid]
                    ev.append(event("guard", "the bodyguard %s on %s repels the attack" % (g["card"], tcid), card=g["card"], guarded=tcid, owner=g["owner"], repelled=True))
                    self._place_on_wheel(g["card"], g["owner"], ev)
                    pd["failed"] = True
                    break
                gh = self._guard_holder(tcid)
                if gh is not None:
                    s["players"][gh]["guards"].remove(tcid)
                    ev.append(event("guard", "the bodyguard %s is attacked himself and repels it" % tcid, card=tcid, owner=gh, repelled=True))
                    self._place_on_wheel(tcid, gh, ev)
                    pd["failed"] = True
                    break
                o = self._holder(tcid)
                if o is not None and s["players"][o]["guards"]:
                    self._need(o, "guard")
                    return True
                pd["targets"].pop(0)
            self._resolve(pd, ev)
            return False
        raise GameError("the engine lost its place (pending %r)" % pd["stage"])

    def _attacked(self, pd):
        """Ready spies (in front of a player) that this action attacks, in order."""
        t = pd["type"]
        if t not in ATTACKS:
            return []
        out = []
        for pk in pd["picks"]:
            c = pk.get("card")
            if c is not None and (self._holder(c) is not None or self._guard_holder(c) is not None):
                out.append(c)
        return out

    def _legal_cancel(self, seat):
        return [{"type": "cancel"}, {"type": "allow"}]

    def _do_cancel(self, seat, a):
        s = self.state
        pd = s["pending"]
        ev = []
        if a["type"] == "allow":
            pd["stage"] = "guard"
            ev.append(event("allow", "%s lets %s act" % (self.players[seat], pd["card"]), seat=seat, card=pd["card"]))
            return ev
        s["players"][seat]["marker"] = False
        # "In the next turn it may be re-activated": the cancel's turn counts like an activation's
        s["players"][seat]["marker_turn"] = s["turn"]
        ev.append(event("cancel", "%s orders homeland spy %s to cancel the action; the %s marker turns passive"
                        % (self.players[seat], pd["card"], s["players"][seat]["agency"]), seat=seat, card=pd["card"]))
        s["pending"] = None
        if pd["ctx"] == "auction":
            s["auction"]["bonus"] = 0
            s["auction"]["spy_done"] = True
        self._leave_ready(pd["card"], ev)
        self._place_on_wheel(pd["card"], pd["seat"], ev)
        if pd["ctx"] == "warp":
            s["p3"]["warp_idx"] += 1
        return ev

    def _legal_guard(self, seat):
        s = self.state
        out = [{"type": "repel", "guard": g} for g in s["players"][seat]["guards"]]
        return out + [{"type": "allow"}]

    def _do_guard(self, seat, a):
        s = self.state
        pd = s["pending"]
        ev = []
        if a["type"] == "allow":
            pd["targets"].pop(0)
            ev.append(event("allow", "%s does not repel the attack" % self.players[seat], seat=seat, card=pd["card"]))
            return ev
        s["players"][seat]["guards"].remove(a["guard"])
        ev.append(event("guard", "%s bodyguard %s repels the attack" % (possessive(self.players[seat]), a["guard"]), seat=seat, card=a["guard"], repelled=True))
        self._place_on_wheel(a["guard"], seat, ev)
        pd["failed"] = True
        return ev

    def _resolve(self, pd, ev):
        """Perform the pending action (unless it failed) and put the acting spy where it goes."""
        s = self.state
        s["pending"] = None
        seat, cid, t = pd["seat"], pd["card"], pd["type"]
        who = self.players[seat]
        if pd["ctx"] == "auction":
            s["auction"]["bonus"] = self._count(cid)
            s["auction"]["spy_done"] = True
            ev.append(event("auction_spy", "%s spy %s brings %d secrets of his own" % (possessive(who), cid, self._count(cid)), seat=seat, card=cid, n=self._count(cid)))
            self._leave_ready(cid, ev)
            self._place_on_wheel(cid, seat, ev)
            return
        if pd["ctx"] == "warp":
            self._leave_ready(cid, ev)
            s["p3"]["warp_after"] = {"card": cid, "owner": seat}
            s["p3"]["stage"] = "turn"
            ev.append(event("warp", "%s spy %s does the time warp: the wheel turns again" % (possessive(who), cid), seat=seat, card=cid))
            return
        picks = pd["picks"]
        self._leave_ready(cid, ev)
        to_wheel = True
        if pd["failed"]:
            ev.append(event("failed", "the attack of %s fails" % cid, card=cid, seat=seat))
        elif t == "int_gain":
            for pk in picks:
                p, d = pk["seat"], COLOURS.index(pk["division"])
                ev.append(event("gain", "%s gives %s a secret in %s" % (who, self.players[p], pk["division"]), seat=seat, target=p, division=pk["division"]))
                self._add_secret(p, d, ev)
        elif t == "int_destroy":
            for pk in picks:
                p, d = pk["seat"], COLOURS.index(pk["division"])
                s["players"][p]["secrets"][d] -= 1
                ev.append(event("destroy", "%s destroys a secret of %s in %s" % (who, self.players[p], pk["division"]), seat=seat, target=p, division=pk["division"]))
        elif t == "int_attack":
            v = picks[0]["seat"]
            s["players"][v]["front"].append({"card": cid, "owner": seat, "kind": "attack", "turn": s["turn"] + 1})
            ev.append(event("attack", "%s places %s before %s: fewer new secrets next phase 1"
                            % (who, cid, self.players[v]), seat=seat, card=cid, target=v))
            to_wheel = False
        elif t in ("sup_gain", "sup_lose"):
            sign = -1 if t == "sup_gain" else 1
            for pk in picks:
                i, j = self._find_wheel(pk["card"])
                e = s["wheel"][i].pop(j)
                s["wheel"][i + sign].append(e)
                ev.append(event("move", "%s moves %s from %d to %d on the wheel" % (who, pk["card"], i + 1, i + 1 + sign), seat=seat, card=pk["card"], from_number=i + 1, to_number=i + 1 + sign))
        elif t == "sup_infiltrate":
            s["players"][seat]["allowed"] += 1
            ev.append(event("allow_infiltration", "%s may infiltrate one more spy this turn" % who, seat=seat, allowed=s["players"][seat]["allowed"]))
        elif t in ("rec_division", "rec_neutral"):
            i, j = self._find_wheel(picks[0]["card"])
            s["wheel"][i][j]["rec"] = {"card": cid, "owner": seat, "kind": t}
            ev.append(event("recruit", "%s places %s at %s" % (who, cid, picks[0]["card"]), seat=seat, card=cid, target_card=picks[0]["card"]))
            to_wheel = False
        elif t == "rec_quit":
            i, j = self._find_wheel(picks[0]["card"])
            old = s["wheel"][i][j]["owner"]
            s["wheel"][i][j]["owner"] = None
            ev.append(event("quit", "%s removes %s piece from %s" % (who, possessive(self.players[old]), picks[0]["card"]), seat=seat, target=old, target_card=picks[0]["card"]))
        elif t == "rec_guard":
            if picks[0].get("front"):
                s["players"][seat]["guards"].append(cid)
                ev.append(event("guard", "%s places bodyguard %s in front of himself" % (who, cid), seat=seat, card=cid, front=True))
            else:
                s["guard_on"][picks[0]["card"]] = {"card": cid, "owner": seat}
                ev.append(event("guard", "%s places bodyguard %s at %s" % (who, cid, picks[0]["card"]), seat=seat, card=cid, guarded=picks[0]["card"]))
            to_wheel = False
        elif t == "ops_capture":
            s["players"][seat]["vp"] += 1
            s["circle"] += 1
            ev.append(event("capture", "%s captures a Circle member: +1 VP, the Circle +1" % who, seat=seat, vp=s["players"][seat]["vp"], circle_vp=s["circle"]))
        elif t == "ops_remove":
            c = picks[0]["card"]
            if self._holder(c) is not None:
                self._leave_ready(c, ev)
            elif self._guard_holder(c) is not None:
                s["players"][self._guard_holder(c)]["guards"].remove(c)
            else:
                i, j = self._find_wheel(c)
                e = s["wheel"][i].pop(j)
                if e["rec"]:
                    self._place_on_wheel(e["rec"]["card"], e["rec"]["owner"], ev)
            s["removed"].append(c)
            ev.append(event("remove", "%s removes %s from the game" % (who, c), seat=seat, card=c))
        elif t == "ops_double":
            a, b = picks[0]["card"], picks[1]["card"]
            pa, pb = self._holder(a), self._holder(b)
            s["players"][pa]["ready"].remove(a)
            s["players"][pb]["ready"].remove(b)
            s["players"][pa]["ready"].append(b)
            s["players"][pb]["ready"].append(a)
            ev.append(event("double", "double agents: %s goes to %s, %s to %s"
                            % (a, self.players[pb], b, self.players[pa]), seat=seat, cards=[a, b], to_seats=[pb, pa]))
        elif t == "ops_foil":
            if "seat" in picks[0]:
                v = picks[0]["seat"]
                s["players"][v]["front"].append({"card": cid, "owner": seat, "kind": "foil", "turn": s["turn"] + 1})
                ev.append(event("foil", "%s places %s before %s: no infiltration in the next phase 2"
                                % (who, cid, self.players[v]), seat=seat, card=cid, target=v))
                to_wheel = False
            else:
                c = picks[0]["card"]
                o = self._leave_ready(c, ev)
                ev.append(event("foil", "%s foils %s: it starts its preparations anew" % (who, c), seat=seat, target_card=c, owner=o))
                self._place_on_wheel(c, o, ev)
        if to_wheel:
            self._place_on_wheel(cid, seat, ev)

    # ----- phase 3 -----
    def _turn_wheel(self, ev):
        s = self.state
        w = s["wheel"]
        s["wheel"] = w[1:] + [w[0]]
        s["p3"]["queue"] = s["wheel"][7]
        s["wheel"][7] = []
        s["p3"]["stage"] = "queue"
        ev.append(event("wheel_turn", "the time wheel turns: %d spies reach 8" % len(s["p3"]["queue"]),
                        n=len(s["p3"]["queue"])))

    def _p3_step(self, ev):
        s = self.state
        p3 = s["p3"]
        if p3["stage"] == "turn":
            self._turn_wheel(ev)
        if p3["stage"] == "queue":
            while p3["queue"] or s["auction"]:
                if s["auction"] is None:
                    e = p3["queue"][0]
                    if e["owner"] is not None:
                        p3["queue"].pop(0)
                        s["players"][e["owner"]]["ready"].append(e["card"])
                        ev.append(event("returns", "%s returns to %s, ready" % (e["card"], self.players[e["owner"]]),
                                        card=e["card"], seat=e["owner"]))
                        continue
                    if e["rec"] and e["rec"]["kind"] == "rec_division" and "division" not in e["rec"]:
                        self._need(e["rec"]["owner"], "division")
                        return True
                    self._open_hire(e, ev)
                    if s["auction"] is None:
                        continue
                if self._auction_step(ev):
                    return True
            if p3["warp_after"]:
                w = p3["warp_after"]
                p3["warp_after"] = None
                self._place_on_wheel(w["card"], w["owner"], ev)
                p3["warp_idx"] += 1
            p3["stage"] = "warp"
        if p3["stage"] == "warp":
            order = s["order"]
            while p3["warp_idx"] < len(order):
                p = order[p3["warp_idx"]]
                if any(self._ctype(c) == "sup_warp" for c in s["players"][p]["ready"]):
                    self._need(p, "warp")
                    return True
                p3["warp_idx"] += 1
            s["p3"] = None
            s["starter"] = (s["starter"] + 1) % len(self.players)
            s["phase"] = "reveal"
            return False
        return False

    def _legal_division(self, seat):
        return [{"type": "division", "division": d} for d in COLOURS]

    def _do_division(self, seat, a):
        e = self.state["p3"]["queue"][0]
        e["rec"]["division"] = a["division"]
        return [event("division", "%s has %s hired by the %s divisions" % (self.players[seat], e["card"], a["division"]), seat=seat, card=e["card"], division=a["division"])]

    def _open_hire(self, e, ev):
        """Hire the unowned spy e at 8: to the division leader, or open an auction."""
        s = self.state
        cid = e["card"]
        c = self.card[cid]
        n = len(self.players)
        rec = e["rec"]
        if rec and rec["kind"] == "rec_division":
            div = rec["division"]
            everyone = False
        elif c["colour"] == NEUTRAL or (rec and rec["kind"] == "rec_neutral"):
            div = c["auction"]
            everyone = True
        else:
            div = c["colour"]
            everyone = False
        if everyone:
            parts = list(s["order"])
        else:
            d = COLOURS.index(div)
            top = max(s["players"][p]["secrets"][d] for p in range(n))
            parts = [p for p in s["order"] if s["players"][p]["secrets"][d] == top]
            if len(parts) == 1:
                self._hired(parts[0], 0, ev, why="leads %s" % div)
                return
        s["auction"] = {"card": cid, "colour": div, "parts": parts, "idx": 0, "bid": 0, "high": None,
                        "won": None, "bonus": 0, "spy_done": False, "due": None}
        ev.append(event("auction", "auction for %s in %s secrets: %s" % (cid, div if div != GREY else "any division's",
                                                                          ", ".join(self.players[p] for p in parts)), card=cid, division=div, seats=list(parts)))

    def _base(self, p, colour):
        sec = self.state["players"][p]["secrets"]
        return sum(sec) if colour == GREY else sec[COLOURS.index(colour)]

    def _spy_bonus(self, p):
        return max([self._count(c) for c in self.state["players"][p]["ready"] if self._ctype(c) == "int_auction"] or [0])

    def _auction_step(self, ev):
        s = self.state
        au = s["auction"]
        if au["won"] is None:
            while True:
                if len(au["parts"]) == 1:
                    au["won"] = au["parts"][0]
                    ev.append(event("auction_won", "%s wins the auction for %s at %d"
                                    % (self.players[au["won"]], au["card"], au["bid"]), seat=au["won"], card=au["card"], bid=au["bid"]))
                    break
                p = au["parts"][au["idx"]]
                if self._base(p, au["colour"]) + self._spy_bonus(p) < au["bid"] + 1:
                    au["parts"].pop(au["idx"])
                    au["idx"] %= len(au["parts"])
                    ev.append(event("auction_out", "%s cannot raise and is out" % self.players[p], seat=p, card=au["card"]))
                    continue
                self._need(p, "auction")
                return True
        w = au["won"]
        if not au["spy_done"]:
            spies = [c for c in s["players"][w]["ready"] if self._ctype(c) == "int_auction"]
            if spies and au["bid"] > 0:
                self._need(w, "aspy")
                return True
            au["spy_done"] = True
        if au["due"] is None:
            au["due"] = min(max(0, au["bid"] - au["bonus"]), self._base(w, au["colour"]))
        if au["colour"] != GREY:
            d = COLOURS.index(au["colour"])
            s["players"][w]["secrets"][d] -= au["due"]
            au["due"] = 0
        if au["due"] > 0:
            self._need(w, "pay")
            return True
        s["auction"] = None
        self._hired(w, au["bid"], ev, why="won the auction")
        return False

    def _hired(self, p, bid, ev, why):
        s = self.state
        e = s["p3"]["queue"].pop(0)
        s["players"][p]["ready"].append(e["card"])
        ev.append(event("hired", "%s hires %s (%s)" % (self.players[p], e["card"], why), seat=p, card=e["card"]))
        if e["rec"]:
            self._place_on_wheel(e["rec"]["card"], e["rec"]["owner"], ev)

    def _legal_auction(self, seat):
        return [{"type": "raise"}, {"type": "drop"}]

    def _do_auction(self, seat, a):
        au = self.state["auction"]
        if a["type"] == "raise":
            au["bid"] += 1
            au["high"] = seat
            au["idx"] = (au["idx"] + 1) % len(au["parts"])
            return [event("bid", "%s bids %d" % (self.players[seat], au["bid"]), seat=seat, bid=au["bid"])]
        au["parts"].pop(au["idx"])
        au["idx"] %= len(au["parts"])
        return [event("drop", "%s drops out" % self.players[seat], seat=seat)]

    def _legal_aspy(self, seat):
        s = self.state
        au = s["auction"]
        out = [{"type": "auction_spy", "card": c} for c in s["players"][seat]["ready"]
               if self._ctype(c) == "int_auction"]
        if self._base(seat, au["colour"]) >= au["bid"]:
            out.append({"type": "pay_in_full"})
        return out

    def _do_aspy(self, seat, a):
        s = self.state
        au = s["auction"]
        if a["type"] == "pay_in_full":
            au["spy_done"] = True
            return [event("pay", "%s pays %d secrets" % (self.players[seat], au["bid"]), seat=seat, n=au["bid"])]
        s["pending"] = {"card": a["card"], "seat": seat, "type": "int_auction", "picks": [], "stage": "cancel",
                        "ctx": "auction", "failed": False, "targets": []}
        return [event("use", "%s uses %s in the auction" % (self.players[seat], self._name(a["card"])), seat=seat, card=a["card"])]

    def _legal_pay(self, seat):
        sec = self.state["players"][seat]["secrets"]
        return [{"type": "pay", "division": d} for i, d in enumerate(COLOURS) if sec[i] > 0]

    def _do_pay(self, seat, a):
        au = self.state["auction"]
        self.state["players"][seat]["secrets"][COLOURS.index(a["division"])] -= 1
        au["due"] -= 1
        return [event("pay", "%s pays a %s secret" % (self.players[seat], a["division"]), seat=seat, division=a["division"])]

    def _legal_warp(self, seat):
        out = [{"type": "warp", "card": c} for c in self.state["players"][seat]["ready"]
               if self._ctype(c) == "sup_warp"]
        return out + [{"type": "pass"}]

    def _do_warp(self, seat, a):
        s = self.state
        if a["type"] == "pass":
            s["p3"]["warp_idx"] += 1
            return [event("pass", "%s does not warp time" % self.players[seat], seat=seat)]
        s["pending"] = {"card": a["card"], "seat": seat, "type": "sup_warp", "picks": [], "stage": "cancel",
                        "ctx": "warp", "failed": False, "targets": []}
        return [event("use", "%s uses %s" % (self.players[seat], self._name(a["card"])), seat=seat, card=a["card"])]

    # ----- the end -----
    def _total(self, p):
        return sum(self.state["players"][p]["secrets"])

    def _scores(self):
        sc = {self.players[p]: pl["vp"] for p, pl in enumerate(self.state["players"])}
        sc["Circle"] = self.state["circle"]
        return sc

    def _players_win(self, ev):
        s = self.state
        n = len(self.players)
        vps = [s["players"][p]["vp"] for p in range(n)]
        if max(vps) < WIN_VP:
            return False
        top = max(vps)
        best = [p for p in range(n) if vps[p] == top]
        most = max(self._total(p) for p in best)
        win = [p for p in best if self._total(p) == most]
        names = " and ".join(self.players[p] for p in win)
        why = "%s reach%s %d VP after phase 2: the Circle is wiped out" % (names, "" if len(win) > 1 else "es", top)
        ev.append(event("game_over", why, winners=win))
        self._finish([self.players[p] for p in win], self._scores(), why)
        self.result["seats"] = win
        self.result["circle_won"] = False
        return True

    def _circle_wins(self, ev):
        s = self.state
        n = len(self.players)
        low = min(s["players"][p]["vp"] for p in range(n))
        weakest = [p for p in range(n) if s["players"][p]["vp"] == low]
        least = min(self._total(p) for p in weakest)
        win = [p for p in weakest if self._total(p) == least]
        why = ("the Circle reaches %d VP and wins; %s, the weakest agency, joins it and 'wins'"
               % (s["circle"], " and ".join(self.players[p] for p in win)))
        ev.append(event("game_over", why, winners=win))
        self._finish([self.players[p] for p in win], self._scores(), why)
        self.result["seats"] = win
        self.result["circle_won"] = True

    # ----- what a seat sees -----
    def _view(self, seat):
        s = self.state
        wheel = []
        for i, q in enumerate(s["wheel"]):
            spies = []
            for e in q:
                spies.append({"card": e["card"], "owner": e["owner"],
                              "colour": "grey" if e["owner"] is None else PIECE_COLOURS[e["owner"]],
                              "rec": dict(e["rec"]) if e["rec"] else None})
            wheel.append({"number": i + 1, "spies": spies})
        if s["p3"]:
            # phase 3: the spies that reached 8 wait beside it (innermost first) until they are
            # hired or returned; they are public, so the view (and the LED wheel) shows them there
            wheel[7]["spies"][:0] = [{"card": e["card"], "owner": e["owner"],
                                      "colour": "grey" if e["owner"] is None else PIECE_COLOURS[e["owner"]],
                                      "rec": dict(e["rec"]) if e["rec"] else None}
                                     for e in s["p3"]["queue"]]
        warp = s["p3"]["warp_after"] if s["p3"] else None
        players = []
        for p, pl in enumerate(s["players"]):
            players.append({"name": self.players[p], "seat": p, "colour": PIECE_COLOURS[p],
                            "agency": pl["agency"], "marker": "active" if pl["marker"] else "passive",
                            "vp": pl["vp"], "secrets": dict(zip(COLOURS, pl["secrets"], strict=True)),
                            "ready": list(pl["ready"]), "bodyguards": list(pl["guards"]),
                            "in_front": [dict(f) for f in pl["front"]],
                            "infiltrated": list(pl["infiltrated"]), "moths": pl["moths"],
                            "infiltrations_this_turn": pl["infiltrations"], "infiltrations_allowed": pl["allowed"]})
        need = s["need"]
        return {
            "game": self.name, "turn": s["turn"], "phase": s["phase"], "starter": s["starter"],
            "to_act": self.to_act(), "deciding": need["kind"] if not self.over else None,
            "circle_vp": s["circle"], "win_vp": WIN_VP, "players": players,
            "stacks": [{"colour": self.card[st[0]]["colour"] if st else None, "top": st[0] if st else None,
                        "size": len(st)} for st in s["stacks"]],
            "faceup": list(s["faceup"]), "deck_size": len(s["deck"]),     # the face-down deck stays hidden
            "wheel": wheel, "wheel_ready_number": 8,
            "bodyguards_on": {k: dict(v) for k, v in s["guard_on"].items()},
            "removed": list(s["removed"]),
            "phase1": dict(s["p1"]) if s["p1"] and s["phase"] == "p1" else None,
            "pending": {k: s["pending"][k] for k in ("card", "seat", "type", "picks")} if s["pending"] else None,
            "auction": dict(s["auction"]) if s["auction"] else None,
            # the Time Warp spy whose second turn of the wheel is being resolved (it goes on the
            # wheel when that is over)
            "time_warp": {"card": warp["card"], "owner": warp["owner"], "colour": PIECE_COLOURS[warp["owner"]]}
            if warp else None,
            "result": self.result,
        }

    # ----- what a player (or a bot) may ask of the table, by name -----
    def moths(self, seat: int) -> list:
        """Per colour, how many of seat's infiltrated spies show that moth."""
        return self._moths(seat)

    def holder(self, card: str) -> int | None:
        """The seat whose ready spies include card, or None."""
        return self._holder(card)

    def guard_holder(self, card: str) -> None:
        """The seat guarding card, or None."""
        return self._guard_holder(card)

    def find_wheel(self, card: str) -> tuple[int, int]:
        """Where card lies on the time wheel, or None."""
        return self._find_wheel(card)

    def base_strength(self, seat: int, colour: str) -> int:
        """seat's secret strength in colour (grey: all colours together)."""
        return self._base(seat, colour)

    def spy_bonus(self, seat: int) -> int:
        """The auction bonus seat's ready intelligence spies give."""
        return self._spy_bonus(seat)


_KIND_TEXT = {"first": "name the first starting player", "agency": "choose an agency", "draw": "draw a neutral card",
              "p1": "activate spies or place secrets", "p2": "act in phase 2", "param": "pick a target",
              "cancel": "cancel or allow", "guard": "repel or allow", "division": "pick a division",
              "auction": "raise or drop", "aspy": "use an auction spy or pay", "pay": "pick a division to pay from",
              "warp": "warp or pass"}


def _show(a):
    return " ".join("%s=%s" % (k, v) for k, v in a.items()) if isinstance(a, dict) else repr(a)
