"""Squaring Circleville as text and on the LED ring."""
from ringside.games.circleville import bots as B, render as R

from test_circleville_rules import P, active, game


def test_text_view_shows_sections_queue_rondel_years_mats_scores():
    g = B.play_game([B.HeuristicBot(i) for i in range(3)], seed=2, max_actions=300)
    text = R.render(g)
    for part in ("Sections", "Queue (", "Rondel", "Year track", "Achievements table", "VP", "levels R"):
        assert part in text
    assert len([ln for ln in text.splitlines() if " Q" in ln[:8]]) == 20
    assert all(len(ln) < 200 for ln in text.splitlines())
    seat = g.to_act()[0]
    assert all(isinstance(g.describe(a), str) and "{" not in g.describe(a) for a in g.legal_actions(seat))
    done = B.play_game([B.HeuristicBot(i) for i in range(3)], seed=2)
    assert "Winner" in R.render(done)


def test_rondel_scene_segments_assistants_and_pulsing_destinations():
    g = game(3)
    seat = active(g)
    for p in g.state["players"]:
        p["assistant"] = 0 if p is P(g) else 1
    sc = R.rondel_scene(g)
    assert [s["colour"] for s in sc["segments"]] == [R.RGB[c] for c in g.board["rondel"]]
    assert sc["pulse"] == [1, 2, 3]
    assert [a["space"] for a in sc["assistants"]] == [0 if i == seat else 1 for i in range(3)]
    assert len({a["colour"] for a in sc["assistants"]}) == 3


def test_terminal_player_hooks_no_flicks_no_ring_side():
    g = game(2)
    assert g.flick_request() is None and g.capabilities.ring_side is None
    assert g.render_text() == R.render(g)


def test_the_words_take_the_right_article():
    from ringside.games.circleville.engine import a_or_an
    assert a_or_an("orange") == "an orange" and a_or_an("red") == "a red"
    assert a_or_an("level five").capitalize() == "A level five"
