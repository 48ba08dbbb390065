"""Property tests (hypothesis) for every engine and for the save reader (issue 17).

Every engine, driven by random legal actions mixed with hostile ones:
  - a refused action changes nothing (the save, the state and every view are as before);
  - every listed legal action applies;
  - save -> load -> replay gives the same game.
The save reader: no input (bytes, text, JSON, a real save with one part damaged) gives
anything but a clean SaveError (a RingsideError) or a game.

The runs are derandomized (the same examples on every run, so CI is repeatable). Set
RINGSIDE_PROP_EXAMPLES=2000 (or more) for a nightly-size run; the default keeps the whole
file to a few seconds.
"""
from __future__ import annotations

import copy
import json
import math
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ringside import games, store
from ringside.errors import RingsideError
from ringside.games import CHANCE, IllegalAction

EXAMPLES = int(os.environ.get("RINGSIDE_PROP_EXAMPLES", "0") or 0)


def _settings(default: int):
    return settings(max_examples=EXAMPLES or default, derandomize=True, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


NAMES = games.names()
PLAYERS = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"]

# values that no field of any game means (and some that a careless engine would crash on)
HOSTILE = [None, True, False, 0, -1, 1, 3, 99, -10 ** 6, 10 ** 400, 10 ** 18, 1.5, -0.0, 1e300,
           float("inf"), float("-inf"), float("nan"), "", "zz", "0", "7", "x" * 1000, [], {}, [1, 2],
           {"a": 1}, [[[[[[1]]]]]], "chance"]
BAD_SEATS = [False, True, 1.0, 0.0, -1, 6, 99, "0", "1", None, "CHANCE", "", [0], 10 ** 400, float("nan")]
BAD_ACTIONS = [None, [], "landed", 5, {"type": None}, {"type": 3}, {}, {"type": ""}, {"type": "nope"},
               {"type": "x" * 1000}]


def fingerprint(g) -> tuple:
    """Everything a refusal must leave as it was."""
    views = [json.dumps(g.view(s), sort_keys=True, default=repr) for s in [None] + list(range(len(g.players)))]
    return (g.to_json(), json.dumps(g.state, sort_keys=True, default=repr), g.over,
            json.dumps(g.result, sort_keys=True, default=repr), views, g.rng.getstate(), tuple(g.to_act()))


def new_game(name, n_players, seed):
    cls = games.game_class(name)
    n = max(cls.min_players, min(cls.max_players, n_players))
    return games.new(name, PLAYERS[:n], seed=seed)


def hostile(data, g, seat, legal):
    """(seat, action): a mutation of a legal action (or of its seat) that is very likely wrong."""
    base = copy.deepcopy(data.draw(st.sampled_from(legal))) if legal else {"type": "nope"}
    how = data.draw(st.sampled_from(["extra", "drop", "value", "type", "seat", "shape", "number", "swap"]))
    fields = [k for k in base if k != "type"]
    if how == "extra":
        base[data.draw(st.sampled_from(["zz", "Type", "space ", "ccw", "alt", "travel", "seat"]))] = \
            data.draw(st.sampled_from(HOSTILE))
    elif how == "drop" and fields:
        del base[data.draw(st.sampled_from(fields))]
    elif how == "value" and fields:
        base[data.draw(st.sampled_from(fields))] = data.draw(st.sampled_from(HOSTILE))
    elif how == "type":
        kinds = sorted(g.actions) or ["landed", "add"]
        base["type"] = data.draw(st.sampled_from(kinds + ["", "nope", "Landed"]))
    elif how == "seat":
        return data.draw(st.sampled_from(BAD_SEATS + [s for s in range(len(g.players)) if s != seat] + [CHANCE])), base
    elif how == "shape":
        return seat, copy.deepcopy(data.draw(st.sampled_from(BAD_ACTIONS)))
    elif how == "number":
        base[data.draw(st.sampled_from(fields or ["travel"]))] = data.draw(
            st.sampled_from([10 ** 400, float("inf"), float("nan"), -1e308, 10 ** 18, 2 ** 63]))
    elif how == "swap" and fields:
        others = [a for a in legal if a.get("type") != base["type"]] or legal
        donor = data.draw(st.sampled_from(others))
        for k, v in donor.items():
            if k != "type":
                base[k] = copy.deepcopy(v)
    return seat, base


def _legal_for(g, seat):
    return g.legal_actions(seat) if seat != CHANCE else g._legal(CHANCE)


@_settings(25)
@given(data=st.data(), name=st.sampled_from(NAMES), n=st.integers(1, 6), seed=st.integers(0, 2 ** 31 - 1))
def test_engines_refuse_hostile_actions_apply_legal_ones_and_replay(data, name, n, seed):
    g = new_game(name, n, seed)
    for _ in range(data.draw(st.integers(5, 40), label="steps")):
        if g.over:
            break
        seats = g.to_act()
        seat = data.draw(st.sampled_from(seats))
        legal = _legal_for(g, seat)
        if data.draw(st.booleans(), label="hostile"):
            s, a = hostile(data, g, seat, legal)
            before = fingerprint(g)
            try:
                g.apply(s, a)
            except IllegalAction:
                assert fingerprint(g) == before, "a refused action changed the game"
                continue
            # accepted: it must have been a real action, one a save can hold
            json.loads(json.dumps(g.log[-1], allow_nan=False))
            continue
        assert legal, "%s must act but has no legal action" % g.seat_name(seat)
        # a listed legal action always applies (chance: any the table may enter, or the RNG's)
        a = g.chance_action() if seat == CHANCE and data.draw(st.booleans()) else data.draw(st.sampled_from(legal))
        g.apply(seat, a)
    text = g.to_json()
    h = games.load(text)
    assert h.to_json() == text and h.state == g.state and h.over == g.over and h.result == g.result
    assert all(h.view(s) == g.view(s) for s in [None] + list(range(len(g.players))))
    assert g.replay().state == g.state


# ----- the save reader ----------------------------------------------------------------------

def _a_save(name="darts", seed=3, steps=12):
    import random
    g = new_game(name, 2, seed)
    games.play_random(g, random.Random(seed), max_actions=steps)
    return json.loads(store.table_json(g, {0: "human", 1: "good"}, {"board": "typed"}))


SAVES = {name: _a_save(name) for name in NAMES}


def _paths(v, here=()):
    yield here
    if isinstance(v, dict):
        for k, x in v.items():
            yield from _paths(x, here + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from _paths(x, here + (i,))


def _set(root, path, value):
    if not path:
        return value
    cur = root
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = value
    return root


def _delete(root, path):
    cur = root
    for p in path[:-1]:
        cur = cur[p]
    del cur[path[-1]]
    return root


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
    max_leaves=12)


def _read(data):
    """load_table must give a game or a SaveError; anything else is a bug."""
    try:
        g, seats, meta = store.load_table(data)
    except store.SaveError as e:
        assert isinstance(e, RingsideError) and "\n" not in str(e) and str(e)
        return None
    # what reads must save and read again the same
    again = store.load_table(store.table_json(g, seats, meta))[0]
    assert again.to_json() == g.to_json()
    return g


@_settings(150)
@given(data=st.data(), name=st.sampled_from(NAMES))
def test_the_save_reader_gives_a_game_or_one_line_never_a_traceback(data, name):
    d = copy.deepcopy(SAVES[name])
    how = data.draw(st.sampled_from(["replace", "delete", "add", "bytes", "text", "json", "cut", "flip"]))
    paths = list(_paths(d))
    if how == "replace":
        d = _set(d, data.draw(st.sampled_from(paths)), data.draw(json_values | st.sampled_from(HOSTILE[:-5])))
    elif how == "delete":
        p = data.draw(st.sampled_from(paths[1:]))
        d = _delete(d, p)
    elif how == "add":
        p = data.draw(st.sampled_from([q for q in paths if isinstance(_get(d, q), dict)]))
        _get(d, p)[data.draw(st.text(max_size=6))] = data.draw(json_values)
    if how in ("replace", "delete", "add"):
        try:
            text = json.dumps(d)
        except ValueError:        # NaN and friends: written as JSON would write them
            text = json.dumps(d, allow_nan=True)
        _read(text)
        _read(text.encode())
    elif how == "bytes":
        _read(data.draw(st.binary(max_size=200)))
    elif how == "text":
        _read(data.draw(st.text(max_size=200)))
    elif how == "json":
        _read(json.dumps(data.draw(json_values)))
    else:
        raw = bytearray(json.dumps(d).encode())
        i = data.draw(st.integers(0, len(raw) - 1))
        if how == "cut":
            _read(bytes(raw[:i]))
        else:
            raw[i] = data.draw(st.integers(0, 255))
            _read(bytes(raw))


def _get(root, path):
    for p in path:
        root = root[p]
    return root


@pytest.mark.parametrize("depth", [50, 5000, 100000])
def test_deep_nesting_is_one_line(depth):
    with pytest.raises(store.SaveError, match="nested more than"):
        store.load_table("[" * depth + "]" * depth)


def test_hostile_numbers_never_escape_as_overflow():
    assert math.isinf(float("1e400"))          # what json makes of 1e400
    for name in NAMES:
        g = new_game(name, 2, 1)
        seat = g.to_act()[0]
        for v in (10 ** 400, float("inf"), float("nan"), 1e400):
            with pytest.raises(IllegalAction):
                g.apply(seat, {"type": "landed", "space": "1", "travel": v})
