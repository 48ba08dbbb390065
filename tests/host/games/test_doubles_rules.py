"""Doubles, rule by rule: every sentence of seed 003 and of its "How this version reads the
rules" (docs/rules/doubles.md maps each sentence to the test here that checks it).

Default board (data/board.json): columns a-f, rows 1-5 from the top; rows 2-3 red, 1 and 4
green, 5 blue; yellow squares e1 b2 e3 b4 d5. Corners: 0 lower-right, 1 lower-left,
2 upper-left, 3 upper-right.
"""
import pytest

import ringside.games as games
from ringside.games import CHANCE, IllegalAction
from ringside.games.doubles import render
from ringside.games.doubles.board import CORNER_NAMES, LL, LR, UL, UR

NAMES = ["Ann", "Bob", "Cy", "Di"]


def new(n=2, first=0, **options):
    g = games.new("doubles", NAMES[:n], seed=5, options=options)
    g.apply(CHANCE, {"type": "toss", "first": first})
    return g


def put(g, square, owner, pattern, facing):
    """Set a piece down from its owner's hand (building a position for a test)."""
    i = g.geo.index[square]
    assert g.state["board"][i] is None
    assert g.state["hands"][owner][pattern - 1] > 0
    g.state["hands"][owner][pattern - 1] -= 1
    g.state["board"][i] = [owner, pattern, facing]


def roll(g, value):
    return g.apply(CHANCE, {"type": "roll", "value": value})


def piece(g, square):
    return g.state["board"][g.geo.index[square]]


def accounted(g):
    """Every player's eight pieces are in their hand or on the board, two of each pattern."""
    for seat in range(len(g.players)):
        for p in (1, 2, 3, 4):
            on_board = sum(1 for x in g.state["board"] if x is not None and x[0] == seat and x[1] == p)
            assert on_board + g.state["hands"][seat][p - 1] == 2


# --- The rules: Set up ---------------------------------------------------------------------

@pytest.mark.parametrize("n,rows", [(2, {"2", "3"}), (3, {"1", "2", "3", "4"}), (4, {"1", "2", "3", "4", "5"})])
def test_rows_in_play_red_for_2_green_for_3_blue_for_4(n, rows):
    g = new(n)
    in_play = {r["name"] for r in g.view()["rows"] if r["in_play"]}
    assert in_play == rows
    colours = {r["colour"] for r in g.view()["rows"] if r["in_play"]}
    assert colours == {2: {"red"}, 3: {"red", "green"}, 4: {"red", "green", "blue"}}[n]


@pytest.mark.parametrize("n,square,ok", [(2, "c1", False), (2, "c4", False), (2, "c2", True),
                                         (3, "c1", True), (3, "c4", True), (3, "c5", False),
                                         (4, "c5", True)])
def test_rows_not_in_play_take_no_pieces(n, square, ok):
    g = new(n)
    roll(g, 1)
    act = {"type": "add", "square": square, "pattern": 1}
    assert (act in g.legal_actions(0)) == ok
    if ok:
        g.apply(0, act)
        assert piece(g, square) == [0, 1, LL]
    else:
        before = g.to_json()
        with pytest.raises(IllegalAction, match="not in play with %d players" % n):
            g.apply(0, act)
        assert g.to_json() == before


def test_each_player_takes_eight_pieces_two_of_each_pattern():
    for n in (2, 3, 4):
        g = new(n)
        assert g.view()["hands"] == [{"1": 2, "2": 2, "3": 2, "4": 2}] * n
        accounted(g)


def test_a_coin_toss_picks_who_starts():
    g = games.new("doubles", NAMES[:2], seed=1)
    assert g.to_act() == [CHANCE]
    assert g.legal_actions(CHANCE) == [{"type": "toss", "first": 0}, {"type": "toss", "first": 1}]
    with pytest.raises(IllegalAction):
        g.apply(0, {"type": "add", "square": "c2", "pattern": 1})    # nobody moves before the toss
    firsts = set()
    for seed in range(20):
        g = games.new("doubles", NAMES[:2], seed=seed)
        g.apply(CHANCE, g.chance_action())
        firsts.add(g.state["turn"])
        assert g.log[0][1]["type"] == "toss"
    assert firsts == {0, 1}           # the seeded RNG gives either side
    g = new(2, first=1)
    assert g.state["turn"] == 1 and "Bob (Yellow) to start" in g.view()["what_happened"][0]


