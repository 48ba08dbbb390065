"""Doubles, wave 2 (issue 16): the end by agreement, this version's addition (option agree_end,
docs/rules/doubles.md reading 10). It is offered through legal_actions/apply like any move, so
the terminal and the bots need nothing special."""
import pytest

from ringside.games import CHANCE, GameError, IllegalAction
from ringside.games.doubles import bots as B
from ringside.games.doubles.engine import AGREE_END_ROUNDS

from test_doubles_rules import new, position, roll

PROPOSE = {"type": "propose_end"}


def quiet_rounds(g, rounds):
    """Every player turns a piece (die 1) for `rounds` full rounds: nothing added, removed or scored."""
    n = len(g.players)
    for _ in range(rounds * n):
        seat = g.state["turn"]
        roll(g, 4)                                   # a full turn: the piece faces where it did
        sq = next(x["square"] for x in g.legal_actions(seat) if x["type"] == "turn")
        g.apply(seat, {"type": "turn", "square": sq})


def stalled(**options):
    """A full board where only Bob, behind, could still remove (which would end it, lost):
    the measured never-ending Doubles position (reading 8)."""
    g = new(2, **options)
    A, Bo = 0, 1
    position(g, {"a2": (A, 1), "c2": (Bo, 1), "e2": (A, 1), "a3": (Bo, 2), "c3": (A, 2), "e3": (Bo, 2),
                 "b2": (Bo, 3), "d2": (A, 3), "f2": (Bo, 3), "b3": (A, 4), "d3": (Bo, 4)}, removes=(0, 1))
    g.state["scores"] = [7, 3]
    roll(g, 1)
    g.apply(0, {"type": "add", "square": "f3", "pattern": 4})
    assert not g.over
    return g


def test_the_option_and_its_default():
    g = new(2)
    assert g.options["agree_end"] == AGREE_END_ROUNDS
    for bad in (0, -1, 1.5, True, "ten", 1001):
        with pytest.raises(GameError, match="agree_end"):
            new(2, agree_end=bad)
    assert new(2, agree_end=None).options["agree_end"] is None


def test_an_end_may_be_proposed_after_n_full_rounds_of_nothing_but_turns():
    g = stalled()
    n = AGREE_END_ROUNDS
    quiet_rounds(g, n)
    # Ann's add on f3 started the count; n full rounds of turns follow (Ann's first is one of them)
    roll(g, 1)
    seat = g.state["turn"]
    assert PROPOSE in g.legal_actions(seat)
    assert g.view()["agree_end"]["may_propose"] is True


def test_not_before_n_rounds_and_an_add_or_a_remove_starts_the_count_again():
    g = new(2)
    roll(g, 1)
    g.apply(0, {"type": "add", "square": "a2", "pattern": 1})
    quiet_rounds(g, AGREE_END_ROUNDS - 1)
    roll(g, 1)
    seat = g.state["turn"]
    assert PROPOSE not in g.legal_actions(seat)
    with pytest.raises(IllegalAction, match="full rounds"):
        g.apply(seat, PROPOSE)
    g.apply(seat, {"type": "add", "square": "b3", "pattern": 2})   # something happened: from 0
    assert g.state["quiet"] == 0
    quiet_rounds(g, AGREE_END_ROUNDS - 1)
    roll(g, 1)
    assert PROPOSE not in g.legal_actions(g.state["turn"])


def test_everyone_accepts_and_the_highest_score_wins():
    g = stalled()
    quiet_rounds(g, AGREE_END_ROUNDS)
    roll(g, 2)
    seat = g.state["turn"]
    ev = g.apply(seat, PROPOSE)
    assert ev[-1]["type"] == "propose_end"
    other = 1 - seat
    assert g.to_act() == [other] and g.legal_actions(other) == [{"type": "accept_end"}, {"type": "refuse_end"}]
    assert g.view()["agree_end"]["waiting_for"] == [other]
    assert g.turn_timer()["timed"] is False and g.timeout_entry() is None   # answers are not timed
    with pytest.raises(IllegalAction):
        g.apply(other, {"type": "turn", "square": "a2"})
    g.apply(other, {"type": "accept_end"})
    assert g.over and g.result["winners"] == [0] and g.result["reason"] == "the players agreed to end the game"
    assert g.result["scores"] == {"Ann": 7, "Bob": 3}


