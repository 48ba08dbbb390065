"""Squaring Circleville solo mode: Denzel and Katherine, a test for every sentence of their
sections (mapped in docs/rules/circleville-solo.md).

Each test deals a solo game, hands the turn to the solo seat, sets the few pieces of state the
sentence needs (stacks, sections, queue, the solo mat) and plays the solo player's steps through
apply(). Rondel spaces 0-7: green, red, blue, orange, green, red, blue, orange. Quadrant 1 =
sections 1-5, 2 = 6-10, 3 = 11-15, 4 = 16-20; section 10 is complete at the start. A rondel
colour's quadrant: red 1, blue 2, orange 3, green 4. Katherine's mat (data/katherine.json):
grid rows blue red / green orange / red blue / orange green; track spaces 1-4 beside rows 1-4
(on their left, quadrants 1, 2, 3, 4; space 1 bears the supervisor symbol), spaces 5-6 below
columns 1-2 (quadrants 2 and 4).
"""
import json

import pytest

import ringside.games as G
from ringside.games import CHANCE, GameError
from ringside.games.circleville.bots import HeuristicBot
from ringside.games.circleville.solo.framework import SoloDataError
from solotest import SEAT as D  # the solo seat in these tests
from solotest import game as _game
from solotest import mat, sec, step, text, to_step, turn, vp, vps

COLOURS = ("red", "blue", "orange", "green")


# ------------------------------------------------------------------ helpers
def game(solo="denzel", seed=1, **kw):
    return _game(solo, seed, **kw)


def P(g, seat=D):
    return g.state["players"][seat]


def stacks(g, **tops):
    """Every stack of four, tops given as s<k>=colour (None: no stack); unnamed tops are `rest`."""
    rest = tops.pop("rest", "green")
    for k in range(8):
        g.state["stacks"][k] = ["red", "red", "red", rest]
    for k, c in tops.items():
        g.state["stacks"][int(k[1:])] = ["red", "red", "red", c] if c else []


def fill_roads(g, sections, road, seat=0):
    """Fill the road squares of sections with `seat`'s cubes (taken from its supply)."""
    for n in sections:
        s = sec(g, n)
        if not s["done"]:
            k = g.board["sections"][n][road] - len(s[road])
            s[road] += [seat] * k
            P(g, seat)["supply"] -= k


def raze_all(g, sections, seat=0):
    for n in sections:
        for i in sec(g, n)["icons"]:
            if not i["cubes"]:
                i["cubes"].append(seat)
                P(g, seat)["supply"] -= 1


def complete(g, n):
    s = sec(g, n)
    s["done"], s["icons"], s["red"], s["blue"] = True, [], [], []


def next_year_with_achievement(g):
    """Make the next year bonus tile one with an achievement tile beside it (1839)."""
    S = g.state
    S["years"][1]["bonus"] = None
    y = S["years"][2]
    assert y["achievement"] is not None
    return y


def cubes_total(g, seat):
    return P(g, seat)["supply"] + g.cubes_on_board(seat)


# ================================================================== Denzel: set-up, step 1
def test_denzel_setup_assistant_on_the_persons_start_supervisor_beside_his_mat():
    g = game()
    assert P(g)["assistant"] == P(g, 0)["assistant"] == g.board["rondel_start"]
    assert mat(g)["supervisor"] is None and mat(g)["columns"] == {c: 0 for c in COLOURS}
    assert g.view(None)["solo"]["Denzel"]["supervisor"] == "beside his mat"
    assert not any(a.get("type") == "solo_draw" for s, a in g.log)   # no set-up draw for Denzel
    assert g.to_act() == [0]                                         # the person goes first


def test_denzel_step1_next_space_showing_the_colour_he_has_fewest_of():
    g = game()
    mat(g)["columns"] = {"red": 1, "blue": 0, "orange": 2, "green": 1}
    stacks(g, s2="red", s3="green", s5="blue", s6="blue")
    turn(g, D, 0)
    ev = step(g)
    assert P(g)["assistant"] == 5
    assert "blue is the colour he has fewest tiles of on his mat (0)" in text(ev)


