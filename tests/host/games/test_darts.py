"""Darts, rule by rule (seeds/001_ef80526ab0ed9dc2.txt, "Darts"; docs/rules/darts.md maps
every rule sentence to the test here that checks it)."""
import json
import random

import pytest

from ringside import games
from ringside.games import GameError, IllegalAction
from ringside.games import circles_common as cc
from ringside.games.darts import bots

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve"]


def new(n=2, **opts):
    return games.new("darts", NAMES[:n], seed=1, options=opts)


def started(n=2, starter=0, **opts):
    """A game past the flick-off, which `starter` won with an exact lap."""
    g = new(n, **opts)
    for seat in range(n):
        if seat == starter:
            g.apply(seat, {"type": "landed", "space": "7", "travel": 360.0})
        else:
            g.apply(seat, {"type": "off_ring"})
    assert g.state["phase"] == "flick" and g.state["active"] == starter
    return g


def valid_travel(g, space):
    """The shortest travel from the marble that reaches `space` validly."""
    origin = g.state["marble"]
    best = None
    for d in cc.DIRECTIONS:
        for laps in range(3):
            t = g.side.travel_to(origin, space, d, laps)
            if t and cc.steps_for(g.side, origin, space, t)[1] >= g.min_steps:
                if best is None or abs(t) < abs(best):
                    best = t
                break
    return best


def hit(g, space, **extra):
    seat = g.to_act()[0]
    a = {"type": "landed", "space": space, "travel": valid_travel(g, space)}
    a.update(extra)
    return g.apply(seat, a)


def miss(g):
    return g.apply(g.to_act()[0], {"type": "off_ring"})


def skip_lucky(g):
    if g.state["phase"] == "lucky_pick":
        g.apply(g.to_act()[0], {"type": "lucky_skip"})


def cubes(g, space):
    return g.state["board"][space]


# ----- players, components, set-up -----

def test_two_to_five_players():
    for n in range(2, 6):
        assert games.new("darts", NAMES[:n], seed=0).players == NAMES[:n]
    for bad in (["Ann"], NAMES + ["Fay"]):
        with pytest.raises(GameError, match="2 to 5 players"):
            games.new("darts", bad, seed=0)


def test_five_cubes_per_colour_one_scores_four_play():
    g = started(3)
    assert g.data["cubes_per_colour"] == 5
    assert g.state["scores"] == [0, 0, 0]          # scoring cubes on the 0 space
    assert g.state["hand"] == [4, 4, 4]


def test_board_is_the_darts_side_and_the_marble_starts_on_the_7():
    g = new()
    assert g.side.name == "darts" and len(g.side.ids) == 20
    assert g.state["marble"] == "7"
    assert g.view()["flick"] == {"seat": 0, "from": "7", "directions": ["cw", "ccw"], "min_steps": 0,
                                 "purpose": "flickoff", "target_travel": 360.0}


def test_spaces_are_in_dartboard_order_and_score_their_number():
    g = new()
    cw = g.view()["spaces_cw"]
    board = [20, 1, 18, 4, 13, 6, 10, 15, 2, 17, 3, 19, 7, 16, 8, 11, 14, 9, 12, 5]
    k = cw.index("20")
    assert [int(x) for x in cw[k:] + cw[:k]] == board
    assert all(g.points[s] == int(s) for s in g.side.ids)


def test_a_board_without_the_7_cannot_start_and_says_which_space():
    ring = json.loads(cc.RING_PATH.read_text())
    for sp in ring["sides"]["darts"]["spaces"]:
        if sp["id"] == "7":
            sp["id"] = "77"
    ring["sides"]["darts"]["start"] = "77"
    with pytest.raises(GameError, match="needs space '7'"):
        games.new("darts", ["a", "b"], seed=0, options={"ring": ring})


def test_replaced_data_is_validated():
    d = json.loads((cc.RING_PATH.parents[1] / "host/ringside/games/darts/data.json").read_text())
    d["turns_per_round"] = 9
    with pytest.raises(GameError, match="turns_per_round"):
        games.new("darts", ["a", "b"], seed=0, options={"data": d})
    with pytest.raises(GameError, match="no option"):
        games.new("darts", ["a", "b"], seed=0, options={"colour": 1})


