"""Squaring Circleville solo mode: the shared framework (set-up, sequence of play, difficulty),
the command line and the bench. A test per rule sentence, mapped in docs/rules/circleville-solo.md.

Scenarios deal a solo game, hand the turn to a solo seat and set the few pieces of state the
sentence needs. Bertha (seat 1) is the vehicle for the shared machinery; quadrants 1-4 hold
sections 1-5, 6-10, 11-15, 16-20 and run clockwise 1, 2, 3, 4; section 10 starts complete.
"""
import json

import pytest

import ringside.games as G
from ringside.games import CHANCE, GameError, IllegalAction
from ringside.games.circleville.solo import bench as solo_bench
from ringside.games.circleville.solo import framework as F
from ringside.games.circleville.solo.framework import HIGHEST, LOWEST, do_action, new_game

S1 = 1


def turn(g, seat=S1, space=None):
    S = g.state
    S["active"], S["phase"] = seat, "rondel"
    S["ts"] = g._new_turn(seat)
    if space is not None:
        S["players"][seat]["assistant"] = space


def sec(g, n):
    return g.state["sections"][n - 1]


def fill_roads(g, sections, road="red", seat=0):
    for n in sections:
        s = sec(g, n)
        if not s["done"]:
            s[road] += [seat] * (g.board["sections"][n][road] - len(s[road]))


def vp(ev, seat=S1):
    return sum(e.get("vp", 0) for e in ev if e["type"] == "score" and e.get("seat") == seat)


def text(ev):
    return " | ".join(e["text"] for e in ev)


# ================================================================== set-up
def test_setup_choose_one_to_three_solo_players_names_case_insensitive():
    for solo in (["Bertha"], ["bertha", "CARSTEN"], ["bertha", "carsten", "denzel"]):
        if not set(x.lower() for x in solo) <= set(F.known()):
            continue
        g = new_game(solo)
        assert sorted(g.solo_players) == list(range(1, len(solo) + 1))
        assert [g.solo_players[s].name for s in sorted(g.solo_players)] == [x.lower() for x in solo]
    with pytest.raises(GameError, match="1 to 3 solo players, not 4"):
        G.new("circleville", ["A", "B", "C", "D"], seed=1, options={"solo": ["bertha", "carsten"] * 2})
    with pytest.raises(GameError, match="no solo player called 'bob'"):
        G.new("circleville", ["A", "B"], seed=1, options={"solo": ["Bob"]})
    with pytest.raises(GameError, match="give 2 player names"):
        G.new("circleville", ["A", "B", "C"], seed=1, options={"solo": ["bertha"]})
    with pytest.raises(GameError, match="list of 1 to 3"):
        G.new("circleville", ["A", "B"], seed=1, options={"solo": []})


def test_setup_each_solo_player_gets_mat_cubes_disc_and_markers():
    g = new_game(["bertha", "carsten"])
    for seat in (1, 2):
        p = g.state["players"][seat]
        assert p["supply"] == 50 and p["score"] == 0 and p["markers"] == [0, 0, 0, 0]
        assert g.state["solo"][seat]["space"] in range(4)
    v = g.view(None)["solo"]
    assert v["Bertha"]["solo_player"] == "Bertha" and v["Carsten"]["supervisor_space"] in range(1, 5)
    json.dumps(g.view(None))


@pytest.mark.parametrize("solo", [["bertha"], ["bertha", "carsten"], ["carsten", "bertha", "x"]])
def test_setup_equipment_22_removed_and_six_revealed_whatever_the_count(solo):
    solo = [s for s in solo if s in F.known()]
    for seed in range(1, 9):
        g = new_game(solo, seed=seed)
        assert len(g.state["equipment"]) == 6 and 22 not in g.state["equipment"]
    g = G.new("circleville", ["You"] + [F.PLAYERS[s].title for s in solo], seed=1, options={"solo": solo})
    assert 22 not in g.state["deal"]["equipment"] and g.state["deal"]["reveal"] == 6


