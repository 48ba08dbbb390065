"""Doubles against the engine contract, by random play: games end, nothing raises, every
listed action is accepted, illegal actions raise IllegalAction and change nothing, saves
round-trip, undo equals replay, and every player's eight pieces are always accounted for."""
import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ringside.games as games
from ringside.games import CHANCE, GameError, IllegalAction
from ringside.games.doubles import render

NAMES = ["Ann", "Bob", "Cy", "Di"]


def invariants(g):
    """Pieces accounted for (two of each pattern per player, in hand or on the board),
    removes within 0-3, scores consistent with the events, the to_act contract."""
    n = len(g.players)
    for seat in range(n):
        for p in (1, 2, 3, 4):
            on = sum(1 for x in g.state["board"] if x is not None and x[0] == seat and x[1] == p)
            assert on + g.state["hands"][seat][p - 1] == 2, (seat, p)
    assert all(0 <= r <= 3 for r in g.state["removes"])
    for x in g.state["board"]:
        assert x is None or (0 <= x[0] < n and x[1] in (1, 2, 3, 4) and x[2] in (0, 1, 2, 3))
    if g.over:
        assert g.to_act() == [] and g.result["winners"]
    else:
        seats = g.to_act()
        assert len(seats) == 1
        assert g.legal_actions(seats[0]), "every turn has a legal action"


def random_game(n, seed, max_actions=3000, check=None):
    g = games.new("doubles", NAMES[:n], seed=seed)
    rng = random.Random(seed)
    scored = [0] * n
    while not g.over and len(g.log) < max_actions:
        seat = g.to_act()[0]
        act = g.chance_action() if seat == CHANCE else rng.choice(g.legal_actions(seat))
        for e in g.apply(seat, act):
            if e["type"] in ("circle", "penalty"):
                scored[e["seat"]] += e["points"]
        assert g.state["scores"] == scored      # scores are exactly circles less penalties
        if check:
            check(g, rng)
    return g


@pytest.mark.parametrize("n,seeds", [(2, range(30)), (3, range(4)), (4, range(3))])
def test_random_games_end_and_never_raise(n, seeds):
    ended = 0
    for seed in seeds:
        g = random_game(n, seed, max_actions=12000, check=lambda g, rng: invariants(g))
        ended += g.over
        if g.over:
            r = g.result
            top = max(g.state["scores"])
            assert r["scores"] == dict(zip(g.players, g.state["scores"], strict=True))
            if r["reason"].endswith("points"):
                assert r["winners"] == [g.log[-1][0]] and top >= 25
            else:
                assert r["reason"] in ("no circle can ever be made again", "the players agreed to end the game")
                assert r["winners"] == [i for i, v in enumerate(g.state["scores"]) if v == top]
    assert ended == len(seeds)


def test_every_listed_action_is_accepted():
    positions = 0
    for seed in range(3):
        g = games.new("doubles", NAMES[:2 + seed], seed=seed)
        rng = random.Random(seed)
        while not g.over and len(g.log) < 160:
            seat = g.to_act()[0]
            acts = g.legal_actions(seat)
            assert acts and len({json.dumps(a, sort_keys=True) for a in acts}) == len(acts)
            saved = (copy.deepcopy(g.state), g.rng.getstate(), len(g.log), g.over, copy.deepcopy(g.result))
            for a in acts:
                g.apply(seat, copy.deepcopy(a))
                assert g.log[-1] == (seat, a)
                # back to the position (the engine's own state, as apply() keeps it)
                g.state, g.over, g.result = copy.deepcopy(saved[0]), saved[3], copy.deepcopy(saved[4])
                g.rng.setstate(saved[1])
                del g.log[saved[2]:]
            positions += 1
            g.apply(seat, rng.choice(acts))
    assert positions > 300


def illegal_candidates(g, rng):
    """Actions that look plausible but are not legal now, and seats not to act."""
    n = len(g.players)
    seat = g.to_act()[0]
    geo = g.geo
    names = geo.squares
    legal = g.legal_actions(seat)
    out = []
    others = [s for s in list(range(n)) + [CHANCE] if s != seat]
    if legal:
        out += [(s, legal[0]) for s in others]                  # someone else's turn
    all_sq = [c + r["name"] for r in geo.rows for c in geo.columns]
    if seat == CHANCE:
        out += [(CHANCE, {"type": "roll", "value": v}) for v in (0, 5, -1, "2", 2.0, True, None)]
        out += [(CHANCE, {"type": "toss", "first": n}), (CHANCE, {"type": "roll"}),
                (CHANCE, {"type": "roll", "value": 2, "extra": 1}), (CHANCE, {"type": "add", "square": "c2", "pattern": 1})]
        if g.state["phase"] == "roll":
            out.append((CHANCE, {"type": "toss", "first": 0}))
        return out
    for sq in all_sq + ["z9", "", "C2", None, 3]:
        for kind in ("add", "turn", "remove"):
            for pat in (0, 1, 2, 3, 4, 5, "1", None, True):
                a = {"type": kind, "square": sq}
                if kind == "add":
                    a["pattern"] = pat
                elif pat != 1:
                    continue
                if a not in legal:
                    out.append((seat, a))
    out += [(seat, {"type": "pass"}), (seat, {"type": "add", "square": names[0]}),
            (seat, {"type": "turn"}), (seat, {"type": "turn", "square": names[0], "by": 2}),
            (seat, {"type": "roll", "value": 1}), (seat, "add"), (seat, {"square": names[0]})]
    rng.shuffle(out)
    return out[:60]