# ----- the flick-off -----

def test_flick_off_closest_to_one_full_lap_starts():
    g = new(3)
    g.apply(0, {"type": "landed", "space": "19", "travel": 380.0})    # 20 past the 7
    assert g.state["marble"] == "7"                                    # back on the 7
    g.apply(1, {"type": "landed", "space": "16", "travel": -352.0})   # 8 short, clockwise
    g.apply(2, {"type": "off_ring"})
    assert g.state["phase"] == "flick" and g.state["active"] == 1 and g.state["round"] == 1
    assert g.state["hand"] == [4, 4, 4] and not g.view()["board"]      # markers taken back


def test_what_happened_names_the_person_at_the_table_as_you():
    # `make run` seats the person as "You": "Your flick-off", not "You's flick-off"
    g = games.new("darts", ["You", "Cy"], seed=1)
    ev = g.apply(0, {"type": "landed", "space": "19", "travel": 380.0})
    assert ev[0]["text"].startswith("Your flick-off stopped on 19")
    ev = g.apply(1, {"type": "off_ring"})
    assert ev[0]["text"].startswith("Cy's flick-off left the ring")
    assert games.possessive("You") == "Your" and games.possessive("Ann") == "Ann's"


def test_flick_off_marks_every_result_then_ties_flick_again():
    g = new(3)
    g.apply(0, {"type": "landed", "space": "7", "travel": 365.0})
    assert g.view()["flickoff"]["keys"] == {"0": [0, 5]}
    g.apply(1, {"type": "landed", "space": "7", "travel": -355.0})
    g.apply(2, {"type": "off_ring"})
    assert g.to_act() == [0] and g.state["flickoff"]["queue"] == [0, 1]
    g.apply(0, {"type": "off_ring"})
    g.apply(1, {"type": "landed", "space": "7", "travel": 361.0})
    assert g.state["active"] == 1 and g.state["phase"] == "flick"


def test_a_tiny_nudge_is_far_from_a_full_lap():
    g = new(2)
    g.apply(0, {"type": "landed", "space": "7", "travel": 4.0})
    g.apply(1, {"type": "landed", "space": "3", "travel": 300.0})
    assert g.state["active"] == 1


# ----- a turn -----

def test_play_proceeds_clockwise_four_turns_each():
    g = started(3, starter=1)
    order = []
    for _ in range(12):
        order.append(g.to_act()[0])
        miss(g)
    assert order == [1, 2, 0] * 4
    assert g.state["phase"] == "choose_starter"


def test_either_direction_from_the_current_position():
    g = started(2)
    hit(g, "3")                                      # from the 7
    assert g.state["marble"] == "3"
    # from the 3: ten spaces either way is valid
    cw10 = g.side.step("3", cc.CW, 10)
    ccw10 = g.side.step("3", cc.CCW, 10)
    assert cw10 == ccw10                             # the opposing space
    g2 = g.replay()
    g.apply(1, {"type": "landed", "space": cw10, "travel": g.side.travel_to("3", cw10, cc.CW)})
    g2.apply(1, {"type": "landed", "space": ccw10, "travel": g2.side.travel_to("3", ccw10, cc.CCW)})
    assert cubes(g, cw10)[1] == 1 and cubes(g2, ccw10)[1] == 1


def test_must_reach_at_least_the_opposing_space():
    g = started(2)
    nine = g.side.step("7", cc.CCW, 9)
    ev = g.apply(0, {"type": "landed", "space": nine, "travel": g.side.travel_to("7", nine, cc.CCW)})
    assert ev[0]["type"] == "invalid" and "short of the opposing space" in ev[0]["text"]
    assert g.state["aside"] == [1, 0] and g.state["hand"] == [3, 4] and not any(cubes(g, nine))
    assert g.state["marble"] == nine                 # the ball stays where it stopped
    opp = g.side.step(nine, cc.CW, 10)
    g.apply(1, {"type": "landed", "space": opp, "travel": g.side.travel_to(nine, opp, cc.CW)})
    assert cubes(g, opp)[1] == 1


