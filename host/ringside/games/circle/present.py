"""The Circle at the table: the picture, the action labels and the LED frame (games/present.py).

Everything here is read from game.view(seat) (and the public card list, game.card: the
printed faces every player can read). The Circle hides one thing from every seat: the order
and contents of the face-down neutral deck; the view gives its size only, and so does the
picture.

    picture(game, seat)        the time wheel (a track, 8 first: spies there are hired), the
                               agencies' secrets and victory points, their spies, the spies for
                               hire, what is happening now (phase, action, auction), a legend
    label(game, seat, action)  an action in the rulebook's words ("activate INT-gain-1, 2
                               additional secrets, for 2 secrets")
    step_line(game, events)    one line after a step: what changed, then what is next
    led_frame(game)            the time wheel on the ring (wheel.led_frame's 60 LEDs)
    led_turn(event)            LEDs the ring picture turns for an event (the time wheel turning:
                               one segment clockwise); WHEEL_TURNS names those events, and
                               wheel.turn_frames draws the turn itself
"""
from __future__ import annotations

from ringside.games import CHANCE, possessive
from ringside.games import present as P

from . import wheel
from .cards import COLOURS, GREY, NEUTRAL
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game

# The spy actions as the rulebook names them ("Spy Actions", page 10); (colour, neutral) counts.
ACTION_WORDS = {
    "int_gain": "{n} additional secret{s}", "int_destroy": "{n} destroyed secret{s}",
    "int_auction": "{n} additional secret{s} in an auction",
    "int_attack": "{n} instead of 4 new secrets of an opponent",
    "sup_gain": "Perfect Support: gaining time +{n}", "sup_lose": "Unexpected Obstacles: losing time -{n}",
    "sup_warp": "Do the Time Warp", "sup_infiltrate": "infiltrate the Circle with one additional spy",
    "rec_division": "changing into another division", "rec_neutral": "changing specialization to neutral",
    "rec_quit": "quitting", "rec_guard": "Personal Guard",
    "ops_capture": "capture a Circle member (1 VP)", "ops_remove": "permanent removal of 1 spy",
    "ops_double": "Double Agents: 2 spies exchange their employer", "ops_foil": "foiling an action",
}
COUNTS = {"int_gain": (2, 1), "int_destroy": (2, 1), "int_auction": (2, 1), "int_attack": (2, 3),
          "sup_gain": (2, 1), "sup_lose": (2, 1)}
PHASES = {"first": "set-up: the first starting player", "agency": "set-up: choosing agencies",
          "setup": "set-up", "reveal": "the neutral spies are turned up",
          "p1": "phase 1: new secrets and activating spies", "p2": "phase 2: actions and infiltration",
          "p3": "phase 3: the time wheel turns, spies are hired"}
DECIDING = {"first": "name the first starting player", "agency": "choose a secret agency",
            "draw": "turn up a neutral spy", "p1": "activate spies or place secrets",
            "p2": "use spies, infiltrate, or end phase 2", "param": "choose the target",
            "cancel": "cancel the homeland spy's action or let it happen",
            "guard": "repel the attack with a bodyguard or let it happen",
            "division": "choose the division that hires the spy", "auction": "raise the bid or drop out",
            "aspy": "use an auction spy or pay in full", "pay": "choose which division's secret to pay",
            "warp": "do the Time Warp or pass"}
WHEEL_TURNS = ("wheel_turn",)    # the events on which the time wheel turns one square clockwise


# ----- words -----------------------------------------------------------------------------

def action_words(game: Game, cid: str) -> str:
    """What a spy does, in the rulebook's words: "2 additional secrets"."""
    c = game.card[cid]
    words = ACTION_WORDS.get(c["type"], c["type"])
    if c["type"] in COUNTS:
        n = COUNTS[c["type"]][1 if c["colour"] == NEUTRAL else 0]
        words = words.format(n=n, s="" if n == 1 else "s")
    return words


