"""The Circle, wave 2 (issue 16): the cancelled marker waits for the next turn, phase 3's spies
at 8 are in the view (and on the LED wheel), attacks target only opponents, the grey cards'
bidding colours, and a player who reached 20 and dropped below. docs/rules/circle.md."""
import json

import pytest

from ringside.games import CHANCE, IllegalAction
from ringside.games.circle import cards as cardlib
from ringside.games.circle import wheel

from test_circle_rules import a, at_p2, end_p2, give, on_wheel, where


def _homeland_cancel(g):
    """Seat 0 uses a homeland spy of another player's agency h; h (marker active since an
    earlier turn) cancels it. Returns h."""
    cid = [c for c in g.state["stacks"][12] if g.card[c]["homeland"]][0]
    h = [p for p, pl in enumerate(g.state["players"]) if pl["agency"] == g.card[cid]["homeland"]][0]
    assert h != 0
    pl = g.state["players"][h]
    pl["marker"], pl["marker_turn"] = True, g.state["turn"] - 1      # activated in the turn before
    give(g, 0, cid)
    a(g, 0, "use", card=cid)
    a(g, h, "cancel")
    assert pl["marker"] is False
    return h


def _to_p2_of(g, seat):
    """Play on (ending phase 2s, passing, secrets into SUP) until `seat` acts in a phase 2."""
    while not (g.state["phase"] == "p2" and g.to_act() == [seat]):
        s = g.to_act()[0]
        if s == CHANCE:
            g.apply(s, g.chance_action())
        elif g.state["phase"] == "p1":
            acts = g.legal_actions(s)
            free = [x for x in acts if x["type"] == "free_neutral"]
            g.apply(s, free[0] if free else {"type": "secret", "division": "SUP", "n": 1})
        elif g.state["phase"] == "p2":
            a(g, s, "end")
        else:
            acts = g.legal_actions(s)
            g.apply(s, {"type": "pass"} if {"type": "pass"} in acts else acts[-1])


def test_a_cancelled_marker_cannot_be_reactivated_in_the_same_turn():
    g = at_p2(first=0)
    turn = g.state["turn"]
    h = _homeland_cancel(g)
    _to_p2_of(g, h)
    assert g.state["turn"] == turn                     # still the turn of the cancel
    assert {"type": "marker"} not in g.legal_actions(h)
    vp = g.state["players"][h]["vp"]
    with pytest.raises(IllegalAction):
        a(g, h, "marker")
    assert g.state["players"][h]["vp"] == vp and g.state["players"][h]["marker"] is False
    a(g, h, "end")
    _to_p2_of(g, h)                                    # the next turn: it may be re-activated
    assert g.state["turn"] == turn + 1
    assert {"type": "marker"} in g.legal_actions(h)
    a(g, h, "marker")
    assert g.state["players"][h]["marker"] is True and g.state["players"][h]["vp"] == vp - 1


# ----- phase 3: the spies at 8 are public ----------------------------------------------------

def _auction_with_a_queue():
    """Phase 3 stopped on an auction for the first of two unowned spies that reached 8."""
    g = at_p2(first=0)
    for q in g.state["wheel"]:
        q.clear()
    c1 = g.state["stacks"][4][0]                  # SUP, tied: auctioned
    c2 = g.state["stacks"][0][0]                  # INT, waits behind it
    on_wheel(g, c1, 1)
    on_wheel(g, c2, 1)
    for p, v in enumerate([4, 4, 0, 3]):
        g.state["players"][p]["secrets"][1] = v
    end_p2(g)
    assert g.state["need"]["kind"] == "auction" and g.state["p3"]["queue"]
    return g, c1, c2


def test_the_spies_waiting_at_8_in_phase_3_are_in_every_view():
    g, c1, c2 = _auction_with_a_queue()
    for seat in (None, 0, 2):
        at8 = g.view(seat)["wheel"][7]
        assert at8["number"] == 8
        assert [sp["card"] for sp in at8["spies"]] == [c1, c2]          # innermost first
        assert all(sp["colour"] == "grey" and sp["owner"] is None for sp in at8["spies"])
    a(g, 0, "raise")
    a(g, 1, "drop")                                     # c1 hired: c2 is still waiting or hired
    left = [sp["card"] for sp in g.view(None)["wheel"][7]["spies"]]
    assert c1 not in left