# --- Pieces ---------------------------------------------------------------------------------

def test_a_piece_fills_one_square_and_faces_one_corner():
    g = new()
    roll(g, 2)
    g.apply(0, {"type": "add", "square": "d3", "pattern": 3})
    sq = [s for row in g.view()["grid"] for s in row if s["square"] == "d3"][0]
    assert sq["piece"] == {"owner": 0, "letter": "B", "colour": "Blue", "points": 3,
                           "pattern": "plain", "faces": "upper-left"}
    roll(g, 1)
    with pytest.raises(IllegalAction, match="d3 is not empty"):
        g.apply(1, {"type": "add", "square": "d3", "pattern": 1})


@pytest.mark.parametrize("pattern,name", [(1, "crosshatched"), (2, "dotted"), (3, "plain"), (4, "black")])
def test_pattern_sets_points(pattern, name):
    # a circle of three pieces of this pattern, away from yellow, scores 3 x its points
    g = new()
    put(g, "f3", 1, 1 if pattern != 1 else 2, LR)     # keep the board from emptying
    put(g, "c2", 1, pattern, LR)
    put(g, "d2", 1, pattern, LL)
    roll(g, 3)                                          # a 3 sets a new piece facing upper-right
    ev = g.apply(0, {"type": "add", "square": "c3", "pattern": pattern})
    assert g.state["scores"] == [3 * pattern, 0]
    assert "%s %ds" % (name, pattern) in [e for e in ev if e["type"] == "circle"][0]["text"]


# --- A turn ---------------------------------------------------------------------------------

def test_the_die_is_rolled_first():
    g = new()
    assert g.to_act() == [CHANCE] and g.view()["die"] is None
    assert g.legal_actions(0) == []
    with pytest.raises(IllegalAction, match="not Ann's turn"):
        g.apply(0, {"type": "add", "square": "c2", "pattern": 1})
    assert g.legal_actions(CHANCE) == [{"type": "roll", "value": v} for v in (1, 2, 3, 4)]
    for bad in (0, 5, "3", 2.5, None):
        with pytest.raises(IllegalAction):
            roll(g, bad)
    roll(g, 4)
    assert g.to_act() == [0] and g.view()["die"] == 4
    # after the move the next player rolls first again
    g.apply(0, {"type": "add", "square": "c2", "pattern": 1})
    assert g.to_act() == [CHANCE] and g.view()["die"] is None and g.state["turn"] == 1


def test_one_action_add_turn_or_remove_then_the_turn_passes():
    g = new()
    put(g, "a2", 1, 2, LR)
    roll(g, 1)
    kinds = {a["type"] for a in g.legal_actions(0)}
    assert kinds == {"add", "turn", "remove"}
    g.apply(0, {"type": "turn", "square": "a2"})      # another player's piece
    assert piece(g, "a2") == [1, 2, LL]
    assert g.to_act() == [CHANCE] and g.state["turn"] == 1
    with pytest.raises(IllegalAction):
        g.apply(0, {"type": "turn", "square": "a2"})  # no second action
    for bad in ({"type": "pass"}, {"type": "move", "square": "a2"}):
        roll(g, 2) if g.to_act() == [CHANCE] else None
        with pytest.raises(IllegalAction):
            g.apply(1, bad)


def test_turn_any_piece_yours_or_another_players():
    g = new()
    put(g, "b2", 0, 1, LR)
    put(g, "c2", 1, 1, LR)
    roll(g, 1)
    acts = g.legal_actions(0)
    assert {"type": "turn", "square": "b2"} in acts and {"type": "turn", "square": "c2"} in acts
    g.apply(0, {"type": "turn", "square": "b2"})
    roll(g, 2)
    g.apply(1, {"type": "turn", "square": "b2"})      # Bob turns Ann's piece
    assert piece(g, "b2") == [0, 1, UR]


