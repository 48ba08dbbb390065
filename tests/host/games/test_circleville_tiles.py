"""Squaring Circleville tiles: every equipment tile, every year bonus kind, every achievement tile,
and the end of the game (trigger, last round, final action, final scoring, winner)."""
import pytest

from ringside.games import CHANCE, IllegalAction

from test_circleville_rules import P, active, complete, fill, game, rondel_to


def give(g, tid, seat=None):
    p = P(g, seat)
    if tid in g.state["equipment"]:
        g.state["equipment"].remove(tid)
    p["tiles"].append({"kind": "equipment", "id": tid})


def done_moves(g, seat):
    while g.state["ts"]["pending"]:
        g.apply(seat, {"type": "stop"})


# ---------------------------------------------------------------- equipment 1-22
def test_eq01_beautify_a_second_time():
    g = game(3)
    give(g, 1)
    seat = rondel_to(g, 1, top="blue")
    P(g)["mat"]["red"] = ["tile"] * 2
    g.apply(seat, {"type": "act", "colour": "red", "action": "beautify", "section": 10})
    assert g.legal_actions(seat) == [{"type": "beautify_again"}, {"type": "stop"}]
    g.apply(seat, {"type": "beautify_again"})
    assert g._sec(10)["beautify"][0] == [seat, seat] and P(g)["markers"][1] == 2


def test_eq02_flip_the_stack_before_actions():
    g = game(3)
    give(g, 2)
    seat = rondel_to(g, 1, stack=["blue", "orange"])
    assert g.state["ts"]["avail"] == [["red"], ["orange"]]
    g.apply(seat, {"type": "move", "to": 9})
    g.apply(seat, {"type": "flip_stack"})
    assert g.state["stacks"][1] == ["orange", "blue"] and g.state["ts"]["avail"] == [["red"], ["blue"]]
    assert g.state["ts"]["moves"] == [0, 1]      # the move made before flipping stays spent
    g2 = game(3)
    s2 = rondel_to(g2, 1, stack=["blue", "orange"])
    with pytest.raises(IllegalAction, match="no equipment tile"):
        g2.apply(s2, {"type": "flip_stack"})


def test_eq03_one_additional_supervisor_move_per_action():
    g = game(3)
    give(g, 3)
    seat = rondel_to(g, 1, top="blue")
    g.apply(seat, {"type": "move", "to": 9})
    g.apply(seat, {"type": "move", "to": 7})
    with pytest.raises(IllegalAction, match="already moved"):
        g.apply(seat, {"type": "move", "to": 6})


def test_eq04_swap_the_year_bonus_tile_further_down():
    g = game(3, start=1)
    give(g, 4)
    seat = rondel_to(g, 1, top="blue")
    fill(g, 2, seat, red=2)
    P(g)["supervisor"] = 2
    years = g.state["years"]
    later = years[5]["bonus"]
    g.apply(seat, {"type": "act", "colour": "red", "action": "red"})
    pend = g.state["ts"]["pending"]
    assert pend["kind"] == "take_bonus" and 1856 not in pend["years"]
    first = years[1]["bonus"]
    g.apply(seat, {"type": "take_bonus", "year": years[5]["year"]})
    assert P(g)["bonus"] == [later] and years[5]["bonus"] == first and g._sec(2)["done"]


@pytest.mark.parametrize("tid,colour", [(5, "red"), (6, "blue"), (7, "orange"), (8, "green")])
def test_eq05_08_one_extra_level_never_past_5(tid, colour):
    g = game(3)
    seat = active(g)
    give(g, tid)
    assert g.level(seat, colour) == 2 and g.mat_level(seat, colour) == 1
    P(g)["mat"][colour] = ["tile"] * 4
    assert g.level(seat, colour) == 5


@pytest.mark.parametrize("tid,colour,space", [(9, "red", 1), (10, "blue", 2)])
def test_eq09_10_two_additional_road_cubes(tid, colour, space):
    g = game(3)
    give(g, tid)
    seat = rondel_to(g, space, top="orange")
    P(g)["supervisor"] = 9                      # 3 red, 3 blue squares
    g.apply(seat, {"type": "act", "colour": colour, "action": colour})
    assert len(g._sec(9)[colour]) == 3          # 2 + 2, only 3 squares


