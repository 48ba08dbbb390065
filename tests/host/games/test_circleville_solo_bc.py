"""Squaring Circleville solo mode: Bertha and Carsten, a test for every sentence of their
sections (mapped in docs/rules/circleville-solo.md).

Each test deals a solo game, hands the turn to the solo seat, sets the few pieces of state the
sentence needs (stacks, sections, the solo mat) and plays the solo player's steps through apply().
Rondel spaces 0-7: green, red, blue, orange, green, red, blue, orange. Quadrant 1 = sections
1-5, 2 = 6-10, 3 = 11-15, 4 = 16-20; section 10 is complete at the start. Both mats (data/*.json):
space 1 quadrant 1 red, 2 quadrant 2 blue, 3 quadrant 3 orange, 4 quadrant 4 green.
"""
from solotest import mat, sec, step, text, to_step, turn, vp
from solotest import SEAT as B
from solotest import game as _game


def game(solo="bertha", seed=1, **kw):
    return _game(solo, seed, **kw)


def to_step2(g, space, seat=B):
    """Hand the turn to `seat` with its assistant already on `space` (step 1 done)."""
    to_step(g, space, 2, seat)


def fill_roads(g, sections, road, seat=0):
    for n in sections:
        s = sec(g, n)
        if not s["done"]:
            s[road] += [seat] * (g.board["sections"][n][road] - len(s[road]))


def complete(g, n, plots=None):
    s = sec(g, n)
    s["done"], s["icons"], s["red"], s["blue"] = True, [], [], []
    for i, k in enumerate(plots or []):
        s["plots"][i] = {"kind": k, "cubes": [0, None], "new": False}


def stacks(g, **tops):
    """Known stacks: every odd space's top green, every even space's top red, except
    stacks(g, s1="blue") (space 1's top is blue) and s1=None (space 1 has no stack)."""
    for k in range(8):
        g.state["stacks"][k] = ["green"] * 4 if k % 2 else ["red"] * 4
    for k, c in tops.items():
        g.state["stacks"][int(k[1:])] = ["red", "red", "red", c] if c else []


# ================================================================== Bertha
def test_bertha_setup_drawn_tile_places_supervisor_white_cube_top_assistant_with_human():
    seen = set()
    for seed in range(1, 12):
        g = game(seed=seed)
        draw = next(a for s, a in g.log if a.get("type") == "solo_draw")
        i = ["red", "blue", "orange", "green"].index(draw["colour"])
        assert mat(g)["space"] == i and mat(g)["extra"] == 0
        assert g.state["players"][B]["assistant"] == g.state["players"][0]["assistant"] == 0
        assert g.state["bag"] == {c: 8 for c in ("red", "blue", "orange", "green")}   # the tile went back
        seen.add(draw["colour"])
    assert len(seen) >= 3   # a real draw from the bag


def test_bertha_step1_next_space_with_stack_matching_colour_beside_supervisor():
    g = game()
    mat(g)["space"] = 1                           # printed blue beside her supervisor
    stacks(g, s2="orange", s5="blue", s7="blue")
    turn(g, B, 0)
    ev = step(g)
    assert g.state["players"][B]["assistant"] == 5
    assert "whose stack shows blue" in text(ev)
    # a tile in the action space replaces the printed colour
    mat(g)["tiles"][1] = "orange"
    turn(g, B, 5)
    step(g)
    assert g.state["players"][B]["assistant"] == 2   # goes round past space 7 and 0


def test_bertha_step1_no_match_advances_one_space():
    g = game()
    mat(g)["space"] = 2                           # orange
    stacks(g)                                     # tops are red and green only
    turn(g, B, 6)
    ev = step(g)
    assert g.state["players"][B]["assistant"] == 7 and "advances one space" in text(ev)


def test_bertha_two_level3_actions_rondel_colour_then_stack_highest_section_as_far_as_it_can():
    g = game()
    mat(g)["space"] = 0                           # quadrant 1
    stacks(g, s1="blue")
    to_step2(g, 1)                                # red space, blue on top
    sup = g.state["players"][B]["supply"]
    ev = step(g)
    t = text(ev)
    assert t.index("first action): red at level 3") < t.index("second action): blue at level 3")
    assert sec(g, 5)["red"] == [B] * 2            # section 5 (highest of quadrant 1) has 2 red squares: as far as it can
    assert sec(g, 5)["blue"] == [B] * 4           # level 3 blue = 4 cubes
    assert "in section 5, the highest-numbered section of quadrant 1" in t
    assert vp(ev) == 0 and g.state["players"][B]["supply"] == sup - 6