@pytest.mark.parametrize("die,faces", [(1, "lower-left"), (2, "upper-left"), (3, "upper-right"), (4, "lower-right")])
def test_orientation_after_an_add_with_each_die_value(die, faces):
    g = new()
    roll(g, die)
    ev = g.apply(0, {"type": "add", "square": "e2", "pattern": 2})
    assert CORNER_NAMES[piece(g, "e2")[2]] == faces
    assert "face %s" % faces in ev[0]["text"]


@pytest.mark.parametrize("start", [LR, LL, UL, UR])
@pytest.mark.parametrize("die", [1, 2, 3, 4])
def test_turning_goes_clockwise_by_the_die(start, die):
    clockwise = [LR, LL, UL, UR]          # lower-right, lower-left, upper-left, upper-right
    g = new()
    put(g, "a3", 1, 3, start)
    roll(g, die)
    g.apply(0, {"type": "turn", "square": "a3"})
    assert piece(g, "a3") == [1, 3, clockwise[(clockwise.index(start) + die) % 4]]


def test_a_4_turns_full_circle_and_still_counts_as_the_action():
    g = new()
    put(g, "d2", 1, 4, UL)
    roll(g, 4)
    ev = g.apply(0, {"type": "turn", "square": "d2"})
    assert piece(g, "d2") == [1, 4, UL]
    assert g.log[-1] == (0, {"type": "turn", "square": "d2"})
    assert g.state["turn"] == 1 and g.to_act() == [CHANCE]
    assert "a full turn: it still faces upper-left" in ev[0]["text"]


# --- Three quarters -------------------------------------------------------------------------

def test_three_pieces_facing_a_shared_corner_make_a_circle():
    g = new()
    put(g, "f3", 0, 1, LR)
    put(g, "c2", 1, 3, LR)     # the corner where c2, d2, c3, d3 meet
    put(g, "d2", 1, 3, LL)
    roll(g, 2)                 # a new piece faces upper-left: on d3 that is the shared corner
    ev = g.apply(0, {"type": "add", "square": "d3", "pattern": 3})
    circle = [e for e in ev if e["type"] == "circle"][0]
    assert sorted(circle["squares"]) == ["c2", "d2", "d3"] and circle["points"] == 9
    assert "round the corner of c2, d2, c3, d3" in circle["text"]


def test_three_pieces_not_all_facing_the_corner_make_no_circle():
    g = new()
    put(g, "c2", 1, 3, LR)
    put(g, "d2", 1, 3, LL)
    roll(g, 1)                 # on d3 a 1 faces lower-left, away from the corner
    g.apply(0, {"type": "add", "square": "d3", "pattern": 3})
    assert g.state["scores"] == [0, 0] and piece(g, "d3") == [0, 3, LL]


def test_all_three_must_have_the_same_pattern():
    g = new()
    put(g, "c2", 1, 3, LR)
    put(g, "d2", 1, 2, LL)
    roll(g, 2)
    g.apply(0, {"type": "add", "square": "d3", "pattern": 3})
    assert g.state["scores"] == [0, 0]
    assert piece(g, "c2") and piece(g, "d2") and piece(g, "d3")


def test_the_pieces_of_a_circle_can_belong_to_anyone():
    # 3 players; the corner of b2, c2, b3, c3: b3 faces it from upper-right, c3 from
    # upper-left, and a new piece on c2 faces it after a 1 (lower-left)
    g = new(3)
    put(g, "a1", 0, 1, LR)
    put(g, "b3", 1, 2, UR)
    put(g, "c3", 2, 2, UL)
    roll(g, 1)
    ev = g.apply(0, {"type": "add", "square": "c2", "pattern": 2})
    circle = [e for e in ev if e["type"] == "circle"][0]
    assert sorted(circle["squares"]) == ["b3", "c2", "c3"]
    assert "1 to Ann, 1 to Bob, 1 to Cy" in circle["text"]
    assert g.state["scores"] == [6, 0, 0]
    accounted(g)