def test_eq11_raze_silver_or_golden_with_two_cubes():
    g = game(3, start=1)
    give(g, 11)
    seat = rondel_to(g, 3, top="blue")
    P(g)["supervisor"] = 2
    g.apply(seat, {"type": "act", "colour": "orange", "action": "orange"})
    g.apply(seat, {"type": "raze", "structure": "golden"})
    assert [i["cubes"] for i in g._sec(2)["icons"] if i["kind"] == "golden"] == [[seat, seat]]


def test_eq12_build_silver_or_golden_with_both_cubes():
    g = game(3)
    give(g, 12)
    g.state["queue"] = ["golden"]
    seat = rondel_to(g, 4, stack=["blue"])
    g.apply(seat, {"type": "act", "colour": "green", "action": "green"})
    g.apply(seat, {"type": "build", "section": 10})
    assert g._sec(10)["plots"][0]["cubes"] == [seat, seat] and P(g)["markers"][1] == 2


def test_eq13_rondel_up_to_three_unoccupied():
    g = game(3)
    seat = active(g)
    for p in g.state["players"]:
        p["assistant"] = 0 if p is P(g) else 5
    assert [a["space"] for a in g.legal_actions(seat)] == [1, 2]
    give(g, 13)
    assert [a["space"] for a in g.legal_actions(seat)] == [1, 2, 3]


def test_eq14_bonus_action_with_three_tiles_keeping_a_colour():
    g = game(3)
    give(g, 14)
    seat = rondel_to(g, 1, stack=[])
    P(g)["mat"] = {"red": ["tile"], "blue": ["tile"], "orange": ["tile"], "green": []}
    g.apply(seat, {"type": "act", "colour": "red", "action": "move"})
    done_moves(g, seat)
    assert {"type": "bonus_action", "keep": "green"} in g.legal_actions(seat)
    g.apply(seat, {"type": "bonus_action", "keep": "green"})
    assert all(P(g)["mat"][c] == [] for c in ("red", "blue", "orange"))


def test_eq15_rondel_counter_clockwise():
    g = game(3)
    seat = active(g)
    for p in g.state["players"]:
        p["assistant"] = 0 if p is P(g) else 4
    give(g, 15)
    acts = g.legal_actions(seat)
    assert {"type": "rondel", "space": 7, "ccw": True} in acts and {"type": "rondel", "space": 6, "ccw": True} in acts
    g.apply(seat, {"type": "rondel", "space": 7, "ccw": True})
    assert P(g)["assistant"] == 7


def test_eq16_extra_cube_when_roads_are_finished():
    g = game(3, start=1)
    give(g, 16)
    seat = rondel_to(g, 1, top="orange")
    fill(g, 2, seat, red=2, raze=False)          # one red square left, structures standing
    P(g)["supervisor"] = 2
    g.apply(seat, {"type": "act", "colour": "red", "action": "red"})
    assert g.state["ts"]["pending"]["kind"] == "road_cube"
    g.apply(seat, {"type": "road_cube"})
    assert g._sec(2)["extra"] == [seat]


def test_eq17_swap_stack_with_upcoming():
    g = game(3)
    give(g, 17)
    seat = rondel_to(g, 1, stack=["green", "green"])
    g.apply(seat, {"type": "swap_upcoming"})
    assert g.state["upcoming"] == ["green", "green"] and g.to_act() == [CHANCE]
    for _ in range(4):
        g.apply(CHANCE, g.chance_action())
    assert g.state["ts"]["avail"] == [["red"], [g.state["stacks"][1][-1]]]


def test_eq18_swap_a_mat_tile_for_a_stack_top():
    g = game(3)
    give(g, 18)
    seat = rondel_to(g, 1, stack=["blue"])
    P(g)["mat"]["red"] = ["tile"]
    g.state["stacks"][5] = ["orange", "green"]
    g.apply(seat, {"type": "swap_mat", "colour": "red", "stack": 5})
    assert P(g)["mat"]["red"] == [] and P(g)["mat"]["green"] == ["tile"] and g.state["stacks"][5] == ["orange", "red"]
    with pytest.raises(IllegalAction, match="already used"):
        g.apply(seat, {"type": "swap_mat", "colour": "green", "stack": 5})


def test_eq19_swap_two_structures_in_the_queue():
    g = game(3)
    give(g, 19)
    g.state["queue"] = ["natural", "golden"]
    seat = rondel_to(g, 1, top="blue")
    g.apply(seat, {"type": "swap_queue", "a": 0, "b": 1})
    assert g.state["queue"] == ["golden", "natural"]


