"""Wild West, rule by rule (seeds/001_ef80526ab0ed9dc2.txt, "Wild West"; docs/rules/wildwest.md
maps every rule sentence to the test here that checks it)."""
import json
import random

import pytest

from ringside import games
from ringside.games import CHANCE, GameError, IllegalAction
from ringside.games import circles_common as cc
from ringside.games.wildwest import bots
from ringside.games.wildwest import money as M

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve"]
CW_FROM_RANCH = ["ranch-1", "gold-1", "dig-1", "bandit-1", "shop-1", "money-bag-1", "bank-1", "gold-2",
                 "saloon-1", "dig-2", "mine-1", "bandit-2", "gold-3", "donation-bowl-1", "money-bag-2",
                 "dig-3", "shop-2", "bandit-3", "gold-4", "mine-2"]


def new(n=2, **opts):
    return games.new("wildwest", NAMES[:n], seed=1, options=opts)


def cw_travel(g, origin, space, min_steps=2):
    for laps in range(3):
        t = g.side.travel_to(origin, space, cc.CW, laps)
        if t and cc.steps_for(g.side, origin, space, t)[1] >= min_steps:
            return t
    raise AssertionError("unreachable")


def land(g, space, resolve=True, **extra):
    """The active player's marble stops on `space` (a valid clockwise flick); tickets are kept."""
    seat = g.to_act()[0]
    a = {"type": "landed", "space": space, "travel": cw_travel(g, g.state["marble"], space)}
    a.update(extra)
    ev = g.apply(seat, a)
    if resolve and g.state["phase"] == "tickets":
        ev += g.apply(seat, {"type": "resolve"})
    return ev


def purse(g, p, silver=0, gold=0, ruby=0):
    """Give seat p exactly this purse, taking the difference from / to the reserve."""
    s = g.state
    for k, v in (("silver", silver), ("gold", gold), ("ruby", ruby)):
        d = v - s["purse"][p][k]
        s["reserve"][k] -= d
        s["purse"][p][k] = v
        assert s["reserve"][k] >= 0


def types(ev):
    return [e["type"] for e in ev]


# ----- players, components, set-up -----

def test_two_to_five_players():
    for n in range(2, 6):
        assert len(new(n).players) == n
    with pytest.raises(GameError, match="2 to 5"):
        games.new("wildwest", ["a"], seed=0)
    with pytest.raises(GameError, match="2 to 5"):
        games.new("wildwest", NAMES + ["Fay"], seed=0)


def test_the_box_holds_the_printed_components_and_every_rule_conserves_them():
    g = new(5)
    assert g.totals() == {"silver": 37, "gold": 24, "ruby": 12, "stone": 2, "tickets": 20, "shovels": 10,
                          "wagons": 5}


def test_set_up_start_items_mine_bag_reserve_and_shop():
    for n in (2, 5):
        g = new(n)
        s = g.state
        assert s["purse"] == [{"silver": 2, "gold": 0, "ruby": 0}] * n
        assert s["tickets"] == [2] * n and s["wagons"] == [1] * n and s["shovels"] == [0] * n
        assert s["mine"] == [{"silver": 1, "gold": 0, "ruby": 0}, {"silver": 2, "gold": 0, "ruby": 0},
                             {"silver": 0, "gold": 1, "ruby": 0}, {"silver": 1, "gold": 1, "ruby": 0},
                             {"silver": 2, "gold": 1, "ruby": 0}, {"silver": 0, "gold": 2, "ruby": 0},
                             {"silver": 0, "gold": 0, "ruby": 1}]
        assert sum(M.value(m) for m in s["mine"]) == 6 + 5 * 3 + 9
        assert s["bag"] == {"silver": 16, "gold": 8, "ruby": 1, "stone": 2}
        assert s["reserve"] == {"silver": 37 - 6 - 16 - 2 * n, "gold": 24 - 5 - 8, "ruby": 12 - 1 - 1}
        assert s["shop"] == {"tickets": 20 - 2 * n, "shovels": 10, "wagons": 5 - n}
        assert s["bowl"] == [None, None, None]
        assert g.data["bandit_die"] == ["silver", "gold", "shovel", "ticket", "bank", "donation"]


def test_the_harder_variant_gives_no_wagons():
    g = new(3, hard=True)
    assert g.state["wagons"] == [0, 0, 0] and g.state["shop"]["wagons"] == 5
    assert g.totals()["wagons"] == 5


def test_the_ball_starts_on_the_ranch_and_the_youngest_starts_with_the_star():
    g = new(3)
    assert g.state["marble"] == "ranch-1"
    assert g.to_act() == [0] and g.state["sheriff"] == 0
    g = new(3, ages=[41, 8, 12])
    assert g.to_act() == [1] and g.state["sheriff"] == 1