def test_a_circle_only_forms_round_a_corner_shared_by_four_squares_in_play():
    # 2 players: rows 2-3, six columns: five inner corners; 3: four rows, 15; 4: five rows, 20
    assert [len(new(n).geo.corners) for n in (2, 3, 4)] == [5, 15, 20]
    g = new(2)
    geo = g.geo
    # a piece on row 2 facing up faces a corner the green row 1 shares: no circle corner
    assert geo.corner_of[geo.index["c2"]][UL] == -1 and geo.corner_of[geo.index["c2"]][UR] == -1
    assert geo.corner_of[geo.index["a3"]][LL] == -1          # the board's edge
    assert geo.corner_of[geo.index["c2"]][LR] >= 0
    # with 3 players the same corner is shared by four squares in play
    g3 = new(3)
    assert g3.geo.corner_of[g3.geo.index["c2"]][UL] >= 0
    # three pieces round a corner that joins a row not in play cannot even be set down
    roll(g, 2)
    with pytest.raises(IllegalAction, match="not in play"):
        g.apply(0, {"type": "add", "square": "c1", "pattern": 1})


def test_rows_not_in_play_are_shown_greyed_and_hatched():
    g = new(2)
    v = g.view()
    for r, row in zip(v["rows"], v["grid"], strict=True):
        assert all(sq["in_play"] == (r["colour"] == "red") for sq in row)
    lines = render(v).splitlines()
    assert any(line.startswith("1 green") and "//////" in line and "not in play" in line for line in lines)
    assert any(line.startswith("2 red") and "/" not in line for line in lines)


# --- Remove ---------------------------------------------------------------------------------

def test_remove_needs_a_piece_of_the_same_pattern_in_hand():
    g = new()
    put(g, "b3", 1, 4, LR)
    put(g, "c3", 1, 3, LR)
    g.state["hands"][0] = [2, 2, 2, 0]               # Ann holds no black 4
    g.state["board"][g.geo.index["a2"]] = [0, 4, LR]  # (her two 4s on the board)
    g.state["board"][g.geo.index["a3"]] = [0, 4, LR]
    accounted(g)
    roll(g, 1)
    assert {"type": "remove", "square": "b3"} not in g.legal_actions(0)
    before = g.to_json(), [list(h) for h in g.state["hands"]]
    with pytest.raises(IllegalAction, match="needs a piece worth 4 in hand"):
        g.apply(0, {"type": "remove", "square": "b3"})
    assert (g.to_json(), g.state["hands"]) == before
    g.apply(0, {"type": "remove", "square": "c3"})
    assert piece(g, "c3") is None


def test_remove_takes_both_back_to_their_owners_and_nobody_scores():
    g = new()
    g.state["scores"] = [5, 7]
    put(g, "b3", 1, 2, UL)
    put(g, "e2", 0, 1, LR)
    roll(g, 3)
    ev = g.apply(0, {"type": "remove", "square": "b3"})
    assert piece(g, "b3") is None
    assert g.state["hands"] == [[1, 2, 2, 2], [2, 2, 2, 2]]   # Bob's 2 back to Bob, Ann's 2 kept
    assert g.state["scores"] == [5, 7]
    assert "both go back to their owners and nobody scores" in ev[0]["text"]
    accounted(g)


@pytest.mark.parametrize("die", [1, 2, 3, 4])
def test_a_remove_does_not_use_the_die(die):
    g = new()
    put(g, "c3", 1, 3, UR)
    put(g, "d3", 1, 3, LL)
    roll(g, die)
    g.apply(0, {"type": "remove", "square": "c3"})
    # whatever the die, the same result: c3 empty, nothing turned
    assert piece(g, "c3") is None and piece(g, "d3") == [1, 3, LL]
    assert g.state["hands"] == [[2, 2, 2, 2], [2, 2, 1, 2]] and g.state["removes"] == [2, 3]


def test_you_may_remove_your_own_piece():
    g = new()
    put(g, "c3", 0, 3, UR)
    put(g, "d3", 1, 1, UR)
    roll(g, 2)
    g.apply(0, {"type": "remove", "square": "c3"})
    assert piece(g, "c3") is None and g.state["hands"][0] == [2, 2, 2, 2]
    assert g.state["removes"] == [2, 3]