@pytest.mark.parametrize("tid,a,b", [(20, "red", "blue"), (21, "orange", "green")])
def test_eq20_21_use_either_colours_level(tid, a, b):
    g = game(3)
    seat = active(g)
    P(g)["mat"][b] = ["tile"] * 3
    assert g.level(seat, a) == 1
    give(g, tid)
    assert g.level(seat, a) == 4 and g.level(seat, b) == 4


def test_eq22_only_player_doubles_on_owners_turn():
    g = game(3, start=1)
    give(g, 22)
    seat = rondel_to(g, 1, top="blue")
    fill(g, 4, seat, red=1, raze=True)           # outer section 4: box 8
    P(g)["supervisor"] = 4
    g.apply(seat, {"type": "act", "colour": "red", "action": "red"})
    assert P(g)["score"] == 16
    g2 = game(3, start=1)
    seat2 = active(g2)
    give(g2, 22, (seat2 + 1) % 3)                # someone else's tile does nothing on this turn
    rondel_to(g2, 1, top="blue")
    fill(g2, 4, seat2, red=1)
    P(g2)["supervisor"] = 4
    g2.apply(seat2, {"type": "act", "colour": "red", "action": "red"})
    assert P(g2)["score"] == 8


# ---------------------------------------------------------------- year bonus tiles
def test_yb_new_plot_not_flipped_and_builder_adds_second_cube():
    g = game(3)
    seat = rondel_to(g, 4, stack=["blue"])
    P(g)["bonus"] = ["new_plot"]
    g.apply(seat, {"type": "use_bonus", "kind": "new_plot", "section": 10})
    plot = g._sec(10)["plots"][-1]
    assert plot == {"kind": None, "cubes": [seat, None], "new": True} and P(g)["markers"][1] == 1
    assert g.state["ts"]["flipped"] == [] and P(g)["bonus"] == []


def test_yb_new_equipment():
    g = game(3)
    seat = rondel_to(g, 1, top="blue")
    P(g)["bonus"] = ["new_equipment"]
    t = g.state["equipment"][0]
    g.apply(seat, {"type": "use_bonus", "kind": "new_equipment", "tile": t})
    assert {"kind": "equipment", "id": t} in P(g)["tiles"] and g.state["ts"]["flipped"] == ["new_equipment"]


def test_yb_flexible_supervisor_plus_normal_move():
    g = game(3)
    seat = rondel_to(g, 1, top="blue")
    P(g)["bonus"] = ["flexible_supervisor"]
    g.apply(seat, {"type": "use_bonus", "kind": "flexible_supervisor", "to": 4})
    g.apply(seat, {"type": "move", "to": 5})
    assert P(g)["supervisor"] == 5


def test_yb_usable_before_the_rondel_move_too():
    g = game(3)
    seat = active(g)
    P(g)["bonus"] = ["flexible_supervisor"]
    g.apply(seat, {"type": "use_bonus", "kind": "flexible_supervisor", "to": 17})
    assert P(g)["supervisor"] == 17 and g.state["phase"] == "rondel"


def test_yb_flexible_assistant_any_space_even_its_own():
    g = game(3)
    seat = active(g)
    P(g)["bonus"] = ["flexible_assistant"]
    g.apply(seat, {"type": "rondel", "space": 0, "bonus": "flexible_assistant"})
    assert P(g)["assistant"] == 0 and g.state["ts"]["flipped"] == ["flexible_assistant"]


def test_yb_increase_to_level_five_for_one_action():
    g = game(3)
    seat = rondel_to(g, 1, top="red")
    P(g)["bonus"] = ["level_five"]
    g.state["table"]["multi"] = [21]
    g.apply(seat, {"type": "act", "colour": "red", "action": "achievement", "tile": 21, "boost": True})
    assert {"kind": "achievement", "id": 21} in P(g)["tiles"]
    with pytest.raises(IllegalAction, match="level 3"):       # the other red action is back at level 1
        g.apply(seat, {"type": "act", "colour": "red", "action": "beautify", "section": 10})


def test_yb_raze_any_unfinished_section_not_an_action():
    g = game(3)
    seat = rondel_to(g, 1, top="blue")
    P(g)["bonus"] = ["raze"]
    g.apply(seat, {"type": "use_bonus", "kind": "raze", "section": 19, "structure": "golden"})
    assert g.state["queue"][-1] == "golden" and g.state["ts"]["avail"] == [["red"], ["blue"]]
    assert [i["cubes"] for i in g._sec(19)["icons"] if i["kind"] == "golden"] == [[seat]]