def test_a_board_lacking_a_kind_of_space_cannot_start():
    ring = json.loads(cc.RING_PATH.read_text())
    for sp in ring["sides"]["wildwest"]["spaces"]:
        if sp["id"] == "saloon-1":
            sp["id"] = "gold-9"
    with pytest.raises(GameError, match="needs a 'saloon' space"):
        games.new("wildwest", ["a", "b"], seed=0, options={"ring": ring})


def test_replaced_data_is_validated():
    d = json.loads(cc.RING_PATH.parents[1].joinpath("host/ringside/games/wildwest/data.json").read_text())
    d["bandit_die"] = ["silver", "cows"]
    with pytest.raises(GameError, match="bandit_die"):
        games.new("wildwest", ["a", "b"], seed=0, options={"data": d})
    d["bandit_die"] = ["gold"] * 6
    g = games.new("wildwest", ["a", "b"], seed=0, options={"data": d})
    assert g.data["bandit_die"] == ["gold"] * 6


# ----- the flick -----

def test_clockwise_order_and_clockwise_flicks_from_the_current_position():
    g = new(3)
    land(g, "gold-1", resolve=False)
    assert g.state["marble"] == "gold-1" and g.to_act() == [0] and g.state["phase"] == "tickets"
    g.apply(0, {"type": "resolve"})
    assert g.to_act() == [1]
    land(g, "bandit-1")                   # from gold-1: 2 spaces on, Bob's turn
    assert g.state["marble"] == "bandit-1" and g.to_act() == [CHANCE] and g.state["active"] == 1


def test_an_anticlockwise_flick_is_invalid():
    g = new(2)
    ev = g.apply(0, {"type": "landed", "space": "mine-2", "travel": -300.0 + 360.0})
    assert types(ev) == ["invalid"] and "anticlockwise" in ev[0]["text"] and g.to_act() == [1]


def test_the_ball_must_move_at_least_two_spaces():
    g = new(2)
    ev = g.apply(0, {"type": "landed", "space": "gold-1", "travel": cw_travel(g, "ranch-1", "gold-1", 1)})
    assert types(ev) == ["invalid"] and g.to_act() == [1] and g.state["marble"] == "gold-1"
    assert g.state["purse"][0]["gold"] == 0
    ev = g.apply(1, {"type": "landed", "space": "bandit-1", "travel": cw_travel(g, "gold-1", "bandit-1")})
    assert types(ev)[0] == "landed"


def test_a_flick_off_the_ring_goes_back_where_it_was_flicked_from():
    g = new(2)
    land(g, "gold-1")
    ev = g.apply(1, {"type": "off_ring", "travel": -400.0})
    assert types(ev) == ["invalid"] and g.state["marble"] == "gold-1" and g.to_act() == [0]


def test_after_resolving_it_is_the_next_players_turn():
    g = new(3)
    land(g, "gold-1")
    assert g.to_act() == [1] and g.state["phase"] == "flick"


# ----- train tickets -----

def test_tickets_move_the_ball_one_space_clockwise_each_and_go_back_to_the_shop():
    g = new(2)
    land(g, "bank-1", resolve=False)
    g.apply(0, {"type": "ticket"})
    assert g.state["marble"] == "gold-2" and g.state["tickets"][0] == 1 and g.state["shop"]["tickets"] == 17
    ev = g.apply(0, {"type": "ticket"})                  # the last ticket: the space resolves at once
    assert g.state["marble"] == "saloon-1" and g.state["tickets"][0] == 0 and g.state["shop"]["tickets"] == 18
    assert "saloon" in types(ev) and g.state["phase"] == "saloon_decide"


def test_no_tickets_no_ticket_phase():
    g = new(2)
    g.state["tickets"][0] = 0
    land(g, "gold-1", resolve=False)
    assert g.state["purse"][0]["gold"] == 1 and g.to_act() == [1]


# ----- bank -----

def test_deposit_any_amount_onto_your_own_bank_space():
    g = new(2)
    purse(g, 0, silver=2, gold=2, ruby=1)
    land(g, "bank-1")
    acts = g.legal_actions(0)
    assert {a.get("piece") for a in acts if a["type"] == "deposit"} == {"silver", "gold", "ruby"}
    assert not [a for a in acts if a["type"] == "withdraw"]
    g.apply(0, {"type": "deposit", "piece": "ruby"})
    g.apply(0, {"type": "deposit", "piece": "silver"})
    assert g.state["bank"][0] == {"silver": 1, "gold": 0, "ruby": 1} and g.state["bank"][1] == M.empty()
    assert not [a for a in g.legal_actions(0) if a["type"] == "withdraw"]   # not in the same visit
    g.apply(0, {"type": "done"})
    assert g.state["purse"][0] == {"silver": 1, "gold": 2, "ruby": 0} and g.to_act() == [1]