def test_a_short_flick_that_went_round_the_ring_is_valid():
    g = started(2)
    near = g.side.step("7", cc.CCW, 2)
    t = g.side.travel_to("7", near, cc.CCW, laps=1)   # 22 spaces
    g.apply(0, {"type": "landed", "space": near, "travel": t})
    assert cubes(g, near)[0] == 1


def test_off_the_ring_is_invalid_and_the_ball_goes_next_to_the_7():
    g = started(2)
    hit(g, "3")
    ev = g.apply(1, {"type": "off_ring", "travel": -300.0})
    assert ev[0]["type"] == "invalid" and "left the ring" in ev[0]["text"]
    assert g.state["marble"] == "7" and g.state["aside"] == [0, 1]


def test_a_valid_turn_places_a_cube_where_the_ball_stopped():
    g = started(2)
    ev = hit(g, "20")
    assert cubes(g, "20") == [1, 0] and g.state["hand"] == [3, 4]
    assert ev[0]["type"] == "placed" and g.to_act() == [1]


def test_placing_removes_other_colours_for_the_round():
    g = started(3)
    hit(g, "20")
    hit(g, "20")                       # Bob knocks Ann off
    assert cubes(g, "20") == [0, 1, 0] and g.state["aside"] == [1, 0, 0]
    hit(g, "1")
    hit(g, "1")                        # Ann's own cube on 20 is gone, so she cannot re-take; place on 1
    hit(g, "20")                       # Bob adds a second cube on 20
    assert cubes(g, "20") == [0, 2, 0]
    hit(g, "20")                       # Cy removes both
    assert cubes(g, "20") == [0, 0, 1] and g.state["aside"][1] == 2


def test_yellow_hits_the_12_removes_blue_and_has_a_small_street():
    g = started(2)                    # Ann = yellow, Bob = blue
    hit(g, "5")
    hit(g, "12")
    hit(g, "9")
    miss(g)
    ev = hit(g, "12")
    assert "removing 1 Bob" in ev[0]["text"]
    pts = g.round_points()[0]
    assert pts["streets"] == [["9", "12", "5"]] and pts["points"] == 60


def test_an_ambiguous_landing_counts_as_the_lower_number():
    g = started(2)
    ev = hit(g, "12", alt="5")         # 12 and 5 are neighbours
    assert ev[0]["type"] == "ambiguous" and cubes(g, "5")[0] == 1 and not any(cubes(g, "12"))
    assert g.state["marble"] == "5"


def test_players_overrule_an_ambiguous_landing_by_correcting_it():
    g = started(2)
    t = valid_travel(g, "12")
    g.apply(0, {"type": "landed", "space": "12", "travel": t, "alt": "5"})
    g = g.undo()                                   # "it is on 12"
    g.apply(0, {"type": "landed", "space": "12", "travel": t})
    assert cubes(g, "12")[0] == 1 and not any(cubes(g, "5"))


def test_ambiguity_is_only_between_neighbours():
    g = started(2)
    with pytest.raises(IllegalAction, match="neighbours"):
        hit(g, "12", alt="20")
    assert g.state["hand"] == [4, 4] and len(g.log) == 2


def test_an_ambiguous_landing_may_fall_short_on_the_lower_number():
    g = started(2)
    # from the 7, anticlockwise: the 18 is the opposing space, the 4 one short of it
    assert g.side.step("7", cc.CCW, 10) == "18" and g.side.step("7", cc.CCW, 9) == "4"
    t = g.side.travel_to("7", "18", cc.CCW) - 8.0
    ev = g.apply(0, {"type": "landed", "space": "18", "travel": t, "alt": "4"})
    assert [e["type"] for e in ev] == ["ambiguous", "invalid"]
    assert g.state["aside"] == [1, 0] and g.state["marble"] == "4"


# ----- triples -----

def test_three_cubes_on_one_space_win_at_once():
    g = started(2)
    for _ in range(2):
        hit(g, "16")
        miss(g)
    ev = hit(g, "16")
    assert g.over and g.result["winners"] == ["Ann"] and "triple" in g.result["reason"]
    assert ev[-1]["type"] == "triple"
    assert g.result["scores"] == {"Ann": 0, "Bob": 0}      # no adding up
    assert g.to_act() == [] and g.legal_actions(1) == []
    with pytest.raises(IllegalAction, match="over"):
        g.apply(1, {"type": "off_ring"})