def test_denzel_step1_ties_go_to_the_first_tied_colour_reached_clockwise():
    g = game()
    mat(g)["columns"] = {"red": 0, "blue": 1, "orange": 0, "green": 1}   # red and orange tied
    stacks(g, s1="green", s2="orange", s3="red", s4="orange")
    turn(g, D, 0)
    ev = step(g)
    assert P(g)["assistant"] == 2 and "first stack showing one of them shows orange" in text(ev)
    # clockwise from space 6 the search wraps past space 7 to space 0 and on
    stacks(g, s7="blue", s0="green", s1="red", s2="orange")
    turn(g, D, 6)
    step(g)
    assert P(g)["assistant"] == 1


def test_denzel_step1_no_stack_shows_the_colour_he_advances_one_space():
    g = game()
    mat(g)["columns"] = {"red": 1, "blue": 1, "orange": 0, "green": 1}
    stacks(g, s4=None)                               # every top green, one stack gone
    turn(g, D, 3)
    ev = step(g)
    assert P(g)["assistant"] == 4 and "no stack shows that colour on top, so he advances one space" in text(ev)


# ================================================================== Denzel: step 2
def test_denzel_three_level1_actions_two_of_the_space_colour_then_the_stacks_in_its_colours_quadrant():
    g = game()
    stacks(g, s3="red")
    to_step(g, 3)                                    # orange space (quadrant 3), red on top
    sup = P(g)["supply"]
    ev = step(g)
    t = text(ev)
    assert "quadrant 3, the quadrant of his rondel space's printed colour (orange)" in t
    i1 = t.index("(the rondel space's colour): orange at level 1 (raze 1 structure) in section 11")
    i2 = t.index("(the rondel space's colour): orange at level 1", i1 + 1)
    i3 = t.index("(the stack's colour): red at level 1 (2 cubes on red squares) in section 11")
    assert i1 < i2 < i3
    # section 11 is the lowest-numbered of quadrant 3: natural before golden (brown, natural, golden, silver)
    assert [i["cubes"] for i in sec(g, 11)["icons"]] == [[D], [D]]
    assert g.state["queue"][-2:] == ["natural", "golden"]
    assert sec(g, 11)["red"] == [D, D] and P(g)["supply"] == sup - 4
    assert vp(ev) == 0 and mat(g)["supervisor"] == 11   # the pawn marks where he works
    assert g.view(None)["solo"]["Denzel"]["supervisor"] == "section 11"


def test_denzel_lowest_numbered_available_section_and_brown_first():
    g = game()
    complete(g, 11)
    complete(g, 12)
    stacks(g, s7="orange")
    to_step(g, 7)                                    # orange space, orange on top: three razes in quadrant 3
    ev = step(g)
    assert "in section 13, the lowest-numbered section of quadrant 3 where it can be done" in text(ev)
    kinds = [e["structure"] for e in ev if e["type"] == "raze"]
    assert kinds == ["brown", "natural", "brown"]      # 13: brown then natural; then 14: brown
    assert [e["section"] for e in ev if e["type"] == "solo" and "section" in e] == [13, 13, 14]


def test_denzel_action_impossible_in_its_quadrant_goes_clockwise_through_the_others():
    g = game()
    raze_all(g, range(11, 21))                       # nothing to raze in quadrants 3 and 4
    stacks(g, s3="blue")
    to_step(g, 3)
    ev = step(g)
    t = text(ev)
    assert "it cannot be done in quadrants 3, 4, so going clockwise it is done in quadrant 1" in t
    assert sec(g, 2)["icons"][1]["cubes"] == [D] and sec(g, 2)["icons"][0]["cubes"] == [D]   # natural, then golden
    assert "blue at level 1 (2 cubes on blue squares) in section 11" in t


def test_denzel_three_vp_for_each_wholly_impossible_action():
    g = game()
    fill_roads(g, range(1, 21), "red")
    stacks(g, s5="orange")
    to_step(g, 5)                                    # red, red, orange: no red square is left anywhere
    ev = step(g)
    assert vps(ev) == [3, 3]
    assert text(ev).count("nor in any other quadrant") == 2
    assert sec(g, 2)["icons"][1]["cubes"] == [D]     # the orange action is done: natural in section 2


def test_denzel_five_vp_when_there_is_no_stack_beside_his_space():
    g = game()
    stacks(g, s1=None)
    to_step(g, 1)
    ev = step(g)
    assert sec(g, 1)["red"] == [D] * 4               # the two red actions (section 1 has 4 red squares)
    assert vps(ev) == [5] and "misses the stack's action" in text(ev)