def test_setup_own_setup_draw_is_a_chance_action_recorded_and_replayed():
    g = new_game(["bertha", "carsten"], seed=5)
    draws = [a for s, a in g.log if s == CHANCE and a["type"] == "solo_draw"]
    assert [a["seat"] for a in draws] == [1, 2]
    h = G.load(g.to_json())
    assert h.state == g.state
    # the table may enter the tile it drew itself
    g2 = G.new("circleville", ["You", "Bertha"], seed=5, options={"solo": ["bertha"]})
    while g2.to_act() == [CHANCE] and g2.legal_actions(CHANCE)[0]["type"] != "solo_draw":
        g2.apply(CHANCE, g2.chance_action())
    assert g2.describe(g2.legal_actions(CHANCE)[2]) == "Bertha's set-up draw from the bag: an orange tile"
    g2.apply(CHANCE, {"type": "solo_draw", "seat": 1, "colour": "orange"})
    assert g2.state["solo"][1]["space"] == 2 and g2.to_act() == [0]


def test_setup_human_always_goes_first():
    for seed in range(1, 8):
        g = new_game(["carsten"], seed=seed)
        assert g.state["first"] == 0 and g.to_act() == [0] and g.state["phase"] == "rondel"
        assert not any(a["type"] == "first_player" for s, a in g.log)


def test_difficulty_is_the_solo_start_on_every_quadrant_track():
    g = new_game(["bertha", "carsten"], difficulty=4)
    assert g.state["players"][0]["markers"] == [0, 0, 0, 0]
    assert g.state["players"][1]["markers"] == [4, 4, 4, 4] == g.state["players"][2]["markers"]
    assert new_game(["bertha"], difficulty=11).state["players"][1]["markers"] == [11] * 4
    assert new_game(["bertha"]).state["players"][1]["markers"] == [0] * 4
    for bad in (-1, "4", 2.5, True):
        with pytest.raises(GameError, match="difficulty"):
            G.new("circleville", ["A", "Bertha"], seed=1, options={"solo": ["bertha"], "difficulty": bad})
    with pytest.raises(GameError, match="needs solo players"):
        G.new("circleville", ["A", "B"], seed=1, options={"difficulty": 4})


# ================================================================== sequence of play
def test_solo_players_act_only_in_steps_1_2_4_never_a_bonus_action():
    g = new_game(["bertha"])
    g.state["players"][1]["mat"] = {c: ["tile"] for c in ("red", "blue", "orange", "green")}  # would allow step 3
    turn(g)
    steps = []
    while g.to_act() == [1]:
        acts = g.legal_actions(1)
        assert len(acts) == 1
        steps.append(acts[0]["step"])
        g.apply(1, acts[0])
    assert steps == [1, 2, 4]
    turn(g)
    for bad in ({"type": "rondel", "space": 1}, {"type": "bonus_action"}, {"type": "solo", "step": 2}):
        with pytest.raises(IllegalAction, match="plays by its printed rules"):
            g.apply(1, bad)


def test_an_action_impossible_in_its_quadrant_is_tried_in_the_others_clockwise():
    g = new_game(["bertha"])
    turn(g)
    fill_roads(g, range(16, 21))                  # quadrant 4 has no red square left
    out = do_action(g, 1, "red", 3, 4, HIGHEST, 3)
    assert out["quadrant"] == 1 and out["section"] == 5       # clockwise after 4 comes 1
    fill_roads(g, range(1, 6))
    out = do_action(g, 1, "red", 3, 4, HIGHEST, 3)
    assert out["quadrant"] == 2 and out["section"] == 9       # then 2 (10 is complete)
    assert "cannot be done in quadrants 4, 1, so going clockwise it is done in quadrant 2" in text(out["events"])
    g2 = new_game(["bertha"])
    turn(g2)
    fill_roads(g2, range(6, 21))
    assert do_action(g2, 1, "red", 1, 2, LOWEST, 3)["quadrant"] == 1          # 2, 3, 4, then 1


