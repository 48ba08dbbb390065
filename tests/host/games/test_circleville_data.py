"""Squaring Circleville components as data: the default files and the validation of a user's own."""
import copy
import json

import pytest

from ringside.games.circleville import data as D

BOARD = json.loads((D.DATA_DIR / "board.json").read_text())
TILES = json.loads((D.DATA_DIR / "tiles.json").read_text())


def test_default_board_and_tiles_load():
    b, t = D.load()
    assert sorted(b["sections"]) == list(range(1, 21))
    assert [len([s for s in b["sections"].values() if s["quadrant"] == q]) for q in range(1, 5)] == [5, 5, 5, 5]
    assert b["starting_sections"] == [1, 10, 15, 20] and b["first_game_start"] == 10
    assert len(t["equipment"]) == 22 and len(t["achievements"]) == 23 and sum(t["year_bonus"].values()) == 19


def test_33_structures_31_on_board_2_natural_in_queue():
    b, _ = D.load()
    on_board = [x for s in b["sections"].values() for x in s["structures"]]
    assert len(on_board) == 31 and b["queue_start"] == ["natural", "natural"]
    allx = on_board + b["queue_start"]
    assert {k: allx.count(k) for k in D.STRUCTURES} == {"golden": 5, "silver": 6, "brown": 7, "natural": 15}


def test_adjacency_symmetric_and_corner_contacts_not_adjacent():
    b, _ = D.load()
    for n, s in b["sections"].items():
        for m in s["adjacent"]:
            assert n in b["sections"][m]["adjacent"]
    # inner section 1 touches middle section 8 (quadrant 2) only at an intersection
    assert 8 not in b["sections"][1]["adjacent"] and 1 not in b["sections"][15]["adjacent"]


def test_rondel_year_track_rows_levels():
    b, t = D.load()
    assert len(b["rondel"]) == 8 and b["rondel"][b["rondel_start"]] == "green"
    assert b["queue_slots"] == 12 and b["first_year"] == 1837
    assert 1837 not in b["achievement_years"] and 1856 not in b["achievement_years"]
    assert set(b["achievement_rows"]) == {"red", "blue", "orange", "green", "multi"}
    assert all(len(v) == 5 for v in b["levels"].values())
    assert t["equipment"][22]["effect"] == "only_player_doubles"
    assert t["year_bonus"]["three_vp"] == 1 and set(t["year_bonus"]) == set(D.YEAR_BONUS_KINDS)
    assert {a["colour"] for a in t["achievements"].values()} == {"red", "blue", "orange", "green", "multi"}


def bad_board(mutate):
    b = copy.deepcopy(BOARD)
    mutate(b)
    with pytest.raises(D.DataError) as e:
        D.validate_board(b, "my.json")
    return str(e.value)


def test_user_board_errors_are_clear():
    assert "not symmetric" in bad_board(lambda b: b["sections"][0]["adjacent"].remove(2))
    assert "20 sections" in bad_board(lambda b: b["sections"].pop())
    assert "5 golden" in bad_board(lambda b: b["sections"][1]["structures"].append("golden"))
    assert "itself" in bad_board(lambda b: b["sections"][0]["adjacent"].append(1))
    assert "8 colours" in bad_board(lambda b: b["rondel"]["spaces"].pop())
    assert "quadrant 1" in bad_board(lambda b: b["sections"][0].__setitem__("quadrant", 2))
    assert bad_board(lambda b: b.pop("levels")).startswith("my.json: the field 'levels' is missing")

    def dense(b):  # every section adjacent to every other: not a flat map
        for s in b["sections"]:
            s["adjacent"] = [m for m in range(1, 21) if m != s["number"]][:8]
    assert "not symmetric" in bad_board(dense) or "flat map" in bad_board(dense)


def test_user_tiles_errors_are_clear(tmp_path):
    t = copy.deepcopy(TILES)
    t["equipment"].pop()
    with pytest.raises(D.DataError, match="22 equipment"):
        D.validate_tiles(t)
    t = copy.deepcopy(TILES)
    t["year_bonus"]["raze"] += 1
    with pytest.raises(D.DataError, match="19 year bonus"):
        D.validate_tiles(t)
    p = tmp_path / "t.json"
    p.write_text("{nope")
    with pytest.raises(D.DataError, match="not valid JSON"):
        D.load(tiles=str(p))
    with pytest.raises(D.DataError, match="cannot read"):
        D.load(board=str(tmp_path / "missing.json"))


def test_a_users_board_file_is_played_and_a_bad_one_refused(tmp_path):
    import ringside.games as G
    b = copy.deepcopy(BOARD)
    b["sections"][1]["score"] = [9, 6, 3, 1]          # section 2 scores more
    p = tmp_path / "board.json"
    p.write_text(json.dumps(b))
    g = G.new("circleville", ["A", "B"], seed=1, options={"board": str(p)})
    assert g.board["sections"][2]["score"] == [9, 6, 3, 1]
    b["sections"][1]["structures"] = []
    p.write_text(json.dumps(b))
    with pytest.raises(G.GameError, match="board.json: .*structures"):
        G.new("circleville", ["A", "B"], seed=1, options={"board": str(p)})