def test_taking_money_back_pays_the_same_again_as_interest():
    g = new(2)
    purse(g, 0, gold=2, ruby=1)
    g.state["bank"][0] = {"silver": 0, "gold": 0, "ruby": 0}
    land(g, "bank-1")
    g.apply(0, {"type": "deposit", "piece": "gold"})
    g.apply(0, {"type": "done"})
    g.state["marble"] = "mine-2"
    g.state["active"] = 0
    reserve_gold = g.state["reserve"]["gold"]
    land(g, "bank-1")
    opts = g.legal_actions(0)
    assert {"type": "withdraw", "piece": "gold"} in opts
    g.apply(0, {"type": "withdraw", "piece": "gold"})      # nothing else to take: the visit ends
    assert g.state["bank"][0] == M.empty()
    assert g.state["purse"][0] == {"silver": 0, "gold": 0, "ruby": 2}   # 2 + 1 + 1 interest traded up
    assert g.state["reserve"]["gold"] == reserve_gold - 1 + 3
    assert g.to_act() == [1]


def test_a_deposit_can_take_change_from_the_reserve():
    g = new(2)
    purse(g, 0, gold=1)
    land(g, "bank-1")
    g.apply(0, {"type": "deposit", "piece": "silver"})
    assert g.state["bank"][0]["silver"] == 1 and g.state["purse"][0] == {"silver": 2, "gold": 0, "ruby": 0}


def test_nothing_to_do_at_the_bank_ends_the_turn():
    g = new(2)
    purse(g, 0)
    ev = land(g, "bank-1")
    assert "nothing" in ev[-1]["text"] and g.to_act() == [1]


# ----- saloon -----

def _to_saloon(g, seat_purses):
    for p, m in seat_purses.items():
        purse(g, p, **m)
    return land(g, "saloon-1")


def test_the_saloon_may_be_passed():
    g = new(3)
    _to_saloon(g, {})
    before = json.dumps(g.state["purse"])
    g.apply(0, {"type": "pass"})
    assert json.dumps(g.state["purse"]) == before and g.to_act() == [1]


def test_play_for_money_bets_the_highest_coin_or_buys_out_starting_left():
    g = new(4)
    _to_saloon(g, {0: {"gold": 1, "silver": 1}, 1: {"ruby": 1, "gold": 2}, 2: {"silver": 2}, 3: {"gold": 1}})
    g.apply(0, {"type": "play"})
    assert g.state["saloon"]["wagers"] == {"0": "gold"}
    assert g.to_act() == [1]              # Bob (left of Ann) may bet or buy out
    assert {a["type"] for a in g.legal_actions(1)} == {"bet", "buy_out"}
    reserve_gold = g.state["reserve"]["gold"]
    g.apply(1, {"type": "buy_out"})
    assert g.state["purse"][1] == {"silver": 0, "gold": 1, "ruby": 1}
    assert g.state["reserve"]["gold"] == reserve_gold + 1
    # Cy has only silver: he cannot pay a gold, so he bets his highest coin without a choice
    assert g.state["saloon"]["wagers"]["2"] == "silver"
    assert g.to_act() == [3]
    g.apply(3, {"type": "bet"})
    assert g.state["saloon"]["wagers"] == {"0": "gold", "2": "silver", "3": "gold"}
    assert g.state["phase"] == "saloon_flick"
    assert g.state["saloon"]["queue"] == [2, 3, 0]          # from the left, the lander last
    assert g.view()["flick"]["from"] == "saloon-1" and g.view()["flick"]["directions"] == ["cw"]


def test_the_highest_coin_is_at_most_one_ruby():
    g = new(2)
    _to_saloon(g, {0: {"ruby": 2, "gold": 2}, 1: {"silver": 1}})
    g.apply(0, {"type": "play"})
    assert g.state["saloon"]["wagers"]["0"] == "ruby" and g.state["purse"][0]["ruby"] == 1


def _saloon_flick(g, seat, past=None, short=None, off=False, ccw=False):
    if off:
        return g.apply(seat, {"type": "off_ring"})
    if ccw:
        return g.apply(seat, {"type": "landed", "space": "gold-2", "travel": 18.0})
    t = -(360.0 + past) if past is not None else -(360.0 - short)
    sid = g.side.space_at(g.side.centre("saloon-1") + t)
    return g.apply(seat, {"type": "landed", "space": sid, "travel": t})


def test_closest_past_the_saloon_wins_the_wager_of_the_furthest_others_take_theirs_back():
    # Orange (Ann) plays; White buys out; Green and Yellow shoot well; Blue overdoes it
    g = games.new("wildwest", ["Orange", "White", "Green", "Yellow", "Blue"], seed=3)
    _to_saloon(g, {0: {"gold": 2}, 1: {"gold": 2, "silver": 1}, 2: {"gold": 1}, 3: {"gold": 1}, 4: {"gold": 1}})
    g.apply(0, {"type": "play"})
    g.apply(1, {"type": "buy_out"})
    for p in (2, 3, 4):
        g.apply(p, {"type": "bet"})
    assert g.state["saloon"]["queue"] == [2, 3, 4, 0]
    _saloon_flick(g, 2, past=30)
    _saloon_flick(g, 3, past=25)
    _saloon_flick(g, 4, past=150)
    ev = _saloon_flick(g, 0, past=5)
    res = [e for e in ev if e["type"] == "saloon_result"][0]
    assert (res["winner"], res["loser"]) == (0, 4)
    s = g.state
    assert s["purse"][0] == {"silver": 0, "gold": 0, "ruby": 1}      # 3 gold trade up at once
    assert s["purse"][4]["gold"] == 0
    assert s["purse"][2]["gold"] == 1 and s["purse"][3]["gold"] == 1 and s["purse"][1]["gold"] == 1
    assert g.to_act() == [1] and g.totals()["gold"] == 24


