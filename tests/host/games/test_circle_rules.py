"""The Circle: one test per rule sentence (mapped in docs/rules/circle.md)."""
import copy
import json

import pytest

from ringside import games
from ringside.games import CHANCE, GameError, IllegalAction
from ringside.games.circle.cards import COLOURS, NATIONS
from ringside.games.circle.engine import start_squares

NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"]


def new(n=4, first=0, seed=1):
    g = games.new("circle", NAMES[:n], seed=seed)
    while g.state["need"]["kind"] == "draw":
        g.apply(CHANCE, g.chance_action())
    g.apply(CHANCE, {"type": "first", "seat": first})
    for k in range(n):
        g.apply(g.to_act()[0], {"type": "agency", "agency": NATIONS[k]})
    return g


def chance(g):
    while g.to_act() == [CHANCE]:
        g.apply(CHANCE, g.chance_action())


def play_p1(g, division="OPS"):
    """Every player's phase 1: the free neutral (starter), then all secrets into one division."""
    while g.state["phase"] == "p1" and not g.over:
        chance(g)
        seat = g.to_act()[0]
        acts = g.legal_actions(seat)
        free = [a for a in acts if a["type"] == "free_neutral"]
        g.apply(seat, free[0] if free else {"type": "secret", "division": division, "n": g.state["p1"]["left"]})
    chance(g)


def end_p2(g):
    while g.state["phase"] == "p2" and not g.over:
        g.apply(g.to_act()[0], {"type": "end"})


def take(g, cid):
    """Lift a card out of the stacks / deck / face-up row (test set-up)."""
    s = g.state
    for st in s["stacks"]:
        if cid in st:
            st.remove(cid)
            return cid
    for key in ("deck", "faceup"):
        if cid in s[key]:
            s[key].remove(cid)
            return cid
    raise AssertionError("card %s is not free" % cid)


def give(g, seat, cid):
    g.state["players"][seat]["ready"].append(take(g, cid))
    return cid


def on_wheel(g, cid, number, owner=None):
    g.state["wheel"][number - 1].append({"card": take(g, cid), "owner": owner, "rec": None})


def where(g, cid):
    for i, q in enumerate(g.state["wheel"]):
        for j, e in enumerate(q):
            if e["card"] == cid:
                return i + 1, j, e["owner"]
    return None


def a(g, who, kind, **kw):
    d = {"type": kind}
    d.update(kw)
    return g.apply(who, d)


def at_p2(n=4, first=0):
    g = new(n, first)
    play_p1(g)
    assert g.state["phase"] == "p2"
    return g


# ----- set-up ------------------------------------------------------------------------------

def test_sixteen_colour_stacks_with_the_homeland_spy_on_top():
    g = new()
    v = g.view(None)
    assert len(v["stacks"]) == 16 and sum(st["size"] for st in v["stacks"]) == 40
    tops = [g.card[st["top"]] for st in v["stacks"]]
    assert sum(1 for c in tops if c["homeland"]) == 12
    for st in g.state["stacks"]:
        assert len({(g.card[c]["colour"], g.card[c]["type"]) for c in st}) == 1
        assert sum(1 for c in st[1:] if g.card[c]["homeland"]) == 0


def test_two_neutral_spies_face_up_and_eighteen_hidden_face_down():
    g = games.new("circle", NAMES[:4], seed=5)
    assert g.to_act() == [CHANCE] and g.state["need"]["kind"] == "draw"
    while g.state["need"]["kind"] == "draw":
        g.apply(CHANCE, g.chance_action())
    v = g.view(0)
    assert len(v["faceup"]) == 2 and v["deck_size"] == 18
    text = json.dumps({k: v[k] for k in v if k != "cards"})
    for cid in g.state["deck"]:
        assert '"%s"' % cid not in text        # the face-down deck is hidden from every seat


def test_draws_are_chance_actions_a_table_can_enter():
    g = games.new("circle", NAMES[:3], seed=2)
    pick = g.state["deck"][7]
    g.apply(CHANCE, {"type": "draw", "card": pick})
    assert pick in g.state["faceup"]
    with pytest.raises(IllegalAction):
        g.apply(CHANCE, {"type": "draw", "card": pick})


@pytest.mark.parametrize("n,players,circle", [(3, 5, 0), (4, 4, 0), (5, 3, 1), (6, 2, 2)])
def test_starting_squares_by_player_count(n, players, circle):
    assert start_squares(n) == (players, circle)
    g = new(n)
    assert [p["vp"] for p in g.view()["players"]] == [players] * n and g.view()["circle_vp"] == circle


