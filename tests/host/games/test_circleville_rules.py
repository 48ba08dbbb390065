"""Squaring Circleville: a test for each rule sentence (mapped in docs/rules/circleville.md).

Scenarios start from a dealt game and set the few pieces of state the rule needs, then drive
the engine one small choice at a time through apply(), as a menu or a bot would.
"""
import pytest

import ringside.games as G
from ringside.games import CHANCE, GameError, IllegalAction


def game(n=3, seed=1, **opts):
    g = G.new("circleville", ["Ann", "Bob", "Cy", "Dee"][:n], seed=seed, options=opts)
    while g.to_act() == [CHANCE]:
        g.apply(CHANCE, g.chance_action())
    return g


def active(g):
    return g.to_act()[0]


def P(g, seat=None):
    return g.state["players"][active(g) if seat is None else seat]


def rondel_to(g, space, top=None, stack=None):
    """Move the active assistant to `space` (placing it within reach first) with a chosen stack."""
    seat = active(g)
    if stack is not None:
        g.state["stacks"][space] = list(stack)
    elif top is not None:
        g.state["stacks"][space] = ["red", "red", "red", top]
    P(g)["assistant"] = (space - 1) % 8
    for p in g.state["players"]:
        if p is not P(g) and p["assistant"] == space:
            p["assistant"] = (space + 4) % 8
    g.apply(seat, {"type": "rondel", "space": space})
    return seat


def fill(g, num, seat=None, red=None, blue=None, raze=True):
    """Make a section nearly or fully worked by `seat` (cubes from its supply)."""
    seat = active(g) if seat is None else seat
    s, b = g.state["sections"][num - 1], g.board["sections"][num]
    for road, n in (("red", red), ("blue", blue)):
        n = b[road] if n is None else n
        for _ in range(n - len(s[road])):
            s[road].append(seat)
            g.state["players"][seat]["supply"] -= 1
    if raze:
        for i in s["icons"]:
            if not i["cubes"]:
                i["cubes"].append(seat)
                g.state["players"][seat]["supply"] -= 1
                g.state["queue"].append(i["kind"])


def complete(g, num, seat=None):
    """Complete a section outright through the engine's own clean-up (no year bonus)."""
    g._sec(num)["done"] = True
    g._sec(num)["icons"] = []


# ---------------------------------------------------------------- set-up
def test_starting_section_choices():
    for s in (1, 10, 15, 20):
        g = game(start=s)
        assert g.state["sections"][s - 1]["done"] and all(p["supervisor"] == s for p in g.state["players"])
    with pytest.raises(GameError, match="one of 1, 10, 15, 20"):
        G.new("circleville", ["A", "B"], seed=1, options={"start": 5})


def test_setup_action_tiles_bag_of_32_then_32_more():
    g = game(4)
    stacks = g.state["stacks"]
    dealt = [c for st in stacks for c in st]
    assert len(dealt) == 32 and all(dealt.count(c) == 8 for c in ("red", "blue", "orange", "green"))
    assert g.state["upcoming"] == [None] * 4 and g._bag_physical() == 28
    assert g.view(None)["upcoming"] == 4 and g.view(None)["bag"] == 28


def test_setup_scores_zero_assistants_on_smokestack_markers_zero():
    g = game(4)
    assert all(p["score"] == 0 and p["assistant"] == 0 and p["markers"] == [0, 0, 0, 0] and p["supply"] == 50
               for p in g.state["players"])
    assert g.board["rondel"][0] == "green"


def test_first_player_is_chance_and_recorded():
    firsts = {game(4, seed=s).state["first"] for s in range(12)}
    assert len(firsts) > 1
    g = game(3, seed=2)
    assert active(g) == g.state["first"]
    assert ("chance", {"type": "first_player", "seat": g.state["first"]}) in [tuple(e) for e in g.log]


# ---------------------------------------------------------------- step 1
def test_rondel_one_or_two_unoccupied_spaces_occupied_skipped_or_shared():
    g = game(3)
    seat = active(g)
    for i, p in enumerate(g.state["players"]):
        p["assistant"] = {seat: 0}.get(i, 1)
    dests = [a["space"] for a in g.legal_actions(seat)]
    assert dests == [1, 2, 3]          # 1 is occupied: share it, or skip it without counting
    with pytest.raises(IllegalAction, match="not reachable"):
        g.apply(seat, {"type": "rondel", "space": 4})
    assert 0 not in dests               # you must move