def test_a_flick_that_did_not_go_round_ranks_behind_and_leaving_the_ring_ranks_last():
    g = new(4)
    _to_saloon(g, {0: {"silver": 1}, 1: {"silver": 1}, 2: {"silver": 1}, 3: {"silver": 1}})
    g.apply(0, {"type": "play"})              # no one can pay a gold: everyone bets
    assert g.state["saloon"]["queue"] == [1, 2, 3, 0]
    _saloon_flick(g, 1, short=2)          # nearly round: still behind any full lap
    _saloon_flick(g, 2, off=True)
    _saloon_flick(g, 3, past=200)
    ev = _saloon_flick(g, 0, short=100)
    res = [e for e in ev if e["type"] == "saloon_result"][0]
    assert (res["winner"], res["loser"]) == (3, 2)


def test_an_anticlockwise_saloon_flick_ranks_last_like_leaving_the_ring():
    g = new(2)
    _to_saloon(g, {0: {"silver": 1}, 1: {"silver": 1}})
    g.apply(0, {"type": "play"})
    _saloon_flick(g, 1, ccw=True)
    ev = _saloon_flick(g, 0, short=300)
    res = [e for e in ev if e["type"] == "saloon_result"][0]
    assert (res["winner"], res["loser"]) == (0, 1)


def test_tied_players_flick_again_until_resolved():
    g = new(3)
    _to_saloon(g, {0: {"silver": 1}, 1: {"gold": 1}, 2: {"silver": 1}})
    g.apply(0, {"type": "play"})
    g.apply(1, {"type": "bet"})
    _saloon_flick(g, 1, past=10)
    _saloon_flick(g, 2, past=10)
    ev = _saloon_flick(g, 0, past=40)
    assert types(ev)[-1] == "saloon_tie" and g.state["saloon"]["queue"] == [1, 2]
    assert g.view()["flick"]["from"] == "saloon-1"
    _saloon_flick(g, 1, off=True)         # the re-flick only orders Bob and Cy
    ev = _saloon_flick(g, 2, past=100)
    res = [e for e in ev if e["type"] == "saloon_result"][0]
    assert (res["winner"], res["loser"]) == (2, 0)
    assert g.state["purse"][2] == {"silver": 2, "gold": 0, "ruby": 0} and g.state["purse"][0]["silver"] == 0
    assert g.state["purse"][1]["gold"] == 1


def test_a_player_without_coins_sits_the_saloon_out():
    g = new(3)
    _to_saloon(g, {0: {"silver": 1}, 1: {}, 2: {}})
    ev = g.apply(0, {"type": "play"})
    assert "saloon_out" in types(ev) and "saloon_alone" in types(ev)
    assert g.state["purse"][0]["silver"] == 1 and g.to_act() == [1]


# ----- bandit -----

def _bandit(g, face):
    land(g, "bandit-1")
    assert g.to_act() == [CHANCE]
    return g.apply(CHANCE, {"type": "roll", "face": face})


def test_the_bandit_die_is_rolled_by_chance():
    g = new(2)
    land(g, "bandit-1")
    assert {a["face"] for a in g.legal_actions(CHANCE)} == set(g.data["bandit_die"])
    a = g.chance_action()
    assert a["type"] == "roll" and a["face"] in g.data["bandit_die"]


def test_steal_a_silver_from_a_chosen_victim():
    g = new(3)
    purse(g, 1, silver=1)
    purse(g, 2, silver=2)
    _bandit(g, "silver")
    assert g.to_act() == [0] and {a["victim"] for a in g.legal_actions(0)} == {1, 2}
    g.apply(0, {"type": "rob", "victim": 2})
    assert g.state["purse"][2]["silver"] == 1 and g.state["purse"][0]["silver"] == 0
    assert g.state["purse"][0]["gold"] == 1          # 3 silver traded up at once


def test_steal_a_gold_a_shovel_a_ticket():
    for face in ("gold", "shovel", "ticket"):
        g = new(2)
        if face == "gold":
            purse(g, 1, gold=1)
        elif face == "shovel":
            g.state["shovels"][1] = 1
            g.state["shop"]["shovels"] -= 1
        ev = _bandit(g, face)
        steal = [e for e in ev if e["type"] == "steal"][0]
        assert steal["victim"] == 1 and "from Bob" in steal["text"]
        assert g.totals() == new(2).totals()


