"""Wild West, the second game of the Circles rulebook (seeds/001_ef80526ab0ed9dc2.txt).

Flick the marble clockwise, resolve the space it stops on (bank, saloon, bandit, gold,
shop, donation bowl, money bag, mine, dig, ranch), trade silver up to gold and gold up to
rubies, and be the first to buy the ranch for 2 rubies. The printed data (components,
mine, bag, shop prices, donation bowl, the bandit die) is data.json; every reading of the
rules is written down in docs/rules/wildwest.md.

Seats are 0..n-1 in clockwise (playing) order. Phases (state["phase"]), and who acts:

    flick          the active player: a ring result
    vote           each player in turn, on an unclear landing: which space
    sheriff        the sheriff, when the vote is not a majority
    tickets        the active player: ride one space on a train ticket, or resolve
    bank           deposit or withdraw one disc at a time, then done
    saloon_decide  play for money or pass
    saloon_bets    each other player: bet the highest coin or buy out
    saloon_flick   each bettor flicks from the saloon (a ring result)
    roll           chance: the bandit die
    rob            the active player picks the victim
    shop           buy one token or pass
    dig            dig (with a shovel) or pass
    draw           chance: a disc from the bag
    ranch          buy the ranch or pass
"""
from __future__ import annotations

import random
from pathlib import Path

from ringside.games import CHANCE, Capabilities, Game, GameError, IllegalAction, event, possessive, register
from ringside.games import circles_common as cc
from ringside.games.wildwest import money as M

DATA_PATH = Path(__file__).with_name("data.json")

KINDS = ("bank", "saloon", "bandit", "gold", "shop", "donation-bowl", "money-bag", "mine", "dig", "ranch")
FACES = ("silver", "gold", "shovel", "ticket", "bank", "donation")
FACE_TEXT = {"silver": "steal 1 silver", "gold": "steal 1 gold", "shovel": "steal a shovel",
             "ticket": "steal a train ticket", "bank": "steal everyone's money from the bank",
             "donation": "the donation bowl (no stealing donations: use the bowl as usual)"}
ITEMS = {"shovel": "shovels", "ticket": "tickets", "wagon": "wagons"}
DISCS = ("silver", "gold", "ruby", "stone")


def _holding(d, where, kinds=M.KINDS):
    if not isinstance(d, dict) or any(k not in kinds for k in d):
        raise GameError("Wild West data: %s must map %s to counts" % (where, "/".join(kinds)))
    out = {}
    for k in kinds:
        v = d.get(k, 0)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise GameError("Wild West data: %s %s must be a count, not %r" % (where, k, v))
        out[k] = v
    return out


def load_data(override: dict | str | Path | None = None) -> dict:
    """The Wild West data (data.json or the user's own), validated and normalised."""
    d = cc.load_data(DATA_PATH, override, "Wild West data")
    out = {}
    comp = d.get("components")
    out["components"] = _holding(comp, "components", DISCS + ("tickets", "shovels", "wagons"))
    for key in ("start", "hard_start"):
        out[key] = _holding(d.get(key), key, ("tickets", "silver", "wagons"))
    mine = d.get("mine")
    if not isinstance(mine, list) or not mine:
        raise GameError("Wild West data: mine must be a list of spaces, outermost first")
    out["mine"] = [_holding(m, "mine space %d" % (i + 1)) for i, m in enumerate(mine)]
    out["bag"] = _holding(d.get("bag"), "bag", DISCS)
    shop = d.get("shop")
    if not isinstance(shop, dict) or not shop or any(k not in ITEMS or v not in M.KINDS for k, v in shop.items()):
        raise GameError("Wild West data: shop must map shovel/ticket/wagon to the disc it costs")
    out["shop"] = dict(shop)
    bowl = d.get("donation_bowl")
    if not isinstance(bowl, list) or not bowl:
        raise GameError("Wild West data: donation_bowl must list its spaces, lowest first")
    out["donation_bowl"] = [_holding(b, "donation bowl space %d" % (i + 1)) for i, b in enumerate(bowl)]
    if any(M.count(b) == 0 for b in out["donation_bowl"]):
        raise GameError("Wild West data: every donation bowl space asks for some money")
    die = d.get("bandit_die")
    if not isinstance(die, list) or len(die) < 1 or any(f not in FACES for f in die):
        raise GameError("Wild West data: bandit_die must list faces from: %s" % ", ".join(FACES))
    out["bandit_die"] = list(die)
    for key, lo, hi in (("ruby_limit", 1, 12), ("ranch_rubies", 1, 12), ("min_steps", 1, 19)):
        out[key] = cc.need_int(d, key, lo, hi, "Wild West data")
    if out["ranch_rubies"] > out["ruby_limit"]:
        raise GameError("Wild West data: the ranch cannot cost more rubies than a player may hold")
    if d.get("saloon_buy_out") not in M.KINDS:
        raise GameError("Wild West data: saloon_buy_out must be silver, gold or ruby")
    out["saloon_buy_out"] = d["saloon_buy_out"]
    return out


def _others_from(active, n):
    return [(active + k) % n for k in range(1, n)]