def test_bertha_three_vp_when_an_action_is_impossible_everywhere():
    g = game()
    mat(g)["space"] = 0
    fill_roads(g, range(1, 21), "red")
    stacks(g, s1="blue")
    to_step2(g, 1)
    ev = step(g)
    assert "nor in any other quadrant" in text(ev)
    assert vp(ev) == 3                            # red impossible; blue done in section 5
    assert sec(g, 5)["blue"] == [B] * 4


def test_bertha_five_vp_when_no_stack_beside_the_space():
    g = game()
    mat(g)["space"] = 3
    stacks(g, s1=None)
    to_step2(g, 1)
    ev = step(g)
    assert "Bertha places 4 cubes on red squares in section 20." in text(ev)
    assert vp(ev) == 5 and "misses her second action" in text(ev)


def test_bertha_completing_a_section_tiles_to_box_one_plus_two_vp():
    g = game()
    S = g.state
    mat(g)["space"] = 3
    fill_roads(g, [20], "blue", seat=B)
    sec(g, 20)["red"] = [B, B]
    S["years"][1]["bonus"] = None                 # 1838 already taken: 1839 is next, with an achievement
    y = S["years"][2]
    bonus, ach = y["bonus"], y["achievement"]
    assert ach is not None
    table = {r: list(v) for r, v in S["table"].items()}
    discarded = S["discarded_bonus"]
    stacks(g, s1="orange")
    to_step2(g, 1)
    ev = step(g)
    assert sec(g, 20)["done"]
    assert y["bonus"] is None and y["achievement"] is None and S["discarded_bonus"] == discarded + 1
    assert S["table"] == table and S["players"][B]["bonus"] == [] and S["players"][B]["tiles"] == []
    scores = [e["vp"] for e in ev if e["type"] == "score" and e.get("seat") == B]
    assert scores[:3] == [6, 1, 2]                # first place in section 20, year bonus 1, achievement 2
    assert "returns the %s year bonus tile (1839) to the box and achievement tile %d" % (
        bonus.replace("_", " "), ach) in text(ev)


def test_bertha_step4_tile_beside_supervisor_old_tile_to_box_supervisor_advances():
    g = game()
    mat(g)["space"] = 1
    mat(g)["tiles"][1] = "red"
    stacks(g, s3="orange")
    to_step2(g, 3)
    g.state["ts"]["solo_step"] = 4
    box = dict(g.state["box"])
    ev = step(g)
    assert mat(g)["tiles"][1] == "orange" and mat(g)["space"] == 2
    assert g.state["box"]["red"] == box["red"] + 1
    assert g.state["stacks"][3] == ["red", "red", "red"]
    assert "the red tile there goes to the box" in text(ev)


def test_bertha_leaving_fourth_space_improve_and_beautify_in_quadrant_of_marker_tile():
    g = game()
    mat(g)["space"] = 3
    mat(g)["extra"] = 1
    mat(g)["tiles"][1] = "orange"                 # the tile beside the white marker: orange = quadrant 3
    complete(g, 12, plots=["silver"])
    complete(g, 3, plots=["brown"])               # quadrant 1: not the marked quadrant
    stacks(g, s5="green")
    to_step2(g, 5)
    g.state["ts"]["solo_step"] = 4
    before = list(g.state["players"][B]["markers"])
    ev = step(g)
    assert sec(g, 12)["plots"][0]["cubes"][1] == B          # improved
    assert sec(g, 12)["beautify"][0] == [B]                 # beautified
    assert sec(g, 3)["plots"][0]["cubes"][1] is None
    assert g.state["players"][B]["markers"][2] == before[2] + 2
    assert mat(g)["extra"] == 2 and mat(g)["space"] == 0 and mat(g)["tiles"][3] == "green"
    assert vp(ev) == 0 and "quadrant 3, marked by the orange tile" in text(ev)


def test_bertha_extra_actions_score_one_vp_each_when_impossible():
    g = game()
    mat(g)["space"] = 3
    sec(g, 10)["beautify"] = [[0]]                # the only completed section is fully beautified
    stacks(g, s5="green")
    to_step2(g, 5)
    g.state["ts"]["solo_step"] = 4
    ev = step(g)
    assert vp(ev) == 2 and mat(g)["space"] == 0 and mat(g)["extra"] == 1


def test_bertha_extra_marker_wraps_after_the_last_space():
    g = game()
    mat(g)["space"] = 3
    mat(g)["extra"] = 3
    stacks(g, s5="green")
    to_step2(g, 5)
    g.state["ts"]["solo_step"] = 4
    ev = step(g)
    assert mat(g)["extra"] == 0
    assert "marked by the green tile" in text(ev)       # the tile just placed beside space 4