def test_denzel_out_of_cubes_places_what_he_can_and_scores_the_failed_vp():
    g = game()
    P(g)["supply"] = 1
    stacks(g, s1="blue")
    to_step(g, 1)
    ev = step(g)
    assert sec(g, 1)["red"] == [D] and P(g)["supply"] == 0
    assert "ran out of cubes part way (1 placed)" in text(ev)
    assert vps(ev) == [3, 3, 3]                      # the first failed part way, the other two had no cube at all


def test_denzel_completing_a_section_tiles_to_the_box_one_plus_two_vp():
    g = game()
    S = g.state
    y = next_year_with_achievement(g)
    fill_roads(g, [1], "blue", seat=D)
    sec(g, 1)["red"] = [D, D]
    P(g)["supply"] -= 2
    table = {r: list(v) for r, v in S["table"].items()}
    stacks(g, s1="blue")
    to_step(g, 1)
    ev = step(g)
    assert sec(g, 1)["done"] and y["bonus"] is None and y["achievement"] is None
    assert vps(ev)[:3] == [6, 1, 2]                  # first place in section 1, year bonus 1, achievement 2
    assert S["table"] == table and P(g)["bonus"] == [] and P(g)["tiles"] == []


# ================================================================== Denzel: step 4
def test_denzel_step4_tile_into_its_colour_column():
    g = game()
    stacks(g, s2="orange")
    to_step(g, 2, n=4)
    ev = step(g)
    assert mat(g)["columns"] == {"red": 0, "blue": 0, "orange": 1, "green": 0}
    assert g.state["stacks"][2] == ["red", "red", "red"]
    assert "in his orange column (1 of 3)" in text(ev)
    assert g.view(None)["solo"]["Denzel"]["columns"]["orange"] == "1/3"


def forced_setup(solo=("denzel",), section=7):
    """Denzel's third red tile is on top of his stack; his supervisor sits in `section`, where he worked."""
    g = game(list(solo))
    mat(g)["columns"]["red"] = 2
    mat(g)["acted"] = True
    mat(g)["supervisor"] = section
    stacks(g, s5="red")
    to_step(g, 5, n=4)
    return g


def test_denzel_third_tile_forces_completion_double_first_place_others_from_second():
    g = forced_setup(("denzel", "katherine"))
    S = g.state
    K = 2
    y = next_year_with_achievement(g)
    s = sec(g, 7)                                    # red 2, blue 4, silver and brown standing
    s["red"] = [0, 0]
    s["blue"] = [0, K, D]
    for seat, k in ((0, 3), (K, 1), (D, 1)):
        P(g, seat)["supply"] -= k
    scores = [P(g, x)["score"] for x in range(3)]
    box, queue = dict(S["box"]), list(S["queue"])
    ev = step(g)
    t = text(ev)
    assert "He completes section 7, where his supervisor sits" in t
    # Denzel first whatever his cubes (1 of 5): double the first-place value 8; You second (5), Katherine third (3)
    assert [P(g, x)["score"] - scores[x] for x in range(3)] == [5, 16 + 1 + 2, 3]
    assert "You places 2 in section 7" in t and "Katherine places 3 in section 7" in t
    assert y["bonus"] is None and y["achievement"] is None          # both tiles to the box
    # clean-up: cubes back, the tile placed, Denzel's cube beside the number, his quadrant 2 marker +1
    assert s["done"] and s["red"] == [] and s["blue"] == [] and s["number"] == D
    assert P(g)["markers"][1] == 1 and P(g, 0)["markers"][1] == 0
    assert all(cubes_total(g, x) == 50 for x in range(3))
    # the standing structures join the queue in his order (brown before silver)
    assert S["queue"] == queue + ["brown", "silver"] and s["icons"] == []
    # the three red tiles go back to the box
    assert mat(g)["columns"]["red"] == 0 and S["box"]["red"] == box["red"] + 3
    assert "returns the 3 red tiles from his mat to the box" in t


def test_denzel_forced_completion_in_a_two_player_game_others_skip_the_highlighted_second():
    g = forced_setup()
    sec(g, 7)["blue"] = [0, 0, 0, 0]                 # the person has every cube there
    P(g, 0)["supply"] -= 4
    ev = step(g)
    assert vps(ev, 0) == [3]                         # 8/5/3/1: second place (5) is skipped with two players
    assert vps(ev)[0] == 16