@pytest.mark.parametrize("n", [2, 7])
def test_three_to_six_players(n):
    with pytest.raises(GameError):
        games.new("circle", ["p%d" % i for i in range(n)])


def test_agencies_chosen_starting_player_first_then_clockwise_markers_passive():
    g = games.new("circle", NAMES[:4], seed=1)
    while g.state["need"]["kind"] == "draw":
        g.apply(CHANCE, g.chance_action())
    g.apply(CHANCE, {"type": "first", "seat": 2})
    order = []
    for nat in ("JPN", "USA", "FRA", "RUS"):
        seat = g.to_act()[0]
        order.append(seat)
        assert {"type": "agency", "agency": nat} in g.legal_actions(seat)
        g.apply(seat, {"type": "agency", "agency": nat})
        assert {"type": "agency", "agency": nat} not in (g.legal_actions(g.to_act()[0]) if g.state["phase"] == "agency" else [])
    assert order == [2, 3, 0, 1]
    assert all(p["marker"] == "passive" for p in g.view()["players"])
    assert g.state["phase"] == "p1" and g.to_act() == [2]


def test_starting_player_passes_left_after_every_turn():
    g = at_p2(first=3)
    end_p2(g)
    while g.state["phase"] == "p3" or g.to_act() == [CHANCE]:
        s = g.to_act()[0]
        g.apply(s, g.chance_action() if s == CHANCE else g.legal_actions(s)[-1])
    assert g.state["turn"] == 2 and g.state["starter"] == 0 and g.to_act() == [0]


# ----- phase 1 -----------------------------------------------------------------------------

def test_four_new_secrets_freely_distributed():
    g = new(first=0)
    a(g, 0, "free_neutral", card=g.state["faceup"][0])
    chance(g)
    a(g, 0, "secret", division="INT", n=2)
    assert {"type": "secret", "division": "REC", "n": 2} in g.legal_actions(0)
    assert {"type": "secret", "division": "REC", "n": 3} not in g.legal_actions(0)
    for d in ("OPS", "REC"):
        a(g, 0, "secret", division=d, n=1)
    assert g.state["players"][0]["secrets"] == [2, 0, 1, 1]
    assert g.to_act() == [1]


def test_thirteenth_secret_arrests_two_circle_members():
    g = new(first=0)
    g.state["players"][0]["secrets"][0] = 11
    vp, circle = g.state["players"][0]["vp"], g.state["circle"]
    a(g, 0, "secret", division="INT", n=1)
    assert g.state["players"][0]["secrets"][0] == 12
    ev = a(g, 0, "secret", division="INT", n=1)
    assert g.state["players"][0]["secrets"][0] == 1
    assert g.state["players"][0]["vp"] == vp + 2 and g.state["circle"] == circle + 2
    assert any(e["type"] == "arrest" for e in ev)


def test_activating_a_colour_spy_costs_two_of_this_phases_secrets_and_goes_unowned_on_the_wheel():
    g = new(first=1)             # seat 1 starts; seat 1 has the free activation
    top = g.state["stacks"][5][0]
    nxt = g.state["stacks"][5][1]
    a(g, 1, "activate", card=top)
    assert g.state["p1"]["left"] == 2
    assert where(g, top) == (g.card[top]["time"], 0, None)
    assert g.view()["stacks"][5]["top"] == nxt
    acts = g.legal_actions(1)
    assert not any(x["type"] == "activate" and x["card"] in [st[0] for st in g.state["stacks"] if st] for x in acts)


def test_neutral_activation_is_refilled_and_never_two_of_a_kind():
    g = new(first=0)
    a(g, 0, "free_neutral", card=g.state["faceup"][0])
    assert g.to_act() == [CHANCE]
    chance(g)
    cid = g.state["faceup"][1]
    a(g, 0, "activate", card=cid)
    chance(g)
    assert len(g.state["faceup"]) == 2 and g.view()["deck_size"] == 16
    assert not any(x["type"] == "activate" and x["card"] in g.state["faceup"] for x in g.legal_actions(0))
    a(g, 0, "activate", card=g.state["stacks"][0][0])
    assert g.state["p1"] is not None and g.to_act() == [1]   # both activations: nothing left to place
    assert g.state["players"][0]["secrets"] == [0, 0, 0, 0]