# ----- Lucky 7 -----

def test_hitting_the_7_places_a_cube_and_offers_a_move():
    g = started(2)
    hit(g, "20")
    hit(g, "7")
    assert cubes(g, "7")[1] == 1 and g.state["phase"] == "lucky_pick" and g.to_act() == [1]
    picks = [a for a in g.legal_actions(1) if a["type"] == "lucky_pick"]
    assert {(a["space"], a["colour"]) for a in picks} == {("20", 0)}     # not the cube just placed
    g.apply(1, {"type": "lucky_pick", "space": "20", "colour": 0})
    assert len(g.legal_actions(1)) == 19
    with pytest.raises(IllegalAction, match="another numbered space"):
        g.apply(1, {"type": "lucky_to", "space": "20"})
    g.apply(1, {"type": "lucky_to", "space": "7"})   # usual rules: it removes Bob's cube on the 7
    assert cubes(g, "7") == [1, 0] and g.state["aside"] == [0, 1] and g.to_act() == [0]


def test_the_lucky_move_is_optional():
    g = started(2)
    hit(g, "20")
    hit(g, "7")
    g.apply(1, {"type": "lucky_skip"})
    assert cubes(g, "20") == [1, 0] and g.to_act() == [0]


def test_no_lucky_move_when_no_other_cube_is_on_the_board():
    g = started(2)
    hit(g, "7")
    assert g.state["phase"] == "flick" and g.to_act() == [1]


def test_orange_moves_from_17_to_8_and_wins_with_a_triple():
    g = started(2)                  # Ann = orange
    hit(g, "8")
    miss(g)
    hit(g, "8")
    miss(g)
    hit(g, "17")
    miss(g)
    hit(g, "7")
    g.apply(0, {"type": "lucky_pick", "space": "17", "colour": 0})
    g.apply(0, {"type": "lucky_to", "space": "8"})
    assert g.over and g.result["winners"] == ["Ann"] and g.result["reason"] == "triple on 8"


def test_a_lucky_move_can_give_someone_else_a_triple():
    g = started(2)
    miss(g)
    hit(g, "8")
    miss(g)
    hit(g, "8")
    miss(g)
    hit(g, "2")
    hit(g, "7")
    g.apply(0, {"type": "lucky_pick", "space": "2", "colour": 1})
    g.apply(0, {"type": "lucky_to", "space": "8"})
    assert g.over and g.result["winners"] == ["Bob"]


# ----- end of the round -----

def test_after_four_turns_every_cube_is_on_the_board_or_aside_and_the_round_is_scored():
    g = started(2)
    hit(g, "20")
    hit(g, "3")
    miss(g)
    hit(g, "20")                      # removes Ann's 20
    hit(g, "1")
    hit(g, "10")
    hit(g, "14")
    assert g.state["hand"] == [0, 1]
    assert g.round_points()[0]["points"] == 1 + 14 and g.round_points()[1]["points"] == 3 + 20 + 10
    ev = miss(g)
    for p in range(2):
        on_board = sum(c[p] for c in g.state["board"].values())
        assert on_board + g.state["aside"][p] == 4
    assert g.state["scores"] == [15, 33]
    assert [e["total"] for e in ev if e["type"] == "scored"] == [15, 33]
    assert g.state["phase"] == "choose_starter" and g.to_act() == [0]     # Ann has fewer points


def test_streets_small_and_large_score_instead_of_their_numbers():
    g = started(3)
    side = g.side
    empty = {sid: [0, 0, 0] for sid in side.ids}

    def board(**spaces):
        b = {k: list(v) for k, v in empty.items()}
        for sid, who in spaces.items():
            for p in who:
                b[sid.lstrip("s")][p] += 1
        return b

    assert g.round_points(board(s20=[0], s1=[0], s18=[0]))[0] == {"points": 60, "streets": [["20", "1", "18"]]}
    assert g.round_points(board(s20=[0], s1=[0], s18=[0], s4=[0]))[0]["points"] == 80
    # cubes on 3 adjacent spaces of different colours are no street
    assert g.round_points(board(s20=[0], s1=[1], s18=[0]))[0]["points"] == 38
    # a second cube on a street space scores its number on top
    assert g.round_points(board(s20=[0, 0], s1=[0], s18=[0]))[0]["points"] == 80
    # streets wrap round the ring: 5 and 20 are neighbours
    r = g.round_points(board(s12=[0], s5=[0], s20=[0]))[0]
    assert r == {"points": 60, "streets": [["12", "5", "20"]]}