def test_denzel_forced_completion_with_a_full_queue_builds_the_structures_at_once():
    g = forced_setup()
    S = g.state
    S["queue"] = ["natural"] * 12
    sup = P(g)["supply"]
    ev = step(g)
    s = sec(g, 7)
    assert S["queue"] == ["natural"] * 12
    assert sorted(p["kind"] for p in s["plots"]) == ["brown", "silver"]
    assert [p["cubes"][0] for p in s["plots"]] == [D, D]
    assert P(g)["markers"][1] == 1 + 2               # first place's marker step and one per structure built
    assert P(g)["supply"] == sup - 3                 # the number cube and the two builders' cubes
    assert "queue is full, so brown and silver have nowhere to go: Denzel builds them in section 7" in text(ev)


def test_denzel_forced_completion_partial_room_queues_in_his_order_and_builds_the_overflow():
    g = forced_setup()
    S = g.state
    S["queue"] = ["natural"] * 11
    ev = step(g)
    assert S["queue"] == ["natural"] * 11 + ["brown"]            # brown comes before silver in his order
    assert [p["kind"] for p in sec(g, 7)["plots"]] == ["silver", None]
    assert sec(g, 7)["plots"][0]["cubes"][0] == D and P(g)["markers"][1] == 2
    assert "silver has nowhere to go" in text(ev)


def test_denzel_forced_completion_of_a_complete_section_goes_to_the_next_higher_unfinished_one():
    g = forced_setup(section=6)
    complete(g, 6)
    complete(g, 7)
    ev = step(g)
    assert "section 6, where his supervisor sits, is already complete, so the next higher-numbered unfinished " \
           "section of quadrant 2, section 8" in text(ev)
    assert sec(g, 8)["done"] and sec(g, 8)["number"] == D and vps(ev)[0] == 16
    assert not sec(g, 9)["done"]


def test_denzel_forced_completion_with_no_higher_unfinished_section_scores_8():
    g = forced_setup(section=9)
    complete(g, 9)                                   # 10 is complete from the start
    box = g.state["box"]["red"]
    ev = step(g)
    assert vps(ev) == [8] and "quadrant 2 has no higher-numbered unfinished section" in text(ev)
    assert sum(s["done"] for s in g.state["sections"]) == 2
    assert mat(g)["columns"]["red"] == 0 and g.state["box"]["red"] == box + 3


def test_denzel_forced_completion_after_a_turn_of_only_vp_scores_8():
    g = game()
    mat(g)["columns"]["red"] = 2
    mat(g)["supervisor"] = 7                         # an unfinished section where he worked before
    P(g)["supply"] = 0
    stacks(g, s5="red")
    to_step(g, 5)
    ev = step(g)                                     # step 2: three actions, none possible without cubes
    assert vps(ev) == [3, 3, 3]
    ev = step(g)                                     # step 4: the third red tile
    assert vps(ev) == [8] and "took no actual action this turn" in text(ev)
    assert not sec(g, 7)["done"]


# ================================================================== Katherine
def test_katherine_setup_supervisor_on_the_symbol_icon_assistant_with_the_person():
    g = game("katherine")
    K = g.solo_players[D]
    assert mat(g)["space"] == 0 and K.mat["track"][0]["symbol"]
    assert P(g)["assistant"] == P(g, 0)["assistant"]
    assert g.view(None)["solo"]["Katherine"]["supervisor_space"] == 1


def test_katherine_step1_always_two_spaces_clockwise():
    g = game("katherine")
    P(g, 0)["assistant"] = 7                         # occupied spaces count like any other
    turn(g, D, 6)
    ev = step(g)
    assert P(g)["assistant"] == 0 and "always advances 2 spaces" in text(ev)


def test_katherine_ignores_rondel_colours_row_gives_two_actions_nearest_first_highest_section():
    g = game("katherine")
    mat(g)["space"] = 1                              # beside row 2 (green, orange), quadrant 2
    stacks(g, s1="red")
    to_step(g, 1)                                    # a red space with red on top: ignored
    ev = step(g)
    t = text(ev)
    assert "ignores the rondel colours" in t and "red at level" not in t
    assert t.index("green at level 1") < t.index("orange at level 1")
    assert "green at level 1 (build 1 structure) in section 10, the highest-numbered section of quadrant 2" in t
    assert "orange at level 1 (raze 1 structure) in section 9, the highest-numbered section of quadrant 2" in t
    assert sec(g, 9)["icons"][0]["cubes"] == [D] and sec(g, 10)["plots"][0]["kind"] == "natural"
    assert mat(g)["space"] == 1                      # her pawn stays on her mat


