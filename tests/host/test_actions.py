"""Actions under hostile input (issue 17 items 10-12, issue 15 item 3): seats by type, numbers
finite and in range, unknown fields refused in every engine, nothing outside JSON saved, a
half-done action rolled back, a bug in an engine surfacing as a bug; one RingsideError base."""
from __future__ import annotations

import json
import random

import pytest

from ringside import games
from ringside.errors import RingsideError, bug_line, user_message
from ringside.games import CHANCE, GameError, IllegalAction

NAMES = games.names()


def game(name, seed=2):
    cls = games.game_class(name)
    return games.new(name, ["Ann", "Bob", "Cy"][: max(2, cls.min_players)] if cls.min_players <= 3
                     else ["Ann", "Bob", "Cy", "Di"], seed=seed)


def at_a_ring_result(name, seed=2):
    """A game of `name` (darts or wildwest) where a flick's result is due."""
    g = game(name, seed)
    rng = random.Random(seed)
    while True:
        seat = g.to_act()[0]
        acts = g.legal_actions(seat) if seat != CHANCE else []
        if any(a["type"] == "landed" for a in acts):
            return g, seat
        g.apply(seat, g.chance_action() if seat == CHANCE else rng.choice(acts))


# ----- item 10: travel = 10**400 and friends ------------------------------------------------

@pytest.mark.parametrize("name", ["darts", "wildwest"])
@pytest.mark.parametrize("travel", [10 ** 400, -(10 ** 400), float("inf"), float("nan"), 1e300, 10 ** 18])
def test_a_travel_no_ring_could_give_is_refused_cleanly(name, travel):
    g, seat = at_a_ring_result(name)
    before = g.to_json()
    space = g.legal_actions(seat)[0]["space"]
    with pytest.raises(IllegalAction, match="out of range|not a flick"):
        g.apply(seat, {"type": "landed", "space": space, "travel": travel})
    assert g.to_json() == before


# ----- item 11: seats by type --------------------------------------------------------------

def test_the_issue_repro_false_is_not_seat_0():
    g = games.new("darts", ["Ann", "Bob"], seed=2)
    a = g.legal_actions(0)[0]
    with pytest.raises(IllegalAction, match="False is not a seat"):
        g.apply(False, a)
    g.apply(0, a)
    assert g.legal_actions(1) and all(g.apply(1, x) or True for x in g.legal_actions(1)[:1])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seat", [False, True, 1.0, 0.0, -1, 7, "0", None, "Chance", [0]])
def test_a_seat_is_an_int_in_range_or_chance_in_every_engine(name, seat):
    g = game(name)
    to_act = g.to_act()[0]
    a = g.chance_action() if to_act == CHANCE else g.legal_actions(to_act)[0]
    before = g.to_json()
    with pytest.raises(IllegalAction, match="not a seat"):
        g.apply(seat, a)
    assert g.to_json() == before


@pytest.mark.parametrize("name", NAMES)
def test_a_non_seat_has_no_legal_actions_and_sees_no_seats_secrets(name):
    g = game(name)
    for bad in (False, True, 1.0, -1, 9, "0"):
        assert g.legal_actions(bad) == []
        with pytest.raises(IllegalAction, match="not a seat"):
            g.view(bad)
    assert g.view(None) is not None and g.view(0) is not None


# ----- item 12: unknown keys, values outside JSON ------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_every_engine_refuses_an_unknown_field_in_every_kind_of_action(name):
    g = game(name, seed=4)
    with pytest.raises(IllegalAction, match="is not an action of"):
        g.apply(g.to_act()[0], {"type": "teleport"})
    rng = random.Random(4)
    kinds = set()
    for _ in range(400):
        if g.over:
            break
        seat = rng.choice(g.to_act())
        acts = g.legal_actions(seat) if seat != CHANCE else g._legal(CHANCE)
        for a in acts:
            if a["type"] in kinds:
                continue
            kinds.add(a["type"])
            before = g.to_json()
            with pytest.raises(IllegalAction, match="has no field 'colour_of_the_sky'"):
                g.apply(seat, dict(a, colour_of_the_sky=1))
            assert g.to_json() == before
        g.apply(seat, g.chance_action() if seat == CHANCE else rng.choice(acts))
    assert len(kinds) >= 3


def test_circleville_refuses_ccw_infinity_and_never_saves_it():
    g = games.new("circleville", ["Ann", "Bob"], seed=1)
    rng = random.Random(1)
    while not any(a["type"] == "rondel" for a in (g.legal_actions(g.to_act()[0]) if g.to_act()[0] != CHANCE else [])):
        seat = g.to_act()[0]
        g.apply(seat, g.chance_action() if seat == CHANCE else rng.choice(g.legal_actions(seat)))
    seat = g.to_act()[0]
    a = next(a for a in g.legal_actions(seat) if a["type"] == "rondel")
    before = g.to_json()
    for bad in (float("inf"), 1, "yes", None):
        with pytest.raises(IllegalAction):
            g.apply(seat, dict(a, ccw=bad))
    assert g.to_json() == before
    g.apply(seat, a)

    def refuse(c):
        raise AssertionError("not JSON: " + c)
    json.loads(g.to_json(), parse_constant=refuse)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 10 ** 400, "x" * 5000, {1: 2}, (1,), b"x",
                                 [[[[[[1]]]]]], set()])
