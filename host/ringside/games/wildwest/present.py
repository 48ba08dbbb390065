"""Wild West at the table: the picture, the action labels, the event words and the LED frame
(the contract in ringside.games.present).

The ring section is the map: every space round the ring in ring.json's order, with its
label ("Gold", "Saloon", ...) and the marble. Tables show each player's money (purse and
bank, worth in silver) and tokens, the mine, the donation bowl, the shop and the bag.
"""
from __future__ import annotations

import re

from ringside.games import CHANCE
from ringside.games import circles_common as cc
from ringside.games import present as P
from ringside.games.wildwest import money as M
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ringside.games import Game

_WAY = {cc.CW: "clockwise", cc.CCW: "anticlockwise"}


def _trade_rule() -> str:
    return ("trade-up: %d silver become 1 gold and %d gold 1 ruby at once, whenever the reserve has the "
            "bigger piece" % (M.RATE, M.RATE))


def status(game: Game) -> str:
    s = game.state
    if game.over:
        return result(game)["text"]
    seat = game.to_act()[0]
    name = game.seat_name(seat)
    ph = s["phase"]
    label = game.side.labels
    if ph == "flick":
        return "%s flicks from %s, clockwise only, at least %d spaces" % (
            name, label[s["marble"]], game.data["min_steps"])
    if ph == "saloon_flick":
        return "%s flicks from the saloon, clockwise, trying to go exactly once round" % name
    if seat == CHANCE:
        return "The table: %s" % game.capabilities.chance_prompt
    words = {"vote": "votes where the marble stopped", "sheriff": "decides where the marble stopped (the sheriff)",
             "tickets": "may ride a train ticket one space on, or resolve this space",
             "bank": "is at the bank: deposit or take back money, then leave",
             "saloon_decide": "is at the saloon: play for money or pass", "saloon_bets": "wagers at the saloon",
             "rob": "is the bandit's accomplice: pick whom to rob", "shop": "is at the shop",
             "dig": "may dig with a shovel", "ranch": "may buy the ranch"}
    return "%s %s (the marble is on %s)" % (name, words.get(ph, "to play"), label[s["marble"]])


def players(game: Game) -> list:
    s = game.state
    names = list(game.players)
    marks = P.glyphs(names)
    act = game.to_act()
    out = []
    for i, n in enumerate(names):
        facts = ["purse %s" % M.text(s["purse"][i]), "bank %s" % M.text(s["bank"][i]),
                 "%d ticket%s, %d shovel%s, %d wagon%s" % (s["tickets"][i], "" if s["tickets"][i] == 1 else "s",
                                                           s["shovels"][i], "" if s["shovels"][i] == 1 else "s",
                                                           s["wagons"][i], "" if s["wagons"][i] == 1 else "s")]
        if i == s["sheriff"]:
            facts.append("the sheriff")
        pl = {"seat": i, "name": n, "colour": P.seat_colour(i), "glyph": marks[i],
              "score": game.worth(i), "facts": facts, "to_act": i in act}
        if i == s["sheriff"]:
            pl["badges"] = [{"glyph": "\u2605", "means": "the sheriff's star"}]
        out.append(pl)
    return out


def ring_section(game: Game) -> dict:
    s = game.state
    side = game.side
    spaces = []
    for sid in side.ids:
        lo = side.centre(sid) - side.width(sid) / 2.0
        marks = []                        # the marble's space is highlighted
        spaces.append(P.ring_space(sid, side.labels[sid], round(lo % 360.0, 2),
                                   round((lo + side.width(sid)) % 360.0, 2), marks, highlight=sid == s["marble"]))
    return P.ring("The map: the ring's spaces (flicks go clockwise)", spaces,
                  {"space": s["marble"], "deg": round(side.centre(s["marble"]), 2)})