def test_katherine_column_gives_four_actions_from_the_nearest_cell_outward():
    g = game("katherine")
    mat(g)["space"] = 4                              # below column 1 (blue green red orange): quadrant 2
    stacks(g)
    to_step(g, 0)
    ev = step(g)
    acts = [e["action"] for e in ev if e["type"] == "solo" and e.get("level") == 1]
    assert acts == ["orange", "red", "green", "blue"]     # from the bottom cell up
    assert sec(g, 9)["red"] == [D, D] and sec(g, 9)["blue"] == [D, D]
    assert vp(ev) == 0


def test_katherine_structure_priority_natural_golden_silver_brown():
    g = game("katherine")
    mat(g)["space"] = 3                              # row 4 (orange, green), quadrant 4
    stacks(g)
    to_step(g, 0)
    ev = step(g)
    assert "razes a golden structure in section 19" in text(ev)          # golden before brown
    complete(g, 19)
    to_step(g, 0)
    ev = step(g)
    assert "razes a natural structure in section 18" in text(ev)         # natural before silver


def test_katherine_three_vp_for_an_impossible_action():
    g = game("katherine")
    fill_roads(g, range(1, 21), "blue")
    stacks(g)
    to_step(g, 0)                                    # supervisor on space 1: blue, red in quadrant 1
    ev = step(g)
    assert vps(ev) == [3] and "nor in any other quadrant" in text(ev)
    assert sec(g, 5)["red"] == [D, D]


def test_katherine_completing_a_section_one_plus_four_vp():
    g = game("katherine")
    y = next_year_with_achievement(g)
    fill_roads(g, [5], "red", seat=D)
    raze_all(g, [5], seat=D)
    sec(g, 5)["blue"] = [D, D]
    P(g)["supply"] -= 2
    stacks(g)
    to_step(g, 0)
    ev = step(g)                                     # blue (2 cubes) completes section 5
    assert sec(g, 5)["done"] and y["bonus"] is None and y["achievement"] is None
    assert vps(ev)[:3] == [8, 1, 4]


def test_katherine_step4_tile_beside_supervisor_old_one_to_box_supervisor_advances():
    g = game("katherine")
    mat(g)["space"] = 2
    mat(g)["tiles"][2] = "green"
    stacks(g, s6="blue")
    box = dict(g.state["box"])
    to_step(g, 6, n=4)
    ev = step(g)
    assert mat(g)["tiles"][2] == "blue" and mat(g)["space"] == 3
    assert g.state["box"]["green"] == box["green"] + 1 and g.state["stacks"][6] == ["red", "red", "red"]
    assert "the green tile there goes to the box" in text(ev)
    # the last space leads back to the first
    mat(g)["space"] = 5
    to_step(g, 6, n=4)
    step(g)
    assert mat(g)["space"] == 0


def test_katherine_reaching_the_symbol_removes_the_lowest_matching_achievements():
    g = game("katherine")
    S = g.state
    S["table"] = {"red": [5, 1], "blue": [6, 2], "orange": [3], "green": [], "multi": [17, 13]}
    mat(g)["space"] = 5
    stacks(g)
    to_step(g, 0, n=4)
    ev = step(g)
    assert mat(g)["space"] == 0
    assert S["table"] == {"red": [5], "blue": [6], "orange": [3], "green": [], "multi": [17, 13]}
    assert "returns achievement tile 1 (red)" in text(ev) and "returns achievement tile 2 (blue)" in text(ev)
    assert vp(ev) == 0


def test_katherine_symbol_with_a_colour_missing_scores_five_for_it():
    g = game("katherine")
    S = g.state
    S["table"] = {"red": [], "blue": [], "orange": [3], "green": [], "multi": [17, 9]}   # tile 9 is red
    mat(g)["space"] = 5
    stacks(g)
    to_step(g, 0, n=4)
    ev = step(g)
    assert S["table"]["multi"] == [17]               # red tile 9 removed, wherever it sits
    assert vps(ev) == [5] and "No blue achievement tile is left" in text(ev)
    # both missing: 5 VP each
    mat(g)["space"] = 5
    to_step(g, 0, n=4)
    assert vps(step(g)) == [5, 5]