def test_steal_everyones_money_from_the_bank_but_not_donations():
    g = new(3)
    g.state["bank"][1] = {"silver": 1, "gold": 1, "ruby": 0}
    g.state["bank"][2] = {"silver": 0, "gold": 0, "ruby": 1}
    g.state["bank"][0] = {"silver": 1, "gold": 0, "ruby": 0}
    g.state["reserve"]["silver"] -= 2
    g.state["reserve"]["gold"] -= 1
    g.state["reserve"]["ruby"] -= 1
    g.state["bowl"][0] = {"silver": 1, "gold": 0, "ruby": 0}
    g.state["reserve"]["silver"] -= 1
    _bandit(g, "bank")
    assert g.state["bank"][1] == M.empty() and g.state["bank"][2] == M.empty()
    assert g.state["bank"][0]["silver"] == 1                     # the robber's own deposit stays
    assert g.state["purse"][0] == {"silver": 0, "gold": 2, "ruby": 1}   # 2+1 silver -> 1 gold
    assert g.state["bowl"][0] == {"silver": 1, "gold": 0, "ruby": 0}


def test_the_sixth_face_is_the_donation_bowl_used_as_usual():
    g = new(2)
    purse(g, 0, silver=2)
    ev = _bandit(g, "donation")
    assert "donate" in types(ev) and g.state["bowl"][0] == {"silver": 1, "gold": 0, "ruby": 0}


def test_no_one_has_the_goods_steal_from_the_reserve_or_the_shop():
    g = new(3)
    for p in range(3):
        purse(g, p)
    res = g.state["reserve"]["silver"]
    _bandit(g, "silver")
    assert g.state["purse"][0]["silver"] == 1 and g.state["reserve"]["silver"] == res - 1
    g = new(3)
    ev = _bandit(g, "shovel")
    assert g.state["shovels"][0] == 1 and g.state["shop"]["shovels"] == 9 and "shop" in ev[-1]["text"]
    g = new(2)
    g.state["tickets"] = [0, 0]
    g.state["shop"]["tickets"] = 20
    _bandit(g, "ticket")
    assert g.state["tickets"][0] == 1 and g.state["shop"]["tickets"] == 19


def test_only_other_players_are_victims():
    g = new(2)
    purse(g, 0, silver=1)
    purse(g, 1)
    _bandit(g, "silver")             # Ann alone has silver: from the reserve
    assert g.state["purse"][0]["silver"] == 2 and g.to_act() == [1]


# ----- gold, shop -----

def test_gold_gives_one_gold():
    g = new(2)
    land(g, "gold-1")
    assert g.state["purse"][0] == {"silver": 2, "gold": 1, "ruby": 0}


def test_the_shop_sells_one_token_at_its_price():
    g = new(2)
    purse(g, 0, silver=1, gold=2)
    land(g, "shop-1")
    assert {a.get("item") for a in g.legal_actions(0)} == {"shovel", "ticket", "wagon", None}
    g.apply(0, {"type": "buy", "item": "shovel"})
    assert g.state["shovels"][0] == 1 and g.state["purse"][0] == {"silver": 0, "gold": 2, "ruby": 0}
    assert g.to_act() == [1]                  # one token only
    g.state["active"] = 0
    g.state["marble"] = "bank-1"
    land(g, "shop-2")
    g.apply(0, {"type": "buy", "item": "wagon"})
    assert g.state["wagons"][0] == 2 and g.state["purse"][0]["gold"] == 1   # several of a kind
    g.state["active"] = 0
    land(g, "shop-1")
    g.apply(0, {"type": "buy", "item": "ticket"})
    assert g.state["tickets"][0] == 3 and g.state["purse"][0] == M.empty()


def test_the_shop_sells_only_what_it_has_and_what_you_can_pay():
    g = new(5)                                 # 5 wagons out: none left
    purse(g, 0, silver=2)
    land(g, "shop-1")
    assert {a.get("item") for a in g.legal_actions(0)} == {"shovel", None}
    with pytest.raises(IllegalAction, match="cannot buy"):
        g.apply(0, {"type": "buy", "item": "wagon"})


# ----- donation bowl -----

def test_donations_fill_the_lowest_free_space_then_the_church_pays_out():
    g = new(2)
    purse(g, 0, silver=2, gold=2)
    purse(g, 1, silver=2, gold=1)
    ev = land(g, "donation-bowl-1")
    assert g.state["bowl"] == [{"silver": 1, "gold": 0, "ruby": 0}, None, None] and "donate" in types(ev)
    land(g, "donation-bowl-1")
    assert g.state["bowl"][1] == {"silver": 2, "gold": 0, "ruby": 0}
    land(g, "donation-bowl-1")
    assert g.state["bowl"][2] == {"silver": 0, "gold": 1, "ruby": 0}
    before = M.value(g.state["purse"][1])
    ev = land(g, "donation-bowl-1")            # all spaces occupied: Bob receives everything
    assert "charity" in types(ev) and g.state["bowl"] == [None, None, None]
    assert M.value(g.state["purse"][1]) == before + 1 + 2 + 3