def spy(game: Game, cid: str, full: bool = False) -> str:
    """A spy card as a player reads it: "INT-gain-1, 2 additional secrets" (full: with its
    time, VP, homeland and, for a neutral spy, the secrets it is bought with)."""
    if cid not in game.card:
        return str(cid)
    c = game.card[cid]
    out = "%s, %s" % (cid, action_words(game, cid))
    if full:
        extra = ["time %d" % c["time"], "%d VP" % c["vp"]]
        if c["homeland"]:
            extra.append("homeland %s" % c["homeland"])
        if c["colour"] == NEUTRAL:
            extra.append("bought with %s secrets" % ("any" if c["auction"] == GREY else c["auction"]))
        out += " (%s)" % ", ".join(extra)
    return out


def _who(game, seat) -> str:
    return game.seat_name(seat)


# ----- the picture -----------------------------------------------------------------------

def _colour(v, seat):
    if seat is None:
        return "grey"
    c = v["players"][seat]["colour"]
    return c if c in P.COLOUR_RGB else P.seat_colour(seat)


def _spy_mark(game, v, e, glyph):
    owner = e.get("owner")
    text = e["card"] + (" (%s)" % glyph[owner] if owner is not None else "")
    if e.get("rec"):
        r = e["rec"]
        text += " + %s attached by %s" % (r["card"], _who(game, r["owner"]))
        if r.get("division"):
            text += " (hired by %s)" % r["division"]
    return P.mark(text, owner, _colour(v, owner))


def _wheel_section(game, v, glyph):
    by_num = {w["number"]: w["spies"] for w in v["wheel"]}
    ready = v.get("wheel_ready_number", 8)
    steps = []
    for num in [ready] + [k for k in range(ready - 1, 0, -1)]:
        marks = [_spy_mark(game, v, e, glyph) for e in by_num.get(num, [])]
        label = str(num)
        steps.append(P.step(label, marks, highlight=num == ready and bool(marks),
                            colour="yellow" if num == ready else None))     # 8: the golden arrow
    tw = v.get("time_warp")
    if tw:
        steps.append(P.step("Time Warp", [P.mark("%s (%s) turns the wheel once more" % (tw["card"], glyph[tw["owner"]]),
                                                 tw["owner"], _colour(v, tw["owner"]))], highlight=True, beside=True))
    return P.track("The time wheel, 8 first (it turns clockwise: 7 to 6 ... 1 to 8; at 8, the golden arrow, "
                   "spies go back to their owner or are hired, innermost first)", steps, loop=True)


def _agency_table(game, v):
    rows = []
    for pl in v["players"]:
        sec = pl["secrets"]
        rows.append([pl["name"], pl["agency"] or "-", pl["marker"], str(pl["vp"])]
                    + [str(sec[c]) for c in COLOURS] + [str(sum(sec.values()))])
    rows.append(["the Circle", "-", "-", str(v["circle_vp"])] + ["-"] * (len(COLOURS) + 1))
    return P.table("Agencies: victory points (first to %d wins) and secrets per division (12 at most)"
                   % v["win_vp"], ["", "agency", "marker", "VP"] + list(COLOURS) + ["secrets"], rows)


def _spies_table(game, v, glyph):
    """One row per ready spy: who holds it, what it does, what it is worth infiltrating."""
    rows = []
    guarded = v.get("bodyguards_on") or {}
    for pl in v["players"]:
        for c in pl["ready"]:
            card = game.card.get(c, {})
            g = guarded.get(c)
            rows.append([pl["name"], c, action_words(game, c) if c in game.card else "",
                         "%s VP" % card.get("vp", "?"), "bodyguard %s" % g["card"] if g else "-"])
    return P.table("Spies ready to act (use one in phase 2, or infiltrate the Circle with it for its VP)",
                   ["player", "spy", "action", "infiltrates for", "guarded by"], rows or [["-", "no spy is ready", "", "", ""]])


def _front_table(game, v):
    rows = []
    for pl in v["players"]:
        front = ["%s by %s (%s)" % (f["kind"], _who(game, f["owner"]), f["card"]) for f in pl["in_front"]]
        moth = ", moth complete" + (" x%d" % pl["moths"] if pl["moths"] > 1 else "") if pl["moths"] else ""
        rows.append([pl["name"], ", ".join(pl["bodyguards"]) or "-", "; ".join(front) or "-",
                     "%d%s%s" % (len(pl["infiltrated"]), (": " + ", ".join(pl["infiltrated"])) if pl["infiltrated"] else "",
                                 moth)])
    return P.table("In front of each player", ["player", "bodyguards", "placed before them", "infiltrated the Circle"],
                   rows)


