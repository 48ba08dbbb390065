"""Random play against the engine contract, for Darts and Wild West.

Many seeded random games (hypothesis draws the seeds and the player counts) must end and
never raise; every listed legal action is accepted; illegal actions raise IllegalAction and
change nothing; saves round-trip; undo equals the replay without the last entry; cubes and
coins are conserved and no holding goes negative.
"""
import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ringside import games
from ringside.games import CHANCE, IllegalAction
from ringside.games import circles_common as cc
from ringside.games.darts import bots as darts_bots
from ringside.games.wildwest import bots as ww_bots

GAMES = ("darts", "wildwest")
MAX_ACTIONS = 5000


def snapshot(g):
    return (copy.deepcopy(g.state), g.over, copy.deepcopy(g.result), g.rng.getstate(), len(g.log))


def restore(g, snap):
    g.state, g.over, g.result, rs, n = copy.deepcopy(snap[0]), snap[1], copy.deepcopy(snap[2]), snap[3], snap[4]
    g.rng.setstate(rs)
    del g.log[n:]


def same(g, snap):
    return json.dumps(g.state, sort_keys=True) == json.dumps(snap[0], sort_keys=True) and \
        g.over == snap[1] and len(g.log) == snap[4]


def invariants(g):
    s = g.state
    if g.name == "darts":
        n = len(g.players)
        if s["round"]:
            for p in range(n):
                on_board = sum(c[p] for c in s["board"].values())
                assert on_board + s["aside"][p] + s["hand"][p] == g.data["turns_per_round"]
                assert min(s["hand"][p], s["aside"][p]) >= 0
        assert all(c >= 0 for cubes in s["board"].values() for c in cubes)
        assert all(v >= 0 for v in s["scores"])
        assert s["marble"] in g.side
    else:
        assert g.totals() == {"silver": 37, "gold": 24, "ruby": 12, "stone": 2, "tickets": 20, "shovels": 10,
                              "wagons": 5}
        holdings = list(s["purse"]) + list(s["bank"]) + list(s["mine"]) + [s["reserve"], s["bag"]] + \
            [b for b in s["bowl"] if b is not None]
        assert all(v >= 0 for h in holdings for v in h.values())
        for key in ("tickets", "shovels", "wagons"):
            assert min(s[key]) >= 0 and s["shop"][key] >= 0
        assert all(p["ruby"] <= g.data["ruby_limit"] for p in s["purse"])
        assert s["marble"] in g.side


def junk_actions(g, seat, rng):
    """Actions that must be refused: wrong seats, unknown types, broken fields."""
    n = len(g.players)
    legal = g.legal_actions(seat) if seat in g.to_act() else []
    out = [(seat, {"type": "no-such-action"}), (seat, {}), (seat, "landed"),
           (seat, {"type": "landed", "space": "nowhere", "travel": 10.0}),
           (seat, {"type": "landed", "space": g.side.ids[0], "travel": float("nan")})]
    others = [p for p in list(range(n)) + [CHANCE] if p not in g.to_act()]
    if others and legal:
        out.append((rng.choice(others), rng.choice(legal)))
    for a in legal[:3]:
        b = dict(a)
        for k in list(b):
            if k != "type":
                b[k] = rng.choice([None, "x", -7, 99, [1], {"a": 1}])
        if b not in legal and not (b.get("type") in cc.RING_TYPES):
            out.append((seat, b))
    return out


def maybe_ambiguous(g, a, rng):
    """Sometimes report a landing as ambiguous with a neighbour, as the board may."""
    if a.get("type") == "landed" and rng.random() < 0.15:
        a = dict(a)
        a["alt"] = g.side.step(a["space"], rng.choice(cc.DIRECTIONS))
    return a