# ================================================================== both: final turn, mats, whole games
@pytest.mark.parametrize("solo", ["denzel", "katherine"])
def test_final_turn_is_always_three_vp(solo):
    g = game(solo)
    S = g.state
    S["end"], S["final"], S["first"], S["active"], S["phase"] = True, True, 0, D, "actions"
    S["ts"] = g._new_turn(D, final=True)
    P(g)["markers"] = [3, 0, 0, 0]                    # first on the quadrant 1 track, nowhere else
    before = P(g)["score"]
    ev = step(g)
    assert "final action is to score 3 VP" in text(ev)
    assert g.over and "scores 3 VP: the final turn" in text(ev)
    # then final scoring: only the quadrant ranks (12 for first on quadrant 1, two players), no supervisor bonus
    assert P(g)["score"] - before == 3 + 12 and P(g)["markers"] == [3, 0, 0, 0]


def test_user_mats_replace_the_printed_ones_and_bad_ones_are_refused_clearly(tmp_path):
    from ringside.games.circleville.solo.framework import DATA_DIR
    k = json.loads((DATA_DIR / "katherine.json").read_text())
    k["track"][0]["side"] = "right"                  # row 1 read from its right end: red before blue
    g = game("katherine", solo_mats={"katherine": k})
    stacks(g)
    to_step(g, 0)
    t = text(step(g))
    assert t.index("red at level 1") < t.index("blue at level 1")
    bad = dict(k, track=[dict(s, symbol=True) for s in k["track"]])
    with pytest.raises(SoloDataError, match="exactly one track space bears the supervisor symbol"):
        game("katherine", solo_mats={"katherine": bad})
    bad = dict(k, grid=[["blue", "red"], ["green"]])
    with pytest.raises(SoloDataError, match="every row as long as the others"):
        game("katherine", solo_mats={"katherine": bad})
    d = json.loads((DATA_DIR / "denzel.json").read_text())
    path = tmp_path / "denzel.json"
    path.write_text(json.dumps(dict(d, columns={"red": 3, "blue": 3, "orange": 3})))
    with pytest.raises(GameError, match="denzel.json: 'columns' must give the number of action spaces"):
        game("denzel", solo_mats={"denzel": str(path)})
    path.write_text(json.dumps(dict(d, no_completion_vp="eight")))
    with pytest.raises(GameError, match="'no_completion_vp' must be a whole number"):
        game("denzel", solo_mats={"denzel": str(path)})
    # a shorter column: his second tile of a colour already forces the completion
    g = game("denzel", solo_mats={"denzel": dict(d, columns={"red": 2, "blue": 3, "orange": 3, "green": 3})})
    mat(g)["columns"]["red"], mat(g)["acted"], mat(g)["supervisor"] = 1, True, 7
    stacks(g, s5="red")
    to_step(g, 5, n=4)
    step(g)
    assert sec(g, 7)["done"]


def play(names, seed):
    g = game(names, seed=seed, difficulty=4)
    bot = HeuristicBot(seed)
    for _ in range(20000):
        if g.over:
            break
        seat = g.to_act()[0]
        if seat == CHANCE:
            g.apply(seat, g.chance_action())
        elif seat in g.solo_players:
            g.apply(seat, g.legal_actions(seat)[0])
        else:
            g.apply(seat, bot.choose(g, seat))
    return g


@pytest.mark.parametrize("names", [["denzel"], ["katherine"], ["denzel", "katherine", "carsten"]])
def test_whole_games_end_count_everything_and_replay_exactly(names):
    start = game(names, seed=3)
    assert start.render_text().startswith("Squaring Circleville")   # the table reads as text
    g = play(names, 3)
    assert g.render_text()
    assert g.over and set(g.result["scores"]) == set(g.players)
    S = g.state
    tiles = sum(S["bag"].values()) + sum(1 for st in S["stacks"] for x in st if x is not None)
    tiles += sum(1 for x in S["upcoming"] if x is not None) + sum(S["box"].values())
    for seat in g.solo_players:
        st = S["solo"][seat]
        tiles += sum(st["columns"].values()) if "columns" in st else sum(1 for t in st["tiles"] if t)
    tiles += sum(col.count("tile") for col in S["players"][0]["mat"].values())
    assert tiles == 64
    for seat in range(len(g.players)):
        assert cubes_total(g, seat) == 50
    structures = len(S["queue"]) + sum(1 for s in S["sections"] for p in s["plots"] if p["kind"])
    structures += sum(1 for s in S["sections"] for i in s["icons"] if not i["cubes"])
    assert structures == 33
    again = G.load(g.to_json())
    assert again.state == g.state and again.result == g.result