def test_starting_player_must_activate_one_neutral_for_free():
    g = new(first=0)
    for d in COLOURS:
        a(g, 0, "secret", division=d, n=1)
    assert g.to_act() == [0]
    assert [x["type"] for x in g.legal_actions(0)] == ["free_neutral", "free_neutral"]
    cid = g.state["faceup"][0]
    a(g, 0, "free_neutral", card=cid)
    assert where(g, cid)[2] is None
    chance(g)
    assert g.to_act() == [1]


@pytest.mark.parametrize("neutral,expect", [(False, 2), (True, 3)])
def test_int_attack_gives_fewer_new_secrets_next_phase_1(neutral, expect):
    g = at_p2()
    cid = [c for c in g.card if g.card[c]["type"] == "int_attack" and (g.card[c]["colour"] == "neutral") == neutral
           and (c in g.state["deck"] or any(c in st for st in g.state["stacks"]) or c in g.state["faceup"])][0]
    give(g, 0, cid)
    a(g, 0, "use", card=cid)
    a(g, 0, "pick", seat=2)
    assert g.state["players"][2]["front"][0]["card"] == cid
    end_p2(g)
    while g.state["phase"] != "p1" or g.to_act() != [2]:
        s = g.to_act()[0]
        if s == CHANCE:
            g.apply(s, g.chance_action())
        elif g.state["phase"] == "p1":
            acts = g.legal_actions(s)
            free = [x for x in acts if x["type"] == "free_neutral"]
            g.apply(s, free[0] if free else {"type": "secret", "division": "SUP", "n": 1})
        else:
            g.apply(s, {"type": "pass"} if {"type": "pass"} in g.legal_actions(s) else g.legal_actions(s)[-1])
    assert g.state["p1"]["left"] == expect
    assert where(g, cid)[2] == 0                # then it goes on the wheel with its owner's piece


# ----- phase 2 -----------------------------------------------------------------------------

def test_a_spy_that_acts_goes_on_the_wheel_with_its_owners_piece_queueing_outward():
    g = at_p2()
    c1, c2 = [c for c in g.state["stacks"][12]][:2]      # OPS capture, time 5
    give(g, 0, c1)
    give(g, 0, c2)
    t = g.card[c1]["time"]
    before = len(g.state["wheel"][t - 1])
    a(g, 0, "use", card=c1)
    a(g, 0, "use", card=c2)
    assert where(g, c1) == (t, before, 0) and where(g, c2) == (t, before + 1, 0)


def test_actions_in_any_order_then_the_next_player():
    g = at_p2(first=0)
    assert g.to_act() == [0]
    a(g, 0, "end")
    assert g.to_act() == [1]


def test_agency_marker_costs_one_vp_once_a_turn():
    g = at_p2()
    vp = g.state["players"][0]["vp"]
    a(g, 0, "marker")
    assert g.view()["players"][0]["marker"] == "active" and g.state["players"][0]["vp"] == vp - 1
    assert {"type": "marker"} not in g.legal_actions(0)


def test_homeland_agency_cancels_the_action():
    g = at_p2()
    cid = [c for c in g.state["stacks"][12] if g.card[c]["homeland"]][0]       # OPS capture homeland spy
    home = g.card[cid]["homeland"]
    h = [p for p, pl in enumerate(g.state["players"]) if pl["agency"] == home][0]
    assert h != 0
    g.state["players"][h]["marker"] = True
    give(g, 0, cid)
    vp, circle = g.state["players"][0]["vp"], g.state["circle"]
    a(g, 0, "use", card=cid)
    assert g.to_act() == [h] and g.legal_actions(h) == [{"type": "cancel"}, {"type": "allow"}]
    a(g, h, "cancel")
    assert g.state["players"][0]["vp"] == vp and g.state["circle"] == circle      # not performed
    assert where(g, cid)[2] == 0 and g.state["players"][h]["marker"] is False
    assert g.to_act() == [0]


def test_homeland_agency_may_allow_the_action():
    g = at_p2()
    cid = [c for c in g.state["stacks"][12] if g.card[c]["homeland"]][0]
    h = [p for p, pl in enumerate(g.state["players"]) if pl["agency"] == g.card[cid]["homeland"]][0]
    g.state["players"][h]["marker"] = True
    give(g, 0, cid)
    vp = g.state["players"][0]["vp"]
    a(g, 0, "use", card=cid)
    a(g, h, "allow")
    assert g.state["players"][0]["vp"] == vp + 1 and g.state["players"][h]["marker"] is True