def _hire_table(game, v):
    rows = []
    for st in v["stacks"]:
        if st["top"] is None:
            continue
        c = game.card[st["top"]]
        rows.append([c["colour"], st["top"], action_words(game, st["top"]), str(c["time"]), str(c["vp"]),
                     c["homeland"] or "-", str(st["size"])])
    for cid in v["faceup"]:
        c = game.card[cid]
        rows.append(["face-up neutral (auction in %s)" % ("any division" if c["auction"] == GREY else c["auction"]),
                     cid, action_words(game, cid), str(c["time"]), str(c["vp"]), "-", "1"])
    rows.append(["face-down neutrals", "", "", "", "", "", str(v["deck_size"])])
    return P.table("Spies to activate in phase 1 (a stack's top spy, 2 secrets; a face-up neutral, 2 more)",
                   ["stack", "spy", "action", "time", "VP", "homeland", "cards"], rows)


def _now_lines(game, v):
    lines = []
    if v["turn"]:
        order = v.get("starter")
        lines.append("Turn %d, %s. Starting player: %s." % (v["turn"], PHASES.get(v["phase"], v["phase"]),
                                                           _who(game, order) if order is not None else "-"))
    else:
        lines.append(PHASES.get(v["phase"], v["phase"]).capitalize() + ".")
    p1 = v.get("phase1")
    if p1:
        bits = ["%d of this phase's new secrets left" % p1["left"]]
        if p1.get("free"):
            bits.append("the free neutral activation is still due")
        if p1.get("colour"):
            bits.append("a colour spy was activated")
        if p1.get("neutral"):
            bits.append("a neutral spy was activated")
        lines.append("Phase 1: " + "; ".join(bits) + ".")
    pd = v.get("pending")
    if pd:
        picks = [_pick_words(game, v, pd, pk) for pk in pd.get("picks") or []]
        lines.append("%s is using %s%s." % (_who(game, pd["seat"]), spy(game, pd["card"]),
                                            ("; chosen so far: " + ", ".join(picks)) if picks else ""))
    au = v.get("auction")
    if au:
        div = "any division's" if au["colour"] == GREY else au["colour"]
        if au.get("won") is not None:
            lines.append("Auction for %s in %s secrets: won by %s at %d." % (au["card"], div, _who(game, au["won"]),
                                                                             au["bid"]))
        else:
            high = (" by %s" % _who(game, au["high"])) if au.get("high") is not None else ""
            lines.append("Auction for %s in %s secrets: bid %d%s; still bidding: %s." % (
                au["card"], div, au["bid"], high, ", ".join(_who(game, p) for p in au["parts"])))
    if v.get("removed"):
        lines.append("Removed from the game: %s." % ", ".join(v["removed"]))
    return lines


def status(game: Game, v: dict) -> str:
    if game.over:
        r = game.result or {}
        return "Game over: %s" % r.get("reason", "")
    act = game.to_act()
    deciding = v.get("deciding")
    what = DECIDING.get(deciding, deciding or "act")
    head = "Turn %d, %s" % (v["turn"], PHASES.get(v["phase"], v["phase"])) if v["turn"] else \
        PHASES.get(v["phase"], v["phase"]).capitalize()
    if act == [CHANCE]:
        return "%s: the table must %s" % (head, what)
    who = " and ".join(_who(game, s) for s in act)
    au = v.get("auction")
    if deciding == "auction" and au:
        return "%s: auction for %s, bid %d; %s to raise the bid or drop out" % (head, au["card"], au["bid"], who)
    return "%s: %s to %s" % (head, who, what)