def test_not_enough_money_to_donate_receives_the_bowl():
    g = new(2)
    g.state["bowl"][0] = {"silver": 1, "gold": 0, "ruby": 0}
    g.state["reserve"]["silver"] -= 1
    purse(g, 0, silver=1)                      # needs 2 silver for the second space
    ev = land(g, "donation-bowl-1")
    assert "charity" in types(ev) and g.state["purse"][0]["silver"] == 2 and g.state["bowl"][0] is None


def test_a_donation_takes_change_from_the_supply():
    g = new(2)
    purse(g, 0, gold=1)
    land(g, "donation-bowl-1")
    assert g.state["bowl"][0]["silver"] == 1 and g.state["purse"][0] == {"silver": 2, "gold": 0, "ruby": 0}


# ----- money bag, mine, dig, ranch -----

def test_money_bag_everyone_gets_a_silver():
    g = new(3)
    land(g, "money-bag-1")
    assert [p["silver"] for p in g.state["purse"]] == [0, 0, 0]           # 3 silver -> 1 gold each
    assert [p["gold"] for p in g.state["purse"]] == [1, 1, 1]


def test_the_mine_pays_the_outermost_space_with_discs_to_a_wagon():
    g = new(2)
    got = []
    for k in range(8):
        g.state["active"] = 0
        g.state["marble"] = "gold-3" if k % 2 else "bank-1"
        purse(g, 0)
        land(g, "mine-1" if k % 2 == 0 else "mine-2")
        got.append(M.value(g.state["purse"][0]))
    assert got == [1, 2, 3, 4, 5, 6, 9, 0]       # the ruby comes last, then the mine is empty


def test_no_wagon_no_mine():
    g = new(2, hard=True)
    ev = land(g, "mine-1")
    assert "no wagon" in ev[-1]["text"] and g.state["mine"][0]["silver"] == 1


def test_dig_with_a_shovel_draws_a_disc_or_may_pass():
    g = new(2)
    ev = land(g, "dig-1")
    assert "no shovel" in ev[-1]["text"] and g.to_act() == [1]
    g = new(2)
    g.state["shovels"][0] = 1
    g.state["shop"]["shovels"] -= 1
    land(g, "dig-1")
    assert {a["type"] for a in g.legal_actions(0)} == {"dig", "pass"}
    g.apply(0, {"type": "dig"})
    assert g.to_act() == [CHANCE]
    assert {a["disc"] for a in g.legal_actions(CHANCE)} == {"silver", "gold", "ruby", "stone"}
    g.apply(CHANCE, {"type": "draw", "disc": "ruby"})
    assert g.state["purse"][0]["ruby"] == 1 and g.state["bag"]["ruby"] == 0 and g.state["shovels"][0] == 1
    g2 = new(2)
    g2.state["shovels"][0] = 1
    g2.state["shop"]["shovels"] -= 1
    land(g2, "dig-1")
    g2.apply(0, {"type": "pass"})
    assert g2.state["bag"]["silver"] == 16 and g2.to_act() == [1]


def test_a_stone_goes_back_to_the_bag_and_the_shovel_to_the_shop():
    g = new(2)
    g.state["shovels"][0] = 1
    g.state["shop"]["shovels"] -= 1
    land(g, "dig-1")
    g.apply(0, {"type": "dig"})
    g.apply(CHANCE, {"type": "draw", "disc": "stone"})
    assert g.state["bag"]["stone"] == 2 and g.state["shovels"][0] == 0 and g.state["shop"]["shovels"] == 10


def test_bag_draws_are_weighted_by_the_discs_inside():
    g = new(2)
    g.state["shovels"][0] = 1
    land(g, "dig-1")
    g.apply(0, {"type": "dig"})
    rng = random.Random(4)
    draws = [g._chance(rng)["disc"] for _ in range(2700)]
    assert 1350 < draws.count("silver") < 1850 and draws.count("ruby") < 300


def test_two_rubies_buy_the_ranch_and_win():
    g = new(2)
    purse(g, 0, ruby=2, silver=1)
    land(g, "ranch-1")
    assert {a["type"] for a in g.legal_actions(0)} == {"buy_ranch", "pass"}
    ev = g.apply(0, {"type": "buy_ranch"})
    assert g.over and g.result["winners"] == ["Ann"] and ev[-1]["type"] == "won"
    assert g.state["purse"][0]["ruby"] == 0 and g.totals()["ruby"] == 12
    assert g.to_act() == []
    # the scores are money (purse and bank, in silver): tickets are worth nothing at the end
    assert g.state["tickets"][0] == 2 and g.result["scores"] == {"Ann": 1, "Bob": 2}