def test_one_infiltration_per_turn_for_the_vp_on_the_back():
    g = at_p2()
    c1 = give(g, 0, g.state["stacks"][0][0])
    c2 = give(g, 0, g.state["stacks"][4][0])
    vp = g.state["players"][0]["vp"]
    a(g, 0, "infiltrate", card=c1)
    assert g.state["players"][0]["vp"] == vp + g.card[c1]["vp"] and c1 in g.view()["players"][0]["infiltrated"]
    assert {"type": "infiltrate", "card": c2} not in g.legal_actions(0)


def test_sup_spy_allows_one_more_infiltration_but_not_itself():
    g = at_p2()
    sup = give(g, 0, g.state["stacks"][7][0])      # SUP infiltrate
    c1 = give(g, 0, g.state["stacks"][0][0])
    c2 = give(g, 0, g.state["stacks"][1][0])
    a(g, 0, "infiltrate", card=c1)
    a(g, 0, "use", card=sup)
    assert where(g, sup) is not None
    a(g, 0, "infiltrate", card=c2)
    assert g.state["players"][0]["infiltrated"] == [c1, c2]


@pytest.mark.parametrize("joker", [False, True])
def test_the_moth_bonus_for_four_divisions_with_neutral_jokers(joker):
    g = at_p2()
    stacks = [0, 4, 8] + ([] if joker else [12])
    spies = [g.state["stacks"][k][0] for k in stacks]
    if joker:
        spies.append(g.state["deck"][0])
    pl = g.state["players"][0]
    for c in spies[:3]:
        take(g, c)
        pl["infiltrated"].append(c)
    pl["moths"] = g._moths(0)
    assert pl["moths"] == 0
    give(g, 0, spies[3])
    vp = pl["vp"]
    a(g, 0, "infiltrate", card=spies[3])
    assert g.state["players"][0]["vp"] == vp + g.card[spies[3]]["vp"] + 1


def test_unmasking_costs_the_player_and_the_circle_its_value_and_removes_the_card():
    g = at_p2()
    cid = take(g, g.state["stacks"][13][0])          # OPS remove, 4 VP
    g.state["players"][0]["infiltrated"].append(cid)
    g.state["players"][0]["vp"] = 10
    g.state["circle"] = 15
    a(g, 0, "unmask", card=cid)
    assert g.state["players"][0]["vp"] == 10 - g.card[cid]["vp"] and g.state["circle"] == 15 - g.card[cid]["vp"]
    assert cid in g.state["removed"] and g.totals()["all"] == 60


# ----- phase 3 -----------------------------------------------------------------------------

def test_the_wheel_turns_one_square_and_owned_spies_at_8_return_innermost_first():
    g = at_p2()
    for q in g.state["wheel"]:
        q.clear()
    g.state["stacks"] = [st for st in g.state["stacks"]]
    c1, c2, c3 = g.state["stacks"][12][:3]
    on_wheel(g, c1, 1, owner=2)
    on_wheel(g, c2, 1, owner=1)
    on_wheel(g, c3, 5, owner=0)
    end_p2(g)
    assert g.state["players"][2]["ready"] == [c1] and g.state["players"][1]["ready"] == [c2]
    assert where(g, c3) == (4, 0, 0)


def test_unowned_colour_spy_goes_to_the_division_leader():
    g = at_p2()
    for q in g.state["wheel"]:
        q.clear()
    cid = g.state["stacks"][0][0]                  # INT
    on_wheel(g, cid, 1)
    for p, v in enumerate([3, 7, 5, 0]):
        g.state["players"][p]["secrets"][0] = v
    end_p2(g)
    assert cid in g.state["players"][1]["ready"] and g.state["players"][1]["secrets"][0] == 7


def test_a_tie_is_auctioned_in_that_division_from_the_starting_player_clockwise():
    g = at_p2(first=2)
    for q in g.state["wheel"]:
        q.clear()
    cid = g.state["stacks"][4][0]                  # SUP
    on_wheel(g, cid, 1)
    for p, v in enumerate([4, 4, 0, 3]):
        g.state["players"][p]["secrets"][1] = v
    end_p2(g)
    assert g.state["need"]["kind"] == "auction" and g.to_act() == [0]    # seat 0 sits closest after 2, 3
    assert g.legal_actions(0) == [{"type": "raise"}, {"type": "drop"}]
    a(g, 0, "raise")
    assert g.to_act() == [1]
    a(g, 1, "raise")
    a(g, 0, "raise")
    a(g, 1, "drop")
    assert cid in g.state["players"][0]["ready"] and g.state["players"][0]["secrets"][1] == 1