def test_a_fourth_remove_is_refused():
    g = new()
    for sq in ("a2", "b2", "c2", "d2"):
        put(g, sq, 1, 1 if sq in ("a2", "b2") else 2, LR)
    put(g, "f3", 0, 4, LR)
    for k, sq in enumerate(("a2", "b2", "c2")):
        roll(g, 1)
        g.apply(0, {"type": "remove", "square": sq})
        assert g.view()["removes_left"] == [2 - k, 3]
        roll(g, 4)
        g.apply(1, {"type": "turn", "square": "f3"})
    roll(g, 1)
    assert not [a for a in g.legal_actions(0) if a["type"] == "remove"]
    before = g.to_json()
    with pytest.raises(IllegalAction, match="all 3 removes are used"):
        g.apply(0, {"type": "remove", "square": "d2"})
    assert g.to_json() == before and piece(g, "d2") == [1, 2, LR]


# --- Score ------------------------------------------------------------------------------------

def test_the_completing_player_scores_and_the_pieces_leave_the_board():
    g = new()
    put(g, "a3", 0, 1, LR)
    put(g, "c2", 0, 4, LR)      # Ann's pieces ...
    put(g, "d2", 0, 4, LL)
    put(g, "d3", 1, 4, LR)      # ... and Bob's, which Bob turns to complete the circle
    roll(g, 4)
    g.apply(0, {"type": "turn", "square": "a3"})
    roll(g, 2)
    g.apply(1, {"type": "turn", "square": "d3"})    # lower-right + 2 = upper-left: the corner
    assert g.state["scores"] == [0, 12]
    assert piece(g, "c2") is None and piece(g, "d2") is None and piece(g, "d3") is None
    accounted(g)


def test_a_circle_on_a_yellow_square_doubles():
    g = new()
    put(g, "f3", 1, 1, LR)
    put(g, "a2", 1, 2, LR)      # the corner of a2, b2, a3, b3; b2 is yellow
    put(g, "b2", 1, 2, LL)
    roll(g, 3)
    ev = g.apply(0, {"type": "add", "square": "a3", "pattern": 2})
    assert g.state["scores"] == [12, 0]
    circle = [e for e in ev if e["type"] == "circle"][0]
    assert circle["doubled"] and "6 points, doubled on yellow to 12" in circle["text"]


def test_a_circle_next_to_but_not_on_yellow_is_not_doubled():
    g = new()
    put(g, "f3", 1, 1, LR)
    put(g, "a2", 1, 2, LR)      # b2 (yellow) stays empty: the circle is a2, a3, b3
    put(g, "a3", 1, 2, UR)
    roll(g, 2)
    g.apply(0, {"type": "add", "square": "b3", "pattern": 2})
    assert g.state["scores"] == [6, 0]


def test_circle_pieces_go_back_to_their_owners_and_can_be_played_again():
    g = new()
    put(g, "f3", 0, 1, LR)
    put(g, "c2", 1, 3, LR)
    put(g, "d2", 1, 3, LL)
    g.state["hands"][0][2] = 1
    g.state["board"][g.geo.index["e2"]] = [0, 3, LR]     # Ann's last plain 3 is her move
    accounted(g)
    roll(g, 3)
    g.apply(0, {"type": "add", "square": "c3", "pattern": 3})
    assert g.state["hands"] == [[1, 2, 1, 2], [2, 2, 2, 2]]
    roll(g, 1)
    g.apply(1, {"type": "add", "square": "c2", "pattern": 3})   # Bob plays his 3 again
    roll(g, 1)
    g.apply(0, {"type": "add", "square": "c3", "pattern": 3})   # and Ann hers
    accounted(g)


# --- Keep the board -------------------------------------------------------------------------

def test_the_move_that_empties_the_board_costs_10_after_the_circles_points():
    g = new()
    put(g, "c2", 1, 3, LR)
    put(g, "d2", 1, 3, LL)
    roll(g, 3)
    ev = g.apply(0, {"type": "add", "square": "c3", "pattern": 3})
    assert [e["type"] for e in ev[:3]] == ["add", "circle", "penalty"]
    assert "now 9" in ev[1]["text"] and "loses 10 points, now -1" in ev[2]["text"]
    assert g.state["scores"] == [-1, 0]      # scores can go below zero
    assert not any(g.state["board"])