def test_impossible_everywhere_scores_the_players_own_vp():
    g = new_game(["bertha"])
    turn(g)
    g.state["queue"] = ["natural"] * 12           # a full queue: nobody can raze
    out = do_action(g, 1, "orange", 3, 2, HIGHEST, 7)
    assert out["impossible"] and out["vp"] == 7 and vp(out["events"]) == 7
    assert "the structures queue is full" in text(out["events"])


def test_running_out_of_cubes_places_what_it_can_then_scores_the_failed_vp():
    g = new_game(["bertha"])
    turn(g)
    p = g.state["players"][1]
    p["supply"] = 1
    out = do_action(g, 1, "red", 3, 1, HIGHEST, 3)         # wants 2 cubes in section 5, has 1
    assert sec(g, 5)["red"] == [1] and out["ran_out"] and vp(out["events"]) == 3
    p["supply"] = 1
    out = do_action(g, 1, "orange", 3, 4, HIGHEST, 3)      # wants to raze 2 in section 19, has 1 cube
    assert out["placed"] == 1 and out["ran_out"] and out["vp"] == 3
    assert sum(1 for i in sec(g, 19)["icons"] if i["cubes"]) == 1
    out = do_action(g, 1, "blue", 3, 1, HIGHEST, 3)         # no cube at all: nothing placed, the VP once
    assert out["placed"] == 0 and out["vp"] == 3 and vp(out["events"]) == 3
    p["supply"] = 4                                          # exactly enough: no VP
    out = do_action(g, 1, "blue", 3, 1, HIGHEST, 3)
    assert out["placed"] == 4 and not out["ran_out"] and out["vp"] == 0 and p["supply"] == 0


def test_final_turn_action_is_always_three_vp():
    g = new_game(["bertha", "carsten"])
    S = g.state
    S["final"], S["phase"], S["active"] = True, "actions", 1
    S["ts"] = g._new_turn(1, final=True)
    assert g.legal_actions(1) == [{"type": "solo", "step": "final"}]
    before = [p["score"] for p in S["players"]]
    ev = g.apply(1, {"type": "solo", "step": "final"})
    assert vp(ev) == 3 and S["players"][1]["score"] == before[1] + 3
    assert g.to_act() == [2]
    ev = g.apply(2, g.legal_actions(2)[0])
    assert vp(ev, 2) == 3 and g.over


def test_structure_priority_from_the_mat_decides_which_structure():
    g = new_game(["bertha"])
    turn(g)
    s = sec(g, 12)
    s["done"], s["icons"] = True, []
    s["plots"][0] = {"kind": "golden", "cubes": [0, None], "new": False}
    s["plots"][1] = {"kind": "natural", "cubes": [0, None], "new": False}
    do_action(g, 1, "improve", 1, 3, HIGHEST, 1)
    assert s["plots"][1]["cubes"][1] == 1 and s["plots"][0]["cubes"][1] is None   # natural before golden
    g.solo_players[1].priority = ["golden", "silver", "brown", "natural"]
    s["plots"][1]["cubes"][1] = None
    do_action(g, 1, "improve", 1, 3, HIGHEST, 1)
    assert s["plots"][0]["cubes"][1] == 1


def test_solo_players_never_use_year_bonus_achievement_or_equipment():
    g = new_game(["carsten"])
    turn(g)
    p = g.state["players"][1]
    p["tiles"] = [{"kind": "equipment", "id": 3}, {"kind": "equipment", "id": 13}, {"kind": "equipment", "id": 9}]
    assert g._equipment_of(1) == [] and not g._has(1, "extra_move") and g.level(1, "red") == 1
    # a completed section leaves it no year bonus tile and no achievement tile
    fill_roads(g, [16], "blue", seat=1)
    sec(g, 16)["red"] = [1]
    for i in sec(g, 16)["icons"]:
        i["cubes"] = [1]
    out = do_action(g, 1, "red", 1, 4, LOWEST, 1)
    assert sec(g, 16)["done"] and p["bonus"] == [] and all(t["kind"] == "equipment" for t in p["tiles"])
    assert "returns the" in text(out["events"])