def test_a_bidder_without_enough_secrets_is_out():
    g = at_p2(first=0)
    for q in g.state["wheel"]:
        q.clear()
    cid = g.state["stacks"][4][0]
    on_wheel(g, cid, 1)
    for p, v in enumerate([1, 1, 0, 0]):
        g.state["players"][p]["secrets"][1] = v
    end_p2(g)
    a(g, 0, "raise")
    # seat 1 cannot raise to 2: out, and seat 0 takes the spy for 1
    assert cid in g.state["players"][0]["ready"] and g.state["players"][0]["secrets"][1] == 0


def test_neutral_spy_auction_in_its_colour_for_everyone():
    g = at_p2(first=0)
    for q in g.state["wheel"]:
        q.clear()
    cid = [c for c in g.state["deck"] + g.state["faceup"] if g.card[c]["auction"] == "REC"][0]
    on_wheel(g, cid, 1)
    for p in range(4):
        g.state["players"][p]["secrets"] = [5, 5, 5, 5]
    g.state["players"][0]["secrets"][2] = 1
    g.state["players"][3]["secrets"][2] = 2
    end_p2(g)
    assert g.to_act() == [0]
    a(g, 0, "raise")
    a(g, 1, "drop")
    a(g, 2, "drop")
    a(g, 3, "raise")
    # seat 0 holds 1 REC secret: out; seat 3 pays 2 REC
    assert cid in g.state["players"][3]["ready"] and g.state["players"][3]["secrets"] == [5, 5, 0, 5]


def test_grey_neutral_auction_any_division_winner_picks_what_to_pay():
    g = at_p2(first=0)
    for q in g.state["wheel"]:
        q.clear()
    cid = [c for c in g.state["deck"] + g.state["faceup"] if g.card[c]["auction"] == "grey"][0]
    on_wheel(g, cid, 1)
    for p in range(4):
        g.state["players"][p]["secrets"] = [1, 1, 0, 0]
    end_p2(g)
    a(g, 0, "raise")
    a(g, 1, "raise")          # 2 and 3 cannot bid 3, nor can 0: Bob wins at 2
    assert g.state["need"]["kind"] == "pay" and g.to_act() == [1]
    a(g, 1, "pay", division="SUP")
    a(g, 1, "pay", division="INT")
    assert g.state["players"][1]["secrets"] == [0, 0, 0, 0] and cid in g.state["players"][1]["ready"]


def test_time_warp_turns_the_wheel_again_with_every_consequence():
    g = at_p2(first=0)
    for q in g.state["wheel"]:
        q.clear()
    warp = give(g, 1, g.state["stacks"][6][0])
    c1, c2 = g.state["stacks"][12][:2]
    on_wheel(g, c1, 1, owner=3)
    on_wheel(g, c2, 2, owner=2)
    end_p2(g)
    assert c1 in g.state["players"][3]["ready"] and g.to_act() == [1]
    assert g.legal_actions(1) == [{"type": "warp", "card": warp}, {"type": "pass"}]
    a(g, 1, "warp", card=warp)
    assert c2 in g.state["players"][2]["ready"]
    assert where(g, warp) == (g.card[warp]["time"], 0, 1)
    assert g.state["phase"] == "p1"


# ----- the spy actions ---------------------------------------------------------------------

def test_int_gain_two_secrets_to_anyones_divisions_neutral_one():
    g = at_p2()
    cid = give(g, 0, g.state["stacks"][0][0])
    a(g, 0, "use", card=cid)
    a(g, 0, "pick", seat=2, division="REC")
    a(g, 0, "pick", seat=0, division="INT")
    assert g.state["players"][2]["secrets"][2] == 1 and g.state["players"][0]["secrets"][0] == 1
    n = give(g, 0, [c for c in g.state["deck"] + g.state["faceup"] if g.card[c]["type"] == "int_gain"][0])
    a(g, 0, "use", card=n)
    a(g, 0, "pick", seat=1, division="SUP")
    assert g.state["pending"] is None and g.state["players"][1]["secrets"][1] == 1


def test_int_destroy_two_secrets():
    g = at_p2()
    cid = give(g, 0, g.state["stacks"][1][0])
    g.state["players"][1]["secrets"] = [0, 0, 0, 1]
    a(g, 0, "use", card=cid)
    a(g, 0, "pick", seat=1, division="OPS")
    assert {"type": "pick", "seat": 1, "division": "OPS"} not in g.legal_actions(0)    # none left there
    a(g, 0, "pick", seat=0, division="OPS")
    assert g.state["players"][1]["secrets"][3] == 0