def test_a_remove_that_empties_the_board_costs_10_and_scores_go_below_zero():
    g = new()
    put(g, "e3", 1, 4, LR)
    roll(g, 2)
    ev = g.apply(0, {"type": "remove", "square": "e3"})
    assert g.state["scores"] == [-10, 0] and ev[1]["type"] == "penalty"
    roll(g, 1)
    g.apply(1, {"type": "add", "square": "e3", "pattern": 4})
    roll(g, 1)
    g.apply(0, {"type": "remove", "square": "e3"})
    assert g.state["scores"] == [-20, 0]


# --- Win --------------------------------------------------------------------------------------

def test_25_or_more_wins_at_once():
    g = new()
    g.state["scores"] = [20, 24]
    put(g, "f3", 1, 1, LR)
    put(g, "c2", 1, 2, LR)
    put(g, "d2", 1, 2, LL)
    roll(g, 3)
    ev = g.apply(0, {"type": "add", "square": "c3", "pattern": 2})
    assert g.over and g.result["winners"] == [0] and g.state["scores"] == [26, 24]
    assert g.result["reason"] == "Ann reached 26 points" and ev[-1]["type"] == "end"
    assert g.to_act() == [] and g.legal_actions(1) == [] and g.legal_actions(CHANCE) == []
    with pytest.raises(IllegalAction, match="over"):
        roll(g, 1)


def test_the_win_is_checked_after_the_penalty():
    g = new()
    g.state["scores"] = [20, 0]
    put(g, "c2", 1, 3, LR)
    put(g, "d2", 1, 3, LL)
    roll(g, 3)
    g.apply(0, {"type": "add", "square": "c3", "pattern": 3})   # 29, then the empty board: 19
    assert not g.over and g.state["scores"] == [19, 0]
    g2 = new()
    g2.state["scores"] = [24, 0]
    put(g2, "c2", 1, 4, LR)
    put(g2, "d2", 1, 4, LL)
    roll(g2, 3)
    g2.apply(0, {"type": "add", "square": "c3", "pattern": 4})  # 36, then 26: still a win
    assert g2.over and g2.result["winners"] == [0] and g2.state["scores"] == [26, 0]


# --- The end: no circle can ever be made again -----------------------------------------------

def position(g, pieces, removes):
    """Set pieces down: {square: (owner, pattern)}, all facing lower-right."""
    for sq, (owner, pattern) in pieces.items():
        put(g, sq, owner, pattern, LR)
    g.state["removes"] = list(removes)
    accounted(g)


def dead_position(scores=(7, 3)):
    """2 players, no removes left, columns a-f holding patterns (1,2) (3,4) (1,2) (3,4) (1,2)
    (3,-): every corner holds four different patterns once Ann adds her last 4 on f3."""
    g = new()
    A, B = 0, 1
    position(g, {"a2": (A, 1), "c2": (B, 1), "e2": (A, 1), "a3": (B, 2), "c3": (A, 2), "e3": (B, 2),
                 "b2": (B, 3), "d2": (A, 3), "f2": (B, 3), "b3": (A, 4), "d3": (B, 4)}, removes=(0, 0))
    g.state["scores"] = list(scores)
    return g


def test_the_game_ends_when_no_circle_can_ever_be_made_again():
    g = dead_position()
    roll(g, 1)
    ev = g.apply(0, {"type": "add", "square": "f3", "pattern": 4})
    assert g.over and g.result["reason"] == "no circle can ever be made again"
    assert g.result["winners"] == [0] and g.result["scores"] == {"Ann": 7, "Bob": 3}
    assert "Ann wins with 7" in ev[-1]["text"]


def test_the_dead_game_win_is_shared_on_a_tie():
    g = dead_position(scores=(4, 4))
    roll(g, 1)
    ev = g.apply(0, {"type": "add", "square": "f3", "pattern": 4})
    assert g.over and g.result["winners"] == [0, 1]
    assert "Ann and Bob share the win with 4" in ev[-1]["text"]