def test_an_action_holds_only_what_a_save_can(bad):
    g = games.new("doubles", ["Ann", "Bob"], seed=1)
    with pytest.raises(IllegalAction):
        g.apply(CHANCE, {"type": "toss", "first": bad})
    with pytest.raises(IllegalAction):
        g.apply(CHANCE, {"type": "toss", "first": 0, "note": bad})


def test_saving_a_value_json_cannot_hold_is_a_bug_not_a_silent_infinity():
    g = games.new("darts", ["Ann", "Bob"], seed=1)
    g.log.append((0, {"type": "landed", "travel": float("inf")}))   # bypassing apply: only a bug can
    with pytest.raises(ValueError):
        g.to_json()


# ----- issue 15 item 3: validation, not exception catching -----------------------------------

def _a_half_done_action(monkeypatch, cls, exc):
    """Make cls._apply change the state, the RNG and the result, then raise exc."""
    real = cls._apply

    def half_done(self, seat, action):
        real(self, seat, action)               # the action really happens ...
        self.state["scribble"] = [1, 2, 3]
        self.rng.random()
        self.over, self.result = True, {"winners": ["nobody"]}
        raise exc                              # ... and then fails half-way
    monkeypatch.setattr(cls, "_apply", half_done)


@pytest.mark.parametrize("name", NAMES)
def test_an_action_refused_half_way_leaves_the_game_exactly_as_it_was(monkeypatch, name):
    g = game(name, seed=3)
    rng = random.Random(3)
    for _ in range(6):
        seat = g.to_act()[0]
        g.apply(seat, g.chance_action() if seat == CHANCE else rng.choice(g.legal_actions(seat)))
    seat = g.to_act()[0]
    a = g.chance_action() if seat == CHANCE else g.legal_actions(seat)[0]
    before = (g.to_json(), json.dumps(g.state, sort_keys=True), g.rng.getstate(), g.over, g.result,
              json.dumps(g.view(None), sort_keys=True, default=repr), len(g.log))
    _a_half_done_action(monkeypatch, type(g), IllegalAction("refused half-way"))
    with pytest.raises(IllegalAction, match="refused half-way"):
        g.apply(seat, a)
    after = (g.to_json(), json.dumps(g.state, sort_keys=True), g.rng.getstate(), g.over, g.result,
             json.dumps(g.view(None), sort_keys=True, default=repr), len(g.log))
    assert after == before
    monkeypatch.undo()
    g.apply(seat, a)                           # and the game goes on


@pytest.mark.parametrize("exc", [KeyError("phase"), TypeError("bad"), IndexError("list"), ValueError("v")])
def test_a_bug_inside_an_engine_surfaces_as_a_bug_not_as_an_illegal_move(monkeypatch, exc):
    g = games.new("darts", ["Ann", "Bob"], seed=2)
    a = g.legal_actions(0)[0]
    _a_half_done_action(monkeypatch, type(g), exc)
    with pytest.raises(type(exc)) as e:
        g.apply(0, a)
    assert not isinstance(e.value, GameError)


# ----- one RingsideError base ---------------------------------------------------------------

def test_every_error_a_user_may_see_is_a_ringside_error():
    from ringside.app.cli import UserError
    from ringside.calibration import CalibrationError
    from ringside.errors import UsageError
    from ringside.games.circleville.data import DataError
    from ringside.games.circleville.solo.framework import SoloDataError
    from ringside.games.doubles.board import BoardError
    from ringside.link import LinkError
    from ringside.link.frames import WireError
    from ringside.sim.vm import VMError
    from ringside.store import SaveError
    from ringside.table import TableError
    for cls in (GameError, IllegalAction, TableError, SaveError, LinkError, WireError, CalibrationError,
                VMError, UserError, UsageError, BoardError, DataError, SoloDataError):
        assert issubclass(cls, RingsideError), cls
        assert user_message(cls("a reason")) == "a reason"


def test_a_value_error_is_no_longer_taken_for_the_users_fault():
    assert user_message(ValueError("could not convert string to float: 'abc'")) is None
    assert user_message(KeyError("nope")) is None
    assert user_message(FileNotFoundError(2, "No such file or directory", "x.json")) == \
        "x.json: No such file or directory"


def test_a_bug_is_reported_in_one_line_with_its_traceback_saved(tmp_path, monkeypatch, capsys):
    from ringside.app import cli
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    parser = cli.build_parser()

    def boom(args):
        return {}["no such key"]
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    args = parser.parse_args(["play", "--list"])
    monkeypatch.setattr(parser, "parse_args", lambda argv=None: args)
    args.func = boom
    assert cli.main([]) == 70
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "this is a bug" in err and "please report it" in err
    crash = list((tmp_path / "ringside" / "crashes").iterdir())
    assert len(crash) == 1 and str(crash[0]) in err
    assert "KeyError: 'no such key'" in crash[0].read_text() and "Traceback" in crash[0].read_text()
    assert "Traceback" not in err


def test_bug_line_says_so_even_when_the_traceback_cannot_be_saved(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker))      # a file where a folder should be
    line = bug_line(KeyError("x"))
    assert "this is a bug" in line and "could not be saved" in line