def test_int_auction_spy_bids_beyond_and_pays_two_fewer():
    g = at_p2(first=0)
    for q in g.state["wheel"]:
        q.clear()
    spy = give(g, 1, g.state["stacks"][2][0])
    cid = g.state["stacks"][4][0]
    on_wheel(g, cid, 1)
    for p, v in enumerate([3, 3, 0, 0]):
        g.state["players"][p]["secrets"][1] = v
    end_p2(g)
    for s, x in ((0, "raise"), (1, "raise"), (0, "raise"), (1, "raise")):
        a(g, s, x)
    assert g.state["need"]["kind"] == "aspy"
    assert g.legal_actions(1) == [{"type": "auction_spy", "card": spy}]    # 4 > 3 secrets: must use him
    a(g, 1, "auction_spy", card=spy)
    assert g.state["players"][1]["secrets"][1] == 1 and cid in g.state["players"][1]["ready"]
    assert where(g, spy)[2] == 1


@pytest.mark.parametrize("kind,stack,expect", [("sup_gain", 4, [4, 2]), ("sup_lose", 5, [6, 8])])
def test_sup_moves_spies_on_the_wheel(kind, stack, expect):
    g = at_p2()
    cid = give(g, 0, g.state["stacks"][stack][0])
    for q in g.state["wheel"]:
        q.clear()
    x, y = g.state["stacks"][12][:2]
    on_wheel(g, x, 5)
    on_wheel(g, y, 5)
    a(g, 0, "use", card=cid)
    a(g, 0, "pick", card=x)
    a(g, 0, "pick", card=y)
    assert where(g, x)[0] == expect[0] and where(g, y)[0] == expect[0]
    cid2 = give(g, 0, g.state["stacks"][stack][0])
    a(g, 0, "use", card=cid2)
    a(g, 0, "pick", card=x)
    a(g, 0, "pick", card=x)
    assert where(g, x)[0] == expect[1] and where(g, y)[0] == expect[0]      # one spy two squares


def test_rec_division_lets_its_owner_choose_the_hiring_division():
    g = at_p2()
    for q in g.state["wheel"]:
        q.clear()
    rec = give(g, 0, g.state["stacks"][8][0])
    cid = g.state["stacks"][0][0]             # INT spy
    on_wheel(g, cid, 1)
    a(g, 0, "use", card=rec)
    a(g, 0, "pick", card=cid)
    for p, v in enumerate([0, 0, 9, 0]):
        g.state["players"][p]["secrets"][3] = v
    g.state["players"][1]["secrets"][0] = 9
    end_p2(g)
    assert g.state["need"]["kind"] == "division" and g.to_act() == [0]
    a(g, 0, "division", division="OPS")
    assert cid in g.state["players"][2]["ready"] and where(g, rec)[2] == 0


def test_rec_neutral_makes_everyone_bid():
    g = at_p2(first=0)
    for q in g.state["wheel"]:
        q.clear()
    rec = give(g, 0, g.state["stacks"][9][0])
    cid = g.state["stacks"][0][0]
    on_wheel(g, cid, 1)
    a(g, 0, "use", card=rec)
    assert {"type": "pick", "card": cid} in g.legal_actions(0)
    a(g, 0, "pick", card=cid)
    for p, v in enumerate([0, 9, 1, 1]):
        g.state["players"][p]["secrets"][0] = v
    end_p2(g)
    assert g.state["need"]["kind"] == "auction"
    assert g.state["auction"]["parts"] == [1, 2, 3]      # seat 0 had no INT secret: out at once


def test_rec_quit_removes_the_piece_and_the_spy_is_hired_as_usual():
    g = at_p2()
    for q in g.state["wheel"]:
        q.clear()
    rec = give(g, 0, g.state["stacks"][10][0])
    cid = g.state["stacks"][0][0]
    on_wheel(g, cid, 1, owner=3)
    a(g, 0, "use", card=rec)
    a(g, 0, "pick", card=cid)
    assert where(g, cid)[2] is None
    g.state["players"][2]["secrets"][0] = 12
    end_p2(g)
    assert cid in g.state["players"][2]["ready"]


def guard_setup(front):
    g = at_p2()
    guard = give(g, 1, g.state["stacks"][11][0])
    target = give(g, 1, g.state["stacks"][0][0])
    a(g, 0, "end")
    a(g, 1, "use", card=guard)
    a(g, 1, "pick", **({"front": True} if front else {"card": target}))
    a(g, 1, "end")
    foil = give(g, 2, g.state["stacks"][15][0])
    return g, guard, target, foil