def test_the_fewest_points_choose_who_starts_and_the_ball_goes_back_to_the_7():
    g = started(2)
    for sid in ("20", "3", "10", "14"):
        hit(g, sid)
        miss(g)
    assert g.state["scores"] == [47, 0] and g.to_act() == [1]
    g.apply(1, {"type": "starter", "seat": 0})
    s = g.state
    assert s["round"] == 2 and s["active"] == 0 and s["marble"] == "7"
    assert s["hand"] == [4, 4] and s["aside"] == [0, 0] and not any(any(c) for c in s["board"].values())


def test_a_tie_for_fewest_points_goes_to_the_younger_player():
    for ages, chooser in ((None, 0), ([40, 9, 30], 1), ([12, 35, 12], 0)):
        g = started(3, ages=ages)
        for _ in range(12):
            miss(g)
        assert g.to_act() == [chooser]


# ----- end of the game -----

def _round_with(g, plan):
    """Play one round: plan[seat] = list of 4 spaces (None = miss)."""
    for k in range(4 * len(g.players)):
        seat = g.to_act()[0]
        sid = plan[seat][k // len(g.players)]
        if sid is None:
            miss(g)
        else:
            hit(g, sid)
            skip_lucky(g)


def test_at_least_100_at_the_end_of_a_round_wins():
    g = started(2)
    g.state["scores"] = [70, 10]
    _round_with(g, {0: ["10", "20", None, None], 1: [None] * 4})
    assert g.over and g.result["winners"] == ["Ann"] and g.result["scores"] == {"Ann": 100, "Bob": 10}


def test_100_during_a_round_is_not_yet_a_win():
    g = started(2)
    g.state["scores"] = [99, 0]
    hit(g, "20")
    assert not g.over


def test_several_over_100_the_most_points_win_and_an_exact_tie_shares():
    g = started(2)
    g.state["scores"] = [90, 95]
    _round_with(g, {0: ["20", None, None, None], 1: [None, "10", None, None]})
    assert g.result["winners"] == ["Ann"]
    g = started(2)
    g.state["scores"] = [90, 100]
    _round_with(g, {0: ["10", None, None, None], 1: [None, None, None, None]})
    assert g.over and sorted(g.result["winners"]) == ["Ann", "Bob"] and "shared" in g.result["reason"]


# ----- actions, saves, undo -----

def test_illegal_actions_change_nothing():
    g = started(2)
    hit(g, "20")
    before = json.dumps(g.state, sort_keys=True)
    for seat, a in [(0, {"type": "off_ring"}),                        # not Ann's turn
                    (1, {"type": "landed", "space": "99", "travel": 200}),
                    (1, {"type": "landed", "space": "3", "travel": "far"}),
                    (1, {"type": "landed", "space": "3"}),
                    (1, {"type": "landed", "space": "3", "travel": 20.0}),  # 20 degrees cannot reach the 3
                    (1, {"type": "lucky_skip"}),
                    (1, {"type": "starter", "seat": 0})]:
        with pytest.raises(IllegalAction):
            g.apply(seat, a)
        assert json.dumps(g.state, sort_keys=True) == before


def test_a_save_replays_to_the_same_state_and_undo_is_replay():
    g = games.new("darts", NAMES[:3], seed=5)
    games.play_random(g, random.Random(5), max_actions=40)
    h = games.load(g.to_json())
    assert h.state == g.state and h.log == g.log
    u = g.undo(3)
    assert u.state == g.replay(len(g.log) - 3).state and len(u.log) == len(g.log) - 3


def test_every_choice_is_a_legal_action_with_words():
    g = started(2)
    hit(g, "20")
    hit(g, "7")
    for a in g.legal_actions(1):
        assert isinstance(g.describe(a), str) and g.describe(a) != str(a)


# ----- bots -----

def test_good_bot_beats_weak_bot_and_aims_for_value():
    wins = 0
    for seed in range(6):
        g = games.new("darts", ["good", "weak"], seed=seed)
        who = [bots.make("good"), bots.make("weak")]
        rng = random.Random(seed)
        while not g.over:
            s = g.to_act()[0]
            g.apply(s, who[s].choose(g, s, rng))
        wins += g.result["winners"] == ["good"]
    assert wins >= 5


def test_good_bot_takes_the_triple_and_knocks_off_a_pair():
    g = started(2)
    hit(g, "11")
    miss(g)
    hit(g, "11")
    # Bob to flick: Ann has a pair on 11; the good bot should aim at it
    t = bots.good().aim(g, 1, random.Random(0))
    assert g.side.space_at(g.side.centre(g.state["marble"]) + t) == "11"
    miss(g)
    t = bots.good().aim(g, 0, random.Random(0))
    assert g.side.space_at(g.side.centre(g.state["marble"]) + t) == "11"


def test_random_bot_only_plays_legal_actions():
    g = games.new("darts", NAMES[:4], seed=2)
    b = bots.make("random")
    rng = random.Random(2)
    for _ in range(60):
        s = g.to_act()[0]
        a = b.choose(g, s, rng)
        assert a in g.legal_actions(s)
        g.apply(s, a)
    with pytest.raises(ValueError, match="no Darts bot"):
        bots.make("grandmaster")


# ----- at the table: the simulated ring, the LEDs, typed results -----

from ringside.sim.board import SimBoard  # noqa: E402
from ringside.table import SimPort, Table, typed_action  # noqa: E402


def _ring_order():
    """Clockwise space order, centres and numbers read straight from hardware/ring.json."""
    ring = json.loads(cc.RING_PATH.read_text())
    sp = ring["sides"]["darts"]["spaces"]
    cw = sorted(sp, key=lambda s: -((s["from_deg"] + ((s["to_deg"] - s["from_deg"]) % 360) / 2) % 360))
    centre = {s["id"]: (s["from_deg"] + ((s["to_deg"] - s["from_deg"]) % 360) / 2) % 360 for s in sp}
    return [s["id"] for s in cw], centre


def recount_darts(log, n):
    """Darts scored again from the game's log alone, with its own implementation of the
    rules: returns (winner seats, totals)."""
    order, centre = _ring_order()
    N = len(order)
    pos = {s: i for i, s in enumerate(order)}
    totals = [0] * n
    it = iter(log)

    def moved(origin, a):
        """spaces moved, counting laps (None = invalid: off or no travel)."""
        t = a["travel"]
        cw = t < 0
        k = (pos[a["space"]] - pos[origin]) % N if cw else (pos[origin] - pos[a["space"]]) % N
        arc = ((centre[origin] - centre[a["space"]]) if cw else (centre[a["space"]] - centre[origin])) % 360
        if k == 0:
            arc = 0
        return k + N * max(0, round((abs(t) - arc) / 360))

    queue, keys = list(range(n)), {}
    while True:                                            # the flick-off
        seat, a = next(it)
        keys[seat] = abs(abs(a["travel"]) - 360) if a["type"] == "landed" else 1e9
        queue.remove(seat)
        if not queue:
            best = min(round(v) for v in keys.values())
            tied = [s for s, v in keys.items() if round(v) == best]
            if len(tied) == 1:
                starter = tied[0]
                break
            queue, keys = tied, {}
    while True:                                            # rounds
        board = {s: [0] * n for s in order}
        marble = "7"
        for turn in range(4 * n):
            seat, a = next(it)
            assert seat == (starter + turn) % n
            if a["type"] == "landed" and a.get("alt"):
                a = {"type": "landed", "space": min(a["space"], a["alt"], key=int), "travel": a["travel"]}
            if a["type"] != "landed":
                marble = "7"
                continue
            steps = moved(marble, a)
            marble = a["space"]
            if steps < N // 2:
                continue
            for o in range(n):
                if o != seat:
                    board[a["space"]][o] = 0
            board[a["space"]][seat] += 1
            if board[a["space"]][seat] == 3:
                return [seat], totals
            if a["space"] == "7" and sum(sum(c) for c in board.values()) > 1:   # another cube to move
                s2, b = next(it)
                if b["type"] == "lucky_pick":
                    s3, c = next(it)
                    board[b["space"]][b["colour"]] -= 1
                    for o in range(n):
                        if o != b["colour"]:
                            board[c["space"]][o] = 0
                    board[c["space"]][b["colour"]] += 1
                    if board[c["space"]][b["colour"]] == 3:
                        return [b["colour"]], totals
        for p in range(n):
            mine = [s for s in order if board[s][p]]
            pts = sum(int(s) * board[s][p] for s in mine)
            ring_has = [board[order[i]][p] > 0 for i in range(N)]
            for i in range(N):               # runs begin where the previous space is empty
                if ring_has[i] and not ring_has[i - 1]:
                    L = 0
                    while ring_has[(i + L) % N] and L < N:
                        L += 1
                    if L >= 3:
                        size = 4 if L >= 4 else 3
                        run = [order[(i + k) % N] for k in range(size)]
                        pts += (80 if size == 4 else 60) - sum(int(s) for s in run)
            totals[p] += pts
        over = [p for p in range(n) if totals[p] >= 100]
        if over:
            top = max(totals[p] for p in over)
            return [p for p in over if totals[p] == top], totals
        seat, a = next(it)
        assert a["type"] == "starter"
        starter = a["seat"]


@pytest.fixture(scope="module")
def calibrated_darts_board():
    from ringside.app.cmd_play import calibrate_sim
    b = SimBoard(seed=21)
    calibrate_sim(b, "darts", log=lambda *a: None)
    return b


def test_a_whole_game_by_bots_on_the_simulated_ring_recounted_from_the_landings(calibrated_darts_board):
    g = games.new("darts", ["good", "weak", "random"], seed=21)
    table = Table(g, SimPort(calibrated_darts_board))
    who = [bots.make("good"), bots.make("weak"), bots.make("weak")]
    rng = random.Random(21)
    flicks = 0
    while not table.game.over:
        g = table.game
        s = g.to_act()[0]
        if who[s].wants_flick(g, s):
            table.apply(s, table.flick_sim(who[s].aim(g, s, rng), who[s].skill, rng))
            flicks += 1
        else:
            table.apply(s, who[s].choose(g, s, rng))
    g = table.game
    assert flicks > 8 and table.fallbacks <= flicks // 10 and table.leds_on
    winners, totals = recount_darts(g.log, 3)
    assert g.result["seats"] == winners
    assert [g.result["scores"][p] for p in g.players] == totals


def test_the_leds_show_the_player_and_the_cubes_owned():
    b = SimBoard(seed=2)
    g = started(2)
    table = Table(g, SimPort(b))
    table.apply(0, {"type": "landed", "space": "12", "travel": valid_travel(g, "12")})
    b.advance(3000)                                         # after the white pulse of the hit
    fr = b.pixels.frame
    led = b.fw_ring.led_at(int(g.side.centre("12") * 100))
    px = fr[3 * led:3 * led + 3]
    assert px[2] == 0 and px[0] > 0 and px[1] > 0           # Ann's yellow on the 12
    assert table._player == 1                               # Bob's colour shows: his turn


def test_typed_results_at_a_real_table():
    g = started(2)
    assert typed_action(g, "landed 12 ccw") == {"type": "landed", "space": "12",
                                                "travel": g.side.travel_to("7", "12", cc.CCW)}
    # no direction: the shortest valid reading (14 spaces anticlockwise; 6 clockwise is short)
    assert typed_action(g, "landed 12") == typed_action(g, "landed 12 ccw")
    assert typed_action(g, "landed 12 cw")["travel"] == g.side.travel_to("7", "12", cc.CW, 1)
    assert typed_action(g, "landed 12 cw short")["travel"] == g.side.travel_to("7", "12", cc.CW)
    assert typed_action(g, "off") == {"type": "off_ring"}
    a = typed_action(g, "16 ccw")                          # a lap round: the shortest valid reading
    assert g.apply(0, a)[0]["type"] == "placed"
    with pytest.raises(ValueError, match="no space"):
        typed_action(g, "landed 33 cw")
    f = new(2)
    a = typed_action(f, "landed 16 ccw")                   # the flick-off: nearest one full lap
    assert abs(abs(a["travel"]) - 360) < 20
