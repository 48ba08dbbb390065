"""The Doubles board layout file: this version's reading, validation with clear errors, and a
user's own file in play (and in saves)."""
import json

import pytest

import ringside.games as games
from ringside.errors import user_message
from ringside.games import CHANCE, GameError
from ringside.games.doubles import read_layout, validate_layout
from ringside.games.doubles.board import DEFAULT_FILE, LL, LR, UL, UR, BoardError, Geometry


def default():
    return json.loads(DEFAULT_FILE.read_text())


def test_this_versions_board():
    b = read_layout(DEFAULT_FILE)
    assert b["columns"] == list("abcdef")
    assert [(r["name"], r["colour"]) for r in b["rows"]] == [
        ("1", "green"), ("2", "red"), ("3", "red"), ("4", "green"), ("5", "blue")]
    assert b["yellow"] == ["e1", "b2", "e3", "b4", "d5"]
    assert b["hand"] == {"1": 2, "2": 2, "3": 2, "4": 2}


def test_geometry_corner_tables_agree():
    for n in (2, 3, 4):
        geo = Geometry(read_layout(DEFAULT_FILE), n)
        for k, four in enumerate(geo.corners):
            assert [f for _, f in four] == [LR, LL, UR, UL]   # upper-left square faces its lower-right ...
            for q, f in four:
                assert geo.corner_of[q][f] == k
        faced = sum(1 for co in geo.corner_of for k in co if k >= 0)
        assert faced == 4 * len(geo.corners)
        assert sum(geo.yellow) == {2: 2, 3: 4, 4: 5}[n]
    geo = Geometry(read_layout(DEFAULT_FILE), 2)
    assert geo.corner_label[0] == "a2, b2, a3, b3" and geo.corner_of[geo.index["a2"]][UL] == -1


def test_yellow_squares_never_share_a_corner():
    for n in (2, 3, 4):
        geo = Geometry(read_layout(DEFAULT_FILE), n)
        yellow_round = [sum(geo.yellow[q] for q, _ in four) for four in geo.corners]
        assert max(yellow_round) == 1
    geo = Geometry(read_layout(DEFAULT_FILE), 2)
    assert [sum(geo.yellow[q] for q, _ in four) for four in geo.corners] == [1, 1, 0, 1, 1]


@pytest.mark.parametrize("change,message", [
    (lambda d: d.update(rows=[{"name": "1", "colour": "pink"}] + d["rows"][1:]), "rows\\[0\\].colour must be red, green or blue, not 'pink'"),
    (lambda d: d.update(yellow=["b2", "z9"]), "yellow square 'z9' is not on the board"),
    (lambda d: d.update(hand={"1": 2, "2": 2, "3": 2, "4": 3}), "a player has 8 pieces, not 9"),
    (lambda d: d.update(hand={"1": 2, "2": 2, "3": 4}), "hand must give the number of pieces of each pattern"),
    (lambda d: d.update(hand={"1": 2, "2": 2, "3": 2.0, "4": 2}), "must be a whole number"),
    (lambda d: d.update(columns=["a", "a", "b"]), "two columns have the same name"),
    (lambda d: d.update(columns=["a"]), "at least 2"),
    (lambda d: d.update(rows=[{"name": "1", "colour": "red"}, {"name": "1", "colour": "red"}]), "two rows have the same name"),
    (lambda d: d.update(rows=[{"name": "x", "colour": "red"}, {"name": "2", "colour": "red"}]), "must be a number"),
    (lambda d: d.pop("yellow"), "the field 'yellow' is missing"),
    (lambda d: d.update(colour="red"), "unknown field 'colour'"),
    (lambda d: d.update(format=2), "format 2 is not supported"),
    (lambda d: d.update(rows=[{"name": "1", "colour": "green"}, {"name": "2", "colour": "red"},
                              {"name": "3", "colour": "green"}], yellow=[]),
     "with 2 players \\(rows red\\) no corner is shared by four squares in play"),
])
def test_a_bad_layout_is_refused_with_the_field_named(tmp_path, change, message):
    d = default()
    change(d)
    f = tmp_path / "mine.json"
    f.write_text(json.dumps(d))
    with pytest.raises(BoardError, match=message) as e:
        read_layout(f)
    assert str(e.value).startswith(str(f))
    assert user_message(e.value) == str(e.value)     # the CLI prints it as one line


def test_unreadable_files_are_refused_with_a_reason(tmp_path):
    with pytest.raises(BoardError, match="cannot read the board file"):
        read_layout(tmp_path / "missing.json")
    f = tmp_path / "broken.json"
    f.write_text("{\"columns\": [")
    with pytest.raises(BoardError, match="is not valid JSON"):
        read_layout(f)
    with pytest.raises(BoardError, match="a board layout is a JSON object"):
        validate_layout([1, 2])


def small_board():
    return {"columns": ["p", "q", "r"],
            "rows": [{"name": "1", "colour": "red"}, {"name": "2", "colour": "red"},
                     {"name": "3", "colour": "green"}],
            "yellow": ["q1"], "hand": {"1": 5, "2": 1, "3": 1, "4": 1}}


def test_a_users_board_file_is_played_and_saved_with_the_game(tmp_path):
    f = tmp_path / "small.json"
    f.write_text(json.dumps(small_board()))
    g = games.new("doubles", ["Ann", "Bob"], seed=3, options={"board": str(f)})
    assert g.options["board"]["columns"] == ["p", "q", "r"]        # the save carries the layout
    assert g.state["hands"] == [[5, 1, 1, 1], [5, 1, 1, 1]]
    assert len(g.geo.squares) == 6 and len(g.geo.corners) == 2
    g.apply(CHANCE, {"type": "toss", "first": 0})
    g.apply(CHANCE, {"type": "roll", "value": 4})
    g.apply(0, {"type": "add", "square": "p1", "pattern": 1})
    g.apply(CHANCE, {"type": "roll", "value": 1})
    with pytest.raises(GameError, match="p3 is on the green row 3, which is not in play with 2 players"):
        g.apply(1, {"type": "add", "square": "p3", "pattern": 1})
    text = g.to_json()
    f.unlink()
    h = games.load(text)
    assert h.state == g.state and h.geo.squares == g.geo.squares
    # 3 players need the green row: here it makes the corners of rows 2-3
    g3 = games.new("doubles", ["A", "B", "C"], seed=1, options={"board": small_board()})
    assert len(g3.geo.corners) == 4
    with pytest.raises(GameError, match="no blue row, which 4 players need"):
        games.new("doubles", ["A", "B", "C", "D"], seed=1, options={"board": small_board()})


def test_a_bad_board_option_is_refused_at_the_start(tmp_path):
    with pytest.raises(GameError, match="cannot read the board file"):
        games.new("doubles", ["A", "B"], options={"board": str(tmp_path / "nope.json")})
    bad = small_board()
    bad["yellow"] = ["a9"]
    with pytest.raises(GameError, match="yellow square 'a9'"):
        games.new("doubles", ["A", "B"], options={"board": bad})