@register
class WildWest(Game):
    name = "wildwest"
    title = "Wild West"
    rulebook = ("001_ef80526ab0ed9dc2.txt", "Wild West", None)
    min_players = 2
    max_players = 5
    default_options = {"hard": False, "ages": None, "data": None, "ring": None}
    capabilities = Capabilities(ring_side="wildwest", chance="die and bag",
                                chance_prompt="roll the bandit die, or draw a disc from the bag, and enter what it gave",
                                bot_levels=("random", "easy", "good"), default_level="easy")
    option_types = {"ages": ("list", "null"), "data": ("str", "dict", "null"), "ring": ("str", "dict", "null")}

    # ----- set-up -----
    def _setup(self):
        n = len(self.players)
        self.data = D = load_data(self.options["data"])
        self.ring = cc.ring_dict(self.options["ring"])
        self.side = cc.load_side("wildwest", self.ring)
        self.side.require(kinds=KINDS, what="Wild West")
        ranches = self.side.of_kind("ranch")
        self.start = self.side.start if self.side.start in ranches else ranches[0]
        self.ages = cc.check_ages(self.options["ages"], n)
        if not isinstance(self.options["hard"], bool):
            raise GameError("the 'hard' option is true or false")
        self.max_travel = cc.flick_model(self.ring).max_travel
        st = D["hard_start"] if self.options["hard"] else D["start"]
        comp = D["components"]
        reserve = {}
        for k in M.KINDS:
            left = comp[k] - sum(m[k] for m in D["mine"]) - D["bag"][k] - (n * st["silver"] if k == "silver" else 0)
            if left < 0:
                raise GameError("the box has too few %s discs for this set-up with %d players" % (k, n))
            reserve[k] = left
        if D["bag"]["stone"] > comp["stone"]:
            raise GameError("the bag holds more stones than the box has")
        shop = {}
        for item in ("tickets", "shovels", "wagons"):
            left = comp[item] - n * st.get(item, 0)
            if left < 0:
                raise GameError("the box has too few %s for %d players" % (item, n))
            shop[item] = left
        first = cc.youngest(range(n), self.ages)
        self.state = {
            "phase": "flick",
            "active": first,
            "sheriff": first,
            "marble": self.start,
            "turns": 0,
            "purse": [{"silver": st["silver"], "gold": 0, "ruby": 0} for _ in range(n)],
            "bank": [M.empty() for _ in range(n)],
            "tickets": [st["tickets"]] * n,
            "shovels": [0] * n,
            "wagons": [st["wagons"]] * n,
            "reserve": reserve,
            "bag": dict(D["bag"]),
            "stones_out": comp["stone"] - D["bag"]["stone"],
            "mine": [dict(m) for m in D["mine"]],
            "bowl": [None] * len(D["donation_bowl"]),
            "shop": shop,
            "vote": None,
            "bank_visit": None,
            "saloon": None,
            "rob": None,
            "last": None,
        }
        for p in range(n):
            M.settle(self.state["purse"][p], reserve, D["ruby_limit"])

    # ----- whose turn -----
    def _to_act(self):
        s = self.state
        ph = s["phase"]
        if ph in ("roll", "draw"):
            return [CHANCE]
        if ph == "vote":
            return [s["vote"]["queue"][0]]
        if ph == "sheriff":
            return [s["sheriff"]]
        if ph in ("saloon_bets", "saloon_flick"):
            return [s["saloon"]["queue"][0]]
        return [s["active"]]

    def saloon_space(self) -> str:
        return self.side.of_kind("saloon")[0] if self.state["saloon"] is None else self.state["saloon"]["space"]

    def flick_request(self) -> dict | None:
        s = self.state
        if self.over:
            return None
        if s["phase"] == "flick":
            return {"seat": s["active"], "from": s["marble"], "directions": [cc.CW],
                    "min_steps": self.data["min_steps"], "purpose": "turn"}
        if s["phase"] == "saloon_flick":
            return {"seat": s["saloon"]["queue"][0], "from": s["saloon"]["space"], "directions": [cc.CW],
                    "min_steps": self.side.n, "purpose": "saloon", "target_travel": -360.0}
        return None

    # ----- legal actions -----
    def _legal(self, seat):
        s = self.state
        ph = s["phase"]
        me = s["active"]
        if ph == "flick":
            return self._ring_choices("turn", s["marble"])
        if ph == "saloon_flick":
            return self._ring_choices("saloon", s["saloon"]["space"])
        if ph in ("vote", "sheriff"):
            t = "vote" if ph == "vote" else "decide"
            return [{"type": t, "space": x} for x in s["vote"]["candidates"]]
        if ph == "tickets":
            return [{"type": "ticket"}, {"type": "resolve"}]
        if ph == "bank":
            return self._bank_options(me) + [{"type": "done"}]
        if ph == "saloon_decide":
            return [{"type": "play"}, {"type": "pass"}]
        if ph == "saloon_bets":
            return self._bet_options(seat)
        if ph == "roll":
            return [{"type": "roll", "face": f} for f in dict.fromkeys(self.data["bandit_die"])]
        if ph == "rob":
            return [{"type": "rob", "victim": v} for v in s["rob"]["victims"]]
        if ph == "shop":
            return self._shop_options(me) + [{"type": "pass"}]
        if ph == "dig":
            return [{"type": "dig"}, {"type": "pass"}]
        if ph == "draw":
            return [{"type": "draw", "disc": k} for k in DISCS if s["bag"][k] > 0]
        if ph == "ranch":
            return [{"type": "buy_ranch"}, {"type": "pass"}]
        return []

    def _ring_choices(self, purpose, origin):
        if purpose == "turn":
            return cc.cached_choices(self.side, origin, ("wildwest-turn", self.data["min_steps"]),
                                     self._turn_outcome, self.max_travel)
        return cc.cached_choices(self.side, origin, ("wildwest-saloon",), self._saloon_outcome, self.max_travel)

    @staticmethod
    def _saloon_outcome(f):
        return (cc.lap_key(f, cc.CW)[0], f.space)

    def _valid(self, f) -> bool:
        return f.landed and f.direction == cc.CW and f.steps >= self.data["min_steps"]

    def _turn_outcome(self, f):
        if not f.landed:
            return ("off",)
        if f.direction != cc.CW:
            return ("wrong",)
        if f.steps < self.data["min_steps"]:
            return ("short",)
        return ("valid", f.space)

    def _chance(self, rng: random.Random) -> dict:
        s = self.state
        if s["phase"] == "roll":
            return {"type": "roll", "face": rng.choice(self.data["bandit_die"])}
        discs = [k for k in DISCS for _ in range(s["bag"][k])]
        return {"type": "draw", "disc": rng.choice(discs)}

    # ----- apply -----
    # the fields of each action (Game.check_action refuses any other, before _apply runs)
    actions = dict(Game.RING_ACTIONS, vote={"space": "id"}, decide={"space": "id"}, ticket={}, resolve={},
                   deposit={"piece": "str"}, withdraw={"piece": "str"}, done={}, play={}, bet={},
                   buy_out={}, roll={"face": "str"}, rob={"victim": "int"}, buy={"item": "str"}, dig={},
                   draw={"disc": "str"}, buy_ranch={}, **{"pass": {}})

    def _apply(self, seat, a):
        s = self.state
        t = a["type"]
        ph = s["phase"]
        handler = {
            "flick": self._do_flick, "vote": self._do_vote, "sheriff": self._do_sheriff,
            "tickets": self._do_tickets, "bank": self._do_bank, "saloon_decide": self._do_saloon_decide,
            "saloon_bets": self._do_bet, "saloon_flick": self._do_saloon_flick, "roll": self._do_roll,
            "rob": self._do_rob, "shop": self._do_shop, "dig": self._do_dig, "draw": self._do_draw,
            "ranch": self._do_ranch,
        }[ph]
        legal_types = {x["type"] for x in self._legal(seat)}
        if t not in legal_types:
            raise IllegalAction("%s cannot %r now (%s may: %s)" % (self.seat_name(seat), t, self._phase_words(),
                                                                   ", ".join(sorted(legal_types))))
        ev = handler(seat, a)
        if not self.over:
            ev += self._settle_all()
        return ev

    def _phase_words(self):
        return {"flick": "a flick's result is due", "vote": "the unclear landing is being voted on",
                "sheriff": "the sheriff decides the unclear landing", "tickets": "train tickets may be spent",
                "bank": "the bank is open", "saloon_decide": "the saloon is waiting",
                "saloon_bets": "the saloon wants wagers", "saloon_flick": "a saloon flick's result is due",
                "roll": "the bandit die is rolled", "rob": "the bandit picks a victim", "shop": "the shop is open",
                "dig": "a dig may start", "draw": "a disc is drawn from the bag",
                "ranch": "the ranch is for sale"}[self.state["phase"]]

    def _settle_all(self):
        s = self.state
        n = len(self.players)
        ev = []
        # A player settled later can put gold or rubies back into the reserve (trading up, or
        # the ruby limit), which lets one settled earlier trade up after all: repeat the pass
        # until nothing changes. It ends: every change leaves fewer discs in the purses.
        changed = True
        while changed:
            before = [dict(x) for x in s["purse"]]
            for p in cc.clockwise_from(s["active"], n):
                back = M.settle(s["purse"][p], s["reserve"], self.data["ruby_limit"])
                if back:
                    ev.append(event("ruby_limit", "%s may hold only %d rubies: money worth %d silver goes back to the "
                                    "reserve" % (self.seat_name(p), self.data["ruby_limit"], back), seat=p, worth=back))
            changed = s["purse"] != before
        return ev

    # --- the flick ---
    def _do_flick(self, seat, a):
        s = self.state
        origin = s["marble"]
        f = cc.read_flick(self.side, origin, a)
        name = self.seat_name(seat)
        if not f.landed:
            s["marble"] = origin
            return [event("invalid", "%s marble left the ring: it goes back where it was flicked from (%s). "
                          "The turn is over." % (possessive(name), self._label(origin)), seat=seat)] + self._end_turn()
        if f.alt is not None:
            reads = [cc.reread(self.side, origin, f, x) for x in (f.space, f.alt)]
            if any(self._valid(r) for r in reads):
                s["vote"] = {"candidates": [f.space, f.alt], "votes": {}, "origin": origin,
                             "flick": {"space": f.space, "travel": f.travel, "direction": f.direction,
                                       "steps": f.steps},
                             "queue": cc.clockwise_from(s["active"], len(self.players))}
                s["phase"] = "vote"
                return [event("unclear", "The marble stopped between %s and %s: the players vote"
                              % (self._label(f.space), self._label(f.alt)), spaces=[f.space, f.alt])]
            f = reads[0]
        return self._landed(seat, f)

    def _landed(self, seat, f):
        s = self.state
        name = self.seat_name(seat)
        s["marble"] = f.space
        if f.direction != cc.CW:
            return [event("invalid", "%s flicked anticlockwise: the turn is invalid" % name, seat=seat)] + \
                self._end_turn()
        if f.steps < self.data["min_steps"]:
            return [event("invalid", "%s marble moved %d space%s: it must move at least %d. The turn is invalid."
                          % (possessive(name), f.steps, "" if f.steps == 1 else "s", self.data["min_steps"]), seat=seat)] + \
                self._end_turn()
        ev = [event("landed", "%s marble stops on %s" % (possessive(name), self._label(f.space)), seat=seat, space=f.space)]
        if s["tickets"][seat] > 0:
            s["phase"] = "tickets"
            return ev
        return ev + self._resolve()

    def _label(self, sid):
        return "%s (%s)" % (self.side.labels[sid], sid)

    def _do_vote(self, seat, a):
        s = self.state
        v = s["vote"]
        x = str(a["space"])
        if x not in v["candidates"]:
            raise IllegalAction("the vote is between %s" % " and ".join(v["candidates"]))
        v["votes"][str(seat)] = x
        v["queue"].pop(0)
        ev = [event("vote", "%s votes for %s" % (self.seat_name(seat), self._label(x)), seat=seat, space=x)]
        if v["queue"]:
            return ev
        n = len(self.players)
        tally = {c: sum(1 for y in v["votes"].values() if y == c) for c in v["candidates"]}
        win = [c for c, k in tally.items() if 2 * k > n]
        if win:
            ev.append(event("vote_result", "The players agree on %s" % self._label(win[0]), space=win[0]))
            return ev + self._decided(win[0])
        s["phase"] = "sheriff"
        ev.append(event("vote_result", "No majority: the sheriff, %s, has the last word"
                        % self.seat_name(s["sheriff"]), seat=s["sheriff"]))
        return ev

    def _do_sheriff(self, seat, a):
        s = self.state
        x = str(a["space"])
        if x not in s["vote"]["candidates"]:
            raise IllegalAction("the sheriff decides between %s" % " and ".join(s["vote"]["candidates"]))
        n = len(self.players)
        s["sheriff"] = (seat + 1) % n
        ev = [event("sheriff", "The sheriff, %s, decides on %s; the star passes to %s"
                    % (self.seat_name(seat), self._label(x), self.seat_name(s["sheriff"])), seat=seat, space=x)]
        return ev + self._decided(x)

    def _decided(self, x):
        s = self.state
        v = s["vote"]
        fl = v["flick"]
        f = cc.Flick(True, fl["space"], None, fl["travel"], fl["direction"], fl["steps"])
        f = cc.reread(self.side, v["origin"], f, x)
        s["vote"] = None
        s["phase"] = "flick"
        return self._landed(s["active"], f)

    # --- train tickets ---
    def _do_tickets(self, seat, a):
        s = self.state
        if a["type"] == "resolve":
            return self._resolve()
        s["tickets"][seat] -= 1
        s["shop"]["tickets"] += 1
        s["marble"] = self.side.step(s["marble"], cc.CW)
        ev = [event("ticket", "%s spends a train ticket: the marble moves on to %s"
                    % (self.seat_name(seat), self._label(s["marble"])), seat=seat, space=s["marble"])]
        if s["tickets"][seat] == 0:
            return ev + self._resolve()
        return ev

    # --- resolving the space ---
    def _resolve(self):
        s = self.state
        me = s["active"]
        sid = s["marble"]
        kind = cc.space_kind(sid)
        name = self.seat_name(me)
        purse = s["purse"][me]
        s["phase"] = "resolve"
        if kind == "bank":
            s["bank_visit"] = {"mode": None}
            if self._bank_options(me):
                s["phase"] = "bank"
                return [event("bank", "%s is at the bank: deposit, or take back with interest" % name, seat=me, space=sid)]
            return [event("bank", "%s is at the bank with nothing to deposit or take back" % name, seat=me, space=sid)] + self._end_turn()
        if kind == "saloon":
            if M.highest(purse) is None:
                return [event("saloon", "%s is at the saloon with no coin to bet" % name, seat=me, space=sid)] + self._end_turn()
            s["phase"] = "saloon_decide"
            return [event("saloon", "%s is at the saloon: play for money?" % name, seat=me, space=sid)]
        if kind == "bandit":
            s["phase"] = "roll"
            return [event("bandit", "%s is at the bandit: roll the bandit die" % name, seat=me, space=sid)]
        if kind == "gold":
            got = M.receive_piece(purse, s["reserve"], "gold")
            return [event("gold", "%s receives %s" % (name, "1 gold" if got == 3 else
                                                      "gold worth %d silver (the reserve is short)" % got
                                                      if got else "nothing: the reserve is empty"), seat=me)] + \
                self._end_turn()
        if kind == "shop":
            if self._shop_options(me):
                s["phase"] = "shop"
                return [event("shop", "%s is at the shop" % name, seat=me, space=sid)]
            return [event("shop", "%s is at the shop but can buy nothing" % name, seat=me, space=sid)] + self._end_turn()
        if kind == "donation-bowl":
            return self._donation(me) + self._end_turn()
        if kind == "money-bag":
            ev = []
            for p in cc.clockwise_from(me, len(self.players)):
                got = M.receive_piece(s["purse"][p], s["reserve"], "silver")
                if not got:
                    ev.append(event("money_bag_short", "The reserve has no silver left for %s" % self.seat_name(p), seat=p, piece="silver"))
            return [event("money_bag", "Someone dropped a bag of money! Everyone gets 1 silver", seat=me, space=sid, piece="silver", amount=1)] + ev + \
                self._end_turn()
        if kind == "mine":
            if s["wagons"][me] < 1:
                return [event("mine", "%s has no wagon: the mine gives nothing" % name, seat=me, space=sid)] + self._end_turn()
            for m in s["mine"]:
                if M.count(m):
                    got = dict(m)
                    M.move_all(m, purse)
                    return [event("mine", "%s wagon brings %s out of the mine" % (possessive(name), M.text(got)),
                                  seat=me, got=got)] + self._end_turn()
            return [event("mine", "The mine is empty: %s gets nothing" % name, seat=me, space=sid)] + self._end_turn()
        if kind == "dig":
            if s["shovels"][me] < 1:
                return [event("dig", "%s has no shovel: no digging" % name, seat=me, space=sid)] + self._end_turn()
            s["phase"] = "dig"
            return [event("dig", "%s may dig: draw a disc from the bag" % name, seat=me, space=sid)]
        if kind == "ranch":
            if purse["ruby"] >= self.data["ranch_rubies"]:
                s["phase"] = "ranch"
                return [event("ranch", "%s has %d rubies and may buy the ranch!" % (name, purse["ruby"]), seat=me, space=sid, rubies=purse["ruby"])]
            return [event("ranch", "%s is at the ranch without %d rubies" % (name, self.data["ranch_rubies"]), seat=me, space=sid)] + \
                self._end_turn()
        raise GameError("space %s has no rule" % sid)   # require() at set-up prevents this

    def _end_turn(self):
        s = self.state
        s["phase"] = "flick"
        s["bank_visit"] = None
        s["saloon"] = None
        s["rob"] = None
        s["vote"] = None
        s["turns"] += 1
        s["active"] = (s["active"] + 1) % len(self.players)
        return []

    # --- bank ---
    def _bank_options(self, me):
        s = self.state
        mode = s["bank_visit"]["mode"]
        out = []
        if mode in (None, "deposit"):
            for k in M.KINDS:
                if M.can_pay(s["purse"][me], s["reserve"], k):
                    out.append({"type": "deposit", "piece": k})
        if mode in (None, "withdraw"):
            for k in M.KINDS:
                if s["bank"][me][k] > 0:
                    out.append({"type": "withdraw", "piece": k})
        return out

    def _do_bank(self, seat, a):
        s = self.state
        name = self.seat_name(seat)
        if a["type"] == "done":
            return [event("bank_done", "%s leaves the bank" % name, seat=seat)] + self._end_turn()
        k = a["piece"]
        if {"type": a["type"], "piece": k} not in self._bank_options(seat):
            raise IllegalAction("%s cannot %s a %s now" % (name, a["type"], k))
        if a["type"] == "deposit":
            M.pay(s["purse"][seat], s["reserve"], k, s["bank"][seat])
            s["bank_visit"]["mode"] = "deposit"
            ev = [event("deposit", "%s deposits 1 %s at the bank" % (name, k), seat=seat, piece=k)]
        else:
            M.move(s["bank"][seat], s["purse"][seat], k)
            got = M.receive_piece(s["purse"][seat], s["reserve"], k)
            s["bank_visit"]["mode"] = "withdraw"
            ev = [event("withdraw", "%s takes 1 %s back from the bank and %s as interest"
                        % (name, k, "the same from the reserve" if got == M.VALUE[k] else
                           "only %d silver's worth (the reserve is short)" % got), seat=seat, piece=k)]
        if not self._bank_options(seat):
            ev += self._end_turn()
        return ev

    # --- saloon ---
    def _bet_options(self, seat):
        s = self.state
        out = []
        if M.highest(s["purse"][seat]) is not None:
            out.append({"type": "bet"})
        if M.can_pay(s["purse"][seat], s["reserve"], self.data["saloon_buy_out"]):
            out.append({"type": "buy_out"})
        return out

    def _do_saloon_decide(self, seat, a):
        s = self.state
        name = self.seat_name(seat)
        if a["type"] == "pass":
            return [event("saloon_pass", "%s does not play for money" % name, seat=seat)] + self._end_turn()
        sal = {"space": s["marble"], "wagers": {}, "bettors": [], "queue": [], "keys": {},
               "order": None, "refine": None}
        s["saloon"] = sal
        ev = [event("saloon_play", "%s plays for money at the saloon" % name, seat=seat)] + self._wager(seat)
        sal["queue"] = _others_from(seat, len(self.players))
        return ev + self._next_bettor()

    def _wager(self, seat):
        s = self.state
        k = M.highest(s["purse"][seat])
        s["purse"][seat][k] -= 1          # the wager lies on the table until the saloon is decided
        s["saloon"]["wagers"][str(seat)] = k
        s["saloon"]["bettors"].append(seat)
        return [event("bet", "%s bets 1 %s" % (self.seat_name(seat), k), seat=seat, piece=k)]

    def _next_bettor(self):
        """Ask the next player who has a choice; decide those who have none."""
        s = self.state
        sal = s["saloon"]
        ev = []
        while sal["queue"]:
            p = sal["queue"][0]
            opts = [o["type"] for o in self._bet_options(p)]
            if len(opts) == 2:
                s["phase"] = "saloon_bets"
                return ev
            sal["queue"].pop(0)
            if opts == ["bet"]:
                ev += self._wager(p)
            elif opts == ["buy_out"]:
                ev += self._buy_out(p)
            else:
                ev.append(event("saloon_out", "%s has no coin and sits the saloon out" % self.seat_name(p), seat=p))
        return ev + self._start_saloon_flicks()

    def _buy_out(self, seat):
        s = self.state
        k = self.data["saloon_buy_out"]
        M.pay(s["purse"][seat], s["reserve"], k, s["reserve"])
        return [event("buy_out", "%s buys their way out for 1 %s" % (self.seat_name(seat), k), seat=seat)]

    def _do_bet(self, seat, a):
        sal = self.state["saloon"]
        sal["queue"].pop(0)
        ev = self._wager(seat) if a["type"] == "bet" else self._buy_out(seat)
        return ev + self._next_bettor()

    def _start_saloon_flicks(self):
        s = self.state
        sal = s["saloon"]
        lander = s["active"]
        n = len(self.players)
        order = [p for p in _others_from(lander, n) + [lander] if p in sal["bettors"]]
        if len(order) < 2:
            ev = [event("saloon_alone", "No one else plays: %s takes the wager back" % self.seat_name(lander), seat=lander)]
            self._return_wagers(exclude=())
            return ev + self._end_turn()
        sal["queue"] = order
        s["phase"] = "saloon_flick"
        return [event("saloon_flicks", "Flicks from the saloon, in order: %s"
                      % ", ".join(self.seat_name(p) for p in order), seats=order)]

    def _return_wagers(self, exclude):
        s = self.state
        for p, k in s["saloon"]["wagers"].items():
            if int(p) not in exclude:
                s["purse"][int(p)][k] += 1
        s["saloon"]["wagers"] = {}

    def _do_saloon_flick(self, seat, a):
        s = self.state
        sal = s["saloon"]
        f = cc.read_flick(self.side, sal["space"], a)
        key = list(cc.lap_key(f, cc.CW))
        sal["keys"][str(seat)] = key
        sal["queue"].pop(0)
        s["marble"] = f.space if f.landed else sal["space"]
        name = self.seat_name(seat)
        if key[0] == 0:
            txt = "%s marble went round and stopped %d degrees past the saloon" % (possessive(name), key[1])
        elif key[0] == 1:
            txt = "%s marble stopped %d degrees short of a full lap" % (possessive(name), key[1])
        else:
            txt = "%s flick %s: it ranks last" % (possessive(name), "left the ring" if not f.landed else "went anticlockwise")
        ev = [event("saloon_flick", txt, seat=seat, key=key)]
        if sal["queue"]:
            return ev
        return ev + self._rank_saloon()

    def _rank_saloon(self):
        s = self.state
        sal = s["saloon"]
        keys = {int(p): tuple(k) for p, k in sal["keys"].items()}
        sal["keys"] = {}
        groups = cc.rank_groups(keys)
        if sal["order"] is None:
            sal["order"] = groups
        else:
            i = sal["refine"]
            sal["order"][i:i + 1] = groups
        order = sal["order"]
        for i in (0, len(order) - 1):
            if len(order[i]) > 1:
                sal["refine"] = i
                sal["queue"] = list(order[i])
                return [event("saloon_tie", "%s are tied: they flick again"
                              % " and ".join(self.seat_name(p) for p in order[i]), seats=order[i])]
        win, lose = order[0][0], order[-1][0]
        k = sal["wagers"].pop(str(lose))
        s["purse"][win][k] += 1
        self._return_wagers(exclude=())
        ev = [event("saloon_result", "%s landed closest to the saloon and wins %s wager (1 %s); everyone else "
                    "takes their wager back" % (self.seat_name(win), possessive(self.seat_name(lose)), k),
                    winner=win, loser=lose, piece=k)]
        return ev + self._end_turn()

    # --- bandit ---
    def _do_roll(self, seat, a):
        s = self.state
        face = a["face"]
        if face not in self.data["bandit_die"]:
            raise IllegalAction("the bandit die has no face %r" % (face,))
        me = s["active"]
        ev = [event("roll", "The bandit die shows: %s" % FACE_TEXT[face], face=face, seat=me)]
        if face == "donation":
            return ev + self._donation(me) + self._end_turn()
        if face == "bank":
            got = M.empty()
            for p in _others_from(me, len(self.players)):
                for k in M.KINDS:
                    got[k] += s["bank"][p][k]
                M.move_all(s["bank"][p], s["purse"][me])
            what = M.text(got) if M.count(got) else "nothing: no one else has money at the bank"
            return ev + [event("steal", "%s steals from the bank: %s" % (self.seat_name(me), what), got=got, seat=me)] + \
                self._end_turn()
        victims = [p for p in _others_from(me, len(self.players)) if self._holds(p, face)]
        if len(victims) == 1:
            return ev + self._steal(me, victims[0], face) + self._end_turn()
        if victims:
            s["rob"] = {"face": face, "victims": victims}
            s["phase"] = "rob"
            return ev
        return ev + self._steal(me, None, face) + self._end_turn()

    def _holds(self, p, face):
        s = self.state
        if face in M.KINDS:
            return s["purse"][p][face] > 0
        return s[ITEMS[face]][p] > 0

    def _steal(self, me, victim, face):
        s = self.state
        name = self.seat_name(me)
        if victim is not None:
            if face in M.KINDS:
                M.move(s["purse"][victim], s["purse"][me], face)
            else:
                s[ITEMS[face]][victim] -= 1
                s[ITEMS[face]][me] += 1
            return [event("steal", "%s steals 1 %s from %s" % (name, face, self.seat_name(victim)),
                          seat=me, victim=victim, what=face)]
        if face in M.KINDS:
            got = M.receive_piece(s["purse"][me], s["reserve"], face)
            return [event("steal", "No one has %s: %s takes %s from the reserve"
                          % (face, name, "1 " + face if got == M.VALUE[face] else "%d silver's worth" % got),
                          seat=me, what=face)]
        item = ITEMS[face]
        if s["shop"][item] > 0:
            s["shop"][item] -= 1
            s[item][me] += 1
            return [event("steal", "No one has a %s: %s takes one from the shop" % (face, name), seat=me, what=face)]
        return [event("steal", "No one has a %s and the shop has none left: nothing to steal" % face, seat=me, what=face)]

    def _do_rob(self, seat, a):
        s = self.state
        v = a["victim"]
        if v not in s["rob"]["victims"]:
            raise IllegalAction("%s has no %s to steal" % (self.seat_name(v), s["rob"]["face"]))
        return self._steal(seat, v, s["rob"]["face"]) + self._end_turn()

    # --- donation bowl ---
    def _donation(self, me):
        s = self.state
        name = self.seat_name(me)
        purse = s["purse"][me]
        free = [i for i, b in enumerate(s["bowl"]) if b is None]
        if free:
            i = free[0]
            need = self.data["donation_bowl"][i]
            p, r, slot = dict(purse), dict(s["reserve"]), M.empty()
            ok = all(M.pay(p, r, k, slot, need[k]) for k in M.KINDS if need[k])
            if ok:
                purse.update(p)
                s["reserve"].update(r)
                s["bowl"][i] = slot
                return [event("donate", "%s donates %s to the donation bowl (space %d)"
                              % (name, M.text(need), i + 1), seat=me, space=i + 1)]
            why = "cannot donate %s" % M.text(need)
        else:
            why = "finds the donation bowl full"
        got = M.empty()
        for i, b in enumerate(s["bowl"]):
            if b is not None:
                for k in M.KINDS:
                    got[k] += b[k]
                M.move_all(b, purse)
                s["bowl"][i] = None
        return [event("charity", "%s %s: the church helps out with all the money in the bowl (%s)"
                      % (name, why, M.text(got)), seat=me, got=got)]

    # --- shop ---
    def _shop_options(self, me):
        s = self.state
        out = []
        for item, price in self.data["shop"].items():
            if s["shop"][ITEMS[item]] > 0 and M.can_pay(s["purse"][me], s["reserve"], price):
                out.append({"type": "buy", "item": item})
        return out

    def _do_shop(self, seat, a):
        s = self.state
        name = self.seat_name(seat)
        if a["type"] == "pass":
            return [event("shop_pass", "%s buys nothing" % name, seat=seat)] + self._end_turn()
        item = a["item"]
        if {"type": "buy", "item": item} not in self._shop_options(seat):
            raise IllegalAction("%s cannot buy a %r now" % (name, item))
        price = self.data["shop"][item]
        M.pay(s["purse"][seat], s["reserve"], price, s["reserve"])
        s["shop"][ITEMS[item]] -= 1
        s[ITEMS[item]][seat] += 1
        return [event("buy", "%s buys a %s for 1 %s" % (name, item, price), seat=seat, item=item)] + self._end_turn()

    # --- dig ---
    def _do_dig(self, seat, a):
        s = self.state
        if a["type"] == "pass":
            return [event("dig_pass", "%s does not dig" % self.seat_name(seat), seat=seat)] + self._end_turn()
        s["phase"] = "draw"
        return [event("digging", "%s reaches into the bag" % self.seat_name(seat), seat=seat)]

    def _do_draw(self, seat, a):
        s = self.state
        k = a["disc"]
        if k not in DISCS or s["bag"][k] < 1:
            raise IllegalAction("the bag holds no %r" % (k,))
        me = s["active"]
        name = self.seat_name(me)
        if k == "stone":
            s["shovels"][me] -= 1
            s["shop"]["shovels"] += 1
            return [event("stone", "%s draws a stone: it goes back in the bag and the shovel goes back to the shop"
                          % name, seat=me)] + self._end_turn()
        M.move(s["bag"], s["purse"][me], k)
        return [event("draw", "%s digs up 1 %s" % (name, k), seat=me, disc=k)] + self._end_turn()

    # --- ranch ---
    def _do_ranch(self, seat, a):
        s = self.state
        if a["type"] == "pass":
            return [event("ranch_pass", "%s does not buy the ranch" % self.seat_name(seat), seat=seat)] + self._end_turn()
        M.pay(s["purse"][seat], s["reserve"], "ruby", s["reserve"], self.data["ranch_rubies"])
        n = len(self.players)
        self._finish([self.players[seat]], {self.players[p]: self.worth(p) for p in range(n)},
                     "%s bought the ranch" % self.seat_name(seat))
        self.result["seats"] = [seat]
        return [event("won", "%s buys the ranch for %d rubies and wins!" % (self.seat_name(seat),
                                                                       self.data["ranch_rubies"]), seat=seat)]

    # ----- read-outs -----
    def worth(self, p: int) -> int:
        """A player's money in silver: purse plus bank deposit."""
        s = self.state
        return M.value(s["purse"][p]) + M.value(s["bank"][p])

    def totals(self) -> dict:
        """Every disc and token of the box, counted where it is now (conserved by every rule)."""
        s = self.state
        t = {k: s["reserve"][k] + s["bag"][k] for k in M.KINDS}
        t["stone"] = s["bag"]["stone"] + s["stones_out"]
        holders = list(s["purse"]) + list(s["bank"]) + list(s["mine"]) + [b for b in s["bowl"] if b is not None]
        if s["saloon"]:
            for k in s["saloon"]["wagers"].values():
                t[k] += 1
        for h in holders:
            for k in M.KINDS:
                t[k] += h[k]
        for item in ("tickets", "shovels", "wagons"):
            t[item] = s["shop"][item] + sum(s[item])
        return t

    def _view(self, seat):
        s = self.state
        n = len(self.players)
        return {
            "game": self.name,
            "players": list(self.players),
            "phase": s["phase"],
            "active": s["active"],
            "to_act": self._to_act() if not self.over else [],
            "sheriff": s["sheriff"],
            "marble": s["marble"],
            "spaces_cw": [self.side.step(self.start, cc.CW, k) for k in range(self.side.n)],
            "labels": dict(self.side.labels),
            "purse": [dict(p) for p in s["purse"]],
            "bank": [dict(b) for b in s["bank"]],
            "worth": [self.worth(p) for p in range(n)],
            "tickets": list(s["tickets"]),
            "shovels": list(s["shovels"]),
            "wagons": list(s["wagons"]),
            "reserve": dict(s["reserve"]),
            "bag": sum(s["bag"].values()),
            "mine": [dict(m) for m in s["mine"]],
            "bowl": [None if b is None else dict(b) for b in s["bowl"]],
            "shop": dict(s["shop"]),
            "vote": s["vote"],
            "saloon": s["saloon"],
            "rob": s["rob"],
            "flick": self.flick_request(),
            "turns": s["turns"],
            "over": self.over,
            "result": self.result,
        }

    def describe(self, a: dict) -> str:
        t = a.get("type")
        sid = a.get("space")
        lab = self._label(sid) if isinstance(sid, str) and sid in self.side else sid
        words = {
            "ticket": "spend a train ticket: move the marble one space on",
            "resolve": "resolve the space the marble is on",
            "done": "leave the bank", "play": "play for money", "pass": "pass",
            "bet": "bet your highest coin", "buy_out": "buy your way out (1 %s)" % self.data["saloon_buy_out"],
            "dig": "dig: draw a disc from the bag", "buy_ranch": "buy the ranch and win",
        }
        if t in words:
            return words[t]
        if t == "landed":
            tr = a.get("travel")
            d = "" if tr is None else " (%.0f degrees %s)" % (abs(tr), "clockwise" if tr < 0 else "anticlockwise")
            return "the marble stops on %s%s" % (lab, d)
        if t == "off_ring":
            return "the marble leaves the ring"
        if t in ("vote", "decide"):
            return "%s %s" % ("vote for" if t == "vote" else "decide on", lab)
        if t in ("deposit", "withdraw"):
            return "%s 1 %s" % ("deposit" if t == "deposit" else "take back (with interest)", a.get("piece"))
        if t == "roll":
            return "the die shows: %s" % FACE_TEXT.get(a.get("face"), a.get("face"))
        if t == "rob":
            return "rob %s" % self.seat_name(a.get("victim"))
        if t == "buy":
            return "buy a %s for 1 %s" % (a.get("item"), self.data["shop"].get(a.get("item"), "?"))
        if t == "draw":
            return "draw 1 %s" % a.get("disc")
        return str(a)

    def valid_flick(self, flick: dict) -> bool:
        """Whether a read flick (circles_common.Flick) is a valid Wild West flick."""
        return self._valid(flick)