def test_action_colours_space_and_top_tile_and_single_action_when_empty():
    g = game(3)
    rondel_to(g, 2, stack=["green", "orange"])
    assert g.state["ts"]["avail"] == [["blue"], ["orange"]]
    g = game(3)
    rondel_to(g, 2, stack=[])
    assert g.state["ts"]["avail"] == [["blue"]]


# ---------------------------------------------------------------- step 2
def test_red_places_cubes_up_to_level_value_in_supervisor_section():
    g = game(3)
    seat = rondel_to(g, 1, top="blue")          # red space
    P(g)["supervisor"] = 1                        # unfinished section 1 (4 red squares)
    g.apply(seat, {"type": "act", "colour": "red", "action": "red"})
    assert g._sec(1)["red"] == [seat, seat]     # level 1 red places 2
    P(g)["mat"]["blue"] = ["tile"] * 4           # blue level 5: 6 cubes, only 2 blue squares
    g.apply(seat, {"type": "act", "colour": "blue", "action": "blue"})
    assert len(g._sec(1)["blue"]) == 2 and P(g)["supply"] == 46


def test_basic_refused_in_completed_section_and_explained():
    g = game(3)
    seat = rondel_to(g, 1, top="orange")
    with pytest.raises(IllegalAction, match="complete"):
        g.apply(seat, {"type": "act", "colour": "red", "action": "red"})
    with pytest.raises(IllegalAction, match="level 3"):
        g.apply(seat, {"type": "act", "colour": "red", "action": "beautify", "section": 10})


def test_either_order_and_no_third_action():
    g = game(3)
    seat = rondel_to(g, 1, top="blue")
    P(g)["supervisor"] = 1
    g.apply(seat, {"type": "act", "colour": "blue", "action": "blue"})
    g.apply(seat, {"type": "act", "colour": "red", "action": "red"})
    with pytest.raises(IllegalAction, match="no red action left"):
        g.apply(seat, {"type": "act", "colour": "red", "action": "move"})


def test_supervisor_moves_once_per_action_across_a_road_not_an_intersection():
    g = game(3)
    seat = rondel_to(g, 1, top="blue")
    with pytest.raises(IllegalAction, match="not one move"):
        g.apply(seat, {"type": "move", "to": 3})     # 10 and 3 do not touch
    g.apply(seat, {"type": "move", "to": 9})
    with pytest.raises(IllegalAction, match="already moved"):
        g.apply(seat, {"type": "move", "to": 13})
    g.apply(seat, {"type": "act", "colour": "red", "action": "move"})
    g.apply(seat, {"type": "stop"})
    g.apply(seat, {"type": "move", "to": 13})       # the second action's move (before it)
    assert P(g)["supervisor"] == 13
    g2 = game(3, start=1)
    assert 8 not in g2.move_targets(1) and sorted(g2.move_targets(1)) == [2, 3, 10, 20]   # 1 meets 8 at a corner


def test_completed_large_section_moves_and_acting_anywhere_in_it():
    g = game(3, start=1)
    complete(g, 2)
    complete(g, 3)                                # 1, 2, 3: one completed large section of quadrant 1
    assert g.area(1) == [1, 2, 3]
    assert sorted(g.move_targets(1)) == [4, 5, 8, 10, 19, 20]
    complete(g, 10)                               # quadrant 2's completed section touches quadrant 1's
    assert 10 in g.move_targets(2) and 1 in g.move_targets(10)
    g.state["queue"] = ["golden"]
    seat = rondel_to(g, 4, stack=["green"])       # green space: build anywhere in 1-2-3
    P(g)["supervisor"] = 1
    g.apply(seat, {"type": "act", "colour": "green", "action": "green"})
    assert {"type": "build", "section": 3} in g.legal_actions(seat)


