"""The Circle's computer players and bench: legal choices, the heuristic beats random."""
import json
import random

import pytest

from ringside import games
from ringside.games import CHANCE
from ringside.games.circle import bench, bots


def test_bots_by_level_and_unknown_level():
    assert isinstance(bots.make("good"), bots.HeuristicBot)
    assert isinstance(bots.make("heuristic"), bots.HeuristicBot)
    assert isinstance(bots.make("random"), bots.RandomBot)
    with pytest.raises(ValueError, match="no Circle bot"):
        bots.make("genius")


@pytest.mark.parametrize("n", [3, 5, 6])
def test_heuristic_self_play_only_legal_actions_to_the_end(n):
    g = games.new("circle", ["p%d" % i for i in range(n)], seed=n)
    bot = bots.make("good", seed=1)
    rng = random.Random(n)
    steps = 0
    while not g.over:
        seat = g.to_act()[0]
        a = g.chance_action() if seat == CHANCE else bot.choose(g, seat, rng)
        assert seat == CHANCE or a in g.legal_actions(seat)
        g.apply(seat, a)
        steps += 1
        assert steps < 50000
    assert g.result["winners"]


def test_heuristic_beats_three_random_players():
    r = bench.run(24, seed=11)
    json.dumps(r)
    assert r["games"] == 24 and r["errors"] == 0
    assert r["heuristic_win_rate"] >= 0.6
    lo, hi = r["heuristic_win_rate_ci95"]
    assert 0.0 <= lo <= r["heuristic_win_rate"] <= hi <= 1.0
    assert 0.0 <= r["circle_win_rate"] <= 1.0


def test_wilson_interval():
    assert bench.wilson(0, 0) == [0.0, 1.0]
    lo, hi = bench.wilson(50, 100)
    assert lo < 0.5 < hi and abs((lo + hi) / 2 - 0.5) < 1e-3
    with pytest.raises(ValueError):
        bench.run(0)


def test_bench_command_prints_json(capsys):
    assert bench.main(["-n", "2", "--seed", "5", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["games"] == 2 and set(r) >= {"errors", "heuristic_win_rate", "heuristic_win_rate_ci95", "circle_win_rate"}
    assert bench.main(["-n", "0"]) == 2
    assert "at least one game" in capsys.readouterr().out