def test_the_ranch_without_two_rubies_does_nothing():
    g = new(2)
    purse(g, 0, ruby=1, gold=2, silver=2)
    ev = land(g, "ranch-1")
    assert not g.over and "without" in ev[-1]["text"] and g.to_act() == [1]


# ----- exchanging money, the ruby limit -----

def test_money_trades_up_whenever_possible():
    p, r = {"silver": 7, "gold": 2, "ruby": 0}, {"silver": 0, "gold": 5, "ruby": 5}
    M.settle(p, r, 2)
    assert p == {"silver": 1, "gold": 1, "ruby": 1} and M.value(p) == 7 + 6


def test_paying_a_piece_you_lack_takes_change_from_the_supply():
    p, r = {"silver": 0, "gold": 0, "ruby": 1}, {"silver": 3, "gold": 3, "ruby": 0}
    dst = M.empty()
    assert M.pay(p, r, "silver", dst)
    assert p == {"silver": 2, "gold": 2, "ruby": 0} and dst["silver"] == 1
    assert M.value(p) + M.value(r) + M.value(dst) == 9 + 3 + 9


def test_no_change_in_the_supply_no_payment():
    p, r = {"silver": 0, "gold": 1, "ruby": 0}, {"silver": 2, "gold": 0, "ruby": 0}
    assert not M.pay(p, r, "silver", M.empty())
    assert p == {"silver": 0, "gold": 1, "ruby": 0} and r == {"silver": 2, "gold": 0, "ruby": 0}


def test_at_most_two_rubies_the_rest_goes_back():
    p, r = {"silver": 2, "gold": 2, "ruby": 3}, {"silver": 0, "gold": 5, "ruby": 0}
    assert M.settle(p, r, 2) == 9
    assert p == {"silver": 2, "gold": 2, "ruby": 2} and r["ruby"] == 1
    p, r = {"silver": 0, "gold": 4, "ruby": 2}, {"silver": 0, "gold": 0, "ruby": 5}
    assert M.settle(p, r, 2) == 6 and p == {"silver": 0, "gold": 2, "ruby": 2}


def test_the_ruby_limit_in_play():
    g = new(2)
    purse(g, 0, ruby=2, gold=2)
    ev = land(g, "gold-1")
    assert "ruby_limit" in types(ev) and g.state["purse"][0] == {"silver": 0, "gold": 2, "ruby": 2}
    assert g.totals()["gold"] == 24


# ----- the unclear space -----

def test_an_unclear_landing_is_voted_on_and_a_majority_decides():
    g = new(3)
    t = cw_travel(g, "ranch-1", "dig-1")
    g.apply(0, {"type": "landed", "space": "dig-1", "travel": t, "alt": "bandit-1"})
    assert g.state["phase"] == "vote" and g.to_act() == [0]
    g.apply(0, {"type": "vote", "space": "dig-1"})
    g.apply(1, {"type": "vote", "space": "bandit-1"})
    g.apply(2, {"type": "vote", "space": "bandit-1"})
    assert g.state["marble"] == "bandit-1" and g.state["sheriff"] == 0


def test_without_a_majority_the_sheriff_decides_and_the_star_passes():
    g = new(2)
    t = cw_travel(g, "ranch-1", "dig-1")
    g.apply(0, {"type": "landed", "space": "dig-1", "travel": t, "alt": "bandit-1"})
    g.apply(0, {"type": "vote", "space": "dig-1"})
    g.apply(1, {"type": "vote", "space": "bandit-1"})
    assert g.state["phase"] == "sheriff" and g.to_act() == [0]
    g.apply(0, {"type": "decide", "space": "bandit-1"})
    assert g.state["sheriff"] == 1 and g.state["marble"] == "bandit-1"
    assert g.state["phase"] == "tickets"


def test_the_sheriffs_choice_can_make_the_flick_too_short():
    g = new(2)
    t = cw_travel(g, "ranch-1", "dig-1")
    g.apply(0, {"type": "landed", "space": "dig-1", "travel": t - 10, "alt": "gold-1"})
    g.apply(0, {"type": "vote", "space": "dig-1"})
    g.apply(1, {"type": "vote", "space": "gold-1"})
    ev = g.apply(0, {"type": "decide", "space": "gold-1"})
    assert "invalid" in types(ev) and g.to_act() == [1]


def test_no_vote_when_either_reading_is_invalid():
    g = new(2)
    t = cw_travel(g, "ranch-1", "gold-1", 1)
    ev = g.apply(0, {"type": "landed", "space": "gold-1", "travel": t, "alt": "ranch-1"})
    assert types(ev) == ["invalid"] and g.to_act() == [1]


# ----- the contract -----