def test_a_remove_still_possible_keeps_the_game_going():
    g = dead_position()
    g.state["removes"] = [0, 1]            # Bob can still cover a 1 or a 4: the game goes on
    roll(g, 1)
    g.apply(0, {"type": "add", "square": "f3", "pattern": 4})
    assert not g.over


@pytest.mark.parametrize("removes,over", [((1, 0), False), ((0, 0), True)])
def test_a_remove_possible_after_more_pieces_are_added_keeps_the_game_going(removes, over):
    # patterns 1-3 only on the board, f3 empty, every black 4 in hand: no corner can get three
    # of a pattern, and Ann holds nothing but 4s. With a remove left she can still add a 4
    # later and cover it ("now or after more pieces are added"); without one, it is over.
    g = new()
    A, B = 0, 1
    position(g, {"a2": (A, 1), "b3": (B, 1), "d2": (A, 1), "e3": (B, 1),
                 "a3": (A, 2), "c2": (B, 2), "d3": (A, 2), "f2": (B, 2),
                 "b2": (A, 3), "c3": (B, 3), "e2": (A, 3)}, removes=removes)
    assert g.state["hands"] == [[0, 0, 0, 2], [0, 0, 1, 2]]
    roll(g, 4)
    g.apply(0, {"type": "turn", "square": "a2"})
    assert g.over == over


def test_a_corner_that_can_still_get_three_of_a_pattern_keeps_the_game_going():
    # two dotted 2s face e|f's corner area (e2, f2) with e3 and f3 empty, and Bob still holds a
    # 2: a circle of 2s can still be made there. Once that 2 is played elsewhere, none can.
    g = new()
    A, B = 0, 1
    position(g, {"a2": (A, 1), "b2": (B, 3), "c2": (B, 1), "d2": (A, 3), "e2": (A, 2), "f2": (B, 2),
                 "a3": (A, 2), "b3": (B, 4), "d3": (A, 4)}, removes=(0, 0))
    assert g.state["hands"][B][1] == 1 and g.state["hands"][A][1] == 0
    roll(g, 4)
    g.apply(A, {"type": "turn", "square": "a2"})
    assert not g.over
    roll(g, 1)
    g.apply(B, {"type": "add", "square": "c3", "pattern": 2})
    assert g.over and g.result["reason"] == "no circle can ever be made again"


# --- Time ------------------------------------------------------------------------------------

def test_each_turn_has_20_seconds_die_roll_included():
    g = new()
    t = g.view()["timer"]
    assert t["on"] and t["seconds"] == 20 and t["timed"] and t["seat"] == 0
    assert "before the die roll" in t["starts"] and t["on_expiry"] == "the turn passes with no action"
    assert g.timeout_entry() == (CHANCE, {"type": "timeout"})    # the die not rolled yet
    roll(g, 2)
    assert g.timeout_entry() == (0, {"type": "timeout"})
    assert g.turn_timer()["turn_no"] == 1


@pytest.mark.parametrize("rolled", [False, True])
def test_when_the_time_runs_out_the_turn_passes_with_no_action(rolled):
    g = new()
    roll(g, 1)
    g.apply(0, {"type": "add", "square": "c2", "pattern": 1})
    if rolled:
        roll(g, 3)                       # Bob rolled, then ran out of time choosing
    hands = [list(h) for h in g.state["hands"]]
    board = [list(x) if x else x for x in g.state["board"]]
    ev = g.expire()
    assert g.state["board"] == board and g.state["hands"] == hands == [[1, 2, 2, 2], [2, 2, 2, 2]]
    assert g.state["scores"] == [0, 0] and g.state["removes"] == [3, 3]
    assert g.state["turn"] == 0 and g.to_act() == [CHANCE] and g.state["die"] is None
    assert ev[0]["type"] == "timeout" and "Bob's 20 seconds ran out: the turn passes to Ann with no action" in ev[0]["text"]
    assert g.state["moves"] == 1 and g.turn_timer()["turn_no"] == 3
    assert g.log[-1] == ((1 if rolled else CHANCE), {"type": "timeout"})
    assert games.load(g.to_json()).state == g.state