def test_bertha_structure_priority_razes_in_her_order():
    g = game()
    mat(g)["space"] = 3                           # quadrant 4
    stacks(g, s3="blue")
    to_step2(g, 3)                                # orange, then blue
    ev = step(g)
    # section 19 (golden and brown) is the highest of quadrant 4 with structures; her priority
    # silver, brown, natural, golden razes the brown first; they join the queue in that order
    razes = [(e["seat"], e["structure"], e["section"]) for e in ev if e["type"] == "raze"]
    assert razes == [(1, "brown", 19), (1, "golden", 19)]
    assert "Bertha razes a brown structure in section 19; it joins the queue." in [e["text"] for e in ev]
    assert g.state["queue"][-2:] == ["brown", "golden"]


# ================================================================== Carsten
def carsten(seed=1, **kw):
    return game("carsten", seed=seed, **kw)


def test_carsten_setup_drawn_tile_places_supervisor_assistant_with_human():
    g = carsten(seed=4)
    draw = next(a for s, a in g.log if a.get("type") == "solo_draw")
    assert mat(g)["space"] == ["red", "blue", "orange", "green"].index(draw["colour"])
    assert g.state["players"][B]["assistant"] == g.state["players"][0]["assistant"]


def test_carsten_step1_one_space_clockwise_even_onto_the_persons_space():
    g = carsten()
    g.state["players"][0]["assistant"] = 1
    turn(g, B, 0)
    ev = step(g)
    assert g.state["players"][B]["assistant"] == 1 and "always advances one space" in text(ev)
    turn(g, B, 7)
    step(g)
    assert g.state["players"][B]["assistant"] == 0


def test_carsten_all_different_three_level1_actions_in_order_lowest_section():
    g = carsten()
    mat(g)["space"] = 3                           # green, quadrant 4
    stacks(g, s1="blue")
    to_step2(g, 1)                                # red space, blue stack, green mat
    ev = step(g)
    t = text(ev)
    assert t.index("red at level 1") < t.index("blue at level 1") < t.index("green at level 1")
    assert sec(g, 16)["red"] == [B, B] and sec(g, 16)["blue"] == [B, B]   # 16: lowest of quadrant 4
    # green: no completed section in quadrants 4 and 1; clockwise, quadrant 2's section 10 builds
    assert sec(g, 10)["plots"][0]["kind"] == "natural" and "quadrants 4, 1" in t
    assert vp(ev) == 0


def test_carsten_all_different_one_vp_for_an_impossible_action():
    g = carsten()
    mat(g)["space"] = 3
    g.state["queue"] = []                         # nothing to build anywhere
    stacks(g, s1="blue")
    to_step2(g, 1)
    ev = step(g)
    assert vp(ev) == 1


def test_carsten_structure_priority_golden_first():
    g = carsten()
    mat(g)["space"] = 1                           # blue, quadrant 2
    stacks(g, s3="red")
    to_step2(g, 3)                                # orange, red, blue: all different
    q = len(g.state["queue"])
    step(g)
    # section 6 (lowest of quadrant 2) holds golden and natural: he razes the golden
    assert g.state["queue"][q:] == ["golden"]
    assert [i["kind"] for i in sec(g, 6)["icons"] if i["cubes"]] == ["golden"]


def test_carsten_pair_odd_colour_first_then_two_red_take_lowest_equipment_three_vp():
    g = carsten()
    mat(g)["space"] = 1                           # blue mat, quadrant 2
    stacks(g, s5="red")
    to_step2(g, 5)                                # red space, red stack, blue mat
    low = min(g.state["equipment"])
    ev = step(g)
    t = text(ev)
    assert t.index("blue at level 1") < t.index("Two red")
    assert sec(g, 6)["blue"] == [B, B]
    assert {"kind": "equipment", "id": low} in g.state["players"][B]["tiles"] and low not in g.state["equipment"]
    assert vp(ev) == 3


def test_carsten_two_red_with_three_equipment_held_just_three_vp():
    g = carsten()
    mat(g)["space"] = 1
    eq = g.state["equipment"]
    g.state["players"][B]["tiles"] = [{"kind": "equipment", "id": eq.pop(0)} for _ in range(3)]
    left = list(eq)
    stacks(g, s5="red")
    to_step2(g, 5)
    ev = step(g)
    assert g.state["equipment"] == left and len(g.state["players"][B]["tiles"]) == 3
    assert vp(ev) == 3 and "already holds 3" in text(ev)


def test_carsten_never_uses_the_equipment_he_holds():
    g = carsten()
    mat(g)["space"] = 3                           # green mat, quadrant 4
    # equipment 5 (+1 red level) and 9 (+2 red road cubes) held: his red stays level 1 = 2 cubes
    g.state["players"][B]["tiles"] = [{"kind": "equipment", "id": 5}, {"kind": "equipment", "id": 9}]
    stacks(g, s1="blue")
    to_step2(g, 1)
    step(g)
    assert sec(g, 16)["red"] == [B, B]