def test_the_led_wheel_shows_square_8_during_the_auction():
    g, c1, c2 = _auction_with_a_queue()
    frame = wheel.led_frame(g.view(None))
    idx = wheel._segment_leds(8, wheel.DEFAULT_LEDS)[1:-1]
    assert [frame[i] for i in idx[:2]] == [wheel.RGB["grey"]] * 2
    assert all(frame[i] == wheel.OFF for i in idx[2:])


def test_the_time_warp_spy_is_in_the_view_while_the_wheel_turns_again():
    g = at_p2(first=0)
    for q in g.state["wheel"]:
        q.clear()
    warp = give(g, 1, g.state["stacks"][6][0])
    c1 = g.state["stacks"][4][0]                   # SUP: reaches 8 on the warp's turn, tied
    on_wheel(g, c1, 2)
    for p, v in enumerate([4, 4, 0, 3]):
        g.state["players"][p]["secrets"][1] = v
    end_p2(g)
    assert g.legal_actions(1)[0] == {"type": "warp", "card": warp}
    a(g, 1, "warp", card=warp)
    assert g.state["need"]["kind"] == "auction"        # the second turn's auction is open
    v = g.view(3)
    assert v["time_warp"] == {"card": warp, "owner": 1, "colour": "blue"}
    assert [sp["card"] for sp in v["wheel"][7]["spies"]] == [c1]
    a(g, 0, "raise")
    a(g, 1, "drop")
    assert g.view(None)["time_warp"] is None and where(g, warp)[2] == 1


# ----- attacks target only opponents ---------------------------------------------------------

def _free(g, ctype):
    return [c for st in g.state["stacks"] for c in st[:1] if g.card[c]["type"] == ctype][0]


@pytest.mark.parametrize("ctype", ["int_attack", "ops_foil"])
def test_attack_spies_target_only_opponents(ctype):
    g = at_p2(first=0)
    cid = give(g, 0, _free(g, ctype))
    a(g, 0, "use", card=cid)
    seats = [x["seat"] for x in g.legal_actions(0) if "seat" in x]
    assert seats == [1, 2, 3]
    before = json.dumps(g.state, sort_keys=True)
    with pytest.raises(IllegalAction):
        a(g, 0, "pick", seat=0)
    assert json.dumps(g.state, sort_keys=True) == before
    a(g, 0, "pick", seat=2)
    assert g.state["players"][2]["front"][0]["card"] == cid
    assert g.state["players"][0]["front"] == []


# ----- the grey cards' bidding colours ----------------------------------------------------------

def test_the_neutral_cards_bid_in_each_division_and_grey_four_times():
    deck = cardlib.load(None)
    neutral = [c for c in deck if c["colour"] == "neutral"]
    counts = {}
    for c in neutral:
        counts[c["auction"]] = counts.get(c["auction"], 0) + 1
    assert counts == {"INT": 4, "SUP": 4, "REC": 4, "OPS": 4, "grey": 4}


# ----- reaching 20 and dropping below before phase 2 is over -----------------------------------

def test_a_player_who_dropped_below_20_by_the_end_of_phase_2_has_not_won():
    g = at_p2(first=0)
    pl = g.state["players"][0]
    pl["vp"] = 19
    spy = give(g, 0, g.state["stacks"][0][0])
    a(g, 0, "infiltrate", card=spy)
    assert pl["vp"] >= 20                               # crossed the line ...
    a(g, 0, "unmask", card=spy)                         # ... and dropped below it again
    assert pl["vp"] < 20
    end_p2(g)
    assert not g.over and g.state["phase"] in ("p3", "p1", "reveal")
    # the same player holding 20 when phase 2 ends wins
    g2 = at_p2(first=0)
    g2.state["players"][0]["vp"] = 19
    spy = give(g2, 0, g2.state["stacks"][0][0])
    a(g2, 0, "infiltrate", card=spy)
    end_p2(g2)
    assert g2.over and g2.result["winners"] == ["Ann"]