def test_illegal_actions_change_nothing():
    g = new(3)
    land(g, "shop-1")
    before = json.dumps(g.state, sort_keys=True)
    for seat, a in [(1, {"type": "pass"}), (0, {"type": "buy", "item": "horse"}), (0, {"type": "buy"}),
                    (0, {"type": "buy", "item": "wagon"}), (0, {"type": "ticket"}), (0, "pass"),
                    (CHANCE, {"type": "roll", "face": "gold"})]:
        with pytest.raises(IllegalAction):
            g.apply(seat, a)
        assert json.dumps(g.state, sort_keys=True) == before


def test_a_save_replays_and_undo_is_replay():
    g = games.new("wildwest", NAMES[:3], seed=8)
    games.play_random(g, random.Random(8), max_actions=60)
    h = games.load(g.to_json())
    assert h.state == g.state
    assert g.undo(2).state == g.replay(len(g.log) - 2).state


def test_every_action_has_words():
    g = new(2)
    purse(g, 0, silver=2, gold=2)
    land(g, "shop-1")
    for a in g.legal_actions(0):
        assert g.describe(a) != str(a)


# ----- bots -----

def test_good_bot_beats_weak_bot():
    wins = 0
    for seed in range(6):
        g = games.new("wildwest", ["good", "weak"], seed=seed)
        who = [bots.make("good"), bots.make("weak")]
        rng = random.Random(seed)
        while not g.over:
            s = g.to_act()[0]
            g.apply(s, g.chance_action() if s == CHANCE else who[s].choose(g, s, rng))
        wins += g.result["winners"] == ["good"]
    assert wins >= 5


def test_good_bot_aims_for_the_ranch_with_two_rubies_and_buys_it():
    g = new(2)
    purse(g, 0, ruby=2)
    g.state["tickets"][0] = 0
    g.state["marble"] = "bank-1"
    t = bots.good().aim(g, 0, random.Random(0))
    assert g.side.space_at(g.side.centre("bank-1") + t) == "ranch-1"
    land(g, "ranch-1")
    assert bots.good().choose(g, 0, random.Random(0)) == {"type": "buy_ranch"}


def test_good_bot_rides_tickets_to_a_better_space():
    g = new(2)
    g.state["marble"] = "ranch-1"
    land(g, "money-bag-1", resolve=False)           # the bank is one ticket on; nothing deposited
    g.state["bank"][0] = {"silver": 0, "gold": 2, "ruby": 0}
    g.state["reserve"]["gold"] -= 2
    assert bots.good().choose(g, 0, random.Random(0)) == {"type": "ticket"}


# ----- at the table -----

from ringside.sim.board import SimBoard  # noqa: E402
from ringside.table import SimPort, Table, typed_action  # noqa: E402


def test_a_whole_game_by_bots_on_the_simulated_ring():
    from ringside.app.cmd_play import calibrate_sim
    b = SimBoard(seed=31)
    calibrate_sim(b, "wildwest", log=lambda *a: None)
    g = games.new("wildwest", ["good", "weak", "weak2"], seed=31)
    table = Table(g, SimPort(b))
    who = [bots.make("good"), bots.make("weak"), bots.make("weak")]
    rng = random.Random(31)
    flicks = 0
    tickets_lit = False
    while not table.game.over:
        g = table.game
        s = g.to_act()[0]
        if s == CHANCE:
            table.apply(s, g.chance_action())
        elif who[s].wants_flick(g, s):
            table.apply(s, table.flick_sim(who[s].aim(g, s, rng), who[s].skill, rng))
            flicks += 1
        else:
            a = who[s].choose(g, s, rng)
            table.apply(s, a)
            if a["type"] == "ticket" and table.game.state["phase"] == "tickets":
                tickets_lit = tickets_lit or table._painted.get(table.game.state["marble"]) == "ffffff"
        assert table.game.totals() == new(3).totals()
    g = table.game
    assert g.result["reason"].endswith("bought the ranch") and g.log[-1][1] == {"type": "buy_ranch"}
    assert g.result["winners"] == [g.players[g.log[-1][0]]]
    assert flicks > 5 and table.fallbacks <= flicks // 10 and table.leds_on


def test_typed_results_go_clockwise_by_default():
    g = new(2)
    a = typed_action(g, "landed bank")
    assert a == {"type": "landed", "space": "bank-1", "travel": g.side.travel_to("ranch-1", "bank-1", cc.CW)}
    with pytest.raises(ValueError, match="could be"):
        typed_action(g, "landed gold")
    assert typed_action(g, "landed gold-2")["space"] == "gold-2"


def test_the_leds_show_the_space_the_tickets_reached():
    b = SimBoard(seed=3)
    g = new(2)
    table = Table(g, SimPort(b))
    table.apply(0, {"type": "landed", "space": "money-bag-1", "travel": cw_travel(g, "ranch-1", "money-bag-1")})
    table.apply(0, {"type": "ticket"})
    assert table.game.state["marble"] == "bank-1" and table._painted == {"bank-1": "ffffff"}
    b.advance(3000)
    led = b.fw_ring.led_at(int(g.side.centre("bank-1") * 100))
    assert min(b.pixels.frame[3 * led:3 * led + 3]) > 0      # white