def test_with_four_players_each_other_player_answers_in_seat_order_and_ties_share():
    g = new(4)
    roll(g, 1)
    g.apply(0, {"type": "add", "square": "a2", "pattern": 1})
    g.state["scores"] = [5, 5, 2, 0]
    quiet_rounds(g, AGREE_END_ROUNDS)
    roll(g, 3)
    seat = g.state["turn"]
    g.apply(seat, PROPOSE)
    order = [(seat + k) % 4 for k in (1, 2, 3)]
    for s in order:
        assert g.to_act() == [s]
        g.apply(s, {"type": "accept_end"})
    assert g.over and g.result["winners"] == [0, 1]


def test_a_refusal_ends_the_proposers_turn_and_the_count_starts_again():
    g = stalled()
    quiet_rounds(g, AGREE_END_ROUNDS)
    roll(g, 2)
    seat = g.state["turn"]
    g.apply(seat, PROPOSE)
    g.apply(1 - seat, {"type": "refuse_end"})
    assert not g.over and g.state["phase"] == "roll" and g.state["turn"] == 1 - seat
    assert g.state["quiet"] == 0
    roll(g, 1)
    assert PROPOSE not in g.legal_actions(g.state["turn"])


def test_off_it_is_never_offered():
    g = stalled(agree_end=None)
    quiet_rounds(g, 3 * AGREE_END_ROUNDS)
    roll(g, 1)
    seat = g.state["turn"]
    assert PROPOSE not in g.legal_actions(seat)
    with pytest.raises(IllegalAction, match="off"):
        g.apply(seat, PROPOSE)


@pytest.mark.parametrize("bot", ["greedy", "strong"])
def test_computer_players_propose_and_accept_so_the_stalled_game_ends(bot):
    g = stalled()
    seats = [B.make(bot, 1, budget_s=0.05) if bot == "strong" else B.make(bot, 1),
             B.make(bot, 2, budget_s=0.05) if bot == "strong" else B.make(bot, 2)]
    steps = 0
    while not g.over and steps < 1000:
        seat = g.to_act()[0]
        g.apply(seat, g.chance_action() if seat == CHANCE else seats[seat].choose(g, seat))
        steps += 1
    assert g.over and g.result["reason"] == "the players agreed to end the game"
    assert g.result["winners"] == [0]
    kinds = [a["type"] for _, a in g.log]
    assert "propose_end" in kinds and "accept_end" in kinds


def test_without_the_option_the_same_bots_never_end_it():
    g = stalled(agree_end=None)
    bots = [B.GreedyBot(1), B.GreedyBot(2)]
    for _ in range(1000):
        seat = g.to_act()[0]
        g.apply(seat, g.chance_action() if seat == CHANCE else bots[seat].choose(g, seat))
    assert not g.over and {a["type"] for _, a in g.log[-200:]} == {"roll", "turn"}


def test_computer_players_propose_only_when_stuck_or_after_three_times_the_rounds():
    g = new(2)
    roll(g, 1)
    g.apply(0, {"type": "add", "square": "a2", "pattern": 1})
    quiet_rounds(g, AGREE_END_ROUNDS)
    roll(g, 1)
    seat = g.state["turn"]
    assert PROPOSE in g.legal_actions(seat)          # a person may propose now ...
    bot = B.GreedyBot(3)
    assert bot.choose(g, seat) != PROPOSE            # ... but circles can still be made
    g.state["quiet"] = B.PROPOSE_LATE * AGREE_END_ROUNDS * 2
    assert bot.choose(g, seat) == PROPOSE            # a locked board for three times as long