def test_running_out_of_cubes_pull_back_or_leave_undone():
    g = game(3)
    seat = rondel_to(g, 1, top="blue")
    P(g)["supervisor"] = 1
    fill(g, 2, seat, red=2, blue=0, raze=False)
    P(g)["supply"] = 1
    others = g.cubes_on_board(seat)
    g.apply(seat, {"type": "act", "colour": "red", "action": "red"})
    assert g._sec(1)["red"] == [seat] and g.state["ts"]["pending"]["kind"] == "red"
    assert {"type": "pull", "section": 2, "road": "red"} in g.legal_actions(seat)
    g.apply(seat, {"type": "pull", "section": 2, "road": "red"})
    assert g._sec(1)["red"] == [seat, seat] and len(g._sec(2)["red"]) == 1
    assert P(g)["supply"] == 0 and g.cubes_on_board(seat) == others + 1
    g2 = game(3)
    s2 = rondel_to(g2, 1, top="blue")
    P(g2)["supervisor"] = 1
    P(g2)["supply"] = 0
    g2.apply(s2, {"type": "act", "colour": "red", "action": "red"})
    g2.apply(s2, {"type": "stop"})                # the rest stays undone
    assert g2._sec(1)["red"] == []


def test_orange_razes_in_chosen_order_and_full_queue_blocks():
    g = game(3, start=1)
    seat = rondel_to(g, 3, top="blue")            # orange space
    P(g)["supervisor"] = 2                        # golden, natural
    P(g)["mat"]["orange"] = ["tile"]              # level 2: raze 2
    g.apply(seat, {"type": "act", "colour": "orange", "action": "orange"})
    with pytest.raises(IllegalAction, match="raze"):
        g.apply(seat, {"type": "stop"})
    g.apply(seat, {"type": "raze", "structure": "natural"})
    g.apply(seat, {"type": "raze", "structure": "golden"})
    assert g.state["queue"] == ["natural", "natural", "natural", "golden"]
    assert sorted(len(i["cubes"]) for i in g._sec(2)["icons"]) == [1, 1]
    g2 = game(3, start=1)
    g2.state["queue"] = ["natural"] * 12
    s2 = rondel_to(g2, 3, top="blue")
    P(g2)["supervisor"] = 2
    with pytest.raises(IllegalAction, match="queue is full"):
        g2.apply(s2, {"type": "act", "colour": "orange", "action": "orange"})


def test_green_builds_from_the_front_and_advances_marker_with_plus_ten():
    g = game(3)
    g.state["queue"] = ["silver", "natural"]
    seat = rondel_to(g, 4, stack=["blue"])       # green space, blue tile
    P(g)["markers"][1] = 9
    g.apply(seat, {"type": "act", "colour": "green", "action": "green"})
    g.apply(seat, {"type": "build", "section": 10})
    plot = g._sec(10)["plots"][0]
    assert plot["kind"] == "silver" and plot["cubes"] == [seat, None] and g.state["queue"] == ["natural"]
    assert P(g)["markers"][1] == 10 and g.view(None)["players"][seat]["quadrants"][1] == "10 (+10)"
    g2 = game(3)
    g2.state["queue"] = []
    s2 = rondel_to(g2, 4, stack=["blue"])
    with pytest.raises(IllegalAction, match="queue is empty"):
        g2.apply(s2, {"type": "act", "colour": "green", "action": "green"})


def test_alternate_move_up_to_three():
    g = game(3)
    seat = rondel_to(g, 1, top="blue")
    g.apply(seat, {"type": "act", "colour": "red", "action": "move"})
    for s in (9, 7, 6):
        g.apply(seat, {"type": "move", "to": s})
    assert P(g)["supervisor"] == 6 and g.state["ts"]["pending"] is None


def test_take_equipment_three_slots_and_returns():
    g = game(3)
    seat = rondel_to(g, 1, top="blue")
    P(g)["mat"]["red"] = ["tile"]
    pool = list(g.state["equipment"])
    held = next(i for i in range(1, 23) if i not in pool)
    P(g)["tiles"] = [{"kind": "achievement", "id": 1}, {"kind": "achievement", "id": 2}, {"kind": "equipment", "id": held}]
    with pytest.raises(IllegalAction, match="full"):
        g.apply(seat, {"type": "act", "colour": "red", "action": "equipment", "tile": pool[0]})
    with pytest.raises(IllegalAction):
        g.apply(seat, {"type": "act", "colour": "red", "action": "equipment", "tile": pool[0], "return": 1})
    P(g)["tiles"][2] = {"kind": "equipment", "id": pool[1]}
    g.state["equipment"].remove(pool[1])
    g.apply(seat, {"type": "act", "colour": "red", "action": "equipment", "tile": pool[0], "return": pool[1]})
    assert {"kind": "equipment", "id": pool[0]} in P(g)["tiles"] and pool[1] in g.state["equipment"]