def test_yb_build_any_queued_structure_anywhere():
    g = game(3, start=1)
    complete(g, 20)
    seat = rondel_to(g, 1, top="blue")
    P(g)["bonus"] = ["build"]
    g.state["queue"] = ["natural", "golden"]
    g.apply(seat, {"type": "use_bonus", "kind": "build", "section": 20, "structure": "golden"})
    assert g._sec(20)["plots"][0]["kind"] == "golden" and g.state["queue"] == ["natural"]
    assert P(g)["markers"][3] == 1


def test_yb_three_vp_scores_and_ends_the_game():
    g = game(3)
    seat = rondel_to(g, 1, top="blue")
    P(g)["bonus"] = ["three_vp"]
    g.apply(seat, {"type": "use_bonus", "kind": "three_vp"})
    assert P(g)["score"] == 3 and g.state["end"]


def test_yb_used_tile_flips_onto_mat_at_end_of_turn_or_is_discarded():
    g = game(3)
    seat = rondel_to(g, 1, stack=[])
    P(g)["bonus"] = ["flexible_supervisor"]
    g.apply(seat, {"type": "use_bonus", "kind": "flexible_supervisor", "to": 4})
    g.apply(seat, {"type": "end_turn"})
    while g.to_act() == [CHANCE]:                # the upcoming stack slid in and is turned up
        g.apply(CHANCE, g.chance_action())
    assert g.legal_actions(seat)[0]["type"] == "place_flipped"
    g.apply(seat, {"type": "place_flipped", "colour": "orange"})
    assert P(g, seat)["mat"]["orange"] == ["yb:flexible_supervisor"] and g.level(seat, "orange") == 2
    g2 = game(3)
    s2 = rondel_to(g2, 1, stack=[])
    P(g2)["mat"] = {c: ["tile"] * 4 for c in ("red", "blue", "orange", "green")}
    P(g2)["bonus"] = ["flexible_supervisor"]
    g2.apply(s2, {"type": "use_bonus", "kind": "flexible_supervisor", "to": 4})
    g2.apply(s2, {"type": "end_turn"})
    assert g2.state["discarded_bonus"] == 1 and active(g2) != s2


# ---------------------------------------------------------------- achievements 1-23
def _ach_game():
    g = game(3, start=1)
    seat = active(g)
    other = (seat + 1) % 3
    complete(g, 2)
    complete(g, 10)
    g._sec(2)["plots"][0].update(kind="natural", cubes=[seat, None], builder=seat)
    g._sec(2)["plots"][1].update(kind="golden", cubes=[other, seat], builder=other)
    g._sec(1)["plots"][0].update(kind="brown", cubes=[seat, seat], builder=seat)
    g._sec(10)["plots"][0].update(kind="silver", cubes=[other, None], builder=other)
    g._sec(1)["beautify"][0] = [seat]
    g._sec(10)["beautify"][0] = [other]
    P(g)["mat"] = {"red": ["tile", "yb:raze"], "blue": ["tile"], "orange": [], "green": []}
    P(g)["tiles"] = [{"kind": "achievement", "id": 23}, {"kind": "achievement", "id": 1}]
    return g, seat


EXPECTED = {1: 1, 2: 0, 3: 0, 4: 0, 5: 2, 6: 0, 7: 0, 8: 0, 9: 0, 10: 2, 11: 0, 12: 0, 13: 2, 14: 0, 15: 0, 16: 0,
            17: 1, 18: 2, 19: 0, 20: 0, 21: 1, 22: 2, 23: 6}


@pytest.mark.parametrize("tid", sorted(EXPECTED))
def test_achievement_values(tid):
    g, seat = _ach_game()
    assert g.achievement_value(seat, tid) == EXPECTED[tid]


def test_achievement_colours_rows():
    g = game(3)
    assert {g.tiles["achievements"][i]["colour"] for i in range(1, 17)} == {"red", "blue", "orange", "green"}
    assert {g.tiles["achievements"][i]["colour"] for i in range(17, 24)} == {"multi"}