def play(name, n, seed, check_every=9, sample=10):
    g = games.new(name, ["p%d" % i for i in range(n)], seed=seed)
    rng = random.Random(seed)
    invariants(g)
    steps = 0
    while not g.over:
        assert steps < MAX_ACTIONS, "the game did not end"
        seats = g.to_act()
        assert seats, "no one may act, yet the game is not over"
        seat = seats[0]
        legal = g.legal_actions(seat)
        assert legal, "%s must act but has no legal action" % seat
        if steps % check_every == 0:
            snap = snapshot(g)
            for a in (legal if len(legal) <= sample else rng.sample(legal, sample)):   # all accepted
                g.apply(seat, copy.deepcopy(a))
                invariants(g)
                restore(g, snap)
            for s2, bad in junk_actions(g, seat, rng):
                with pytest.raises(IllegalAction):
                    g.apply(s2, bad)
                assert same(g, snap)
        before = snapshot(g)
        a = g.chance_action() if seat == CHANCE else maybe_ambiguous(g, rng.choice(legal), rng)
        g.apply(seat, a)
        invariants(g)
        steps += 1
        if steps in (5, 25, 80):                  # undo is a replay of the whole log: a few suffice
            u = g.undo(1)
            assert json.dumps(u.state, sort_keys=True) == json.dumps(before[0], sort_keys=True)
    h = games.load(g.to_json())
    assert h.state == g.state and h.over and h.result == g.result
    assert g.undo(1).state == g.replay(len(g.log) - 1).state
    return g


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 31 - 1), n=st.integers(2, 5))
def test_random_darts_games_keep_the_contract(seed, n):
    g = play("darts", n, seed)
    assert g.result["winners"] and set(g.result["scores"]) == set(g.players)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 31 - 1), n=st.integers(2, 5))
def test_random_wildwest_games_keep_the_contract(seed, n):
    g = play("wildwest", n, seed)
    assert len(g.result["winners"]) == 1


@pytest.mark.parametrize("name", GAMES)
def test_many_seeded_random_games_end_and_keep_the_invariants(name):
    lengths = []
    for seed in range(30):
        g = games.new(name, ["p%d" % i for i in range(2 + seed % 4)], seed=1000 + seed)
        rng = random.Random(seed)
        while not g.over:
            assert len(g.log) < MAX_ACTIONS
            seat = g.to_act()[0]
            if seat == CHANCE:
                g.apply(seat, g.chance_action())
            else:
                g.apply(seat, maybe_ambiguous(g, rng.choice(g.legal_actions(seat)), rng))
            invariants(g)
        lengths.append(len(g.log))
    assert min(lengths) > 5


@pytest.mark.parametrize("name", GAMES)
def test_bot_games_end_with_a_winner(name):
    mod = darts_bots if name == "darts" else ww_bots
    for seed in range(4):
        n = 2 + seed
        g = games.new(name, ["p%d" % i for i in range(n)], seed=seed)
        who = [mod.make(["good", "weak", "random"][p % 3]) for p in range(n)]
        rng = random.Random(seed)
        k = 0
        while not g.over and k < MAX_ACTIONS:
            s = g.to_act()[0]
            a = g.chance_action() if s == CHANCE else who[s].choose(g, s, rng)
            g.apply(s, a)
            invariants(g)
            k += 1
        assert g.over and g.result["winners"]


@pytest.mark.parametrize("name", GAMES)
def test_corrupt_saves_give_a_clear_error(name):
    g = games.new(name, ["a", "b"], seed=1)
    games.play_random(g, random.Random(1), max_actions=10)
    d = json.loads(g.to_json())
    d["log"][3][1] = {"type": "teleport"}
    with pytest.raises(games.GameError, match="does not replay"):
        games.load(json.dumps(d))
    with pytest.raises(games.GameError, match="not valid JSON"):
        games.load(g.to_json()[:-5])


def test_the_same_seed_gives_the_same_game():
    for name in GAMES:
        a = games.play_random(games.new(name, ["a", "b", "c"], seed=11), random.Random(3))
        b = games.play_random(games.new(name, ["a", "b", "c"], seed=11), random.Random(3))
        assert a.log == b.log and a.result == b.result