def test_a_late_expiry_for_an_earlier_turn_is_refused():
    g = new()
    n = g.turn_timer()["turn_no"]
    roll(g, 1)
    g.apply(0, {"type": "add", "square": "a2", "pattern": 1})
    before = g.to_json()
    with pytest.raises(IllegalAction, match="was for turn 1"):
        g.expire(turn_no=n)
    assert g.to_json() == before


def test_the_table_can_turn_the_timer_off_before_starting():
    g = new(timer=False)
    assert not g.view()["timer"]["on"] and not g.view()["timer"]["timed"]
    assert g.timeout_entry() is None
    with pytest.raises(IllegalAction, match="not timed"):
        g.expire()
    roll(g, 1)
    with pytest.raises(IllegalAction, match="the timer is off"):
        g.apply(0, {"type": "timeout"})


def test_computer_players_are_not_timed():
    g = new(computer=[1])
    assert g.turn_timer()["timed"]
    roll(g, 1)
    g.apply(0, {"type": "add", "square": "a2", "pattern": 1})
    assert g.turn_timer()["seat"] == 1 and not g.turn_timer()["timed"]
    assert g.view()["players"][1]["computer"]
    roll(g, 1)
    with pytest.raises(IllegalAction, match="computer players are not timed"):
        g.apply(1, {"type": "timeout"})


def test_timeouts_are_never_listed_as_legal_actions():
    g = new()
    assert all(a["type"] == "roll" for a in g.legal_actions(CHANCE))
    roll(g, 2)
    assert all(a["type"] in ("add", "turn", "remove") for a in g.legal_actions(0))


# --- Every turn has a legal action; hands are open; seat order ----------------------------

def test_an_empty_board_means_every_piece_is_in_hand_and_can_be_added():
    g = new()
    roll(g, 1)
    acts = g.legal_actions(0)
    assert len(acts) == 12 * 4 and all(a["type"] == "add" for a in acts)


def test_a_full_board_can_always_be_turned():
    g = dead_position()
    put(g, "f3", 0, 4, LR)
    roll(g, 2)
    acts = g.legal_actions(0)
    assert {a["type"] for a in acts} == {"turn"} and len(acts) == 12


def test_hands_are_open_to_everyone():
    g = new(3)
    roll(g, 1)
    g.apply(0, {"type": "add", "square": "a2", "pattern": 3})
    v = g.view(None)
    assert v == g.view(0) == g.view(1) == g.view(2)
    assert v["hands"][0] == {"1": 2, "2": 2, "3": 1, "4": 2}


def test_play_goes_round_in_seat_order_blue_yellow_graphite_white():
    g = new(4, first=2)
    assert [p["colour"] for p in g.view()["players"]] == ["Blue", "Yellow", "Graphite", "White"]
    assert [p["letter"] for p in g.view()["players"]] == ["B", "Y", "G", "W"]
    order = []
    for _ in range(5):
        order.append(g.state["turn"])
        roll(g, 4)
        g.expire()
    assert order == [2, 3, 0, 1, 2]


# --- The page: legend, scores, what happened ------------------------------------------------

def test_the_view_shows_what_the_page_shows():
    g = new()
    put(g, "c2", 1, 3, LR)
    roll(g, 2)
    g.apply(0, {"type": "add", "square": "e3", "pattern": 4})
    v = g.view()
    cells = {sq["square"]: sq for row in v["grid"] for sq in row}
    assert cells["e3"]["piece"]["letter"] == "B" and cells["e3"]["piece"]["points"] == 4
    assert cells["e3"]["yellow"] and not cells["c3"]["yellow"]
    assert v["scores"] == [0, 0] and v["removes_left"] == [3, 3] and v["die"] is None
    assert v["what_happened"][-2:] == ["Ann rolls a 2.",
                                       "Ann adds a black 4 on e3; the 2 turns it to face upper-left."]
    text = render(v)
    assert "B4\u2196" in text and "Y3\u2198" in text and "What happened:" in text
    assert "B4UL" in render(v, ascii_only=True)