def test_beautify_and_improve_in_completed_section():
    g = game(3)
    seat = rondel_to(g, 1, top="blue")
    P(g)["mat"]["red"] = ["tile"] * 3             # level 4
    g._sec(10)["plots"][0].update(kind="brown", cubes=[(seat + 1) % 3, None])
    g.apply(seat, {"type": "act", "colour": "red", "action": "beautify", "section": 10})
    assert g._sec(10)["beautify"][0] == [seat] and P(g)["markers"][1] == 1
    acts = [a for a in g.legal_actions(seat) if a.get("action") == "improve"]
    assert acts == []                                # blue is level 1
    g2 = game(3)
    s2 = rondel_to(g2, 1, top="red")
    P(g2)["mat"]["red"] = ["tile"] * 3
    g2._sec(10)["plots"][0].update(kind="brown", cubes=[(s2 + 1) % 3, None])
    g2.apply(s2, {"type": "act", "colour": "red", "action": "improve", "section": 10, "plot": 0})
    assert g2._sec(10)["plots"][0]["cubes"] == [(s2 + 1) % 3, s2]
    with pytest.raises(IllegalAction):               # at most two cubes per structure
        g2.apply(s2, {"type": "act", "colour": "red", "action": "improve", "section": 10, "plot": 0})


def test_claim_achievement_two_vp_for_matching_row_and_multicoloured():
    g = game(3)
    seat = rondel_to(g, 1, top="blue")
    P(g)["mat"]["red"] = ["tile"] * 4
    P(g)["mat"]["blue"] = ["tile"] * 4
    g.state["table"]["red"] = [1]
    g.state["table"]["multi"] = [21]
    g.apply(seat, {"type": "act", "colour": "blue", "action": "achievement", "tile": 1})
    assert P(g)["score"] == 0                        # red row, blue action
    g.apply(seat, {"type": "act", "colour": "red", "action": "achievement", "tile": 21})
    assert P(g)["score"] == 2                        # multicoloured row always scores
    g3 = game(3)
    s3 = rondel_to(g3, 1, top="blue")
    P(g3)["mat"]["red"] = ["tile"] * 4
    g3.state["table"]["red"] = [1]
    g3.apply(s3, {"type": "act", "colour": "red", "action": "achievement", "tile": 1})
    assert P(g3)["score"] == 2


# ---------------------------------------------------------------- completing a section
def test_completion_ranks_tiebreaks_year_bonus_achievement_and_clean_up():
    g = game(3, seed=3)
    seat = rondel_to(g, 1, top="blue")
    o1, o2 = (seat + 1) % 3, (seat + 2) % 3
    P(g)["supervisor"] = 9                           # 3 red, 3 blue, 1 silver; box 7/4/2/1
    s = g._sec(9)
    s["red"] = [o1, o1]
    s["blue"] = [o2, o2, seat]
    s["icons"][0]["cubes"] = [o1]
    for who in (o1, o1, o1, o2, o2, seat):
        g.state["players"][who]["supply"] -= 1
    g.state["queue"].append("silver")
    # o1 has 3 cubes, o2 2, seat 2; seat and o2 tie on cubes and icons: clockwise from the active player
    year = g.state["years"][1]
    year["achievement"] = 5
    kind = year["bonus"]
    g.apply(seat, {"type": "act", "colour": "red", "action": "red"})
    scores = [g.state["players"][x]["score"] for x in (o1, seat, o2)]
    assert scores == [7, 4, 2]
    assert P(g)["bonus"] == [kind] and year["bonus"] is None
    assert 5 in g.state["table"][g.tiles["achievements"][5]["colour"]]
    assert s["done"] and s["red"] == [] and s["number"] == o1
    assert g.state["players"][o1]["markers"][1] == 1 and P(g)["supervisor"] == 9
    for x in range(3):
        assert g.state["players"][x]["supply"] + g.cubes_on_board(x) == 50


def test_two_player_skips_highlighted_second_place():
    g = game(2, seed=3)
    seat = rondel_to(g, 1, top="blue")
    o = 1 - seat
    P(g)["supervisor"] = 9
    s = g._sec(9)
    s["red"] = [o, o]
    s["blue"] = [o, seat, seat]
    s["icons"][0]["cubes"] = [o]
    P(g)["supply"] -= 2
    g.state["players"][o]["supply"] -= 4
    g.state["queue"].append("silver")
    g.apply(seat, {"type": "act", "colour": "red", "action": "red"})   # 4 cubes against 3
    assert g.state["players"][o]["score"] == 7 and P(g)["score"] == 2   # 7, (4 skipped), 2