def test_bodyguard_on_a_card_makes_the_attack_fail_and_both_go_to_the_wheel():
    g, guard, target, foil = guard_setup(front=False)
    a(g, 2, "use", card=foil)
    a(g, 2, "pick", card=target)
    assert target in g.state["players"][1]["ready"]
    assert where(g, guard)[2] == 1 and where(g, foil)[2] == 2


def test_bodyguard_in_front_may_repel_or_not():
    g, guard, target, foil = guard_setup(front=True)
    a(g, 2, "use", card=foil)
    a(g, 2, "pick", card=target)
    assert g.to_act() == [1] and g.legal_actions(1) == [{"type": "repel", "guard": guard}, {"type": "allow"}]
    snap = copy.deepcopy(g.state)
    a(g, 1, "repel", guard=guard)
    assert target in g.state["players"][1]["ready"] and where(g, guard)[2] == 1
    g.state = snap
    a(g, 1, "allow")
    assert where(g, target)[2] == 1 and guard in g.state["players"][1]["guards"]


def test_bodyguard_attacked_himself_always_repels():
    g, guard, target, foil = guard_setup(front=True)
    rem = give(g, 2, g.state["stacks"][13][0])
    a(g, 2, "use", card=rem)
    a(g, 2, "pick", card=guard)
    assert guard not in g.state["removed"] and where(g, guard)[2] == 1 and g.to_act() == [2]


def test_ops_capture_one_vp_each():
    g = at_p2()
    cid = give(g, 0, g.state["stacks"][12][0])
    vp, c = g.state["players"][0]["vp"], g.state["circle"]
    a(g, 0, "use", card=cid)
    assert (g.state["players"][0]["vp"], g.state["circle"]) == (vp + 1, c + 1)


def test_ops_remove_takes_a_spy_out_of_the_game():
    g = at_p2()
    cid = give(g, 0, g.state["stacks"][13][0])
    victim = give(g, 3, g.state["stacks"][0][0])
    a(g, 0, "use", card=cid)
    a(g, 0, "pick", card=victim)
    assert victim in g.state["removed"] and victim not in g.state["players"][3]["ready"]


def test_double_agents_exchange_employers_not_the_trigger():
    g = at_p2()
    cid = give(g, 0, g.state["stacks"][14][0])
    x = give(g, 1, g.state["stacks"][0][0])
    y = give(g, 2, g.state["stacks"][1][0])
    a(g, 0, "use", card=cid)
    assert {"type": "pick", "card": cid} not in g.legal_actions(0)
    a(g, 0, "pick", card=x)
    assert {"type": "pick", "card": x} not in g.legal_actions(0)
    a(g, 0, "pick", card=y)
    assert y in g.state["players"][1]["ready"] and x in g.state["players"][2]["ready"]


def test_foil_a_ready_spy_back_to_the_wheel():
    g = at_p2()
    cid = give(g, 0, g.state["stacks"][15][0])
    x = give(g, 2, g.state["stacks"][0][0])
    a(g, 0, "use", card=cid)
    a(g, 0, "pick", card=x)
    assert where(g, x) == (g.card[x]["time"], where(g, x)[1], 2)


def test_foil_blocks_infiltration_in_the_next_phase_2_only():
    g = at_p2()
    cid = give(g, 0, g.state["stacks"][15][0])
    a(g, 0, "use", card=cid)
    a(g, 0, "pick", seat=1)
    spy = give(g, 1, g.state["stacks"][0][0])
    assert {"type": "infiltrate", "card": spy} in g.legal_actions(1) or g.to_act() != [1]
    end_p2(g)
    while not (g.state["phase"] == "p2" and g.to_act() == [1]):
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
            g.apply(s, {"type": "pass"} if {"type": "pass"} in g.legal_actions(s) else g.legal_actions(s)[-1])
    assert spy in g.state["players"][1]["ready"]
    assert not any(x["type"] == "infiltrate" for x in g.legal_actions(1))
    a(g, 1, "end")
    assert where(g, cid)[2] == 0


# ----- the end -----------------------------------------------------------------------------

