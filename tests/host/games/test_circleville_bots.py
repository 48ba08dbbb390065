"""Squaring Circleville computer players: they play legal moves and the heuristic one squares the town."""
import random

import pytest

from ringside.games import CHANCE, IllegalAction
from ringside.games.circleville import bench, bots as B


def test_heuristic_players_complete_the_town():
    for seed in range(2):
        g = B.play_game([B.HeuristicBot(seed + i) for i in range(4)], seed=seed)
        assert g.over and g.result["reason"] == "the town is squared"
        assert all(s["done"] for s in g.state["sections"])
        assert 4 <= g.state["turns"] // 4 <= 40


def test_random_bot_moves_are_legal_and_bots_refuse_out_of_turn():
    g = B.play_game([B.RandomBot(3), B.RandomBot(4), B.RandomBot(5)], seed=3, max_actions=400)
    seat = g.to_act()[0]
    if seat != CHANCE:
        assert B.RandomBot(1).choose(g, seat) in g.legal_actions(seat)
        with pytest.raises(IllegalAction):
            B.HeuristicBot().choose(g, (seat + 1) % 3)
    with pytest.raises(ValueError, match="no Circleville bot"):
        B.make("genius")


def test_bench_reports_the_issue_fields():
    out = bench.run(2, seed=4)
    assert out["games"] == 2 and out["errors"] == 0 and out["completed_town"] == 2
    assert out["games_per_second"] > 0 and out["avg_score"] > 20 and out["avg_turns"] > 10


def test_a_whole_heuristic_game_replays_to_the_same_state():
    import ringside.games as G
    g = B.play_game([B.HeuristicBot(i) for i in range(3)], seed=11)
    again = G.load(g.to_json())
    assert g.over and again.over and again.state == g.state and again.result == g.result


def test_bots_fit_the_terminal_player():
    g = B.play_game([B.HeuristicBot(0), B.HeuristicBot(1)], seed=1, max_actions=120)
    seat = g.to_act()[0]
    for bot in (B.make("good", 1), B.make("random", 2)):
        assert bot.wants_flick(g, seat) is False and not bot.aims
        if seat != CHANCE:
            assert bot.choose(g, seat, random.Random(1)) in g.legal_actions(seat)


def test_heuristic_beats_random():
    for seed, seats in ((2, ("h", "r")), (5, ("r", "h"))):
        bots = [B.HeuristicBot(1) if s == "h" else B.RandomBot(2) for s in seats]
        g = B.play_game(bots, seed=seed, max_actions=20000)
        assert g.over
        assert g.result["winners"] == ["P%d" % (seats.index("h") + 1)]