def picture(game: Game, seat: int | None = None) -> dict:
    v = game.view(seat)
    names = list(game.players)
    glyph = P.glyphs(names)
    act = game.to_act()
    players = []
    for pl in v["players"]:
        p = pl["seat"]
        facts = ["%s, marker %s" % (pl["agency"], pl["marker"]) if pl["agency"] else "no agency yet",
                 "%d secrets" % sum(pl["secrets"].values()), "%d ready spies" % len(pl["ready"]),
                 "%d infiltrated" % len(pl["infiltrated"])]
        players.append({"seat": p, "name": pl["name"], "colour": _colour(v, p), "glyph": glyph[p],
                        "score": pl["vp"], "facts": facts, "to_act": p in act})
    legend = [{"glyph": glyph[p], "colour": _colour(v, p), "means": "%s spies (%s piece)" % (
        possessive(names[p]), v["players"][p]["colour"])} for p in range(len(names))]
    legend += [{"glyph": "(no glyph)", "colour": "grey", "means": "a spy with no piece on it: hired when it reaches 8"},
               {"glyph": "8", "colour": "yellow", "means": "square 8 of the time wheel (the golden arrow)"}]
    result = None
    if game.over:
        r = game.result or {}
        result = {"winners": list(r.get("winners", [])), "scores": dict(r.get("scores") or {}),
                  "text": r.get("reason", "")}
    sections = [_wheel_section(game, v, glyph), _agency_table(game, v), _spies_table(game, v, glyph),
                _front_table(game, v), _hire_table(game, v), P.text("Now", _now_lines(game, v))]
    return {"game": "circle", "title": game.title, "status": status(game, v), "to_act": act,
            "players": players, "sections": sections, "legend": legend,
            "hidden": ["the face-down neutral deck (%d cards): what they are and their order" % v["deck_size"]],
            "result": result}


# ----- labels ----------------------------------------------------------------------------

def _pick_words(game, v, pd, a) -> str:
    """A target of the spy action being used (pd: view["pending"])."""
    t = pd["type"]
    if a.get("front"):
        return "place the bodyguard in front of yourself (protects your spies in front of you)"
    if "division" in a:
        who = _who(game, a["seat"])
        if t == "int_destroy":
            return "destroy a secret in %s %s division" % (possessive(who), a["division"])
        return "give a secret to %s %s division" % (possessive(who), a["division"])
    if "seat" in a:
        who = _who(game, a["seat"])
        if t == "int_attack":
            return "attack %s: fewer new secrets in their next phase 1" % who
        if t == "ops_foil":
            return "place it before %s: no infiltration in their next phase 2" % who
        return "target %s" % who
    c = a.get("card")
    where = _where(v, c)
    if t in ("sup_gain", "sup_lose"):
        return "move %s one square %s%s" % (c, "forward" if t == "sup_gain" else "backwards", where)
    words = {"rec_division": "attach it to %s%s: you choose the division that hires it",
             "rec_neutral": "attach it to %s%s: it is hired as a neutral spy",
             "rec_quit": "take the piece off %s%s", "rec_guard": "guard %s%s",
             "ops_remove": "remove %s%s from the game", "ops_double": "exchange %s%s",
             "ops_foil": "foil %s%s: back to the time wheel"}
    return words.get(t, "target %s%s") % (c, where)


def _where(v, cid) -> str:
    for w in v["wheel"]:
        for e in w["spies"]:
            if e["card"] == cid:
                return " (at %d on the wheel)" % w["number"]
    for pl in v["players"]:
        if cid in pl["ready"] or cid in pl["bodyguards"]:
            return " (%s)" % pl["name"]
    return ""