def test_players_win_at_20_after_phase_2_ties_to_total_secrets_then_shared():
    g = at_p2()
    g.state["players"][1]["vp"] = 21
    g.state["players"][2]["vp"] = 21
    g.state["players"][1]["secrets"] = [1, 1, 1, 1]
    g.state["players"][2]["secrets"] = [0, 0, 0, 4]
    a(g, 0, "end")
    assert not g.over                                 # phase 2 is resolved to the end
    end_p2(g)
    assert g.over and g.result["winners"] == ["Bob", "Cy"] and not g.result["circle_won"]
    g2 = at_p2()
    g2.state["players"][3]["vp"] = 22
    g2.state["players"][1]["vp"] = 21
    end_p2(g2)
    assert g2.result["winners"] == ["Di"]


def test_the_circle_wins_at_20_whatever_the_players_hold_fewest_vp_wins():
    g = at_p2()
    for p, v in enumerate([25, 3, 3, 9]):
        g.state["players"][p]["vp"] = v
    g.state["players"][1]["secrets"] = [2, 0, 0, 0]
    g.state["players"][2]["secrets"] = [1, 0, 0, 0]
    g.state["circle"] = 19
    cid = give(g, 0, g.state["stacks"][12][0])
    a(g, 0, "use", card=cid)
    assert g.over and g.result["circle_won"] and g.result["winners"] == ["Cy"]
    assert g.result["scores"]["Circle"] == 20


def test_illegal_actions_change_nothing_and_say_why():
    g = at_p2()
    before = json.dumps(g.state, sort_keys=True)
    with pytest.raises(IllegalAction, match="not legal"):
        a(g, 0, "infiltrate", card="nobody")
    with pytest.raises(IllegalAction):
        a(g, 1, "end")
    assert json.dumps(g.state, sort_keys=True) == before


def test_only_this_phases_secrets_pay_for_an_activation():
    g = new(first=1)
    g.state["players"][1]["secrets"] = [9, 9, 9, 9]       # old secrets do not count
    a(g, 1, "secret", division="INT", n=3)
    acts = g.legal_actions(1)
    assert not any(x["type"] == "activate" for x in acts)
    assert g.state["players"][1]["secrets"][0] == 12


def test_winning_an_auction_does_not_require_the_auction_spy():
    g = at_p2(first=0)
    for q in g.state["wheel"]:
        q.clear()
    spy = give(g, 1, g.state["stacks"][2][0])
    cid = g.state["stacks"][4][0]
    on_wheel(g, cid, 1)
    for p, v in enumerate([3, 3, 0, 0]):
        g.state["players"][p]["secrets"][1] = v
    end_p2(g)
    a(g, 0, "raise")
    a(g, 1, "raise")
    a(g, 0, "drop")
    assert g.legal_actions(1) == [{"type": "auction_spy", "card": spy}, {"type": "pay_in_full"}]
    a(g, 1, "pay_in_full")
    assert g.state["players"][1]["secrets"][1] == 1 and spy in g.state["players"][1]["ready"]


def test_the_bodyguard_protects_spies_not_the_player():
    g, guard, target, foil = guard_setup(front=True)
    a(g, 2, "use", card=foil)
    a(g, 2, "pick", seat=1)
    assert g.to_act() == [2]                                  # no repel offered
    assert g.state["players"][1]["front"][0]["card"] == foil and guard in g.state["players"][1]["guards"]


@pytest.mark.parametrize("junk", [{}, "secret", {"type": "secret"}, {"type": "secret", "division": "INT", "n": "4"},
                                  {"type": "secret", "division": "INT", "n": 5}, {"type": "activate", "card": None},
                                  {"type": "free_neutral", "card": ["x"]}])
def test_junk_actions_are_refused_with_a_reason(junk):
    g = new(first=0)
    before = json.dumps(g.state, sort_keys=True)
    with pytest.raises(IllegalAction):
        g.apply(0, junk)
    assert json.dumps(g.state, sort_keys=True) == before


def test_a_damaged_save_is_refused_and_a_good_one_replays():
    g = at_p2()
    text = g.to_json()
    assert json.dumps(games.load(text).state, sort_keys=True) == json.dumps(g.state, sort_keys=True)
    d = json.loads(text)
    d["log"][5][1] = {"type": "draw", "card": "nope"}
    with pytest.raises(GameError, match="does not replay"):
        games.load(json.dumps(d))


def test_every_legal_action_has_plain_words():
    g = at_p2()
    give(g, 0, g.state["stacks"][0][0])
    for x in g.legal_actions(0):
        text = g.describe(x)
        assert text and "{" not in text
    a(g, 0, "use", card=g.state["players"][0]["ready"][0])
    assert all("division" in g.describe(x) for x in g.legal_actions(0))