def picture(game: Game, seat: int | None = None) -> dict:
    s = game.state
    names = list(game.players)
    marks = P.glyphs(names)
    money = P.table("Money and tokens (worth in silver: 1 gold = 3, 1 ruby = 9)",
                    ["player", "purse", "bank", "worth", "tickets", "shovels", "wagons"],
                    [[("* " if i == s["sheriff"] else "") + n, M.text(s["purse"][i]), M.text(s["bank"][i]),
                      str(game.worth(i)), str(s["tickets"][i]), str(s["shovels"][i]), str(s["wagons"][i])]
                     for i, n in enumerate(names)])
    mine = P.track("The mine (outside in)", [P.step(M.text(m) if M.count(m) else "empty") for m in s["mine"]])
    bowl = P.track("The donation bowl", [P.step(M.text(b) if b else "empty") for b in s["bowl"]])
    shop = P.text("Shop, bag and reserve", [
        "Shop: %d tickets, %d shovels, %d wagons left (%s)" % (
            s["shop"]["tickets"], s["shop"]["shovels"], s["shop"]["wagons"],
            ", ".join("a %s costs 1 %s" % (k, v) for k, v in game.data["shop"].items())),
        "Bag: %d discs" % sum(s["bag"].values()),
        "Reserve: %s" % M.text(s["reserve"]),
        "The ranch costs %d rubies: the first to buy it wins." % game.data["ranch_rubies"],
        _trade_rule().capitalize() + "."])
    legend = [{"glyph": "( )", "colour": None, "means": "the marble's space"},
              {"glyph": "*", "colour": None, "means": "the sheriff"}]
    legend += [{"glyph": marks[i], "colour": P.seat_colour(i), "means": n} for i, n in enumerate(names)]
    return {"game": game.name, "title": "Circles: Wild West", "status": status(game), "to_act": game.to_act(),
            "players": players(game), "sections": [ring_section(game), money, mine, bowl, shop],
            "legend": legend, "hidden": ["the discs in the bag (drawn blind)"],
            "result": result(game) if game.over else None,
            "notes": ["flicks go clockwise only, at least %d spaces" % game.data["min_steps"]]}


def result(game: Game) -> dict | None:
    if not game.over:
        return None
    r = game.result
    winners = list(r["winners"])
    worth = ", ".join("%s %d" % (k, v) for k, v in r["scores"].items())
    text = ("%s %s: %s, and the first player to buy the ranch (for %d rubies) wins the game, whatever "
            "money the others hold. Money at the end, in silver: %s"
            % (" and ".join(winners), "wins" if len(winners) == 1 else "win", r["reason"],
               game.data["ranch_rubies"], worth))
    return {"winners": winners, "scores": dict(r["scores"]), "text": text}


def label(game: Game, seat: int | str, a: dict) -> str:
    t = a.get("type")
    sid = a.get("space")
    lab = "%s (%s)" % (game.side.labels[sid], sid) if isinstance(sid, str) and sid in game.side else sid
    if t == "landed":
        tr = a.get("travel")
        way = "" if tr is None else ", %.0f degrees %s" % (abs(tr), "clockwise" if tr < 0 else "anticlockwise")
        return "the marble stops on %s%s" % (lab, way)
    if t == "rob":
        v = game.seat_name(a.get("victim"))
        return "rob %s" % ("yourself" if v == game.seat_name(seat) else v)
    if t in ("vote", "decide"):
        return "%s %s" % ("vote for" if t == "vote" else "decide on", lab)
    return game.describe(a)


_SPACE_ID = re.compile(r" \([a-z_]+-\d+\)")


def event_text(e: dict) -> str:
    """The engine's words; where money arrives in silver, the trade-up rule is said in words
    (it turns the silver into gold at once, which looked like money vanishing)."""
    t = _SPACE_ID.sub("", e.get("text", ""))      # "stops on Bank", not "Bank (bank-1)": the map shows names
    if e.get("type") == "money_bag":
        t += ("; anyone who then holds %d silver trades them up for 1 gold at once (the trade-up rule)"
              % M.RATE)
    return t


def led_frame(game: Game) -> dict:
    """The active player's colour round the ring, the marble's space lit white, pulsing
    when it has just been resolved."""
    if game.over:
        return P.led_frame()
    act = game.to_act()
    seat = act[0] if act and act[0] != CHANCE else None
    s = game.state
    spaces = {}
    if game.flick_request() is None and s["marble"] in game.side:
        spaces[s["marble"]] = "white"                    # where the marble rests, being resolved
    pulse = s["marble"] if game.log and s["marble"] in game.side else None
    return P.led_frame(player=P.seat_colour(seat) if seat is not None else None, spaces=spaces, pulse=pulse)


__all__ = ["picture", "label", "event_text", "led_frame"]