def label(game: Game, seat: int | str | None, action: dict) -> str:
    """A legal action in the rulebook's words."""
    a = action
    t = a.get("type")
    c = a.get("card")
    v = None
    if t == "first":
        return "%s is the first starting player" % _who(game, a["seat"])
    if t == "agency":
        return "take the %s secret agency (marker passive)" % a["agency"]
    if t == "draw":
        return "turn up the neutral spy %s" % spy(game, c, True)
    if t == "free_neutral":
        return "activate the face-up neutral spy %s for free" % spy(game, c, True)
    if t == "activate":
        return "activate %s for 2 secrets" % spy(game, c, True)
    if t == "secret":
        return "put %d new secret%s in your %s division" % (a["n"], "" if a["n"] == 1 else "s", a["division"])
    if t == "use":
        return "use %s" % spy(game, c)
    if t == "infiltrate":
        return "infiltrate the Circle with %s: +%d VP" % (c, game.card[c]["vp"]) if c in game.card else \
            "infiltrate the Circle with %s" % c
    if t == "marker":
        return "activate your secret agency marker (costs 1 VP)"
    if t == "unmask":
        vp = game.card[c]["vp"] if c in game.card else "its"
        return "unmask %s: you and the Circle lose %s VP, the card leaves the game" % (c, vp)
    if t == "end":
        return "end your phase 2"
    if t == "pick":
        v = game.view(seat)
        pd = v.get("pending")
        if pd:
            return _pick_words(game, v, pd, a)
    if t == "cancel":
        v = game.view(seat)
        pd = v.get("pending") or {}
        return "order your homeland spy %s to cancel the action (your marker turns passive)" % pd.get("card", "")
    if t == "allow":
        v = game.view(seat)
        if v.get("deciding") == "guard":
            return "do not repel the attack"
        pd = v.get("pending") or {}
        return "let %s act" % pd.get("card", "the spy")
    if t == "repel":
        return "repel the attack with your bodyguard %s" % a["guard"]
    if t == "division":
        return "have the spy hired by the %s divisions (most %s secrets)" % (a["division"], a["division"])
    if t == "raise":
        v = game.view(seat)
        au = v.get("auction") or {}
        return "raise the bid to %d secrets" % (au.get("bid", 0) + 1)
    if t == "drop":
        return "drop out of the auction"
    if t == "auction_spy":
        return "use %s: pay fewer secrets" % spy(game, c)
    if t == "pay_in_full":
        v = game.view(seat)
        au = v.get("auction") or {}
        return "pay the %d secrets in full" % au.get("bid", 0)
    if t == "pay":
        return "pay a secret from your %s division" % a["division"]
    if t == "warp":
        return "do the Time Warp with %s: the wheel turns again" % c
    if t == "pass":
        return "no Time Warp"
    rest = ", ".join("%s %s" % (k, v) for k, v in a.items() if k != "type")
    return "%s%s" % (str(t).replace("_", " "), (": " + rest) if rest else "")


def group(game: Game, seat: int | str | None, action: dict) -> str:
    """A short heading under which a long menu folds this action (the screen offers the
    headings first)."""
    a = action
    t = a.get("type")
    if t == "pick" and isinstance(a.get("seat"), int) and "division" in a:
        return "a secret of %s" % possessive(_who(game, a["seat"]))
    return {"secret": "place new secrets", "activate": "activate a spy for 2 secrets",
            "free_neutral": "activate a face-up neutral spy for free", "use": "use a ready spy",
            "infiltrate": "infiltrate the Circle", "unmask": "unmask an infiltrated spy",
            "pick": "choose the target", "draw": "turn up a neutral spy", "agency": "choose an agency",
            "first": "the first starting player"}.get(t, label(game, seat, a))


def event_text(ev: dict) -> str:
    return ev.get("text", "")


def step_line(game: Game, events: list[dict], width: int = 160) -> str:
    """One short line after a step: what changed (the events' sentences) and what comes next."""
    said = [e.get("text", "") for e in events if e.get("text")]
    return P.summary_line(said, status(game, game.view(None)), width)


# ----- the LEDs --------------------------------------------------------------------------

def ring_leds() -> dict:
    """The LED ring of ring.json (count, LED 0's angle, direction), through ringside.ring
    where it exists; wheel.DEFAULT_LEDS (the shipped ring's 60) otherwise."""
    try:
        from ringside import ring
        return dict(ring.leds())
    except (ImportError, AttributeError):
        return dict(wheel.DEFAULT_LEDS)


def led_frame(game: Game, leds: dict | None = None) -> dict:
    """The time wheel on the ring: wheel.led_frame's LEDs as the frame's pixels, and the colour
    of the player to act."""
    v = game.view(None)
    act = game.to_act()
    seat = act[0] if act and isinstance(act[0], int) else None
    return P.led_frame(player=_colour(v, seat) if seat is not None else None,
                       pixels=wheel.led_frame(v, leds or ring_leds()))


def turns_wheel(ev: dict) -> bool:
    return ev.get("type") in WHEEL_TURNS


def led_turn(ev: dict) -> float | None:
    """LEDs the picture turns for this event (+ = anticlockwise): the time wheel turns one
    square (45 degrees) clockwise; None for every other event."""
    if not turns_wheel(ev):
        return None
    return -ring_leds()["count"] / 8.0


def turn_frames(view_before: dict, steps: int = 8, leds: dict | None = None) -> list:
    """The wheel turning, frame by frame, from the view before the turn (wheel.turn_frames)."""
    return wheel.turn_frames(view_before, steps, leds or ring_leds())
