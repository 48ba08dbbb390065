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