def test_completing_a_section_as_active_player_both_tiles_to_the_box_own_vp():
    g = new_game(["bertha"])
    turn(g)
    S = g.state
    y = S["years"][1]                            # 1838: a year bonus tile, no achievement beside it
    assert y["achievement"] is None
    fill_roads(g, [20], "blue", seat=1)
    sec(g, 20)["red"] = [1, 1]
    out = do_action(g, 1, "red", 3, 4, HIGHEST, 3)
    assert y["bonus"] is None and S["discarded_bonus"] == 1
    assert [e["vp"] for e in out["events"] if e["type"] == "score"] == [6, 1]   # first place; the year bonus tile
    # the person completing a section keeps the multiplayer rules: the tile is theirs
    g2 = new_game(["bertha"])
    S2 = g2.state
    fill_roads(g2, [20], "blue", seat=1)
    sec(g2, 20)["red"] = [1, 1, 0]
    S2["players"][0]["supervisor"] = 20
    S2["stacks"][1] = ["blue", "blue", "blue", "red"]
    g2.apply(0, {"type": "rondel", "space": 1})
    g2.apply(0, {"type": "act", "colour": "red", "action": "red"})
    assert sec(g2, 20)["done"] and len(S2["players"][0]["bonus"]) == 1
    # Bertha (4 cubes) first: 6; the person (3 cubes) second: with one solo player the game has two
    # players, so the highlighted second place (4) is skipped and the person scores the next, 2
    assert S2["players"][1]["score"] == 6 and S2["players"][0]["score"] == 2


def test_final_scoring_quadrant_ranks_only_no_supervisor_bonus():
    g = new_game(["bertha", "carsten"])
    S = g.state
    S["players"][0]["markers"] = [5, 0, 0, 0]
    S["players"][0]["supervisor"] = 10
    S["players"][1]["markers"] = [6, 3, 0, 0]
    S["players"][1]["supervisor"] = 10
    S["players"][1]["tiles"] = [{"kind": "achievement", "id": 23}]   # cannot happen; would not score
    S["players"][2]["markers"] = [0, 2, 0, 1]
    S["players"][2]["bonus"] = ["raze"]
    for p in S["players"]:
        p["score"] = 0
    g._final_scoring()
    assert S["players"][0]["markers"][1] == 1                        # the person's supervisor bonus
    assert S["players"][1]["markers"] == [6, 3, 0, 0] and S["players"][2]["markers"] == [0, 2, 0, 1]
    # quadrant 1: Bertha 12, person 8; quadrant 2: Bertha 12, Carsten 8, person 5; quadrant 4: Carsten 12
    assert [p["score"] for p in S["players"]] == [8 + 5, 12 + 12, 8 + 12]
    assert g.over and g.result["winners"] == ["Bertha"]


# ================================================================== whole games, replay, data
def test_whole_games_with_one_two_three_solo_players_end_and_replay():
    names = F.known()
    lineups = [[names[0]], names[:2], names[-3:] if len(names) >= 3 else names]
    for i, solo in enumerate(lineups):
        g = solo_bench.play_game(solo, seed=100 + i, difficulty=4 if i == 1 else 0)
        assert g.over and all(s["done"] for s in g.state["sections"])
        h = G.load(g.to_json())
        assert h.state == g.state and h.result == g.result


def test_solo_mats_are_data_validated_with_clear_errors_and_replaceable(tmp_path):
    base = json.loads((F.DATA_DIR / "bertha.json").read_text())
    cases = [({"priority": ["golden", "golden", "brown", "natural"]}, "priority"),
             ({"track": base["track"][:3]}, "must list 4 spaces"),
             ({"track": [dict(t, colour="red") for t in base["track"]]}, "each colour once"),
             ({"track": [dict(base["track"][0], quadrant=5)] + base["track"][1:]}, "quadrant"),
             ({"action_level": 9}, "action_level"),
             ({"name": "carsten"}, "mat of 'carsten'"),
             ({"completion_vp": {"year_bonus": 1}}, "achievement")]
    for change, msg in cases:
        bad = dict(base, **change)
        with pytest.raises(GameError, match=msg):
            G.new("circleville", ["A", "Bertha"], seed=1, options={"solo": ["bertha"], "solo_mats": {"bertha": bad}})
    p = tmp_path / "b.json"
    p.write_text("{not json")
    with pytest.raises(GameError, match="not valid JSON"):
        G.new("circleville", ["A", "Bertha"], seed=1, options={"solo": ["bertha"], "solo_mats": {"bertha": str(p)}})
    # a user's own mat plays: Bertha at level 2 places 3 red cubes
    p.write_text(json.dumps(dict(base, action_level=2)))
    g = new_game(["bertha"], solo_mats={"bertha": str(p)})
    turn(g)
    out = do_action(g, 1, "red", g.solo_players[1].mat["level"], 4, HIGHEST, 3)
    assert out["placed"] == 3