def test_illegal_actions_raise_and_change_nothing():
    tried = 0
    for seed in range(4):
        g = games.new("doubles", NAMES[:2 + seed % 3], seed=seed, options={"timer": seed % 2 == 0})
        rng = random.Random(seed)
        while not g.over and len(g.log) < 120:
            seat = g.to_act()[0]
            for s, a in illegal_candidates(g, rng):
                if a == {"type": "timeout"}:
                    continue
                before = (copy.deepcopy(g.state), list(g.log), g.rng.getstate(), g.over)
                with pytest.raises(IllegalAction):
                    g.apply(s, a)
                assert (g.state, g.log, g.rng.getstate(), g.over) == before
                tried += 1
            act = g.chance_action() if seat == CHANCE else rng.choice(g.legal_actions(seat))
            g.apply(seat, act)
    assert tried > 2000


def test_save_and_load_round_trip_and_undo_equals_replay():
    for n in (2, 3, 4):
        g = games.new("doubles", NAMES[:n], seed=11 * n, options={"computer": [1]})
        rng = random.Random(n)
        states = [copy.deepcopy(g.state)]
        while not g.over and len(g.log) < 400:
            seat = g.to_act()[0]
            if seat == 0 and g.state["phase"] == "move" and rng.random() < 0.05:
                g.expire()                                   # timeouts are in the log too
            else:
                g.apply(seat, g.chance_action() if seat == CHANCE else rng.choice(g.legal_actions(seat)))
            states.append(copy.deepcopy(g.state))
        h = games.load(g.to_json())
        assert h.state == g.state and h.view() == g.view() and h.log == g.log
        assert h.options == g.options and h.over == g.over and h.result == g.result
        assert json.loads(h.to_json()) == json.loads(g.to_json())
        for k in (1, 2, 7, 50, len(g.log)):
            assert g.undo(k).state == states[len(g.log) - k]
        # after undo, the game goes on from there exactly as it did
        u = g.undo(10)
        for seat, a in g.log[len(u.log):]:
            u.apply(seat, a)
        assert u.state == g.state


def test_chance_draws_are_seeded_and_exact_on_replay():
    a = random_game(2, 99, max_actions=200)
    b = random_game(2, 99, max_actions=200)
    assert a.log == b.log and a.state == b.state


def test_a_damaged_save_is_refused_with_a_reason():
    g = random_game(2, 5, max_actions=30)
    d = json.loads(g.to_json())
    d["log"][3][1] = {"type": "add", "square": "q7", "pattern": 1}
    with pytest.raises(GameError, match="does not replay"):
        games.load(json.dumps(d))


def test_bad_options_are_refused_with_a_reason():
    with pytest.raises(GameError, match="2 to 4 players"):
        games.new("doubles", ["Solo"])
    with pytest.raises(GameError, match="2 to 4 players"):
        games.new("doubles", NAMES + ["Ed"])
    with pytest.raises(GameError, match="timer option"):
        games.new("doubles", NAMES[:2], options={"timer": "yes"})
    for bad in ([2], [0, 0], [[1]], "0", [True]):
        with pytest.raises(GameError, match="computer option"):
            games.new("doubles", NAMES[:2], options={"computer": bad})
    with pytest.raises(GameError, match="no option"):
        games.new("doubles", NAMES[:2], options={"clock": 20})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 4), seed=st.integers(0, 2 ** 31 - 1),
       choices=st.lists(st.integers(0, 10 ** 6), min_size=1, max_size=250),
       timeouts=st.sets(st.integers(0, 250), max_size=8))
def test_hypothesis_random_play(n, seed, choices, timeouts):
    """Any sequence of choices: pieces accounted for, replay equals state, nothing raises."""
    g = games.new("doubles", NAMES[:n], seed=seed)
    for i, c in enumerate(choices):
        if g.over:
            break
        seat = g.to_act()[0]
        if i in timeouts and g.timeout_entry():
            g.expire()
        elif seat == CHANCE:
            g.apply(seat, g.chance_action())
        else:
            acts = g.legal_actions(seat)
            g.apply(seat, acts[c % len(acts)])
        invariants(g)
    assert g.replay().state == g.state
    assert games.load(g.to_json()).view() == g.view()
    v = json.loads(json.dumps(g.view()))          # the view is plain JSON, and renders
    text = render(v)
    assert all(p["name"] in text for p in v["players"])