# ---------------------------------------------------------------- the end
def test_end_round_finishes_final_action_and_scoring():
    g = game(3, seed=4)
    first = g.state["first"]
    last = (first - 1) % 3
    for n in range(1, 21):
        if n != 9:
            complete(g, n)
    seat = rondel_to(g, 1, top="blue")
    fill(g, 9, seat, red=2)
    P(g)["supervisor"] = 9
    g.apply(seat, {"type": "act", "colour": "red", "action": "red"})
    assert g.state["end"] and not g.over
    turns = 0
    while not g.state["final"]:
        if g.to_act() == [CHANCE]:
            g.apply(CHANCE, g.chance_action())
            continue
        s = active(g)
        if g.state["phase"] == "rondel":
            g.apply(s, g.legal_actions(s)[0])
        g.apply(s, {"type": "end_turn"})
        turns += 1
        assert turns <= 3
    assert turns == (last - seat) % 3 + 1        # the round finishes with the first player's right
    assert g.state["final"] and active(g) == first and g.state["phase"] == "actions"
    assert g.state["ts"]["avail"] == [["red", "blue", "orange", "green"]]
    tiles_before = [sum(len(c) for c in p["mat"].values()) for p in g.state["players"]]
    for _ in range(3):
        s = active(g)
        g.apply(s, {"type": "act", "colour": "green", "action": "move"})
        g.apply(s, {"type": "stop"})
        g.apply(s, {"type": "end_turn"})
    assert g.over and g.result["reason"] == "the town is squared"
    assert [sum(len(c) for c in p["mat"].values()) for p in g.state["players"]] == tiles_before


def test_final_scoring_quadrants_ties_beautify_shares_and_zero():
    g = game(3, seed=4)
    S = g.state
    a, b, c = 0, 1, 2
    for p in S["players"]:
        p["supervisor"] = 15                       # quadrant 3: everyone gets 1 there
        p["score"] = 0
        p["bonus"] = []
    S["players"][a]["markers"] = [5, 3, 0, 0]
    S["players"][b]["markers"] = [5, 3, 0, 0]
    S["players"][c]["markers"] = [0, 3, 0, 0]
    g._sec(1)["beautify"][0] = [a]
    S["players"][c]["bonus"] = ["raze", "build"]
    S["first"] = 0
    g._final_scoring()
    # q1: a 12 (beautify), b 8, c nothing; q2: 12+8+5=25 shared, 9 each; q3: 25 shared, 9 each
    assert [p["score"] for p in S["players"]] == [12 + 9 + 9, 8 + 9 + 9, 9 + 9 + 2]
    assert g.result["winners"] == ["Ann"]


def test_two_player_final_scoring_skips_highlighted_and_tie_to_action_tiles():
    g = game(2, seed=4)
    S = g.state
    for p in S["players"]:
        p["supervisor"] = 15
        p["score"] = 10
        p["bonus"] = []
    S["players"][0]["markers"] = [4, 0, 0, 0]
    S["players"][1]["markers"] = [1, 0, 0, 0]
    S["players"][1]["score"] = 10 + 12 - 5
    S["players"][1]["mat"]["red"] = ["tile"]
    S["players"][0]["mat"]["red"] = ["yb:raze"]      # flipped tiles do not count for the tie
    g._final_scoring()
    # q1: 12 and 5 (8 skipped); q3 both 1: 12+5 = 17 shared, 9 each
    assert [p["score"] for p in S["players"]] == [10 + 12 + 9, 17 + 5 + 9]
    assert g.result["winners"] == ["Bob"]


def test_town_that_cannot_be_finished_ends_the_game():
    g = game(2, seed=4)
    for n in range(1, 21):
        if n not in (4, 9):
            complete(g, n)
    seat = rondel_to(g, 1, stack=[])
    other = 1 - seat
    g._sec(4)["blue"] = [other]                  # 4 needs 7 more; 9 needs 7; 1 cube elsewhere each
    g._sec(9)["blue"] = [seat]
    for p in g.state["players"]:
        p["supply"] = 0
    assert g.town_stuck()
    g._sec(9)["red"] = [seat, seat, seat]        # now 4 could take 4 cubes from 9: not stuck
    g._sec(9)["blue"] = [seat, seat, seat]
    g._sec(4)["blue"] = [other, other, other]
    g._sec(4)["icons"] = []
    assert not g.town_stuck()
    g._sec(9)["red"], g._sec(9)["blue"] = [], [seat]
    g._sec(4)["blue"] = [other]
    g.apply(seat, {"type": "end_turn"})
    assert g.state["end"] and g.state["end_reason"].startswith("every player ran out of cubes")
