"""Wild West, wave 2 (issue 16): the trade-up step reaches a fixpoint, and the ruby limit's
reading (purse only, the bank not counted). docs/rules/wildwest.md readings 7, 8 and 16."""
from ringside import games
from ringside.games.wildwest import money as M

from test_wildwest import land, purse

NAMES = ["Ann", "Bob", "Cy"]


def new(n=2):
    return games.new("wildwest", NAMES[:n], seed=1, options={})


def _untraded(g):
    """Players who hold coins that the reserve could trade up (reading 7)."""
    s = g.state
    out = []
    for p, pu in enumerate(s["purse"]):
        if pu["silver"] >= M.RATE and s["reserve"]["gold"] >= 1 and not (
                pu["ruby"] >= g.data["ruby_limit"] and pu["gold"] >= M.RATE - 1):
            out.append((p, "silver"))
        if pu["gold"] >= M.RATE and s["reserve"]["ruby"] >= 1 and pu["ruby"] < g.data["ruby_limit"]:
            out.append((p, "gold"))
    return out


def _park(g, kind, keep):
    """Leave only `keep` discs of `kind` in the reserve (the rest on the mine's last space)."""
    s = g.state
    extra = s["reserve"][kind] - keep
    s["reserve"][kind] -= extra
    s["mine"][-1][kind] += extra


def _no_tickets(g, p):
    s = g.state
    s["shop"]["tickets"] += s["tickets"][p]
    s["tickets"][p] = 0


def test_a_player_settled_first_trades_up_with_gold_a_later_one_put_back():
    # Bob (settled first: the turn has passed to him) holds 3 silver while the reserve has
    # no gold. Ann lands on gold at the ruby limit: the gold she cannot keep goes back, and
    # then Bob's 3 silver must become a gold.
    g = new(2)
    purse(g, 0, ruby=2, gold=2)
    purse(g, 1, silver=3)
    _park(g, "gold", 1)
    _no_tickets(g, 0)                      # one action: the flick lands and resolves
    ev = land(g, "gold-1")
    assert "ruby_limit" in [e["type"] for e in ev]
    assert g.to_act() == [1]
    assert g.state["purse"][1] == {"silver": 0, "gold": 1, "ruby": 0}
    assert _untraded(g) == []
    assert g.totals()["gold"] == 24 and g.totals()["silver"] == 37


def test_a_chain_of_put_backs_settles_everyone():
    # Cy's 3 gold wait for a ruby, Bob's 3 silver for a gold; Ann's winnings over the limit
    # bring both back into the reserve, and every purse ends traded up.
    g = new(3)
    purse(g, 0, ruby=2, gold=2, silver=2)
    purse(g, 1, silver=3)
    purse(g, 2, gold=3)
    _park(g, "gold", 0)
    _park(g, "ruby", 0)
    mine = g.state["mine"]
    g.state["reserve"]["silver"] += mine[0]["silver"]       # the mine's first space pays Ann a ruby
    mine[0] = {"silver": 0, "gold": 0, "ruby": 1}
    mine[-1]["ruby"] -= 1
    _no_tickets(g, 0)
    land(g, "mine-1")
    assert _untraded(g) == []
    assert g.totals()["ruby"] == 12 and g.totals()["gold"] == 24 and g.totals()["silver"] == 37
    assert g.state["purse"][2]["ruby"] == 1


def test_long_seeded_play_never_leaves_coins_untraded():
    from ringside.bench.games import _bots_of
    import random
    choose = _bots_of("wildwest", "good")
    for k in range(40):
        g = games.new("wildwest", NAMES[: 2 + k % 2], seed=500 + k)
        rng = random.Random(k)
        steps = 0
        while not g.over and steps < 3000:
            seat = g.to_act()[0]
            a = g.chance_action() if seat == games.CHANCE else choose(g, seat, rng)
            g.apply(seat, a)
            assert _untraded(g) == [], (k, steps)
            steps += 1


# ----- the ruby limit counts the purse, not the bank (reading 16) -----

def test_rubies_on_the_bank_do_not_count_towards_the_limit():
    g = new(2)
    g.state["bank"][0] = {"silver": 0, "gold": 0, "ruby": 2}
    g.state["reserve"]["ruby"] -= 2
    purse(g, 0, ruby=1, gold=2)
    land(g, "gold-1")                        # 3 gold trade up to a second ruby in the purse
    assert g.state["purse"][0] == {"silver": 0, "gold": 0, "ruby": 2}
    assert g.state["bank"][0]["ruby"] == 2
    assert g.totals()["ruby"] == 12


def test_taking_a_ruby_back_over_the_limit_returns_the_interest():
    g = new(2)
    g.state["bank"][0] = {"silver": 0, "gold": 0, "ruby": 1}
    g.state["reserve"]["ruby"] -= 1
    purse(g, 0, ruby=2)
    # an earlier visit deposited it: go to the bank and take it back
    land(g, "bank-1")
    opts = g.legal_actions(0)
    assert {"type": "withdraw", "piece": "ruby"} in opts
    ev = g.apply(0, {"type": "withdraw", "piece": "ruby"})
    assert "ruby_limit" in [e["type"] for e in ev]
    assert g.state["purse"][0]["ruby"] == 2 and g.state["bank"][0]["ruby"] == 0
    assert g.totals()["ruby"] == 12


def test_banked_rubies_do_not_buy_the_ranch():
    g = new(2)
    g.state["bank"][0] = {"silver": 0, "gold": 0, "ruby": 2}
    g.state["reserve"]["ruby"] -= 2
    purse(g, 0, silver=1)
    ev = land(g, "ranch-1")
    assert not g.over and g.to_act() == [1] and "without" in ev[-1]["text"]
