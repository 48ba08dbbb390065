"""The Circle against the engine contract: random play keeps the invariants (60 cards always
accounted for, no division over 12 or under 0, replay equals state), illegal actions change
nothing, saves and undo round-trip, and 500 seeded self-play games end without error."""
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ringside import games
from ringside.games import CHANCE, IllegalAction
from ringside.games.circle import bots


def invariants(g):
    t = g.totals()
    assert t["all"] == 60
    for pl in g.state["players"]:
        assert all(0 <= x <= 12 for x in pl["secrets"])
        assert pl["vp"] >= 0
    assert g.state["circle"] >= 0
    assert all(len(q) >= 0 for q in g.state["wheel"]) and len(g.state["wheel"]) == 8
    json.dumps(g.view(None))


def state_text(g):
    return json.dumps([g.state, g.over, g.result], sort_keys=True)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10 ** 6), n=st.integers(3, 6), probe=st.integers(0, 10 ** 6))
def test_random_play_keeps_the_invariants_and_replays_exactly(seed, n, probe):
    g = games.new("circle", ["p%d" % i for i in range(n)], seed=seed)
    rng = random.Random(probe)
    steps = 0
    while not g.over:
        seat = g.to_act()[0]
        acts = g.legal_actions(seat)
        assert acts
        if steps % 97 == 5:          # an illegal action changes nothing
            before = state_text(g)
            bad = {"type": "pick", "card": "no-such-card"} if seat != CHANCE else {"type": "draw", "card": "x"}
            try:
                g.apply(seat, bad)
            except IllegalAction:
                pass
            else:
                raise AssertionError("an impossible action was accepted")
            assert state_text(g) == before
        g.apply(seat, g.chance_action() if seat == CHANCE else rng.choice(acts))
        invariants(g)
        steps += 1
        assert steps < 60000
    again = games.load(g.to_json())
    assert state_text(again) == state_text(g)
    k = rng.randrange(1, len(g.log))
    assert state_text(g.undo(k)) == state_text(g.replay(len(g.log) - k))


def test_views_show_each_seat_the_table_but_not_the_deck():
    g = games.new("circle", ["a", "b", "c", "d"], seed=3)
    rng = random.Random(3)
    for _ in range(400):
        seat = g.to_act()[0]
        g.apply(seat, g.chance_action() if seat == CHANCE else rng.choice(g.legal_actions(seat)))
    for seat in (None, 0, 2):
        v = g.view(seat)
        text = json.dumps({k: x for k, x in v.items() if k != "cards"})
        assert v["deck_size"] == len(g.state["deck"])
        assert not any('"%s"' % c in text for c in g.state["deck"])
        assert len(v["wheel"]) == 8 and v["wheel_ready_number"] == 8
        assert [p["secrets"] for p in v["players"]] == [dict(zip(("INT", "SUP", "REC", "OPS"), p["secrets"], strict=True))
                                                        for p in g.state["players"]]


def test_five_hundred_seeded_self_play_games_end_without_error():
    good = bots.make("good")
    ends = {"players": 0, "circle": 0}
    for seed in range(500):
        n = 3 + seed % 4
        g = games.new("circle", ["p%d" % i for i in range(n)], seed=seed)
        rng = random.Random(seed)
        steps = 0
        while not g.over:
            seat = g.to_act()[0]
            if seat == CHANCE:
                a = g.chance_action()
            else:
                a = good.choose(g, seat, rng)
            g.apply(seat, a)
            steps += 1
            assert steps < 20000, "game %d does not end" % seed
        assert g.totals()["all"] == 60 and g.result["winners"]
        ends["circle" if g.result["circle_won"] else "players"] += 1
    assert ends["players"] > 0
