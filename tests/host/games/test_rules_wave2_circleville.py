"""Squaring Circleville, wave 2 (issue 16): a solo seat's road cubes never count as cubes that
could be pulled back, so a solo town that cannot be finished ends. docs/rules/circleville.md
("A town that cannot be finished") and circleville-solo.md ("Running out of cubes")."""
from ringside.games import CHANCE
from ringside.games.circleville import bots as B

from solotest import game as solo_game
from test_circleville_rules import complete

SOLO = 1


def _stuck_solo_town(seed=3):
    """Every section done but 4 and 9; only the solo seat's cubes stand on their roads, enough
    to finish either one if they could be pulled back; every supply is empty."""
    g = solo_game("bertha", seed=seed)
    while g.to_act() == [CHANCE]:
        g.apply(CHANCE, g.chance_action())
    for n in range(1, 21):
        if n not in (4, 9):
            complete(g, n)
    for n, other in ((4, 9), (9, 4)):
        sec, b = g._sec(n), g.board["sections"][n]
        sec["red"] = [SOLO] * (b["red"] - 1)
        sec["blue"] = [SOLO] * (b["blue"] - 1)
    for p in g.state["players"]:
        p["supply"] = 0
    return g


def test_solo_road_cubes_are_not_counted_as_cubes_to_pull_back():
    g = _stuck_solo_town()
    # the cubes on the other section's roads would finish either one, but they are the solo
    # player's, who never pulls cubes back
    assert all(g.remaining_work(n) <= len(g._sec(m)["red"]) + len(g._sec(m)["blue"])
               for n, m in ((4, 9), (9, 4)))
    assert g.town_stuck()
    # the same cubes belonging to the person can be pulled back: not stuck
    for n in (4, 9):
        for road in ("red", "blue"):
            g._sec(n)[road] = [0] * len(g._sec(n)[road])
    assert not g.town_stuck()


def test_a_solo_town_that_cannot_be_finished_ends():
    g = _stuck_solo_town()
    bot = B.HeuristicBot(3)
    steps = 0
    while not g.over and steps < 3000:
        seat = g.to_act()[0]
        if seat == CHANCE:
            a = g.chance_action()
        elif seat == 0:
            a = bot.choose(g, 0)
        else:
            a = g.legal_actions(seat)[0]
        g.apply(seat, a)
        steps += 1
    assert g.over, "the stuck solo town did not end in %d actions" % steps
    assert "cannot be finished" in g.result["reason"]
    assert g.state["players"][SOLO]["score"] < 200


def test_the_cubes_on_built_structures_are_in_the_view():
    from test_circleville_rules import game, rondel_to
    g = game(3)
    g.state["queue"] = ["silver", "natural"]
    seat = rondel_to(g, 4, stack=["blue"])       # green space, blue tile
    g.apply(seat, {"type": "act", "colour": "green", "action": "green"})
    g.apply(seat, {"type": "build", "section": 10})
    sec = g.view(None)["sections"][9]
    assert sec["plots"][0] == "silver"
    assert sec["plot_cubes"][0] == [g.players[seat], None]