# ================================================================== command line and bench
def test_cli_play_solo_refuses_unknown_names_and_more_than_three(capsys):
    from ringside.app import cli
    assert cli.main(["play", "circleville", "--solo", "Bertha,Bob", "--typed"]) == 2
    err = capsys.readouterr().err
    assert "no solo player called 'bob'" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert cli.main(["play", "circleville", "--solo", "bertha,carsten,bertha,carsten", "--typed"]) == 2
    assert "1 to 3 solo players, not 4" in capsys.readouterr().err
    assert cli.main(["play", "darts", "--solo", "bertha", "--typed"]) == 2
    assert "no solo mode" in capsys.readouterr().err
    assert cli.main(["play", "circleville", "--players", "A,B", "--difficulty", "4", "--typed"]) == 2
    assert "--difficulty is for solo games" in capsys.readouterr().err


def test_cli_play_solo_person_prompted_solo_players_play_themselves(tmp_path, monkeypatch):
    from ringside.app import cli
    answers = iter(["r"] * 120 + ["1"] * 6)

    def fake_input(prompt=""):
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None
    monkeypatch.setattr("builtins.input", fake_input)
    lines = []
    monkeypatch.setattr("builtins.print", lambda *a, **k: lines.append(" ".join(str(x) for x in a)))
    save = tmp_path / "s.json"
    assert cli.main(["play", "circleville", "--solo", "BERTHA,carsten", "--difficulty", "4", "--typed",
                     "--seed", "3", "--save", str(save)]) == 0
    out = "\n".join(lines)
    assert "You, choose:" in out and "In a solo game the person always goes first." in out
    d = json.loads(save.read_text())
    assert d["seats"] == {"0": "human", "1": "solo", "2": "solo"}
    assert d["game"]["players"] == ["You", "Bertha", "Carsten"]
    assert d["game"]["options"]["solo"] == ["bertha", "carsten"] and d["game"]["options"]["difficulty"] == 4
    # the solo seats play themselves and their turn is told in words
    from ringside.app.cmd_play import Session
    from ringside.table import Table
    g = new_game(["bertha", "carsten"], seed=3, difficulty=4)
    said = []
    seats = {0: "human", 1: "solo", 2: "solo"}
    t = Table(g, None, seats=seats)
    s = Session(t, seats, mode="sim", inp=lambda p="": "quit", out=said.append)
    t.log = s.say
    t.apply(0, g.legal_actions(0)[0])               # the person's turn, short
    t.apply(0, {"type": "end_turn"})
    while not g.over and g.to_act()[0] != 0:
        s.step()                                    # the solo seats (and chance) need no input
    told = "\n".join(said)
    assert "Bertha acts in quadrant" in told and "Carsten acts in quadrant" in told


def test_bench_reports_every_solo_player_and_the_trios(monkeypatch):
    res = solo_bench.run(games=2, seed=3)
    assert set(res) == {"bertha", "carsten", "denzel", "katherine", "trios"}
    for name, r in res.items():
        assert {"games", "errors", "completed_town", "avg_score", "human_win_rate"} <= set(r)
        assert r["games"] == 2
        if name in F.known() or (name == "trios" and set(F.known()) >= set(solo_bench.NAMES)):
            assert r["errors"] == 0 and r["completed_town"] == 2 and r["avg_score"] > 0
            assert 0 <= r["human_win_rate"] <= 1
    # a solo player missing from the registry is an error entry, not a crash
    monkeypatch.setattr(F, "known", lambda: ["bertha"])
    res = solo_bench.run(games=1, seed=3)
    assert res["carsten"]["errors"] == 1 and "carsten" in res["carsten"]["error"]
    assert res["bertha"]["errors"] == 0