def test_carsten_two_blue_improve_or_two_vp():
    g = carsten()
    mat(g)["space"] = 0                           # red mat, quadrant 1
    complete(g, 3, plots=["natural", "golden"])
    stacks(g, s2="blue")
    to_step2(g, 2)                                # blue space, blue stack, red mat
    ev = step(g)
    assert sec(g, 1)["red"] == [B, B]             # the odd red first, lowest section of quadrant 1
    assert sec(g, 3)["plots"][1]["cubes"][1] == B  # improves the golden (his priority)
    assert vp(ev) == 0
    g2 = carsten()
    mat(g2)["space"] = 0
    stacks(g2, s2="blue")
    to_step2(g2, 2)
    ev2 = step(g2)
    assert vp(ev2) == 2 and "Improve a Structure" in text(ev2)


def test_carsten_two_orange_beautify_or_two_vp():
    g = carsten()
    mat(g)["space"] = 0
    stacks(g, s3="orange")
    to_step2(g, 3)                                # orange, orange, red mat
    ev = step(g)
    assert sec(g, 10)["beautify"] == [[B]]        # no completed section in quadrant 1: clockwise to 10
    assert vp(ev) == 0
    g2 = carsten()
    mat(g2)["space"] = 0
    sec(g2, 10)["beautify"] = [[0]]
    stacks(g2, s3="orange")
    to_step2(g2, 3)
    ev2 = step(g2)
    assert vp(ev2) == 2


def test_carsten_two_green_advance_solo_rondel_three_vp():
    g = carsten()
    mat(g)["space"] = 0                           # red mat
    stacks(g, s0="green")
    to_step2(g, 0)                                # green, green, red
    ev = step(g)
    assert sec(g, 1)["red"] == [B, B]
    assert mat(g)["space"] == 1 and vp(ev) == 3


def test_carsten_all_three_match_achievement_to_box_or_ten_vp():
    g = carsten()
    mat(g)["space"] = 0                           # red mat
    g.state["table"]["red"] = [9, 5]
    g.state["table"]["multi"] = [17, 13]          # a red tile may sit in the multicoloured row
    stacks(g, s1="red")
    to_step2(g, 1)                                # red, red, red
    ev = step(g)
    assert g.state["table"]["red"] == [9] and g.state["table"]["multi"] == [17, 13]
    assert vp(ev) == 0 and g.state["players"][B]["tiles"] == []
    g.state["table"] = {r: [] for r in g.state["table"]}
    g.state["table"]["blue"] = [2]
    to_step2(g, 1)
    g.state["stacks"][1] = ["red", "red"]
    ev = step(g)
    assert vp(ev) == 10


def test_carsten_five_vp_without_a_stack():
    g = carsten()
    mat(g)["space"] = 3                           # green mat, quadrant 4
    stacks(g, s1=None)
    to_step2(g, 1)                                # red space, no stack
    ev = step(g)
    assert vp(ev) == 5
    assert sec(g, 16)["red"] == [B, B]            # the two colours left differ: red, then green
    assert sec(g, 10)["plots"][0]["kind"] == "natural"


def test_carsten_completing_a_section_one_plus_two_vp():
    g = carsten()
    S = g.state
    mat(g)["space"] = 3                           # quadrant 4
    fill_roads(g, [16], "blue", seat=B)
    sec(g, 16)["red"] = []
    for i in sec(g, 16)["icons"]:
        i["cubes"] = [B]
    S["years"][1]["bonus"] = None
    stacks(g, s5="blue")                          # red, blue, green: red completes section 16
    sec(g, 16)["red"] = [B]
    to_step2(g, 5)
    ev = step(g)
    assert sec(g, 16)["done"]
    scores = [e["vp"] for e in ev if e["type"] == "score" and e.get("seat") == B]
    assert scores[:3] == [8, 1, 2]


def test_carsten_step4_tile_beside_supervisor_and_advance_clockwise_wrapping():
    g = carsten()
    mat(g)["space"] = 3
    mat(g)["tiles"][3] = "blue"
    stacks(g, s2="orange")
    to_step2(g, 2)
    g.state["ts"]["solo_step"] = 4
    box = g.state["box"]["blue"]
    ev = step(g)
    assert mat(g)["tiles"][3] == "orange" and g.state["box"]["blue"] == box + 1
    assert mat(g)["space"] == 0 and "to space 1" in text(ev)


def test_carsten_mat_colour_is_the_tile_beside_his_supervisor():
    g = carsten()
    mat(g)["space"] = 0
    mat(g)["tiles"][0] = "green"                  # covers the printed red
    stacks(g, s4="green")
    to_step2(g, 4)                                # green, green, green: all three match
    g.state["table"]["green"] = [4]
    step(g)
    assert g.state["table"]["green"] == []