def test_two_sections_complete_from_one_action_gives_a_choice():
    g = game(3, start=1)
    seat = rondel_to(g, 1, top="blue")
    fill(g, 2, seat)
    fill(g, 3, seat)
    g._sec(2)["done"] = False
    # both are already complete: the next action's check finds both
    g.apply(seat, {"type": "act", "colour": "red", "action": "move"})
    g.apply(seat, {"type": "stop"})
    assert g.state["ts"]["pending"] == {"kind": "resolve", "sections": [2, 3]}
    g.apply(seat, {"type": "resolve", "section": 3})
    assert g._sec(3)["done"] and g._sec(2)["done"]
    assert g.state["years"][1]["bonus"] is None and g.state["years"][2]["bonus"] is None


# ---------------------------------------------------------------- steps 3 and 4
def test_bonus_action_returns_top_tiles_and_flipped_tiles_count():
    g = game(3)
    seat = rondel_to(g, 1, top="blue")
    P(g)["mat"] = {"red": ["tile", "tile"], "blue": ["tile"], "orange": ["yb:raze"], "green": ["tile"]}
    with pytest.raises(IllegalAction, match="after your two actions"):
        g.apply(seat, {"type": "bonus_action"})
    g.apply(seat, {"type": "act", "colour": "red", "action": "move"})
    g.apply(seat, {"type": "stop"})
    g.apply(seat, {"type": "act", "colour": "blue", "action": "move"})
    g.apply(seat, {"type": "stop"})
    box = dict(g.state["box"])
    g.apply(seat, {"type": "bonus_action"})
    assert P(g)["mat"] == {"red": ["tile"], "blue": [], "orange": [], "green": []}
    assert g.state["box"]["red"] == box["red"] + 1 and g.state["discarded_bonus"] == 1
    assert g.state["ts"]["avail"] == [["red", "blue", "orange", "green"]]
    g.apply(seat, {"type": "act", "colour": "red", "action": "move"})
    g.apply(seat, {"type": "stop"})
    with pytest.raises(IllegalAction, match="had your bonus action"):
        g.apply(seat, {"type": "bonus_action"})


def test_step4_tile_to_lowest_open_space_or_box_then_upcoming_slides():
    g = game(3)
    seat = rondel_to(g, 1, stack=["orange"])
    P(g)["mat"]["orange"] = ["tile"] * 4
    g.apply(seat, {"type": "end_turn"})
    assert g.state["box"]["orange"] == 1 and len(P(g, seat)["mat"]["orange"]) == 4
    assert g.to_act() == [CHANCE] and g.state["stacks"][1] == [None] * 4   # the face-down stack slid in
    for _ in range(4):
        g.apply(CHANCE, g.chance_action())
    assert None not in g.state["stacks"][1] and g.state["upcoming"] == [None] * 4 and g._bag_physical() == 24
    g2 = game(3)
    s2 = rondel_to(g2, 1, stack=["red", "blue"])
    g2.apply(s2, {"type": "end_turn"})
    assert g2.state["players"][s2]["mat"]["blue"] == ["tile"] and g2.state["stacks"][1] == ["red"]


def test_empty_bag_leaves_upcoming_slot_empty():
    g = game(3)
    g.state["bag"] = {"red": 4, "blue": 0, "orange": 0, "green": 0}   # only the 4 face-down tiles
    seat = rondel_to(g, 1, stack=["orange"])
    g.apply(seat, {"type": "end_turn"})
    while g.to_act() == [CHANCE]:
        g.apply(CHANCE, g.chance_action())
    assert g.state["stacks"][1] == ["red"] * 4 and g.state["upcoming"] == []


def test_bonus_action_needs_a_tile_in_every_column():
    g = game(3)
    seat = rondel_to(g, 1, stack=[])
    P(g)["mat"] = {"red": ["tile"], "blue": ["tile"], "orange": ["tile"], "green": []}
    g.apply(seat, {"type": "act", "colour": "red", "action": "move"})
    g.apply(seat, {"type": "stop"})
    assert not [a for a in g.legal_actions(seat) if a["type"] == "bonus_action"]
    with pytest.raises(IllegalAction, match="each of the four columns"):
        g.apply(seat, {"type": "bonus_action"})