def test_cli_bench_solo_json(capsys):
    from ringside.app import cli
    assert cli.main(["bench", "solo", "--games", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d) == {"bertha", "carsten", "denzel", "katherine", "trios"}


def test_random_person_against_every_solo_player_keeps_the_components_whole():
    """A random person's play with every solo player: 33 structures, 64 action tiles (solo mats
    included), 50 cubes per seat; a solo seat always has exactly one action; saves replay."""
    import random
    names = F.known()
    for k, solo in enumerate([[n] for n in names] + [names[:3]]):
        g = new_game(solo, seed=40 + k, difficulty=k % 5)
        rng = random.Random(k)
        for i in range(700):
            if g.over:
                break
            seat = g.to_act()[0]
            if seat in g.solo_players:
                assert len(g.legal_actions(seat)) == 1
            g.apply(seat, g.chance_action() if seat == CHANCE else rng.choice(g.legal_actions(seat)))
            if i % 50 == 0 or g.over:
                S = g.state
                standing = sum(1 for s in S["sections"] for x in s["icons"] if not x["cubes"])
                built = sum(1 for s in S["sections"] for p in s["plots"] if p["kind"])
                assert standing + len(S["queue"]) + built == 33 and len(S["queue"]) <= 12
                tiles = sum(S["bag"].values()) + sum(1 for st in S["stacks"] for x in st if x is not None)
                tiles += sum(1 for x in S["upcoming"] if x is not None) + sum(S["box"].values())
                tiles += sum(col.count("tile") for col in S["players"][0]["mat"].values())
                tiles += sum(pl.mat_tiles(g, s) for s, pl in g.solo_players.items())
                assert tiles == 64, (solo, i)
                for seat2, p in enumerate(S["players"]):
                    assert p["supply"] >= 0 and p["supply"] + g.cubes_on_board(seat2) == 50
        assert G.load(g.to_json()).state == g.state


def test_cli_play_solo_without_a_board_plays_on_the_screen(tmp_path, monkeypatch):
    """The issue's command as given: no board plugged in, no --typed: the computer deals."""
    from ringside.app import cli
    from ringside.link import LinkError

    def no_pico(self):
        raise LinkError("no Raspberry Pi Pico found")
    monkeypatch.setattr("ringside.link.Link.open", no_pico)
    answers = iter(["1"] * 4)

    def fake_input(prompt=""):
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None
    monkeypatch.setattr("builtins.input", fake_input)
    lines = []
    monkeypatch.setattr("builtins.print", lambda *a, **k: lines.append(" ".join(str(x) for x in a)))
    save = tmp_path / "s.json"
    assert cli.main(["play", "circleville", "--solo", "Bertha,Denzel", "--difficulty", "4",
                     "--seed", "5", "--save", str(save)]) == 0
    out = "\n".join(lines)
    assert "no board found: playing on the screen" in out
    assert "What did it give?" not in out          # chance is drawn, not asked
    assert "Denzel's set-up" in out and "You, choose:" in out
    assert json.loads(save.read_text())["meta"]["board"] == "screen"


def test_render_shows_a_solo_players_mat_not_a_persons_levels():
    from ringside.games.circleville.render import render
    g = new_game(["bertha", "denzel"], seed=3)
    text = render(g)
    denzel = [ln for ln in text.splitlines() if ln.strip().startswith("Denzel")][0]
    assert "columns red 0/3" in denzel and "levels" not in denzel and "sup " not in denzel
    you = [ln for ln in text.splitlines() if ln.lstrip("> ").startswith("You ")][0]
    assert "levels R1" in you
